"""The surveillance view (/surveillance) in headless Chromium: a signed-in surveillance user sees every card as the full feed has it, the steps, and the journal's last 10 hands; nobody else gets the full feed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Browser, Page

from cli.demo import SimTable
from firmware_host.display.config import DisplayConfig
from protocol import keys
from protocol.config import ConfigError
from protocol.feed import FeedClient
from protocol.users import Users
from sim.bots.players import seat_players
from sim.keys import SimKeys
from firmware_host.service.journal import Journal
from tests.web.money import shown
from tests.web.people import person
from tests.web.screens import check_sizes
from tests.firmware_host.processes import croupier_here
from tests.web.test_accessibility import axe_violations

EVE, DAN = ("eve", "2468"), ("dan", "1357")  # a surveillance user and a dealer

# Every state the page draws: its seq, boot and the cards of the live table where they stand (the recall is apart).
SAMPLER = """
window.__samples = [];
document.addEventListener("croupier:rendered", () => {
  const root = document.querySelector("#table[data-table]");
  const where = (el) => {
    if (el.closest("[data-dealer]")) return "dealer";
    if (el.closest("[data-board]")) return "board";
    if (el.closest("[data-burns]")) return "burns";
    return "seat " + el.closest("[data-seat]").dataset.seat;
  };
  const places = {};
  for (const card of root.querySelectorAll("[data-card]")) (places[where(card)] ??= []).push(card.dataset.card);
  window.__samples.push({boot: root.dataset.boot, seq: Number(root.dataset.seq), hand: Number(root.dataset.hand),
                         phase: root.dataset.phase, places});
});
"""

# Every message of /ws/public, read by a page of its own.
PUBLIC_TAP = """
(url) => { window.__public = []; const ws = new WebSocket(url);
  ws.onmessage = (e) => window.__public.push(JSON.parse(e.data)); window.__tap = ws; }
"""


def places(state: Mapping[str, Any]) -> dict[str, list[str]]:
    """The cards of a full state where they stand, as the sampler reads them from the page."""
    out: dict[str, list[str]] = {}
    for name, cards in (("dealer", (state.get("dealer") or {}).get("cards")), ("board", state.get("board")),
                        ("burns", state.get("burns"))):
        if cards:
            out[name] = list(cards)
    for spot in state.get("spots") or []:
        if spot.get("cards"):
            out[f"seat {spot['seat']}"] = list(spot["cards"])
    return out


class FullRecord(threading.Thread):
    """Follows the table's full feed with the surveillance key; the cards of every state by (boot, seq)."""

    def __init__(self, table: SimTable, key: str) -> None:
        super().__init__(daemon=True)
        self.table, self.key = table, key
        self.by_seq: dict[tuple[str, int], dict[str, list[str]]] = {}
        self.gaps = 0
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        assert self.table.keys is not None
        client = FeedClient(ctx, self.table.endpoints.full, self.table.endpoints.full_snapshot, timeout_s=5.0,
                            key=self.key, server_key=str(self.table.keys.table_public))
        try:
            while not self.stopping.is_set():
                message = client.receive(100)
                if message is not None and client.state is not None and client.boot is not None:
                    self.by_seq[(client.boot, client.seq)] = places(client.state)
                    self.ready.set()
            self.gaps = client.gaps
        finally:
            client.close()
            ctx.destroy(linger=0)


def history_json(state_dir: Path, last: int) -> list[dict[str, Any]]:
    done = croupier_here("history", "--state", str(state_dir), "--last", str(last), "--json")  # in this process
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


class Rig:
    """A table with CURVE keys (and a surveillance certificate), a users file, and a `croupier display` with the full feed."""

    def __init__(self, root: Path, sim_table: Callable[..., SimTable], game: str = "uth", seed: int = 5,
                 language: str = "en") -> None:
        self.root = root
        self.keys = SimKeys.make(root / "keys")
        public, secret = keys.create(root / "eye", "eye", "surveillance")
        shutil.copyfile(public, self.keys.clients / public.name)
        self.eye = str(secret)
        Users({name: person(name, role, pin) for (name, pin), role in ((EVE, "surveillance"), (DAN, "dealer"))}
              ).save(root / "users.json")
        self.table = sim_table(game=game, seed=seed, seats=3, keys=self.keys)
        self.language = language
        self.log = root / "display.log"
        self.proc: subprocess.Popen[str] | None = None

    def start_display(self) -> str:
        e = self.table.endpoints
        config = self.root / "display.toml"
        config.write_text(
            f'[display]\nlisten = "127.0.0.1:0"\npublic = "{e.public}"\nsnapshot = "{e.snapshot}"\n'
            f'heartbeat_s = {self.table.heartbeat_s}\nkey = "{self.keys.display}"\nserver_key = "{self.keys.table_public}"\n'
            f'users = "{self.root / "users.json"}"\nfull = "{e.full}"\nfull_snapshot = "{e.full_snapshot}"\n'
            f'commands = "{e.commands}"\nsurveillance_key = "{self.eye}"\nlanguage = "{self.language}"\n',
            encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config),
                                      "--log-level", "INFO"], stdout=subprocess.PIPE, stderr=open(self.log, "ab"),
                                     text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        assert line, f"croupier display did not start: {self.log.read_text()[-2000:]}"
        base: str = json.loads(line)["display"]
        return base

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def rig(tmp_path: Path, sim_table: Callable[..., SimTable]) -> Iterator[Rig]:
    r = Rig(tmp_path, sim_table)
    yield r
    r.close()


def sign_in(page: Page, who: tuple[str, str]) -> None:
    page.wait_for_selector("[data-signin]")
    page.fill("[data-signin] input[name=user]", who[0])
    page.fill("[data-signin] input[name=pin]", who[1])
    page.click("[data-signin] button[type=submit]")


def test_a_surveillance_user_sees_every_card_as_the_full_feed_the_steps_and_the_journals_last_10_hands(
        rig: Rig, browser: Browser, page: Page) -> None:
    record = FullRecord(rig.table, rig.eye)
    record.start()
    assert record.ready.wait(20), "the test's own full-feed client got no snapshot"
    base = rig.start_display()
    page.add_init_script(SAMPLER)
    page.goto(f"{base}/surveillance")
    sign_in(page, EVE)
    page.wait_for_selector("#table[data-table='sim-uth-1'][data-seq]")
    tap = browser.new_page()
    tap.goto(f"{base}/table")
    tap.evaluate(PUBLIC_TAP, base.replace("http", "ws") + "/ws/public")
    dealer = rig.table.dealer(players=seat_players(3, 5), buttons=0.3)
    hands = 0
    try:
        for _ in range(11):  # a hand at a time, each drawn to its end before the next (test_a_poker_table_s_log...)
            played = dealer.play(1)
            hands += played.hands
            page.wait_for_selector(f"#table[data-hand='{played.first_hand}'][data-phase='settled'], "
                                   f"#table[data-hand='{played.first_hand + 1}']", state="attached", timeout=30_000)
    finally:
        dealer.close()
    journal = history_json(rig.table.state_dir, 10)
    last = journal[-1]["hand"]
    try:
        page.wait_for_function(f"() => document.querySelector('[data-history]').dataset.hands?.split(' ')[0] === '{last}'",
                               timeout=30_000)
    except Exception:
        pytest.fail(f"no recall of hand {last}: {page.inner_text('[data-history]')!r}, "
                    f"{page.inner_text('#recall-note')!r}; {rig.log.read_text()[-1500:]}")
    samples: list[dict[str, Any]] = page.evaluate("window.__samples")
    record.stopping.set()
    record.join(10)
    assert hands == 11 and record.gaps == 0

    hole_cards_seen = 0
    for sample in samples:  # each drawn state's cards are exactly the full feed's at that seq: no "??"
        shown = record.by_seq.get((sample["boot"], sample["seq"]))
        assert shown is not None, f"the page drew seq {sample['seq']}, which the full feed never had"
        assert sample["places"] == shown, (sample["seq"], sample["places"], shown)
        if sample["phase"] in ("preflop", "flop", "river"):
            hole_cards_seen += sum(len(c) for p, c in sample["places"].items() if p.startswith("seat "))
    assert hole_cards_seen > 0 and "??" not in json.dumps([s["places"] for s in samples])

    steps = page.eval_on_selector_all("[data-step]", "els => els.map(e => [e.dataset.step, e.textContent])")
    kinds = {kind for kind, _ in steps}
    assert {"hand", "bet", "card", "decision", "settlement"} <= kinds, kinds
    assert any(text.endswith("\u2192 dealer") for kind, text in steps if kind == "card")

    # the recall: the journal's last 10 hands, newest first, with the cards per spot in dealt order
    recalled = page.eval_on_selector_all(
        "[data-history] > [data-hand]",
        "els => els.map(e => [Number(e.dataset.hand), [...e.querySelectorAll('[data-seat]')].map(s => "
        "[Number(s.dataset.seat), [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card)])])")
    assert [hand for hand, _ in recalled] == [h["hand"] for h in reversed(journal)] and len(recalled) == 10
    for (hand, spots), line in zip(recalled, reversed(journal)):
        assert spots == [[s["seat"], s["cards"]] for s in line["round"]["spots"]], hand

    # The public bridge coalesces (a screen behind is sent the newest state, not each one), so how many states the
    # tap gets depends on the machine's load; the newest is always delivered, and the redaction is checked on each.
    tap.wait_for_function(f"() => window.__public.some(m => m.hand === {last} && m.phase === 'settled')", timeout=30_000)
    public: list[dict[str, Any]] = tap.evaluate("window.__public")
    updates = [m for m in public if m.get("kind") in ("snapshot", "update")]
    hidden = [m for m in updates if m["phase"] not in ("showdown", "settled")
              and any(spot["cards"] for spot in m["spots"])]  # states with hole cards out, still face down
    assert len({m["hand"] for m in updates}) > 1 and hidden, [(m["hand"], m["phase"]) for m in updates]
    for m in updates:  # the public bridge never carries what the full feed adds, nor a hole card before the showdown
        assert not {"burns", "discards", "devices", "sensors", "manual"} & set(m), m
        assert "detail" not in (m.get("fault") or {})
        if m["phase"] not in ("showdown", "settled"):
            assert all(card == "??" for spot in m["spots"] for card in spot["cards"]), m
            assert all(card == "??" for card in m["dealer"]["cards"]), m
    tap.close()

    assert "full feed to eve (surveillance)" in rig.log.read_text()
    check_sizes(page, "surveillance-uth")  # seed 5, 11 bot hands: the same steps and recall every run
    assert axe_violations(page) == []  # the log and the recall readable (tests/web/test_accessibility.py)


def test_without_a_surveillance_session_the_full_feed_is_refused_and_the_page_asks_to_sign_in(
        rig: Rig, browser: Browser) -> None:
    base = rig.start_display()
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        assert context.request.get(f"{base}/ws/full").status == 401  # nobody signed in
        page = context.new_page()
        page.goto(f"{base}/surveillance")
        page.wait_for_selector("[data-signin='surveillance']")
        assert page.locator("#table[data-seq]").count() == 0
        # the form first and alone: no empty dashboard above it, the whole form on the screen
        assert page.locator("#view").is_hidden() and page.locator("#steps").is_hidden()
        box = page.locator("[data-signin]").bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 1080, box
        signed = context.request.post(f"{base}/api/signin", data=json.dumps({"user": DAN[0], "pin": DAN[1]}),
                                      headers={"Content-Type": "application/json", "Origin": base})
        assert signed.status == 200 and signed.json()["role"] == "dealer"
        refused = context.request.get(f"{base}/ws/full")  # a dealer's session
        assert refused.status == 403 and "dealer may not use this page" in refused.json()["error"]
        page.goto(f"{base}/surveillance")  # the dealer's session does not open the view: the sign-in again
        page.wait_for_selector("[data-signin='surveillance']")
        sign_in(page, DAN)
        page.wait_for_selector("[data-signin-error]:not([hidden])")
        assert "needs a surveillance" in page.inner_text("[data-signin-error]")
        assert page.locator("#table[data-seq]").count() == 0
        opened = page.evaluate("""(url) => new Promise((done) => { const ws = new WebSocket(url);
            ws.onopen = () => done(true); ws.onerror = () => done(false); })""",
                               base.replace("http", "ws") + "/ws/full")
        assert opened is False
    finally:
        context.close()
    assert "full feed refused" in rig.log.read_text()


def log_of(page: Page, hand: int) -> list[tuple[str, int, str]]:
    """The step log's lines of one hand as (kind, step, words without the tag), oldest first."""
    lines: list[tuple[str, int, str]] = page.eval_on_selector_all(
        f"[data-steps] > li[data-hand='{hand}']",
        "els => els.map(e => [e.dataset.step, Number(e.dataset.stepNo), e.lastChild.textContent])")
    return [(kind, step, text) for kind, step, text in reversed(lines)]


def card_words(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}[card[1]]


def test_a_poker_table_s_log_says_every_action_in_the_trade_s_words_by_hand_and_step(
        tmp_path: Path, sim_table: Callable[..., SimTable], page: Page) -> None:
    rig = Rig(tmp_path, sim_table, game="holdem", seed=3, language="fr")
    try:
        base = rig.start_display()
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.goto(f"{base}/surveillance")
        sign_in(page, EVE)
        page.wait_for_selector("#table[data-table='sim-holdem-1'][data-seq]")
        dealer = rig.table.dealer()
        try:
            for _ in range(3):  # a hand at a time, each on the page to its last line before the next is dealt:
                # a screen that falls QUEUE_MESSAGES behind (a loaded machine) is sent the latest state instead of
                # its backlog (display/bridge.py), and a hand that ended in that backlog never gets its last lines
                hand = dealer.play(1).first_hand
                page.wait_for_function(
                    "n => [...document.querySelectorAll(`[data-steps] > li[data-hand='${n}']`)]"
                    ".some((li) => li.lastChild.textContent === `Coup ${n} pay\u00e9`)", arg=hand, timeout=30_000)
        finally:
            dealer.close()
        journal = Journal.open(rig.table.state_dir, readonly=True)
        rows = journal.hands()
        journal.close()
        last = rows[-1]
        assert [row.hand for row in rows] == [1, 2, 3]
        page.wait_for_function(f"() => document.querySelector('[data-history]').dataset.hands?.split(' ')[0] === '{last.hand}'",
                               timeout=30_000)
        for row in rows:
            said = log_of(page, row.hand)
            assert said[0][0] == "hand" and said[0][2].startswith(f"Coup {row.hand} \u2013 "), said[0]
            steps = [step for _, step, _ in said]
            assert steps == sorted(steps) and steps[-1] > 10, steps  # tagged by the hand's own step, in order
            # every action of the journal's hand record, in its order, in French words with the money
            expected = []
            for event in row.record["hand_record"]["events"]:
                kind, seat = event[0], event[1] if len(event) > 1 else None
                if kind == "raise":
                    expected.append(f"Place {seat} relance \u00e0 {shown(event[2], 'fr')}")
                elif kind == "bet":
                    expected.append(f"Place {seat} mise {shown(event[2], 'fr')}")
                elif kind == "call":
                    expected.append(f"Place {seat} suit ")
                elif kind == "check":
                    expected.append(f"Place {seat} checke")
                elif kind == "fold":
                    expected.append(f"Place {seat} se couche")
            acted = [text for kind, _, text in said if kind == "decision"
                     and " montre " not in text and " jette " not in text]
            assert len(acted) == len(expected), (acted, expected)
            for text, start in zip(acted, expected):
                assert text.startswith(start), (text, start)
            dealt = [text for kind, _, text in said if kind in ("card", "burn")]
            assert dealt == [f"{card_words(card)} \u2192 {where}" if where != "burn" else f"{card_words(card)} br\u00fbl\u00e9e"
                             for where, card in ((w.replace("seat", "place").replace("board", "tableau"), c)
                                                 for w, c in row.record["deals"])], dealt
            assert said[-1][2] == f"Coup {row.hand} pay\u00e9"
            assert not any(" : ; " in text or "net EUR" in text for _, _, text in said)
        blinds = [text for kind, _, text in log_of(page, last.hand) if kind == "bet"]
        assert blinds and all("blinde" in text for text in blinds)
        assert "relance \u00e0" in page.inner_text("[data-steps]")
        # a check done is said as done ("checke", as the console and the players' screen say it: poker_act.checks),
        # not "parole", the word a player says to check (the seeds)
        assert " checke" in page.inner_text("[data-steps]") and " parole" not in page.inner_text("[data-steps]")
        shown_text = page.inner_text("body")  # no catalog key nor an English word of the page's own
        assert not re.search(r"\b(common|surveillance|signin|phase|game|circle|decision|hand_name)\.[a-z_]+\b", shown_text)
        assert not re.search(r"\b(hand|seat|net|burns|raises|calls|folds)\b", shown_text, re.IGNORECASE), shown_text
        check_sizes(page, "surveillance-holdem-fr")  # seed 3, 3 bot hands: the French words, money as the French write it
    finally:
        page.context.close()  # the page first: the display then stops at once (tests/web/teardown.py)
        rig.close()


def test_a_page_opened_mid_hand_rebuilds_the_log_in_dealt_order(
        tmp_path: Path, sim_table: Callable[..., SimTable], page: Page) -> None:
    rig = Rig(tmp_path, sim_table)
    base = rig.start_display()
    opened: list[int] = []

    def open_mid_hand(dealer: Any, state: Mapping[str, Any]) -> None:
        if not opened and state.get("phase") == "river" and state.get("board"):
            opened.append(int(state["hand"]))
            page.goto(f"{base}/surveillance")
            sign_in(page, EVE)
            page.wait_for_selector(f"#table[data-hand='{state['hand']}'][data-phase='river']")

    dealer = rig.table.dealer(players=seat_players(3, 5), on_step=open_mid_hand)
    try:
        try:
            dealer.play(2)
        finally:
            dealer.close()
        assert opened
        hand = opened[0]
        journal = Journal.open(rig.table.state_dir, readonly=True)
        row = next(r for r in journal.hands() if r.hand == hand)
        journal.close()
        page.wait_for_selector(f"[data-steps] > li[data-hand='{hand}'][data-step='settlement']")
        said = log_of(page, hand)
        assert said[0][0] == "hand" and [step for _, step, _ in said] == sorted(step for _, step, _ in said)
        dealt = [text for kind, _, text in said if kind in ("card", "burn")]
        names = {"dealer": "dealer", "board": "board"}
        expected = [f"{card_words(card)} burnt" if where == "burn" else
                    f"{card_words(card)} \u2192 {names.get(where, where.replace('spot', 'seat'))}"
                    for where, card in row.record["deals"]]
        assert dealt == expected  # the cards dealt before the page opened, then the rest, each in dealt order
        bets = [text for kind, _, text in said if kind == "bet"]
        assert len(bets) == 3 and all(text.startswith(f"Seat {n} bets Ante") for n, text in zip((1, 2, 3), bets))
    finally:
        page.context.close()  # the page first: the display then stops at once (tests/web/teardown.py)
        rig.close()


@pytest.mark.parametrize("text, says", [
    ('full = "tcp://127.0.0.1:5558"', "[display] full, full_snapshot: give both or neither"),
    ('commands = "http://127.0.0.1:5555"', "[display] commands: must be a ZeroMQ endpoint"),
    ('surveillance_key = "/nowhere/eye.key_secret"', "[display] surveillance_key: needs server_key"),
])
def test_a_bad_surveillance_setting_is_refused_naming_the_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as refused:
        DisplayConfig.parse(f"[display]\n{text}\n", source="d.toml")
    assert says in str(refused.value)


def test_the_surveillance_settings_parse(tmp_path: Path) -> None:
    made = SimKeys.make(tmp_path)
    cfg = DisplayConfig.parse(f'[display]\nfull = "ipc:///run/t/full"\nfull_snapshot = "ipc:///run/t/fsnap"\n'
                              f'commands = "tcp://10.0.0.7:5555"\nkey = "{made.display}"\n'
                              f'server_key = "{made.table_public}"\nsurveillance_key = "{made.display}"\n')
    assert (cfg.full, cfg.full_snapshot, cfg.commands) == ("ipc:///run/t/full", "ipc:///run/t/fsnap",
                                                           "tcp://10.0.0.7:5555")
    assert cfg.surveillance_key == str(made.display)


def test_a_failed_recall_sends_the_seconds_with_the_timeout_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   ) -> None:
    from typing import get_args

    from firmware_host.display import surveillance
    from pages.words import catalogs

    monkeypatch.setattr(surveillance, "RECALL_TIMEOUT_S", 0.2)  # nobody answers: the recall gives up after it
    unset = surveillance.Recall(DisplayConfig.parse("[display]\n"))
    silent = surveillance.Recall(DisplayConfig.parse(f'[display]\ncommands = "ipc://{tmp_path}/nobody"\n'))
    try:
        failed = {"not_set_up": unset._request(10), "timeout": silent._request(10),
                  "forbidden": surveillance._recall_error("forbidden", "the table refused: forbidden"),
                  "refused": surveillance._recall_error("refused", "the table refused: no such hand")}
    finally:
        unset.close()
        silent.close()
    assert set(failed) == set(get_args(surveillance.RecallWhy))
    assert failed["timeout"] == {"kind": "history", "why": "timeout", "timeout_s": 0.2,
                                 "error": "the table did not answer within 0 s"}
    assert all("timeout_s" not in reply and reply["why"] == why for why, reply in failed.items() if why != "timeout")
    # the page's words for each (surveillance.js showRecall: {seconds} <- timeout_s, {error} <- error), EN and FR,
    # ask only for what their reply carries
    given = {why: {"error"} | ({"seconds"} if "timeout_s" in reply else set()) for why, reply in failed.items()}
    for words in catalogs().values():
        for why, fields in given.items():
            assert set(re.findall(r"\{(\w+)\}", words[f"surveillance.recall_{why}"])) <= fields, why
