"""The dealer console's poker panel in Chromium: a no-limit hold'em hand with a side pot played from its buttons and amount entry."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page

from cli.demo import SimTable
from pages import words
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from protocol.users import Users
from sim.dealing import ShoeHand
from sim.shoe import SimShoeClient
from tests.web.people import person
from tests.web.teardown import screens_closer
from tests.web.money import shown as money
from tests.web.screens import check_screenshot, check_sizes
from tests.web.test_accessibility import axe_violations
from tests.firmware_host.processes import croupier_here
from tests.web.test_dealer_layout import check_targets

DEALER, DEALER_PIN = "ana", "4821"
STACKS = {1: 5000, 2: 20000, 3: 12000}  # unequal: seat 1's all-in makes a side pot between seats 2 and 3
POKER = """
[poker]
structure = "no-limit"
blinds = [100, 200]
seated = []
"""


class FeedLog(threading.Thread):
    """Every public state of the table by its `seq`, as the feed sent it (what the page must show)."""

    def __init__(self, table: SimTable) -> None:
        super().__init__(daemon=True)
        self.table = table
        self.states: dict[int, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self._halt = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        feed = FeedClient(ctx, self.table.endpoints.public, self.table.endpoints.snapshot, timeout_s=2.0)
        try:
            while not self._halt.is_set():
                try:
                    feed.receive(200)
                except TimeoutError:
                    continue
                if feed.state is not None:
                    with self.lock:
                        self.states.setdefault(feed.seq, json.loads(json.dumps(feed.state)))
        finally:
            feed.close()
            ctx.destroy(linger=0)

    def at(self, seq: int) -> dict[str, Any]:
        """The feed's state at `seq`, once this subscriber has had it (the page can be drawn from the display
        before this thread has read the same update off the feed)."""
        deadline = time.monotonic() + 10.0
        while True:
            with self.lock:
                if self.states and max(self.states) >= seq or time.monotonic() > deadline:
                    known = [s for s in self.states if s <= seq]
                    assert known, f"the feed never sent seq {seq}"
                    return self.states[max(known)]  # a heartbeat keeps the seq's state
            time.sleep(0.01)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)


@pytest.fixture
def poker_console(sim_table: Callable[..., SimTable], tmp_path: Path,
                  request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """A hold'em table (real `croupier run`, emulated shoe dealing when a card is expected, no bots), three
    players seated with unequal stacks, a dealer in its users file, and a `croupier display` with the commands
    (in the language the test asks for with `indirect`, English by default; or `{"seats": 9}`: a table of nine)."""
    close_screens = screens_closer(request)
    param = getattr(request, "param", "en")
    language, seats = (param, 6) if isinstance(param, str) else (param.get("language", "en"), param["seats"])
    table = sim_table(game="holdem", seats=seats, sections=POKER, table="poker-1")
    assert table.supervisor is not None
    users = Users.load(table.users_path)  # the table's supervisor (its PIN drawn at the start) and the dealer
    users.by_name[DEALER] = person(DEALER, "dealer", DEALER_PIN)
    users.save(table.users_path)
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, table.endpoints.commands, timeout_s=3.0, name="floor")
    try:  # the floor seats the players between hands (not the console's part)
        for seat, chips in STACKS.items():
            reply = client.request("seat", seat=seat, action="join", amount=chips)
            assert reply["ok"], reply
    finally:
        client.close()
        ctx.destroy(linger=0)
    shoe = ShoeHand(table.endpoints, table.shoe_info["control"], seed=table.seed)
    shoe.start()
    feed = FeedLog(table)
    feed.start()
    config = tmp_path / "display.toml"
    config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "{table.endpoints.public}"\n'
                      f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n'
                      f'commands = "{table.endpoints.commands}"\nusers = "{table.users_path}"\n'
                      f'language = "{language}"\n', encoding="utf-8")
    log = tmp_path / "display.log"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier display did not start: {log.read_text()[-2000:]}"
        yield {"table": table, "feed": feed, "ready": json.loads(line)}
    finally:
        close_screens()  # the test's pages first: the display then stops at once
        proc.terminate()
        shoe.stop()  # the threads' stops (up to a receive's 0.2 s each) while the display exits
        feed.stop()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _sign_in(page: Page, base: str) -> None:
    """Open the console and sign in as the dealer with the sign-in form."""
    page.goto(f"{base}/dealer")
    page.fill("[data-signin] input[name=user]", DEALER)
    page.fill("[data-signin] input[name=pin]", DEALER_PIN)
    page.click("[data-signin] button[type=submit]")
    page.wait_for_selector("[data-poker]")


def _panel(page: Page) -> dict[str, Any]:
    """What the panel shows, by its data attributes."""
    return page.evaluate("""() => {
      const root = document.querySelector('[data-poker]');
      if (!root) return null;
      const seat = root.querySelector('[data-seat][data-to-act]');
      return {
        seq: Number(root.dataset.seq), phase: root.dataset.phase, hand: root.dataset.hand,
        to_act: seat ? Number(seat.dataset.seat) : null,
        busy: 'busy' in root.dataset,
        actions: [...root.querySelectorAll('[data-actions] [data-action]')].map((b) => b.dataset.action),
        pots: [...root.querySelectorAll('[data-pot]')].map((p) => ({
          amount: Number(p.dataset.amount), eligible: p.dataset.eligible.split(' ').filter(Boolean).map(Number),
          winners: p.querySelector('[data-winners]') ? [...p.querySelectorAll('[data-winner]')].map(
            (w) => ({seat: Number(w.dataset.winner), amount: Number(w.dataset.amount)})) : null})),
        stacks: Object.fromEntries([...root.querySelectorAll('[data-seat]')].map(
          (s) => [s.dataset.seat, Number(s.dataset.stack)])),
        refusal: root.querySelector('[data-refusal]')?.dataset.reason ?? null,
      };
    }""")


def _wait_for(page: Page, test: Callable[[dict[str, Any]], bool], what: str, timeout_s: float = 20.0,
              read: Callable[[Page], dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """What `read` (the panel's attributes by default) gives once `test` holds on it and no command is in flight."""
    read = read or _panel
    deadline = timeout_s * 1000
    waited = 0
    while waited < deadline:
        shown = read(page)
        if shown is not None and not shown["busy"] and test(shown):
            return shown
        page.wait_for_timeout(50)
        waited += 50
    raise AssertionError(f"the console never showed {what}: {read(page)}")


def _dealt(page: Page, poker_console: dict[str, Any]) -> tuple[SimTable, FeedLog, dict[str, str]]:
    """The console signed in at 1280x800 and a hand dealt from it: the table, its feed's log, its supervisor."""
    table: SimTable = poker_console["table"]
    floor = table.supervisor
    assert floor is not None
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    page.click('[data-poker] [data-action="deal"]')
    return table, poker_console["feed"], floor


def _pots(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"amount": p["amount"], "eligible": p["eligible"]} for p in state["pots"]]


def test_side_pot_hand_played_from_the_console(page: Page, poker_console: dict[str, Any], tmp_path: Path) -> None:
    table: SimTable = poker_console["table"]
    feed: FeedLog = poker_console["feed"]
    base = poker_console["ready"]["display"]
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, base)
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    page.click('[data-poker] [data-action="deal"]')

    acted: list[tuple[str, int, str]] = []
    refused = said = ""
    screenshot = False
    for _ in range(40):
        shown = _wait_for(page, lambda s: s["to_act"] is not None or s["phase"] == "over", "a seat to act or the end")
        state = feed.at(shown["seq"])
        assert state.get("results") is not None or _pots(shown) == _pots(state), (shown["pots"], state["pots"])
        # never the house games' "Confirm payouts" (nor their Deal): the panel shows the poker step the state allows
        assert page.locator("#confirm").is_hidden() and page.locator("#deal").is_hidden(), state["phase"]
        if shown["phase"] == "over":
            break
        seat, street = shown["to_act"], state["street"]
        assert seat == state["to_act"]
        legal = state["legal"]
        if street == "preflop":
            action = "all_in" if seat == 1 else "call"
            page.click(f'[data-poker] [data-actions] [data-action="{action}"]')
        elif street == "flop" and legal["bet_or_raise"] and legal["bet_or_raise"]["kind"] == "bet":
            if not refused:  # below the minimum bet: the controller refuses, the page says why
                page.fill("[data-poker] [data-actions] [data-amount]", "0.50")
                page.click('[data-poker] [data-actions] [data-action="bet"]')
                refused = _wait_for(page, lambda s: s["refusal"] is not None, "the refusal")["refusal"]
                said = page.locator("[data-poker] [data-refusal]").inner_text()  # the controller's say, in money
                page.screenshot(path=str(_shots(tmp_path) / "dealer-poker-refusal.png"))
            page.fill("[data-poker] [data-actions] [data-amount]", "10.00")
            action = "bet"
            page.click('[data-poker] [data-actions] [data-action="bet"]')
        elif legal["call"]:
            action = "call"
            page.click('[data-poker] [data-actions] [data-action="call"]')
        elif legal["check"]:
            action = "check"
            page.click('[data-poker] [data-actions] [data-action="check"]')
        elif legal["show"]:
            action = "show"
            page.click('[data-poker] [data-actions] [data-action="show"]')
        else:
            raise AssertionError(f"no plan for {state['prompt']}")
        acted.append((street, seat, action))
        page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                               arg=shown["seq"])
        if street == "turn" and not screenshot:
            page.screenshot(path=str(_shots(tmp_path) / "dealer-poker-1280x800.png"))
            screenshot = True
            for size in ({"width": 1280, "height": 800}, {"width": 1280, "height": 720}):  # 48 px, 8 px apart
                page.set_viewport_size(size)
                check_targets(page, f"the poker console at {size}")
            page.set_viewport_size({"width": 1280, "height": 800})
            assert axe_violations(page) == []  # mid-hand: the buttons, the amount entry (labelled) readable
    else:
        raise AssertionError(f"the hand did not end: {acted}")

    assert refused.startswith("Seat 2: a bet of EUR 0.50 is below the minimum bet"), refused  # the English error
    assert said.startswith("Seat 2: a bet of €0.50 is below the minimum bet €"), said
    assert ("preflop", 1, "all_in") in acted and ("flop", 2, "bet") in acted
    over = _panel(page)
    state = feed.at(over["seq"])
    results = state["results"]
    assert len(results["pots"]) == 2 and results["pots"][1]["eligible"] == [2, 3], results  # the side pot
    assert over["pots"] == [{"amount": p["amount"], "eligible": p["eligible"],
                             "winners": [{"seat": w["seat"], "amount": w["amount"]} for w in p["winners"]]}
                            for p in results["pots"]]
    # the side pot's results before the confirm (no seed given: the sim table's default, the same cards every run)
    check_sizes(page, "dealer-poker-results", ("tablet", "1920", "1280"))
    assert axe_violations(page) == []  # the results readable (tests/web/test_accessibility.py)
    page.click('[data-poker] [data-actions] [data-action="confirm"]')
    settled = _wait_for(page, lambda s: s["phase"] == "settled", "the settled hand")

    out = croupier_here("history", "--state", str(table.state_dir), "--json")  # in this process: no start-up
    assert out.returncode == 0, out.stderr
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["status"] == "settled"
    start = {int(s): c for s, c in line["hand_record"]["stacks"].items()}
    journal = {str(n["seat"]): start[n["seat"]] + n["net"] for n in line["results"]["net"]}
    assert settled["stacks"] == journal
    assert [p["amount"] for p in line["results"]["pots"]] == [p["amount"] for p in over["pots"]]
    assert sum(journal.values()) == sum(STACKS.values())  # no rake: the chips only moved
    # the next hand dealt from the same console: the settled hand stays on screen until then, and its Deal is the
    # next hand's (a dealer's second hand was refused as "for hand 1" when the console sent the hand it showed)
    page.click('[data-poker] [data-action="deal"]')
    second = _wait_for(page, lambda s: s["to_act"] is not None or s["refusal"] is not None, "the next hand's first seat")
    assert second["refusal"] is None and second["hand"] == str(int(settled["hand"]) + 1), second


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_chop_signed_off_on_the_console(page: Page, poker_console: dict[str, Any]) -> None:
    table: SimTable = poker_console["table"]
    feed: FeedLog = poker_console["feed"]
    floor = table.supervisor
    assert floor is not None
    base = poker_console["ready"]["display"]
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, base)
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    page.click('[data-poker] [data-action="deal"]')
    shown = _wait_for(page, lambda s: s["to_act"] is not None, "the first seat to act")
    page.click('[data-poker] [data-actions] [data-action="call"]')
    page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                           arg=shown["seq"])
    _wait_for(page, lambda s: "chop" in s["actions"], "the chop button")
    page.click('[data-poker] [data-action="chop"]')
    page.fill("[data-poker] [data-signoff] [data-signoff-user]", floor["user"])
    page.fill("[data-poker] [data-signoff] [data-signoff-pin]", "00000000" if floor["pin"] != "00000000" else "11111111")
    page.click('[data-poker] [data-signoff] [data-action="chop-confirm"]')
    refusal = _wait_for(page, lambda s: s["refusal"] is not None, "the refused sign-off")["refusal"]
    assert refusal.startswith("chop: "), refusal  # the controller's own reason, as it gave it
    assert feed.at(_panel(page)["seq"])["phase"] == "betting"  # nothing changed
    page.fill("[data-poker] [data-signoff] [data-signoff-pin]", floor["pin"])
    page.click('[data-poker] [data-signoff] [data-action="chop-confirm"]')
    over = _wait_for(page, lambda s: s["phase"] == "over" and s["refusal"] is None, "the chopped hand")
    results = feed.at(over["seq"])["results"]
    assert results["chopped"] and len(results["pots"]) == 2, results
    assert [[(w["seat"], w["amount"]) for w in p["winners"]] for p in results["pots"]] == \
        [[(w["seat"], w["amount"]) for w in p["winners"]] for p in over["pots"]]
    assert page.locator("[data-poker] [data-signoff]").is_hidden()
    page.click('[data-poker] [data-actions] [data-action="confirm"]')
    settled = _wait_for(page, lambda s: s["phase"] == "settled", "the settled hand")
    out = croupier_here("history", "--state", str(table.state_dir), "--json")  # in this process: no start-up
    assert out.returncode == 0, out.stderr
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["status"] == "settled" and line["chopped"] is True
    start = {int(s): c for s, c in line["hand_record"]["stacks"].items()}
    assert settled["stacks"] == {str(n["seat"]): start[n["seat"]] + n["net"] for n in line["results"]["net"]}


def _panel_and_clock(page: Page) -> dict[str, Any] | None:
    """The panel and its clock read of one drawn state (the same `seq` before and after: the page may draw the next
    state between two reads), else None."""
    before = _panel(page)
    clock = _clock(page)
    after = _panel(page)
    if before is None or after is None or before["seq"] != after["seq"]:
        return None
    return {**after, "clock": clock}


def _clock(page: Page) -> dict[str, Any] | None:
    """The seat on the clock and the seconds its countdown shows, or None."""
    return page.evaluate("""() => {
      const seat = document.querySelector('[data-poker] [data-seat][data-on-clock]');
      if (!seat) return null;
      return {seat: Number(seat.dataset.seat), left: seat.querySelector('[data-clock-ends]').textContent};
    }""")


def test_the_clock_called_on_the_console_counts_down_and_a_clock_run_out_folds_the_seat(
        page: Page, poker_console: dict[str, Any], tmp_path: Path) -> None:
    table, feed, floor = _dealt(page, poker_console)
    first = _wait_for(page, lambda s: s["to_act"] is not None and "clock" in s["actions"], "the first seat to act")
    page.click('[data-poker] [data-actions] [data-action="clock"]')
    assert page.locator('[data-poker] [data-signoff="clock"]').is_visible()
    page.fill("[data-poker] [data-signoff] [data-signoff-user]", floor["user"])
    page.fill("[data-poker] [data-signoff] [data-signoff-pin]", floor["pin"])
    page.click('[data-poker] [data-signoff] [data-action="clock-confirm"]')
    shown = _wait_for(page, lambda s: s["clock"] is not None, "the seat on the clock", read=_panel_and_clock)
    clock = feed.at(shown["seq"])["clock"]
    assert clock["seat"] == first["to_act"] and clock["seconds"] == 60  # on the public feed, as the panel shows it
    on = _clock(page)
    assert on is not None and on["seat"] == first["to_act"] and on["left"] in ("60 s", "59 s", "58 s"), on
    assert "clock" not in shown["actions"] and page.locator("[data-poker] [data-signoff]").is_hidden()
    page.screenshot(path=str(_shots(tmp_path) / "poker_clock.png"))
    page.click('[data-poker] [data-actions] [data-action="call"]')  # he acts: the clock ends
    second = _wait_for(page, lambda s: s["to_act"] not in (None, first["to_act"]), "the next seat to act")
    assert _clock(page) is None and feed.at(second["seq"])["clock"] is None
    # the floor calls the clock from the pit on the next seat, 5 s: it runs out, his hand is dead
    ctx: zmq.Context[Any] = zmq.Context()
    pit = CommandClient(ctx, table.endpoints.commands, timeout_s=3.0, name="floor")
    try:
        reply = pit.request("clock", seconds=5, auth={"user": floor["user"], "pin": floor["pin"]})
        assert reply["ok"], reply
    finally:
        pit.close()
        ctx.destroy(linger=0)
    _wait_for(page, lambda s: _clock(page) is not None and _clock(page)["seat"] == second["to_act"], "the pit's clock")
    out = _wait_for(page, lambda s: s["to_act"] != second["to_act"] and _clock(page) is None, "the dead hand", 15.0)
    state = feed.at(out["seq"])
    assert next(s for s in state["spots"] if s["seat"] == second["to_act"])["folded"]


def _step(page: Page) -> dict[str, Any]:
    """The face-up step the panel shows: its prompt, the seat marked due, each seat's step cards and the button."""
    return page.evaluate("""() => {
      const root = document.querySelector('[data-poker]');
      const prompt = root.querySelector('[data-prompt]');
      const due = root.querySelector('[data-seat][data-due]');
      const button = root.querySelector('[data-seat][data-button]');
      return {seq: Number(root.dataset.seq), busy: 'busy' in root.dataset, kind: prompt.dataset.prompt, text: prompt.textContent,
              due: due ? Number(due.dataset.seat) : null, button: button ? Number(button.dataset.seat) : null,
              cards: Object.fromEntries([...root.querySelectorAll('[data-seat]')].map((s) => [s.dataset.seat,
                (s.querySelector('[data-step-cards]')?.dataset.stepCards ?? '').split(' ').filter(Boolean)])),
              stacks: Object.fromEntries([...root.querySelectorAll('[data-seat]')].map(
                (s) => [s.dataset.seat, Number(s.dataset.stack)]))};
    }""")


def _step_until(page: Page, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    return _wait_for(page, test, what, read=_step)


def test_the_chip_race_and_the_button_draw_are_prompted_seat_by_seat_on_the_console(
        page: Page, poker_console: dict[str, Any], tmp_path: Path) -> None:
    """The floor's `race` and `button-draw` between hands: the console tells the dealer whose face-up card is due,
    shows each card at its seat as the shoe reads it, then the race's result and the button drawn, as the feed has them."""
    table: SimTable = poker_console["table"]
    feed: FeedLog = poker_console["feed"]
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    shoe = SimShoeClient(table.shoe_info["control"])
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, table.endpoints.commands, timeout_s=3.0, name="floor")
    try:
        # 1,000s coloured up into 3,000s: seat 1 (5,000) and seat 2 (20,000) have two odd chips each, seat 3 none
        floor = table.supervisor
        assert floor is not None
        signed = {"user": floor["user"], "pin": floor["pin"]}  # the floor's (the tournament director's keys in a room)
        reply = client.request("race", colour=1000, into=3000, by="tournament", ref="break-1", auth=signed)
        assert reply["ok"], reply
        shown = _step_until(page, lambda s: s["kind"] == "race" and s["due"] == 1, "the race's first card due")
        assert "chips of €10.00 into €30.00" in shown["text"], shown
        assert shown["text"].endswith("deal a card face up to seat 1"), shown
        dealt: list[str] = []
        for due in (1, 1, 2, 2):
            _step_until(page, lambda s, due=due: s["due"] == due and sum(map(len, s["cards"].values())) == len(dealt),
                        f"seat {due}'s race card due")
            dealt.append(shoe.draw().split()[-1].split(":")[-1])
        done = _step_until(page, lambda s: s["due"] is None and "Chip race run" in s["text"], "the race run")
        race = feed.at(done["seq"])["race"]
        assert race["done"] and done["cards"] == {"1": dealt[:2], "2": dealt[2:], "3": []}
        assert done["stacks"] == {str(s["seat"]): s["after"] for s in race["seats"]} | {"3": 12000}
        assert f"a chip won by seat {race['winners'][0]}" in done["text"] and race["chips_won"] == 1, (done, race)
        page.screenshot(path=str(_shots(tmp_path) / "dealer-poker-race.png"))

        reply = client.request("button-draw", by="tournament", ref="start", auth=signed)
        assert reply["ok"], reply
        drawn: list[str] = []
        for due in (1, 2, 3):
            _step_until(page, lambda s, due=due: s["kind"] == "button-draw" and s["due"] == due
                        and sum(map(len, s["cards"].values())) == len(drawn), f"seat {due}'s draw card due")
            drawn.append(shoe.draw().split()[-1].split(":")[-1])
        done = _step_until(page, lambda s: s["text"].startswith("Button drawn"), "the button drawn")
        draw = feed.at(done["seq"])["button_draw"]
        assert done["cards"] == {"1": drawn[:1], "2": drawn[1:2], "3": drawn[2:]}
        assert draw["done"] and done["text"] == f"Button drawn: seat {draw['button']}" and done["button"] == draw["button"]
    finally:
        client.close()
        ctx.destroy(linger=0)
        shoe.close()
    page.click('[data-poker] [data-action="deal"]')  # the next hand: the step is gone, the hand's prompt back
    dealt_hand = _step_until(page, lambda s: s["kind"] == "" and not any(s["cards"].values()), "the prompt of the hand")
    assert feed.at(dealt_hand["seq"])["button"] == draw["button"] == dealt_hand["button"]  # the hand dealt from it


@pytest.mark.parametrize("poker_console", ["fr"], indirect=True)
def test_the_poker_console_in_french(page: Page, poker_console: dict[str, Any]) -> None:
    """Every word of the poker panel from the French catalog (the trade's words), money as the French write it."""
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    assert page.locator('[data-poker] [data-action="deal"]').inner_text() == "Distribuer le coup suivant"
    page.click('[data-poker] [data-action="deal"]')
    _wait_for(page, lambda s: s["to_act"] is not None and "fold" in s["actions"], "the first seat to act")
    text = page.locator("body").inner_text()
    assert not re.search(r"\b(?:console|common|poker_console|refusal|fault|signin)\.[a-z_]+\b", text), text
    assert "Se coucher" in text and "Suivre" in text and "Place 1" in text, text
    assert f"Blindes {money(100, lang='fr')} / {money(200, lang='fr')}" in text, text
    check_screenshot(page, "dealer-poker-fr-1280x800")
    page.click('[data-poker] [data-actions] [data-action="call"]')  # seat 3 calls: his action in French, in money
    page.wait_for_function("() => document.querySelector('[data-poker] [data-seat=\"3\"] .pseat-status')?.textContent"
                           " === 'suit 2,00\u00a0€'")
    # the hand played down to its showdown: every seat's action and shown hand in French, from the state's records
    # (`act`, `hand_values`), never from the controller's English
    for _ in range(40):
        shown = _wait_for(page, lambda s: s["to_act"] is not None or s["phase"] == "over", "a seat to act or the end")
        if shown["phase"] == "over":
            break
        action = next(a for a in ("check", "call", "show") if a in shown["actions"])
        page.click(f'[data-poker] [data-actions] [data-action="{action}"]')
        page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                               arg=shown["seq"])
    else:
        raise AssertionError("the hand did not end")
    french = words.catalogs()["fr"]
    names = page.locator("[data-poker] .pseat .hand-name").all_inner_texts()
    ranked = [re.compile(re.sub(r"\\\{[a-z_0-9]+\\\}", ".+", re.escape(v))) for k, v in french.items()
              if k.startswith("hand_ranked.")]  # each hand named in French with its ranks: "Paire de rois"
    assert names and all(any(r.fullmatch(n) for r in ranked) for n in names), names
    statuses = [s for s in page.locator("[data-poker] .pseat-status").all_inner_texts() if s]
    english = {v for k, v in words.catalogs()["en"].items() if k.startswith("poker_act.")}
    assert statuses and not any(re.match(r"(checks|calls|shows|folds)\b", s) for s in statuses), statuses
    assert not set(statuses) & english, statuses


def test_a_void_signed_off_on_the_console_lists_what_each_seat_put_in_the_pot(
        page: Page, poker_console: dict[str, Any]) -> None:
    """Voided on the flop after a bet and a call: each seat's line is what it put in this hand (its blind, its call,
    its bet), once; the street's bet is part of it, not added again ("bet 4.00, in_pot 6.00 · total 10.00" was
    shown, and the feed's `in_pot` key as it is)."""
    table, feed, floor = _dealt(page, poker_console)
    hand = _wait_for(page, lambda s: s["to_act"] is not None, "the first seat to act")["hand"]
    for _ in range(3):  # pre-flop: the button and the small blind call, the big blind checks
        shown = _wait_for(page, lambda s: s["to_act"] is not None and ("call" in s["actions"] or "check" in s["actions"]),
                          "a call or a check")
        page.click('[data-poker] [data-actions] [data-action="%s"]' % ("call" if "call" in shown["actions"] else "check"))
        page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                               arg=shown["seq"])
    _wait_for(page, lambda s: s["to_act"] is not None and "bet" in s["actions"], "a bet on the flop")
    page.click('[data-poker] [data-actions] [data-action="bet"]')
    called = _wait_for(page, lambda s: s["to_act"] is not None and "call" in s["actions"], "a call of the bet")
    page.click('[data-poker] [data-actions] [data-action="call"]')
    page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                           arg=called["seq"])
    before = feed.at(_panel(page)["seq"])
    put_in = {s["seat"]: s["bets"]["in_pot"] for s in before["spots"] if s.get("bets", {}).get("in_pot")}
    assert any(s["bets"]["bet"] and s["bets"]["in_pot"] > s["bets"]["bet"] for s in before["spots"] if s.get("bets")), \
        before["spots"]  # a street's bet beside what came before it: the case that was counted twice
    page.click("#void")
    page.fill("#signoff input[name=user]", floor["user"])
    page.fill("#signoff input[name=pin]", floor["pin"])
    page.click("#signoff-send")
    page.wait_for_selector("[data-returns]:not([hidden])")
    lines = page.locator("[data-returns] li")
    got = {int(lines.nth(i).get_attribute("data-seat") or 0): (int(lines.nth(i).get_attribute("data-total") or 0),
                                                                   lines.nth(i).inner_text())
           for i in range(lines.count())}
    assert got == {seat: (chips, f"Seat {seat}: {money(chips)}") for seat, chips in put_in.items()}
    assert sum(put_in.values()) == before["total_pot"]  # every chip in the middle goes back, none twice
    _wait_for(page, lambda s: s["hand"] != hand, "the next hand after the void")
