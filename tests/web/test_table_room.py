"""The players' screen (/table) in Chromium: the house screen's seat to act, a fault shown as "Hand paused", the
paytables of a new game under the same profile; the poker room's screen followed through bot-played hands of
hold'em (pots and side pots, stacks, button, blinds, results against the feed and the journal), stud and a draw
game in French; bet circles read at a distance; screenshots at 1920x1080 and 1280x720."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page

from cli.demo import SimTable
from protocol.feed import FeedClient
from sim.bots.players import seat_players
from sim.bots.table import SimLimits
from sim.shoe import SimShoeClient
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import axe_violations
from tests.web.test_table_display import LAYOUT, journal

LIMITS = SimLimits(minimum=500, maximum=10000, side_minimum=100, side_maximum=5000, chip=100)

# The smallest font of any text in a bet circle, in CSS px (the issue: >= 24 at 1920x1080, >= 18 at 1280x720).
CIRCLE_FONT = """() => {
  const sizes = [];
  for (const circle of document.querySelectorAll(".circle")) {
    if (!circle.offsetParent) continue;
    for (const node of [circle, ...circle.querySelectorAll("*")]) {
      if ([...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) sizes.push(parseFloat(getComputedStyle(node).fontSize));
    }
  }
  return sizes.length ? Math.min(...sizes) : null;
}"""

# The poker screen: nothing overlaps, nothing leaves the screen, no text spills its box.
POKER_LAYOUT = """() => {
  const box = (el) => el.getBoundingClientRect();
  const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const inside = (r) => r.left >= 0 && r.top >= 0 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const problems = [];
  const blocks = [...document.querySelectorAll("#poker .p-seat, #poker .panel, #poker .felt, #poker .sign")];
  blocks.forEach((a, i) => {
    if (!inside(box(a))) problems.push(`outside: ${a.className} ${a.dataset.seat ?? ""}`);
    blocks.slice(i + 1).forEach((b) => { if (!apart(box(a), box(b))) problems.push(`overlap: ${a.className} / ${b.className}`); });
  });
  for (const row of document.querySelectorAll("#poker .felt .row")) {
    const [label, cards] = row.children;
    if (!apart(box(label), box(cards))) problems.push(`overlap: ${label.textContent} / its cards`);
  }
  for (const el of document.querySelectorAll("#poker .circle, #poker .p-stack, #poker .p-cards, #poker .p-potline, #poker .p-name, #poker .sign, #poker .panel")) {
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) problems.push(`spills: ${el.className} ${el.textContent}`);
  }
  return problems;
}"""

# What each drawn poker state shows, read off the page by its data attributes.
POKER_SAMPLER = """
window.__samples = [];
document.addEventListener("croupier:rendered", () => {
  const root = document.querySelector("[data-table]");
  if (root.dataset.kind !== "poker") return;
  const seats = {};
  for (const seat of document.querySelectorAll("#poker .p-seat[data-seat]")) {
    seats[seat.dataset.seat] = {
      stack: Number(seat.querySelector("[data-stack]").dataset.stack),
      bet: Number(seat.querySelector("[data-bet]").dataset.bet),
      cards: [...seat.querySelectorAll(".p-cards [data-card]")].map((c) => c.dataset.card),
      status: seat.dataset.status, button: !!seat.querySelector("[data-button]"),
      posted: JSON.parse(seat.querySelector("[data-posted]").dataset.posted),
      drew: seat.querySelector("[data-drew]") ? JSON.parse(seat.querySelector("[data-drew]").dataset.drew) : [],
      state: seat.querySelector(".p-state").textContent,
    };
  }
  window.__samples.push({
    boot: root.dataset.boot, seq: Number(root.dataset.seq), hand: Number(root.dataset.hand), phase: root.dataset.phase,
    total: Number(document.querySelector("[data-total-pot]").dataset.totalPot),
    pots: [...document.querySelectorAll("#poker [data-pot]")].map((p) => Number(p.dataset.amount)),
    winners: [...document.querySelectorAll("#poker [data-winner]")].map((w) => [Number(w.dataset.winner), Number(w.dataset.amount)]),
    board: [...document.querySelectorAll("#poker [data-board] [data-card]")].map((c) => c.dataset.card),
    history: [...document.querySelectorAll("[data-poker-history] [data-past-hand]")].map((p) => ({
      hand: Number(p.dataset.pastHand),
      wins: [...p.querySelectorAll("[data-net]")].map((n) => [Number(n.dataset.seat), Number(n.dataset.net)])})),
    seats, text: document.body.innerText,
  });
});
"""


class StateRecord(threading.Thread):
    """The public feed as the display follows it: the state after every message, by (boot, seq)."""

    def __init__(self, table: SimTable) -> None:
        super().__init__(daemon=True)
        self.table = table
        self.by_seq: dict[tuple[str, int], dict[str, Any]] = {}
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        client = FeedClient(ctx, self.table.endpoints.public, self.table.endpoints.snapshot, timeout_s=5.0)
        try:
            while not self.stopping.is_set():
                if client.receive(100) is not None and client.state is not None and client.boot is not None:
                    self.by_seq[(client.boot, client.seq)] = json.loads(json.dumps(client.state))
                    self.ready.set()
        finally:
            client.close()
            ctx.destroy(linger=0)


@pytest.fixture
def shown_in(tmp_path: Path) -> Iterator[Callable[[SimTable, str], str]]:
    """`shown_in(table, language)`: a `croupier display` of the table's public feed in that language; /table's URL."""
    procs: list[subprocess.Popen[str]] = []

    def start(table: SimTable, language: str) -> str:
        config = tmp_path / f"display{len(procs)}.toml"
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "{table.endpoints.public}"\n'
                          f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n'
                          f'language = "{language}"\n', encoding="utf-8")
        log = tmp_path / f"display{len(procs)}.log"
        proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                                stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier display did not start: {log.read_text()[-2000:]}"
        return str(json.loads(line)["table"])

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def circle_font(page: Page) -> float:
    size = page.evaluate(CIRCLE_FONT)
    assert size is not None, "no bet circle on show"
    return float(size)


def check_distance(page: Page) -> None:
    """Bet circles read at a distance at both sizes; back at 1920x1080."""
    assert circle_font(page) >= 24
    page.set_viewport_size({"width": 1280, "height": 720})
    assert circle_font(page) >= 18
    page.set_viewport_size({"width": 1920, "height": 1080})


# -- the house screen's bugs -------------------------------------------------------------------------

def test_the_house_screen_marks_the_seat_to_act_says_hand_paused_and_redraws_the_paytables_of_a_new_game(
        sim_table: Callable[..., SimTable], shown_in: Callable[[SimTable, str], str], page: Page) -> None:
    table = sim_table(game="uth", seed=4, seats=5, limits=LIMITS)
    page.goto(shown_in(table, "en"))
    page.wait_for_selector(f"[data-table='{table.table}']")
    marked: list[int] = []
    paused: list[str] = []
    faulted = {"done": False}

    def on_step(dealer: Any, state: Mapping[str, Any]) -> None:
        seat = state.get("to_act")
        if seat is not None and not state.get("fault") and state.get("game") == "uth":
            # the seat whose decision is awaited is marked, and said in words; unless the out-of-turn card below
            # reached the table after this step was published: the page then shows the hand paused (fault_hook's part)
            page.wait_for_selector(f"#spots [data-seat='{seat}'][data-to-act], [data-fault]:visible", timeout=15_000)
            if page.locator("[data-fault]").is_visible():
                return
            assert page.locator("#spots [data-to-act]").count() == 1
            assert f"Seat {seat} to decide" in page.locator("[data-turn]").inner_text()
            marked.append(int(seat))
            if not faulted["done"]:  # a card out of turn while seat decides: a fault the players see as paused
                faulted["done"] = True
                SimShoeClient(table.shoe_info["control"]).draw()

    def fault_hook(dealer: Any, fault: Mapping[str, Any]) -> None:
        page.wait_for_selector("[data-fault]", state="visible", timeout=15_000)
        banner = page.locator("[data-fault]").inner_text()
        paused.append(banner)
        body = page.locator("body").inner_text()
        assert str(fault.get("kind")) not in body and "unexpected" not in body.lower()
        assert page.locator("#spots [data-to-act]").count() == 0  # nobody is asked to act while the hand is paused

    dealer = table.dealer(players=seat_players(table.seats, table.seed), buttons=0.0, on_step=on_step,
                          fault_hook=fault_hook)
    try:
        dealer.play(2)
    finally:
        dealer.close()
    assert marked and paused == ["Hand paused"]
    page.wait_for_selector("[data-paytable='blind']")
    assert page.locator("[data-paytable='pair_plus']").count() == 0
    # the same profile (name and text) opened for Three Card Poker: its paytables, not UTH's
    table.game = "3cp"
    dealer = table.dealer(players=seat_players(table.seats, table.seed), buttons=0.0)
    try:
        dealer.play(1)
    finally:
        dealer.close()
    page.wait_for_selector("[data-paytable='pair_plus'] [data-pays]", timeout=15_000)
    assert page.locator("[data-paytable='blind']").count() == 0
    assert page.locator("[data-paytable='pair_plus'] [data-pays='straight'] .pays").inner_text() == "6 to 1"
    page.wait_for_selector("[data-phase='settled'] #spots .circle")
    check_distance(page)


def test_the_house_screen_in_french(sim_table: Callable[..., SimTable], shown_in: Callable[[SimTable, str], str],
                                    page: Page) -> None:
    """Every word from the French catalog: no key, no English word; money as the French write it; pays "3 pour 2"."""
    table = sim_table(game="uth", seed=8, seats=4, limits=LIMITS)
    page.goto(shown_in(table, "fr"))
    page.wait_for_selector(f"[data-table='{table.table}']")
    dealer = table.dealer(players=seat_players(table.seats, table.seed), buttons=0.0)
    try:
        dealer.play(2)
    finally:
        dealer.close()
    page.wait_for_selector("[data-hand='2'][data-phase='settled'] #spots .circle[data-result]")
    text = page.locator("body").inner_text()
    assert re.search(r"\b[a-z_]+\.[a-z_]+\b", text) is None, text  # no catalog key
    for english in ("Seat", "Hand ", "Paytables", "Last hands", " to ", "Dealer", "Board", "push", "qualifies"):
        assert english not in text, (english, text)
    assert "Coup" in text and "Place 1" in text and "DERNIERS COUPS" in text and "5,00\u00a0€" in text
    assert page.locator("[data-paytable='blind'] [data-pays='flush'] .pays").inner_text() == "3 pour 2"
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.evaluate(LAYOUT) == []  # the French words fit too ("CROUPIER" beside the dealer's cards)
    check_screenshot(page, "table-uth-fr-1920")
    page.set_viewport_size({"width": 1280, "height": 720})
    assert page.evaluate(LAYOUT) == []


# -- the poker room's screen ---------------------------------------------------------------------------

def play_poker(table: SimTable, hands: int, page: Page) -> None:
    """The poker bots deal `hands` hands; each hand's end stays on show until the page has drawn it."""
    def shown(dealer: Any, state: Mapping[str, Any]) -> None:
        if state.get("phase") == "over":
            page.wait_for_selector(f"[data-hand='{state['hand']}'][data-phase='over']", timeout=30_000)

    dealer = table.dealer(on_step=shown)
    try:
        dealer.play(hands)
    finally:
        dealer.close()


def expected(state: Mapping[str, Any]) -> dict[str, Any]:
    """A public state as the poker sampler reads it off the page."""
    results = state.get("results")
    pots = results["pots"] if results else state.get("pots") or []
    seats = {}
    for spot in state.get("spots") or []:
        to_act = state.get("to_act") == spot["seat"] and not state.get("fault")
        status = ("to_act" if to_act else "folded" if spot.get("folded") else "all_in" if spot.get("all_in")
                  else "sitting_out" if spot.get("sitting_out") else "in")
        seats[str(spot["seat"])] = {"stack": spot["stack"], "bet": (spot.get("bets") or {}).get("bet", 0),
                                    "cards": list(spot.get("cards") or []), "status": status,
                                    "button": state.get("button") == spot["seat"], "posted": spot.get("posted") or {},
                                    "drew": list(spot.get("drew") or [])}
    return {"total": state.get("total_pot") or 0, "pots": [p["amount"] for p in pots if p["amount"]],
            "winners": [[w["seat"], w["amount"]] for p in (results["pots"] if results else []) if p["amount"]
                        for w in p["winners"]],
            "board": list(state.get("board") or []), "seats": seats}


def check_poker(samples: list[dict[str, Any]], record: StateRecord) -> None:
    """Every drawn state shows what the feed sent at that seq: pots, stacks, bets, cards ("??" stays "??"),
    who acts, the button, the blinds, the draws."""
    assert samples
    for sample in samples:
        state = record.by_seq.get((sample["boot"], sample["seq"]))
        assert state is not None, f"the page drew seq {sample['seq']}, which the feed never had"
        want = expected(state)
        seats = {k: {kk: vv for kk, vv in v.items() if kk != "state"} for k, v in sample["seats"].items()}
        got = {"total": sample["total"], "pots": sample["pots"], "winners": sample["winners"], "board": sample["board"],
               "seats": seats}
        assert got == want, (sample["seq"], got, want)
        for key in ("IN_POT", "RAISE TO", "in_pot", "poker_table.", "game.", "None", "undefined"):
            assert key not in sample["text"], (key, sample["text"])


def test_the_poker_screen_follows_holdem_hands_with_side_pots_and_results(
        sim_table: Callable[..., SimTable], shown_in: Callable[[SimTable, str], str], page: Page) -> None:
    table = sim_table(game="holdem", seed=0, seats=6)
    record = StateRecord(table)
    record.start()
    assert record.ready.wait(20)
    page.add_init_script(POKER_SAMPLER)
    page.goto(shown_in(table, "en"))
    page.wait_for_selector(f"[data-table='{table.table}'][data-kind='poker']")
    hands = 6
    play_poker(table, hands, page)
    page.wait_for_selector(f"[data-hand='{hands + 1}'], [data-hand='{hands}'][data-phase='settled']")
    samples: list[dict[str, Any]] = page.evaluate("window.__samples")
    record.stopping.set()
    record.join(10)
    check_poker(samples, record)
    assert any(len(s["pots"]) > 1 for s in samples), "no side pot in these hands"
    assert any(s["status"] == "all_in" for sample in samples for s in sample["seats"].values())
    assert any("raises to " in s["text"].lower() or "bets " in s["text"].lower() for s in samples)
    blinds = [s["seats"] for s in samples if s["phase"] == "dealing"]
    assert blinds and all(sum("big_blind" in seat["posted"] for seat in sb.values()) == 1 for sb in blinds)
    # the results: each hand's winners and nets, as the journal has them
    closed = journal(table.state_dir)
    settled = {h["hand"]: h for h in closed if h["status"] == "settled"}
    assert len(settled) >= hands
    last = samples[-1]["history"]
    assert last, "no last hands listed"
    for past in last:
        nets = {x["seat"]: x["net"] for x in settled[past["hand"]]["results"]["net"]}
        assert past["wins"] == [[s, n] for s, n in sorted(nets.items()) if n > 0], past
    assert page.locator("text=Main pot").count() + page.locator("text=Pot").count() >= 1
    page.wait_for_selector("[data-kind='poker'] .circle")
    check_distance(page)
    assert page.evaluate(POKER_LAYOUT) == []
    check_screenshot(page, "table-holdem-1920")
    assert axe_violations(page) == []  # results, folded and all-in seats readable (tests/web/test_accessibility.py)
    page.set_viewport_size({"width": 1280, "height": 720})
    assert page.evaluate(POKER_LAYOUT) == []
    check_screenshot(page, "table-holdem-1280")


@pytest.mark.parametrize("game", ["stud", "five_card_draw"])
def test_stud_up_cards_and_the_draws_in_french(game: str, sim_table: Callable[..., SimTable],
                                               shown_in: Callable[[SimTable, str], str], page: Page) -> None:
    table = sim_table(game=game, seed=3, seats=5)
    record = StateRecord(table)
    record.start()
    assert record.ready.wait(20)
    page.add_init_script(POKER_SAMPLER)
    page.goto(shown_in(table, "fr"))
    page.wait_for_selector(f"[data-table='{table.table}'][data-kind='poker']")
    assert page.evaluate("document.documentElement.lang") == "fr"
    play_poker(table, 2, page)
    page.wait_for_selector("[data-hand='3'], [data-hand='2'][data-phase='settled']")
    samples: list[dict[str, Any]] = page.evaluate("window.__samples")
    record.stopping.set()
    record.join(10)
    check_poker(samples, record)
    cards = [c for s in samples for seat in s["seats"].values() for c in seat["cards"]]
    if game == "stud":  # up cards face up, down cards "??" until shown
        assert any(c != "??" for c in cards) and "??" in cards
    else:
        assert any(seat["drew"] for s in samples for seat in s["seats"].values())
        assert any("Cartes tirées" in s["text"] or "Servi" in s["text"] for s in samples)
    text = page.locator("body").inner_text()
    for english in ("Seat ", "Stack", "Hand ", "Main pot", "Fold", "Call", "Raise", "Bet "):
        assert english not in text, (english, text)
    assert "Place" in text and "Tapis" in text
    assert page.evaluate(POKER_LAYOUT) == []
    check_distance(page)
    check_screenshot(page, f"table-{game}-fr-1920")


# -- a tournament table: the director's level and clock ----------------------------------------------------------

TOURNAMENT_STATE = {
    "kind": "snapshot", "table": "T1", "boot": "0123456789abcdef", "seq": 7, "hand": 5, "phase": "betting",
    "game": "holdem", "structure": "no-limit", "stakes": {"blinds": [100, 200], "antes": 25}, "street": "flop",
    "button": 2, "to_act": 3, "board": ["As", "Kd", "7c"], "pots": [{"amount": 1500, "eligible": [1, 2, 3]}],
    "total_pot": 1900, "currency": "EUR", "decimals": 2, "fault": None, "results": None, "history": [],
    "tournament": {"name": "Sunday", "level": 3, "blinds": [100, 200], "antes": 25},
    "spots": [
        {"seat": s, "stack": stack, "in_hand": True, "cards": ["??", "??"], "up": [False, False], "folded": False,
         "all_in": False, "sitting_out": False, "bets": {"bet": bet, "in_pot": bet}, "posted": {}, "drew": [],
         "act": act} for s, stack, bet, act in (
            (1, 12500, 0, {"action": "check"}), (2, 8000, 400, {"action": "bet", "amount": 400}),
            (3, 23100, 0, None))],
}
DIRECTOR = {"kind": "snapshot", "tournament": "Sunday", "running": True, "started": True, "on_break": False,
            "left_s": 754, "level": {"number": 3, "small_blind": 100, "big_blind": 200, "ante": 25}}


def test_a_tournament_table_shows_the_level_the_clock_and_chips(page: Page, tmp_path: Path) -> None:
    """The display's WebSockets stood in for (the page as served, its feeds given): the state's `tournament`
    level on the sign, the director's clock counting down beside it, and chips (not money) at a tournament table."""
    served = shown_display(tmp_path)

    def public(ws: Any) -> None:
        ws.send(json.dumps({"kind": "hello", "heartbeat_s": 3600}))
        ws.send(json.dumps(TOURNAMENT_STATE))

    def director(ws: Any) -> None:
        ws.send(json.dumps({"kind": "hello", "heartbeat_s": 3600}))
        ws.send(json.dumps(DIRECTOR))

    page.route_web_socket("**/ws/public*", public)
    page.route_web_socket("**/ws/tournament*", director)
    try:
        page.goto(served.url)
        page.wait_for_selector("[data-kind='poker'] [data-level='3']")
        page.wait_for_function("() => document.querySelector('[data-level]').textContent.includes('left')")
        sign = page.locator("[data-level]").inner_text()
        assert sign.startswith("Level 3 · ") and sign.endswith(" left"), sign
        first = sign
        page.wait_for_function("(first) => document.querySelector('[data-level]').innerText !== first",
                               arg=first, timeout=10_000)  # the clock counts down between updates
        assert "12:3" in first or "12:2" in first
        stacks = page.locator("#poker .p-seat [data-stack]").all_inner_texts()
        assert [s.split("\n")[-1] for s in stacks] == ["12,500", "8,000", "23,100"]  # chips, not euros
        assert "Blinds 100 / 200, ante 25" in page.locator("[data-stakes]").inner_text()
        assert page.locator("#poker [data-seat='3'][data-to-act]").count() == 1
        assert page.locator("#poker [data-seat='2'] .p-state").inner_text() == "Bets 400"
        page.set_viewport_size({"width": 1280, "height": 720})
        assert page.evaluate(POKER_LAYOUT) == []
        page.screenshot(path=str(tmp_path / "tournament-1280.png"))
    finally:
        served.stop()


class Served:
    """A `croupier display` with no table behind it: the pages only (the test stands in for its feeds)."""

    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc, self.url = proc, url

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def shown_display(tmp_path: Path) -> Served:
    config = tmp_path / "pages.toml"
    config.write_text('[display]\nlisten = "127.0.0.1:0"\npublic = "ipc:///tmp/croupier-none-public"\n'
                      'snapshot = "ipc:///tmp/croupier-none-snapshot"\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    assert line, "croupier display did not start"
    return Served(proc, str(json.loads(line)["table"]))
