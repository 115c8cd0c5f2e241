"""The controller killed with SIGKILL at random points mid-hand, 20 times: restarted to the same state, hands right."""

from __future__ import annotations

import random
import signal
import threading
from collections.abc import Callable, Mapping
from typing import Any

from harness_kit import check_ledger, history

from firmware_host.bots import BotDealer, seat_players
from firmware_host.cmd_demo import SimTable

MID_HAND = ("deal", "preflop", "flop", "river", "showdown")
PHASES = ("bets", "deal", "preflop", "flop", "river", "showdown", "settled")
KILLS = 20


def _cards(state: Mapping[str, Any]) -> dict[str, list[str]]:
    out = {f"spot {s['seat']}": list(s.get("cards") or []) for s in state.get("spots") or []}
    out["dealer"] = list((state.get("dealer") or {}).get("cards") or [])
    out["board"] = list(state.get("board") or [])
    out["burns"] = list(state.get("burns") or [])
    return out


def continuation_problem(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """Why `after` is not `before` carried at most one step further (None when it is)."""
    if after.get("hand") != before.get("hand"):
        if after.get("hand") == before.get("hand", 0) + 1 and before.get("phase") == "showdown":
            return None  # the payouts were confirmed just before the kill: the hand closed
        return f"hand {before.get('hand')} became {after.get('hand')}"
    if PHASES.index(after["phase"]) < PHASES.index(before["phase"]):
        return f"phase went back from {before['phase']} to {after['phase']}"
    steps = 0
    was, now = _cards(before), _cards(after)
    for where, cards in was.items():
        if now.get(where, [])[:len(cards)] != cards:
            return f"{where}: {cards} became {now.get(where)}"
        steps += len(now.get(where, [])) - len(cards)
    spots_before = {s["seat"]: s for s in before.get("spots") or []}
    for spot in after.get("spots") or []:
        old = spots_before.get(spot["seat"])
        if old is None:
            steps += 1
            continue
        if old.get("decision") != spot.get("decision"):
            steps += 1
        if old.get("decision") in ("play", "fold", "dead") and old["decision"] != spot.get("decision"):
            return f"seat {spot['seat']}: decision {old['decision']} became {spot.get('decision')}"
    if steps > 1:
        return f"{steps} steps apart"
    if before.get("fault") and after.get("fault") != before.get("fault"):
        return f"fault {before['fault']} became {after.get('fault')}"
    return None


class Chaos:
    """Kills the controller at a random moment of the dealer's next step, once per hand at most."""

    def __init__(self, table: SimTable, seed: int) -> None:
        self.table = table
        self.rng = random.Random(seed)
        self.kills = 0
        self.killed_hands: set[int] = set()
        self.restarts_checked = 0
        self.problems: list[str] = []
        self._armed: threading.Timer | None = None

    def on_step(self, dealer: BotDealer, state: Mapping[str, Any]) -> None:
        if self.kills >= KILLS or state.get("phase") not in MID_HAND or state.get("hand") in self.killed_hands:
            return
        if self._armed is not None and self._armed.is_alive():
            return
        if self.rng.random() < 0.25:
            self.kills += 1
            self.killed_hands.add(int(state["hand"]))
            assert self.table.controller is not None
            self._armed = threading.Timer(self.rng.uniform(0.0, 0.004), self.table.controller.kill, (signal.SIGKILL,))
            self._armed.start()

    def on_boot(self, dealer: BotDealer, last: Mapping[str, Any], snapshot: Mapping[str, Any]) -> None:
        self.restarts_checked += 1
        problem = continuation_problem(last, snapshot)
        if problem is not None:
            self.problems.append(f"restart {self.restarts_checked}: {problem}\n  before {last}\n  after {snapshot}")


def test_sigkill_mid_hand_twenty_times(sim_table: Callable[..., SimTable]) -> None:
    table = sim_table(game="uth", seed=21, seats=5, restart_s=0.05, restart_burst=KILLS + 1)
    chaos = Chaos(table, seed=21)
    dealer = table.dealer(players=seat_players(5, 21), buttons=0.3, on_step=chaos.on_step, on_boot=chaos.on_boot)
    try:
        log = dealer.play(KILLS + 10)
    finally:
        dealer.close()
    assert chaos.kills == KILLS
    assert table.controller is not None
    assert table.controller.starts == KILLS + 1, table.controller.exits
    assert table.controller.exits.count(-signal.SIGKILL) == KILLS
    assert chaos.restarts_checked == KILLS
    assert not chaos.problems, "\n".join(chaos.problems)
    assert not log.faults, log.faults  # a restart is not a fault: the devices carried on
    lines = history(table.state_dir)
    settled = check_ledger(lines, log, table.config_path)
    assert len(settled) == KILLS + 10
    assert {line["hand"] for line in settled} >= chaos.killed_hands
