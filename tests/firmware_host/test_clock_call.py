"""Calling the clock on a poker player (000, docs/rules.md "Calling the clock"): the floor's signed-off
`clock` request, the clock on the feeds, ended when he acts, and his hand dead (folded, even when he
could check) when it runs out, journaled so that a restart replays the same; refusals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from drivers.readings import CardRead
from protocol.audit import AuditLog
from protocol.commands import Command, CommandClient
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from protocol.users import User, Users
from sim.bots.table import free_tcp_port
from firmware_host.tables.clock_call import CLOCK_CALL_S, ClockWatch

PIN = "8026491375"
FLOOR = {"user": "ana", "pin": PIN}
HOLDEM = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [1, 2]}, "seats": 6,
          "stacks": {"1": 200, "3": 200, "5": 100, "6": 50}}
HOLE = "2c As Kd Qh 6c Ad Kc Qs 6d"  # burn, then seats 1 3 5 6 twice (button 6): seat 5 first to act


class Table:
    """A poker table's controller on a real journal, its command channel on loopback from its own
    thread, its clock (the wall clock it journals) in the test's hands."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], opening: dict[str, Any]) -> None:
        self.tmp, self.ctx, self.opening = tmp, ctx, opening
        self.now = [1000.0]
        tmp.mkdir(exist_ok=True)
        Users({"ana": User.with_pin("ana", "supervisor", PIN),
               "bo": User.with_pin("bo", "dealer", "1111")}).save(tmp / "users.json")
        self.seq = 0
        self.start()

    def start(self) -> None:
        self.audit = AuditLog.open(self.tmp / "state")
        security = SecurityConfig(users=str(self.tmp / "users.json"), local_role="dealer")
        self.c = Controller(Journal.open(self.tmp / "state"), audit=self.audit, security=security,
                            clock=lambda: self.now[0])
        self.c.signoff.clock = lambda: self.now[0]
        self.looked: list[float] = []  # the test's clock as each turn of the controller's ClockWatch began
        self._count_looks(next(p for p in self.c._pollables if isinstance(p, ClockWatch)))
        self.c.recover()
        if self.c.table is None:  # the pit's open, from the controller's own process
            assert self.c.handle_command(Command.from_mapping({"cmd": "open", **self.opening}))["ok"]
        endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        self.thread = threading.Thread(target=self.c.run, args=(self.ctx, endpoint), daemon=True)
        self.thread.start()
        self.client = CommandClient(self.ctx, endpoint)

    def _count_looks(self, watch: ClockWatch) -> None:
        pump = watch.pump

        def counted() -> float:
            now = self.now[0]  # read before the watch reads it: a look at or past the time the test set
            try:
                return pump()
            finally:
                self.looked.append(now)
        watch.pump = counted  # type: ignore[method-assign]

    def looked_at(self, now: float, timeout_s: float = 10.0) -> None:
        """Wait until the controller's ClockWatch has looked at the clock at `now` or later (and done
        what it does then): what has not happened by then is not going to at that time."""
        deadline = time.monotonic() + timeout_s
        while not any(t >= now for t in self.looked):
            assert time.monotonic() < deadline, f"the ClockWatch never looked at the clock at {now}: {self.looked[-3:]}"
            time.sleep(0.01)

    def stop(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()
        self.audit.close()

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.client.request(cmd, **args)
        assert reply["ok"], reply
        return reply

    def shoe(self, cards: str) -> None:
        for card in cards.split():
            self.seq += 1
            self.c.inbox.post(CardRead(card, "shoe", self.seq))

    def state(self) -> dict[str, Any]:
        return self.ok("state")["state"]

    def wait(self, what: Any, timeout_s: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = self.state()
            if what(state):
                return state
            time.sleep(0.05)
        raise AssertionError(f"the table never reached it: {self.state()}")

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e.body for e in self.c.journal.events() if e.kind == kind]


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Table]:
    t = Table(tmp_path, ctx, HOLDEM)
    try:
        t.ok("deal")
        t.shoe(HOLE)
        t.wait(lambda s: s["to_act"] == 5)
        yield t
    finally:
        t.stop()


def test_the_clock_needs_the_floors_sign_off_and_names_the_seat_to_act(table: Table) -> None:
    refused = table.client.request("clock")
    assert refused["ok"] is False and refused["code"] == "forbidden" and "sign-off" in refused["error"]
    wrong = table.client.request("clock", seat=1, auth=FLOOR)
    assert wrong["ok"] is False and "seat 1 is not to act (seat 5 is)" in wrong["error"]
    too_long = table.client.request("clock", seconds=3600, auth=FLOOR)
    assert too_long["ok"] is False and too_long["code"] == "malformed"
    assert table.events("clock") == [] and table.state()["clock"] is None


def test_a_clock_called_is_on_the_public_feed_and_ends_when_he_acts(table: Table) -> None:
    table.ok("clock", auth=FLOOR)
    state = table.state()
    assert state["clock"] == {"seat": 5, "seconds": CLOCK_CALL_S, "ends_at": 1000.0 + CLOCK_CALL_S}
    [event] = table.events("clock")
    assert event["at"] == 1000.0 and event["signed_off"]["user"] == "ana"  # the seat: whoever was to act
    table.ok("act", seat=5, action="call")
    state = table.state()
    assert state["clock"] is None and state["to_act"] == 6
    table.now[0] += 3 * CLOCK_CALL_S  # the clock ended with his call: nobody is folded for it
    table.looked_at(table.now[0])
    assert not any(e.get("clock") for e in table.events("act"))
    assert table.state()["to_act"] == 6


def test_when_the_clock_runs_out_his_hand_is_dead_and_a_restart_replays_it(table: Table) -> None:
    table.ok("act", seat=5, action="call")
    table.ok("act", seat=6, action="call")
    table.ok("act", seat=1, action="call")
    table.ok("act", seat=3, action="check")  # the big blind checks: to the flop
    table.shoe("3d 7h 8c 9d")  # burn and the flop
    table.wait(lambda s: s["street"] == "flop" and s["to_act"] == 1)
    table.ok("clock", seconds=30, auth=FLOOR)  # seat 1 could check: his hand is dead all the same
    table.now[0] += 29
    table.looked_at(table.now[0])
    assert table.state()["to_act"] == 1  # not yet
    table.now[0] += 2
    state = table.wait(lambda s: s["to_act"] == 3)
    seat_1 = next(s for s in state["spots"] if s["seat"] == 1)
    assert seat_1["folded"] and state["clock"] is None
    assert [e for e in table.events("act") if e.get("clock")] == [{"seat": 1, "action": "fold", "clock": True}]
    table.stop()
    table.start()  # the journal replayed: the same fold, no clock left running
    state = table.state()
    assert next(s for s in state["spots"] if s["seat"] == 1)["folded"] and state["clock"] is None
    assert state["to_act"] == 3


def test_a_restart_keeps_a_running_clock_to_the_same_second(table: Table) -> None:
    table.ok("clock", seconds=40, auth=FLOOR)
    table.stop()
    table.now[0] += 10
    table.start()
    assert table.state()["clock"] == {"seat": 5, "seconds": 40, "ends_at": 1040.0}
    table.now[0] += 31
    state = table.wait(lambda s: s["to_act"] == 6)
    assert next(s for s in state["spots"] if s["seat"] == 5)["folded"]


def test_no_clock_at_a_house_table_or_between_hands(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    t = Table(tmp_path / "uth", ctx, {"game": "uth", "limits": {"minimum": 100}})
    try:
        reply = t.client.request("clock", auth=FLOOR)
        assert reply["ok"] is False and "the clock is called on a poker player" in reply["error"]
        assert "clock" not in t.state()
    finally:
        t.stop()
    t = Table(tmp_path / "holdem", ctx, HOLDEM)
    try:
        reply = t.client.request("clock", auth=FLOOR)
        assert reply["ok"] is False and "nobody is to act" in reply["error"]
    finally:
        t.stop()
