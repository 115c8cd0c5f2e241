"""Every fault kind injected through the real devices, detected by the controller, cleared by the floor."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness_kit import check_ledger, history

from drivers.gpio_sim import LineClient
from sim.bots.dealer import BotDealer
from sim.bots.players import seat_players
from cli.demo import SimTable
from firmware_host.service.controller import FAULT_KINDS
from sim.shoe import SimShoeClient


def dealt(state: Mapping[str, Any]) -> int:
    return sum(len(s.get("cards") or []) for s in state.get("spots") or []) + \
        len((state.get("dealer") or {}).get("cards") or []) + len(state.get("board") or [])


@dataclass
class Scenario:
    """One injection: when it applies, what it does, the fault it must raise (None: none), the repair."""

    name: str
    expect: str | None
    when: Callable[[Mapping[str, Any]], bool]
    inject: Callable[[BotDealer, SimTable, Mapping[str, Any]], None]
    repair: Callable[[BotDealer, SimTable], Mapping[str, Any] | None] = lambda d, t: None
    wait_fault: bool = True


def panel(table: SimTable, line: str) -> None:
    with LineClient(table.endpoints.panel) as client:
        client.request(line)


def stray_draw(dealer: BotDealer, table: SimTable, state: Mapping[str, Any]) -> None:
    """A card comes out of the shoe where the hand expects none; the floor will set it aside."""
    card = dealer.shoe.request("draw").split()[-1].split(":")[-1]
    dealer.log.draws.setdefault(dealer.next_hand(state), []).append(card)


def swap_shoe(table: SimTable, dealer: BotDealer, *extra: str) -> None:
    info = table.replace_shoe(*extra)
    dealer.shoe.close()
    dealer.shoe = SimShoeClient(info["control"])


def refused_shoe(dealer: BotDealer, table: SimTable, state: Mapping[str, Any]) -> None:
    """Between hands a shoe with a firmware we do not run is put on the table."""
    swap_shoe(table, dealer, "--firmware", "2.0.0")


def good_shoe_and_restart(dealer: BotDealer, table: SimTable) -> None:
    """The floor puts a good shoe back and restarts the service (the refused link stays refused)."""
    swap_shoe(table, dealer)
    assert table.controller is not None
    starts = table.controller.starts
    table.controller.kill(signal.SIGTERM)
    table.controller.wait_ready(starts + 1)


def mid_deal(n: int) -> Callable[[Mapping[str, Any]], bool]:
    return lambda s: s.get("phase") == "deal" and dealt(s) == n


SCENARIOS = [
    Scenario("misread", "misread", mid_deal(2), lambda d, t, s: d.shoe.fault("misread"), wait_fault=False),
    Scenario("duplicate", "duplicate_card", mid_deal(4), lambda d, t, s: d.shoe.fault("duplicate"), wait_fault=False),
    Scenario("drop", "sequence_gap", mid_deal(3), lambda d, t, s: d.shoe.fault("drop"), wait_fault=False),
    Scenario("garble", None, mid_deal(1), lambda d, t, s: d.shoe.fault("garble"), wait_fault=False),
    Scenario("repeat", None, mid_deal(5), lambda d, t, s: d.shoe.fault("repeat"), wait_fault=False),
    Scenario("unexpected", "unexpected_card", lambda s: s.get("to_act") is not None, stray_draw),
    Scenario("no_bet", "no_bet", lambda s: s.get("phase") == "settled", stray_draw),
    Scenario("card_count", "card_count", lambda s: s.get("phase") == "showdown", stray_draw),
    Scenario("empty", "shoe_empty", mid_deal(6), lambda d, t, s: d.shoe.request("sensor empty on"),
             lambda d, t: d.shoe.request("sensor empty off") and None),
    Scenario("shoe_off", "shoe_empty", lambda s: s.get("phase") == "flop" and s.get("next") is not None,
             lambda d, t, s: panel(t, "set shoe_present off"), lambda d, t: panel(t, "set shoe_present on")),
    Scenario("lid", "lid_open", mid_deal(7), lambda d, t, s: panel(t, "set lid_open on"),
             lambda d, t: panel(t, "set lid_open off")),
    Scenario("silent", "device_silent", mid_deal(8), lambda d, t, s: d.shoe.fault("silent"),
             lambda d, t: d.shoe.request("wake") and None),
    Scenario("unplugged", "device_offline", mid_deal(9), lambda d, t, s: t.kill_shoe(),
             lambda d, t: (swap_shoe(t, d), {"then": "void"})[1]),
    Scenario("refused", "device_fault", lambda s: s.get("phase") == "settled", refused_shoe,
             lambda d, t: good_shoe_and_restart(d, t)),
]


class Injector:
    """One scenario per hand, in order; checks that the fault raised is the one expected."""

    def __init__(self, table: SimTable) -> None:
        self.table = table
        self.todo = list(SCENARIOS)
        self.current: Scenario | None = None
        self.current_hand = 0
        self.done: list[tuple[str, int]] = []
        self.seen: list[tuple[str, str]] = []
        self.voided: set[int] = set()

    def on_step(self, dealer: BotDealer, state: Mapping[str, Any]) -> None:
        if self.current is not None and dealer.next_hand(state) > self.current_hand and not state.get("fault"):
            self.current = None  # its hand is over
        if self.current is not None or not self.todo or state.get("fault"):
            return
        scenario = self.todo[0]
        if not scenario.when(state):
            return
        self.todo.pop(0)
        self.current = scenario
        self.current_hand = dealer.next_hand(state)
        self.done.append((scenario.name, self.current_hand))
        scenario.inject(dealer, self.table, state)
        if scenario.wait_fault:
            assert dealer.wait_for(lambda s: bool(s.get("fault")), 10.0, scenario.name), f"{scenario.name}: no fault"

    def fault_hook(self, dealer: BotDealer, fault: Mapping[str, Any]) -> Mapping[str, Any] | None:
        scenario = self.current
        assert scenario is not None, f"a fault nobody injected: {fault} (done {self.done}, hand {dealer.state.get('hand')})"
        self.seen.append((scenario.name, str(fault["kind"])))
        options = scenario.repair(dealer, self.table)
        if options and options.get("then") == "void":
            self.voided.add(int(dealer.state["hand"]))
        return options


def test_every_fault_kind_detected_and_cleared(sim_table: Callable[..., SimTable]) -> None:
    table = sim_table(game="uth", seed=5, seats=5, silent_s=1.5, shoe_heartbeat_s=0.1, heartbeat_s=0.2)
    injector = Injector(table)
    dealer = table.dealer(players=seat_players(5, 5), buttons=0.3, on_step=injector.on_step,
                          fault_hook=injector.fault_hook)
    try:
        log = dealer.play(len(SCENARIOS) + 2)
    finally:
        dealer.close()
    assert not injector.todo, f"not injected: {[s.name for s in injector.todo]}"
    expected = [(s.name, s.expect) for s in SCENARIOS if s.expect is not None]
    assert injector.seen == expected
    # every kind a device, the shoe's link or the dealer can cause; a refused reading needs a reading
    # the table cannot apply, which no device sends (tests/firmware_host/test_controller.py makes one);
    # a journal or audit log whose chain fails is raised at start (tests/firmware_host/test_journal_chain.py,
    # test_audit_at_start.py); a hand past its step limit takes thousands of steps (tests/firmware_host/test_limits.py);
    # the smart table's faults need a chip reader, which this table has not (tests/firmware_host/test_table_chips*.py, test_tray.py)
    assert {kind for _, kind in injector.seen} == set(FAULT_KINDS) - {"refused_reading", "journal_integrity",
                                                                       "audit_integrity", "step_limit", "foreign_chip",
                                                                       "chips_moved", "mispay", "tray_difference"}
    lines = history(table.state_dir)
    recorded = [(line["hand"], f["kind"], f["cleared_by"]) for line in lines for f in line["faults"]]
    assert sorted(kind for _, kind, _ in recorded) == sorted(kind for _, kind in expected)
    assert all(by == "bot-floor" for _, _, by in recorded)  # each cleared by the floor, with its reason
    quiet = {hand for name, hand in injector.done if name in ("garble", "repeat")}
    assert not [r for r in recorded if r[0] in quiet]  # the link repaired those: no fault
    check_ledger(lines, log, table.config_path, voided=frozenset(injector.voided))
    assert len(injector.voided) == 1
