"""The table display (/table) in headless Chromium following 12 bot-played hands of UTH and 12 of 3CP: no card before the rules reveal it, results and the last 10 hands equal to the journal's, a late page converging, offline and back after a SIGKILL, screenshots equal to their references."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import zmq
from playwright.sync_api import Browser, Page

from cli.demo import SimTable
from protocol.feed import FeedClient
from sim.bots.players import seat_players
from sim.bots.table import SimLimits
from tests.web.screens import check_screenshot
from tests.web.money import shown
from tests.firmware_host.processes import croupier_here
from tests.web.test_accessibility import axe_violations

HANDS = 12  # more than the 10 last hands the screen lists: its history window full, then sliding (two hands)
LATE_AFTER = 10  # the late page opens after this many hands: its window full from the snapshot
LIMITS = SimLimits(minimum=500, maximum=10000, side_minimum=100, side_maximum=5000, chip=100)

# Every render of the page (the page fires `croupier:rendered` after drawing each state) is sampled:
# the seq and boot it drew, every card and bet circle result where it stands (the table's, not the
# last hands' list), and the last hands as listed.
SAMPLER = """
window.__samples = [];
document.addEventListener("croupier:rendered", () => {
  const root = document.querySelector("[data-table]");
  const live = (el) => !el.closest("[data-history]");
  const where = (el) => {
    if (el.closest("[data-dealer]")) return "dealer";
    if (el.closest("[data-board]")) return "board";
    return "seat " + el.closest("[data-seat]").dataset.seat;
  };
  const places = {};
  for (const card of [...document.querySelectorAll("[data-card]")].filter(live)) {
    (places[where(card)] ??= []).push(card.dataset.card);
  }
  window.__samples.push({
    boot: root.dataset.boot, seq: Number(root.dataset.seq), hand: Number(root.dataset.hand),
    phase: root.dataset.phase, places,
    results: [...document.querySelectorAll("[data-result]")].filter(live).map((c) => [
      Number(c.closest("[data-seat]").dataset.seat), c.dataset.circle, Number(c.dataset.result)]),
    history: window.__history(),
  });
});
window.__history = () => [...document.querySelectorAll("[data-history] [data-hand]")].map((past) => ({
  hand: Number(past.dataset.hand), voided: past.hasAttribute("data-voided"),
  dealer: [...past.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
  spots: [...past.querySelectorAll("[data-seat]")].map((s) => [Number(s.dataset.seat), JSON.parse(s.dataset.results)]),
}));
"""

# Nothing overlaps and nothing spills: the spots side by side inside the screen, the panels apart,
# no text wider than its box.
LAYOUT = """() => {
  const box = (el) => el.getBoundingClientRect();
  const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const inside = (r) => r.left >= 0 && r.top >= 0 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const problems = [];
  const blocks = [...document.querySelectorAll("#spots [data-seat], .panel, .felt, .sign")];
  blocks.forEach((a, i) => {
    if (!inside(box(a))) problems.push(`outside: ${a.className} ${a.dataset.seat ?? ""}`);
    blocks.slice(i + 1).forEach((b) => { if (!apart(box(a), box(b))) problems.push(`overlap: ${a.className} / ${b.className}`); });
  });
  for (const row of document.querySelectorAll(".felt .row")) {  // a label ("DEALER", "CROUPIER") never over its cards
    const [label, cards] = row.children;
    if (!apart(box(label), box(cards))) problems.push(`overlap: ${label.textContent} / its cards`);
  }
  for (const el of document.querySelectorAll(".circle, .spot .cards, .paytable, .past, .sign, .panel")) {
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) problems.push(`spills: ${el.className} ${el.textContent}`);
  }
  return problems;
}"""


def places(state: Mapping[str, Any]) -> dict[str, list[str]]:
    """The cards of a public state where they stand, as the sampler reads them from the page."""
    out: dict[str, list[str]] = {}
    dealer = (state.get("dealer") or {}).get("cards") or []
    if dealer:
        out["dealer"] = list(dealer)
    if state.get("board"):
        out["board"] = list(state["board"])
    for spot in state.get("spots") or []:
        if spot.get("cards"):
            out[f"seat {spot['seat']}"] = list(spot["cards"])
    return out


class FeedRecord(threading.Thread):
    """Follows the same public feed as the display; the cards of the state after every message, by (boot, seq)."""

    def __init__(self, public: str, snapshot: str) -> None:
        super().__init__(daemon=True)
        self.public, self.snapshot = public, snapshot
        self.by_seq: dict[tuple[str, int], dict[str, list[str]]] = {}
        self.last: dict[str, Any] = {}
        self.gaps = 0
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        client = FeedClient(ctx, self.public, self.snapshot, timeout_s=5.0)
        try:
            while not self.stopping.is_set():
                message = client.receive(100)
                if message is not None and client.state is not None and client.boot is not None:
                    self.by_seq[(client.boot, client.seq)] = places(client.state)
                    self.last = dict(client.state)
                    self.ready.set()
            self.gaps = client.gaps
        finally:
            client.close()
            ctx.destroy(linger=0)


def journal(state_dir: Path) -> list[dict[str, Any]]:
    """Every finished hand as `croupier history --json` prints it (run in this process: the same code, no start-up)."""
    done = croupier_here("history", "--state", str(state_dir), "--last", "0", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def journal_history(hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The journal's last 10 hands as the page lists them (latest first): number, voided, the
    dealer's cards (a settled hand is shown down), each spot's per-circle nets."""
    out = []
    for hand in reversed(hands[-10:]):
        settlement = hand.get("settlement")
        voided = hand["status"] == "voided"
        out.append({"hand": hand["hand"], "voided": voided,
                    "dealer": [] if voided else list(hand["round"]["dealer"]),
                    "spots": [] if voided else [[spot["seat"], spot["results"]] for spot in settlement["spots"]]})
    return out


def follow(table: SimTable, page: Page, display: Callable[[SimTable], dict[str, Any]]) -> FeedRecord:
    """The test's own feed client and the page on the display, both following the table."""
    record = FeedRecord(table.endpoints.public, table.endpoints.snapshot)
    record.start()
    assert record.ready.wait(20), "the test's own feed client got no snapshot"
    page.add_init_script(SAMPLER)
    page.goto(display(table)["table"])
    page.wait_for_selector(f"[data-table='{table.table}']")
    return record


def play(table: SimTable, hands: int, *pages: Page) -> None:
    """The bots deal `hands` hands; each settled hand stays on show until every page has drawn it
    (so each page shows every hand's results, however slow the machine)."""
    def shown(dealer: Any, state: Mapping[str, Any]) -> None:
        if state.get("phase") == "settled":
            for page in pages:
                page.wait_for_selector(f"[data-hand='{state['hand']}'][data-phase='settled']", timeout=30_000)

    dealer = table.dealer(players=seat_players(table.seats, table.seed), buttons=0.2, on_step=shown)
    try:
        log = dealer.play(hands)
    finally:
        dealer.close()
    assert log.hands == hands and not log.faults


def settled_on_show(page: Page, hand: int) -> list[dict[str, Any]]:
    """Wait for the page to show `hand` settled; its samples."""
    page.wait_for_selector(f"[data-hand='{hand}'][data-phase='settled'] [data-result]")
    samples: list[dict[str, Any]] = page.evaluate("window.__samples")
    return samples


def check_page(samples: list[dict[str, Any]], record: FeedRecord, hands: list[dict[str, Any]]) -> None:
    """Every drawn state's cards are the public feed's at that seq ("??" stays "??" until the rules
    turn it over); each settled hand's results and the last 10 hands' list are the journal's."""
    for sample in samples:
        shown = record.by_seq.get((sample["boot"], sample["seq"]))
        assert shown is not None, f"the page drew seq {sample['seq']}, which the feed never had"
        assert sample["places"] == shown, (sample["seq"], sample["places"], shown)
    drawn: dict[int, set[tuple[int, str, int]]] = {}
    listed: dict[int, list[dict[str, Any]]] = {}
    for sample in samples:
        if sample["phase"] == "settled":
            drawn[sample["hand"]] = {tuple(r) for r in sample["results"]}
            listed[sample["hand"]] = sample["history"]
    settled = [h for h in hands if h.get("settlement")]
    for hand in settled:
        if hand["hand"] < samples[0]["hand"]:
            continue  # before the page opened
        expected = {(spot["seat"], circle, net) for spot in hand["settlement"]["spots"]
                    for circle, net in spot["results"].items()}
        assert drawn.get(hand["hand"]) == expected, (hand["hand"], drawn.get(hand["hand"]), expected)
        upto = [h for h in hands if h["hand"] <= hand["hand"]]
        assert listed[hand["hand"]] == journal_history(upto), hand["hand"]


def check_sign(page: Page, game: str) -> None:
    """The limits sign in the table's money and the paytables of the profile."""
    sign = page.locator("[data-limits]")
    text = sign.inner_text()
    for amount in (LIMITS.minimum, LIMITS.maximum, LIMITS.side_minimum, LIMITS.side_maximum):
        assert shown(amount) in text, text
    assert sign.get_attribute("data-minimum") == str(LIMITS.minimum)
    circles = ["blind", "trips"] if game == "uth" else ["ante_bonus", "pair_plus"]
    for circle in circles:
        assert page.locator(f"[data-paytable='{circle}'] [data-pays]").count() >= 3
    pays = "[data-paytable='blind'] [data-pays='flush'] .pays" if game == "uth" else \
        "[data-paytable='pair_plus'] [data-pays='straight'] .pays"
    assert page.locator(pays).inner_text() == ("3 to 2" if game == "uth" else "6 to 1")


def check_stakes(page: Page, hands: list[dict[str, Any]]) -> None:
    """The settled hand still on show: each bet circle's stake in the table's money, as engine.money writes it."""
    last = hands[-1]
    assert page.locator("[data-table]").get_attribute("data-hand") == str(last["hand"])
    checked = 0
    for spot in last["round"]["spots"]:
        for circle, amount in spot["bets"].items():
            stake = page.locator(f"#spots [data-seat='{spot['seat']}'] [data-circle='{circle}'] .stake").inner_text()
            assert stake == shown(amount), (spot["seat"], circle, stake)
            checked += 1
    assert checked >= len(last["round"]["spots"])


def check_layout(page: Page, spots: int) -> None:
    assert page.locator("#spots [data-seat]").count() == spots
    assert page.evaluate(LAYOUT) == []


def test_the_table_display_follows_12_uth_hands_and_a_late_page_converges(
        sim_table: Callable[..., SimTable], display: Callable[[SimTable], dict[str, Any]], page: Page,
        browser: Browser) -> None:
    table = sim_table(game="uth", seed=21, seats=3, limits=LIMITS)
    record = follow(table, page, display)
    play(table, LATE_AFTER, page)
    late_context = browser.new_context(viewport={"width": 1280, "height": 720})
    late = late_context.new_page()
    try:
        late.add_init_script(SAMPLER)
        late.goto(page.url)
        play(table, HANDS - LATE_AFTER, page, late)
        samples, late_samples = settled_on_show(page, HANDS), settled_on_show(late, HANDS)
        record.stopping.set()
        record.join(10)
        assert record.gaps == 0  # the reference saw every message
        hands = journal(table.state_dir)
        assert [h["hand"] for h in hands] == list(range(1, HANDS + 1))
        assert len(samples) > HANDS * 10  # the page drew the hands step by step
        check_page(samples, record, hands)
        assert (late_samples[0]["hand"], late_samples[0]["phase"]) == (LATE_AFTER, "settled")  # opened late: the snapshot
        check_page(late_samples, record, hands)
        assert late_samples[-1] == samples[-1]  # converged: the same state as the page there from the start
        assert samples[-1]["history"] == journal_history(hands)
        assert samples[-1]["places"] == places(record.last)
        for shown in (page, late):
            check_stakes(shown, hands)
            check_sign(shown, "uth")
            check_layout(shown, 3)
        check_screenshot(page, "table-uth-1920")
        check_screenshot(late, "table-uth-1280")
        assert axe_violations(page) == []  # a settled hand's circles readable (tests/web/test_accessibility.py)
    finally:
        late_context.close()


def test_the_table_display_follows_12_3cp_hands_then_offline_on_a_sigkill_and_back(
        sim_table: Callable[..., SimTable], display: Callable[[SimTable], dict[str, Any]], page: Page) -> None:
    table = sim_table(game="3cp", seed=5, seats=7, limits=LIMITS, restart_s=3.0)
    record = follow(table, page, display)
    play(table, HANDS, page)
    samples = settled_on_show(page, HANDS)
    record.stopping.set()
    record.join(10)
    assert record.gaps == 0
    hands = journal(table.state_dir)
    assert [h["hand"] for h in hands] == list(range(1, HANDS + 1))
    check_page(samples, record, hands)
    assert samples[-1]["history"] == journal_history(hands)
    check_stakes(page, hands)
    check_sign(page, "3cp")
    check_layout(page, 7)  # seven spots fit
    check_screenshot(page, "table-3cp-1920")
    page.set_viewport_size({"width": 1280, "height": 720})
    check_layout(page, 7)  # seven spots fit
    check_screenshot(page, "table-3cp-1280")

    assert page.locator("[data-offline]").count() == 0
    boot = page.locator("[data-table]").get_attribute("data-boot")
    assert table.controller is not None and table.controller.kill() is not None  # SIGKILL
    page.wait_for_selector("[data-offline]", state="visible", timeout=(3 * table.heartbeat_s + 2.0) * 1000)
    assert page.locator("[data-table].stale").count() == 1  # the last state is not shown as current
    # back: the restarter starts the controller again (a new boot), the page leaves "offline" and
    # shows the settled hand again with the last 10 hands rebuilt from the journal
    page.wait_for_selector(f"[data-table]:not([data-boot='{boot}'])[data-hand='{HANDS}'][data-phase='settled']",
                           timeout=30_000)
    page.wait_for_selector("[data-offline]", state="detached")
    assert page.locator("[data-table].stale").count() == 0
    assert page.evaluate("window.__history()") == journal_history(hands)
