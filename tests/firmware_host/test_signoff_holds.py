"""Failed sign-offs count against the console that sent them (issue: five wrong PINs from any key locked a
supervisor everywhere, and a restart forgot the lock); one refusal for every failure, after the same hash; the
hash off the controller's loop, each client answered in the order it asked."""

from __future__ import annotations

import select
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from protocol import signoff as signoff_module
from protocol import users as users_module
from protocol.access import Caller
from protocol.audit import AuditLog
from firmware_host.service.command_desk import MAX_DEFER_S, QUIET_S, PinChecks
from protocol.commands import Command
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from protocol.signoff import AUDIT_MOST, AUDIT_WINDOW_S, PIN_BURST, REFUSED, Verdict
from protocol.users import User, Users
from tests.firmware_host.test_signoff import PIN, SUPERVISOR, UTH, Table

CONSOLE = Caller("dealer", key="console-3", address="10.0.0.3")
PIT = Caller("pit", key="pit-1", address="10.0.0.9")
WRONG = {"user": "ana", "pin": "1111"}


class InProcess:
    """A controller driven in-process (requests handed to `handle_command`, the PIN hashed at once), a fake wall clock."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.now = [1_000_000.0]
        Users({"ana": User.with_pin("ana", "supervisor", PIN), "bo": User.with_pin("bo", "dealer", "1111")}).save(
            tmp / "users.json")
        self.start()

    def start(self) -> None:
        self.audit = AuditLog.open(self.tmp / "state")
        self.c = Controller(Journal.open(self.tmp / "state"), default_setup=UTH, audit=self.audit,
                            security=SecurityConfig(users=str(self.tmp / "users.json")), limits={"minimum": 100})
        self.c.signoff.clock = lambda: self.now[0]
        self.c.recover()

    def restart(self) -> None:
        self.c.journal.close()
        self.audit.close()
        self.start()

    def fault(self) -> None:
        self.c.raise_fault("device_silent", "the shoe said nothing for 3 s")

    def clear(self, caller: Caller, auth: dict[str, str]) -> dict[str, Any]:
        return self.c.handle_command(Command.from_mapping({"cmd": "clear", "reason": "shoe checked", "auth": auth}),
                                     caller)

    def fail(self, caller: Caller, times: int) -> list[dict[str, Any]]:
        replies = []
        for _ in range(times):
            self.now[0] += 1.0  # within the key's budget of PIN checks
            replies.append(self.clear(caller, WRONG))
        return replies

    def held(self) -> list[dict[str, Any]]:
        return [e.details for e in self.audit.entries() if e.kind == "signoff_held"]

    def close(self) -> None:
        self.c.journal.close()
        self.audit.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[InProcess]:
    r = InProcess(tmp_path)
    r.fault()
    yield r
    r.close()


def test_a_lock_out_campaign_holds_only_the_attackers_own_console(rig: InProcess) -> None:
    assert all(REFUSED in reply["error"] for reply in rig.fail(CONSOLE, 5))
    assert rig.held() == [{"key": "console-3", "role": "dealer", "address": "10.0.0.3", "at": None, "seconds": 300.0,
                           "failed": 5}]
    assert rig.clear(CONSOLE, SUPERVISOR)["say"] == {"key": "refusal.sign_off_held", "args": {"seconds": 300}}
    assert rig.c.fault is not None
    assert rig.clear(PIT, SUPERVISOR)["ok"] is True  # the supervisor was never locked: she signs from the pit
    assert rig.c.fault is None


def test_a_hold_survives_a_restart_and_the_next_one_lasts_twice_as_long(rig: InProcess) -> None:
    rig.fail(CONSOLE, 5)
    rig.now[0] += 100.0
    rig.restart()
    held = rig.clear(CONSOLE, SUPERVISOR)
    assert held["code"] == "forbidden" and "held for 200 s more" in held["error"], held
    assert (rig.tmp / "state" / "signoff-holds.json").stat().st_mode & 0o777 == 0o600
    rig.now[0] += 200.0  # the hold is over: five more failures hold it for ten minutes
    rig.fail(CONSOLE, 5)
    assert [h["seconds"] for h in rig.held()] == [300.0, 600.0]
    rig.now[0] += 86_400.0 + 600.0  # a day with no hold: the next is five minutes again
    rig.fail(CONSOLE, 5)
    assert [h["seconds"] for h in rig.held()] == [300.0, 600.0, 300.0]


def test_at_the_displays_relay_one_persons_failures_hold_only_their_own_sign_offs(rig: InProcess) -> None:
    display = Caller("dealer", key="display-1", address="10.0.0.20")  # every web console's key

    def clear(at: str, pin: str) -> dict[str, Any]:
        rig.now[0] += 1.0
        return rig.clear(display, {"user": "ana", "pin": pin, "at": at})

    assert [clear("mallory", "1111")["say"]["key"] for _ in range(6)] == ["refusal.sign_off_refused"] * 5 + [
        "refusal.sign_off_held"]
    assert [(h["key"], h["at"]) for h in rig.held()] == [("display-1", "mallory")]
    assert clear("dana", PIN)["ok"] is True  # another dealer's console on the same display: not held
    rig.fault()
    for person in ("b", "c", "d"):  # people failing together: the display's relays are held at 20
        for _ in range(5):
            clear(person, "1111")
    assert clear("e", "1111")["say"]["key"] == "refusal.sign_off_refused"  # the 16th; 4 more and it holds
    for _ in range(4):
        clear("f", "1111")
    assert [(h["key"], h["at"], h["failed"]) for h in rig.held()][-1] == ("display-1", None, 20)
    assert clear("dana", PIN)["say"]["key"] == "refusal.sign_off_held"
    assert rig.clear(PIT, SUPERVISOR)["ok"] is True  # the pit's key: never held by the display's


def test_a_right_sign_off_forgets_the_consoles_failures(rig: InProcess) -> None:
    rig.fail(CONSOLE, 4)
    rig.now[0] += 1.0
    assert rig.clear(CONSOLE, SUPERVISOR)["ok"] is True
    rig.fault()
    rig.fail(CONSOLE, 4)  # four again: not held
    rig.now[0] += 1.0
    assert rig.clear(CONSOLE, SUPERVISOR)["ok"] is True and rig.held() == []


def test_every_failed_sign_off_costs_one_hash_and_past_the_budget_none(rig: InProcess,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[int] = []
    real = users_module._scrypt

    def counted(*args: Any) -> bytes:
        hashed.append(1)
        return real(*args)

    monkeypatch.setattr(users_module, "_scrypt", counted)
    for auth in ({"user": "nobody", "pin": PIN}, {"user": "bo", "pin": "1111"}, WRONG):  # no such user: a dummy's
        rig.now[0] += 1.0
        assert rig.clear(PIT, auth)["error"] == f"clear: {REFUSED}"
    assert len(hashed) == 3
    hashed.clear()
    replies = [rig.clear(CONSOLE, SUPERVISOR) for _ in range(PIN_BURST + 1)]  # at once, the right PIN each time
    assert replies[0]["ok"] is True and rig.c.fault is None
    assert [r["say"]["key"] for r in replies[1:-1]] == ["refusal.no_fault_to_clear"] * (PIN_BURST - 1)
    busy = replies[-1]
    assert busy["code"] == "busy" and busy["retry_s"] == 1 and busy["say"]["key"] == "refusal.sign_off_busy"
    assert len(hashed) == PIN_BURST  # the sixth was not hashed
    rig.now[0] += 1.0
    assert rig.clear(CONSOLE, SUPERVISOR)["say"]["key"] == "refusal.no_fault_to_clear" and len(hashed) == PIN_BURST + 1


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every PIN's hash waits for the event (the worker thread's, never the loop's)."""
    gate = threading.Event()
    real: Callable[..., Verdict] = signoff_module.hash_check

    def slow(user: Any, pin: str) -> Verdict:
        assert threading.current_thread().name == "pin-checks"
        assert gate.wait(30)
        return real(user, pin)

    monkeypatch.setattr(signoff_module, "hash_check", slow)
    yield gate
    gate.set()


def test_the_hash_is_done_off_the_loop_and_each_client_answered_in_order(
        tmp_path: Path, ctx: zmq.Context[Any], gated: threading.Event) -> None:
    table = Table(tmp_path, ctx)
    endpoint = table.client.endpoint
    waiting: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    waiting.setsockopt(zmq.LINGER, 0)
    waiting.connect(endpoint)
    try:
        for request in ({"id": "c1", "cmd": "clear", "reason": "shoe checked", "auth": SUPERVISOR},
                        {"id": "s1", "cmd": "state"}):  # the second behind the first's sign-off
            waiting.send(msgpack.packb(request))
        # meanwhile the loop serves everyone else: another client's requests, answered while the hash waits
        for _ in range(3):
            assert table.client.request("state")["ok"] is True
        assert waiting.poll(0) == 0  # nothing can have come: the hash has not been let through
        gated.set()
        replies = [msgpack.unpackb(waiting.recv()) for _ in range(2) if waiting.poll(10_000)]
        assert [(r["id"], r["ok"]) for r in replies] == [("c1", True), ("s1", True)]
        assert replies[1]["fault"] is None and table.c.fault is None  # the state after the clear
    finally:
        waiting.close(0)
        table.close()


def test_a_flood_of_refusals_that_cost_no_hash_is_audited_in_bounds(rig: InProcess) -> None:
    rig.fail(CONSOLE, 5)  # held: what it sends now is refused without a hash
    def refused() -> list[dict[str, Any]]:
        return [e.details for e in rig.audit.entries() if e.kind == "signoff_refused"]
    before = len(refused())
    for _ in range(AUDIT_MOST + 30):
        assert rig.clear(CONSOLE, SUPERVISOR)["say"]["key"] == "refusal.sign_off_held"
    assert len(refused()) - before <= AUDIT_MOST  # each one an fsync: no more a window
    rig.now[0] += AUDIT_WINDOW_S
    rig.c.signoff.turn()  # the loop's turn once the window is over: the count audited
    counted = [d for d in refused() if "count" in d]
    assert counted and sum(d["count"] for d in counted) + len(refused()) - before - len(counted) == AUDIT_MOST + 30


def test_a_hash_waits_for_the_shoe_to_stop_dealing_at_most_a_while() -> None:
    """The loop says when it last took a reading: a hash starts once none has come for QUIET_S (the cards keep the
    cores while they stream), and after MAX_DEFER_S whatever comes."""
    ran: list[float] = []
    start = time.monotonic()
    dealing_until = start + 0.3  # the shoe deals for 0.3 s more
    pins = PinChecks(lambda: min(time.monotonic(), dealing_until))
    try:
        pins.submit(b"console", ([], Command.from_mapping({"cmd": "state"}), CONSOLE),
                    lambda: ran.append(time.monotonic()) or Verdict(None, False))
        assert select.select([pins.fileno()], [], [], 10)[0]
        assert [client for client, _, _ in pins.done()] == [b"console"]
        assert ran[0] >= dealing_until + QUIET_S
        streaming = PinChecks(time.monotonic)  # a reading at every moment: the hash goes at MAX_DEFER_S
        try:
            asked = time.monotonic()
            streaming.submit(b"pit", ([], Command.from_mapping({"cmd": "state"}), PIT),
                             lambda: ran.append(time.monotonic()) or Verdict(None, False))
            assert select.select([streaming.fileno()], [], [], 10)[0]
            assert MAX_DEFER_S <= ran[1] - asked < MAX_DEFER_S + 1.0
        finally:
            streaming.close()
    finally:
        pins.close()


def test_a_hashed_sign_off_is_handed_back_once_the_shoe_stops_dealing_again() -> None:
    """The shoe starts dealing during the hash: the request goes back to the loop (its audit entry's fsync, its
    step) once no reading has come for QUIET_S, not amid the cards."""
    dealing_until = [0.0]  # quiet when the hash is asked for
    hashed: list[float] = []

    def check() -> Verdict:
        hashed.append(time.monotonic())
        dealing_until[0] = hashed[0] + 0.3  # the next hand's cards stream for 0.3 s from now
        return Verdict(None, False)

    pins = PinChecks(lambda: min(time.monotonic(), dealing_until[0]))
    try:
        pins.submit(b"console", ([], Command.from_mapping({"cmd": "state"}), CONSOLE), check)
        assert select.select([pins.fileno()], [], [], 10)[0]
        handed_back = time.monotonic()
        assert [client for client, _, _ in pins.done()] == [b"console"]
        assert handed_back >= dealing_until[0] + QUIET_S
    finally:
        pins.close()


def test_the_hash_runs_below_a_real_time_loop_as_the_unit_deploys_it() -> None:
    """deploy/croupier.service runs the controller at a real-time policy (CPUSchedulingPolicy=), which every thread
    it starts inherits: the hashing thread goes to the lowest real-time priority, below the loop's (a flood of
    sign-offs' hashes never takes a core from the loop's cards) and above the ordinary processes (when the loop
    hands it the GIL, the loop waits for it to run)."""
    import os

    from firmware_host.service.command_desk import WORKER_PRIORITY
    seen: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def loop() -> None:  # the controller's loop, at the unit's policy
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(WORKER_PRIORITY + 9))
        except PermissionError as exc:  # neither root nor an RLIMIT_RTPRIO: skipped below
            errors.append(exc)
            return
        pins = PinChecks(lambda: 0.0)
        try:
            def check() -> Verdict:
                tid = threading.get_native_id()
                seen.append((os.sched_getscheduler(tid), os.sched_getparam(tid).sched_priority))
                return Verdict(None, False)
            pins.submit(b"console", ([], Command.from_mapping({"cmd": "state"}), CONSOLE), check)
            if select.select([pins.fileno()], [], [], 10)[0]:
                seen.append((os.sched_getscheduler(0), os.sched_getparam(0).sched_priority))  # the loop stays
        finally:
            pins.close()

    thread = threading.Thread(target=loop)
    thread.start()
    thread.join(20)
    if errors:
        pytest.skip("a real-time policy is not permitted here (not root, RLIMIT_RTPRIO 0)")
    assert seen == [(os.SCHED_FIFO, WORKER_PRIORITY), (os.SCHED_FIFO, WORKER_PRIORITY + 9)]
