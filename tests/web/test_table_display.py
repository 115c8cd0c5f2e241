"""The table display (/table) in headless Chromium following bot-played UTH hands: no card shown before the public feed shows it, results equal to the journal's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import zmq
from playwright.sync_api import Page

from engine.money import format_money
from firmware_host.cli.demo import SimTable
from firmware_host.service.feed import FeedClient
from firmware_host.sim.bots import seat_players

# Every render of the page (the page fires `croupier:rendered` after drawing each state) is sampled:
# the seq and boot it drew, and every card and bet circle result where it stands.
SAMPLER = """
window.__samples = [];
document.addEventListener("croupier:rendered", () => {
  const root = document.querySelector("[data-table]");
  const where = (el) => {
    if (el.closest("[data-dealer]")) return "dealer";
    if (el.closest("[data-board]")) return "board";
    return "seat " + el.closest("[data-seat]").dataset.seat;
  };
  const places = {};
  for (const card of document.querySelectorAll("[data-card]")) (places[where(card)] ??= []).push(card.dataset.card);
  window.__samples.push({
    boot: root.dataset.boot, seq: Number(root.dataset.seq), hand: Number(root.dataset.hand),
    phase: root.dataset.phase, places,
    results: [...document.querySelectorAll("[data-result]")].map((c) => [
      Number(c.closest("[data-seat]").dataset.seat), c.dataset.circle, Number(c.dataset.result)]),
  });
});
"""


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
                    self.ready.set()
            self.gaps = client.gaps
        finally:
            client.close()
            ctx.destroy(linger=0)


def journal(state_dir: Path) -> list[dict[str, Any]]:
    """Every finished hand as `croupier history --json` prints it."""
    done = subprocess.run([sys.executable, "-m", "firmware_host.cli", "history", "--state", str(state_dir),
                           "--last", "0", "--json"], capture_output=True, text=True, timeout=120, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_table_display_follows_bot_hands_without_early_cards_and_with_the_journals_results(
        sim_table: Callable[..., SimTable], display: Callable[[SimTable], dict[str, Any]], page: Page,
        tmp_path: Path) -> None:
    table = sim_table(game="uth", seed=21, seats=4)
    record = FeedRecord(table.endpoints.public, table.endpoints.snapshot)
    record.start()
    assert record.ready.wait(20), "the test's own feed client got no snapshot"
    ready = display(table)
    page.add_init_script(SAMPLER)
    page.goto(ready["table"])
    page.wait_for_selector("[data-table='sim-uth-1']")
    dealer = table.dealer(players=seat_players(4, 21), buttons=0.3)
    try:
        log = dealer.play(4)
    finally:
        dealer.close()
    page.wait_for_selector("[data-phase='settled'] [data-result]")
    samples: list[dict[str, Any]] = page.evaluate("window.__samples")
    record.stopping.set()
    record.join(10)
    assert log.hands == 4 and not log.faults
    assert record.gaps == 0  # the reference saw every message
    assert len(samples) > 4 * 10  # the page drew the hands step by step

    for sample in samples:  # each drawn state's cards are exactly the public feed's at that seq: "??" stays "??"
        shown = record.by_seq.get((sample["boot"], sample["seq"]))
        assert shown is not None, f"the page drew seq {sample['seq']}, which the feed never had"
        assert sample["places"] == shown, (sample["seq"], sample["places"], shown)

    settled = [h for h in journal(table.state_dir) if h.get("settlement")]
    assert len(settled) >= 4
    drawn: dict[int, set[tuple[int, str, int]]] = {}
    for sample in samples:
        if sample["phase"] == "settled":
            drawn[sample["hand"]] = {tuple(r) for r in sample["results"]}
    for hand in settled:
        expected = {(spot["seat"], circle, net) for spot in hand["settlement"]["spots"]
                    for circle, net in spot["results"].items()}
        assert drawn.get(hand["hand"]) == expected, (hand["hand"], drawn.get(hand["hand"]), expected)

    last = settled[-1]  # still on show: its stakes in the table's money, as engine.money writes it
    assert page.locator("[data-table]").get_attribute("data-hand") == str(last["hand"])
    for spot in last["round"]["spots"]:
        for circle in ("ante", "blind", "trips"):
            if circle in spot["bets"]:
                stake = page.locator(f"[data-seat='{spot['seat']}'] [data-circle='{circle}'] .stake").inner_text()
                assert stake == format_money(spot["bets"][circle], "EUR", 2), (spot["seat"], circle, stake)

    shots = Path(os.environ.get("CROUPIER_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "table-display.png"))
    assert (shots / "table-display.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_table_display_shows_offline_when_the_table_stops_and_not_before(
        sim_table: Callable[..., SimTable], display: Callable[[SimTable], dict[str, Any]], page: Page) -> None:
    table = sim_table(game="3cp", seed=3, seats=2)
    page.goto(display(table)["table"])
    page.wait_for_selector("[data-table='sim-3cp-1'][data-phase]")
    page.wait_for_selector("[data-offline]", state="detached")  # heartbeats arrive: no banner
    assert page.locator("[data-offline]").count() == 0
    table.stop()  # controller and shoe gone: no more heartbeats
    page.wait_for_selector("[data-offline]", state="visible", timeout=30_000)
    assert page.locator("[data-table].stale").count() == 1  # the last state is not shown as current
