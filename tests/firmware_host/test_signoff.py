"""Roles and a supervisor's sign-off on the command channel, over real loopback sockets: the dealer's
`clear` refused, a supervisor's PIN accepted and journaled, wrong PINs locking, the PIN nowhere on
disk; `croupier users`; the pit's `close`; cards entered by hand marked as such."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine import redact
from protocol.audit import AuditLog
from protocol.commands import Command, CommandClient
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from protocol.signoff import REFUSED
from protocol.users import User, Users
from sim.bots.table import free_tcp_port
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import croupier_here, table_config

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
PIN = "8026491375"  # ten digits: never by chance in a hex hash or a timestamp
SUPERVISOR = {"user": "ana", "pin": PIN}


class Table:
    """A controller serving its command channel on a loopback TCP port from its own thread."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], *, local_role: str = "dealer", users: bool = True,
                 fault: bool = True) -> None:
        self.state = tmp / "state"
        self.now = [1000.0]
        if users:
            Users({"ana": User.with_pin("ana", "supervisor", PIN),
                   "bo": User.with_pin("bo", "dealer", "1111")}).save(tmp / "users.json")
        self.audit = AuditLog.open(self.state)
        security = SecurityConfig(users=str(tmp / "users.json") if users else "", local_role=local_role)
        self.c = Controller(Journal.open(self.state), default_setup=UTH, audit=self.audit, security=security,
                            limits={"minimum": 100})
        self.c.signoff.clock = lambda: self.now[0]
        self.c.recover()
        if fault:
            self.c.raise_fault("device_silent", "the shoe said nothing for 3 s")
        endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        self.thread = threading.Thread(target=self.c.run, args=(ctx, endpoint), daemon=True)
        self.thread.start()
        self.client = CommandClient(ctx, endpoint)

    def events(self) -> list[Any]:
        return list(self.c.journal.events())

    def close(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()
        self.audit.close()

    def audited(self, kind: str) -> list[dict[str, Any]]:
        return [e.details for e in self.audit.entries() if e.kind == kind]

    def disk_bytes(self) -> bytes:
        """Every byte the state directory holds (journal, its WAL, the audit log)."""
        return b"".join(p.read_bytes() for p in sorted(self.state.iterdir()) if p.is_file())


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Table]:
    t = Table(tmp_path, ctx)
    yield t
    t.close()


def test_a_dealers_clear_is_forbidden_and_a_supervisors_pin_lets_it_through(table: Table) -> None:
    before = table.events()
    refused = table.client.request("clear", reason="shoe checked")
    assert refused["ok"] is False and refused["code"] == "forbidden" and "sign-off" in refused["error"]
    assert table.events() == before and table.c.fault is not None  # nothing journaled, the fault stands
    wrong_role = table.client.request("clear", reason="shoe checked", auth={"user": "bo", "pin": "1111"})
    unknown = table.client.request("clear", reason="shoe checked", auth={"user": "zed", "pin": PIN})
    wrong_pin = table.client.request("clear", reason="shoe checked", auth={"user": "ana", "pin": "1111"})
    for reply in (wrong_role, unknown, wrong_pin):  # one refusal: neither a name nor a role is given away
        assert {k: v for k, v in reply.items() if k != "id"} == {
            "ok": False, "code": "forbidden", "error": f"clear: {REFUSED}", "say": {"key": "refusal.sign_off_refused",
                                                                                  "args": {}}}, reply
    assert table.events() == before
    accepted = table.client.request("clear", reason="shoe checked", auth=SUPERVISOR)
    assert accepted["ok"], accepted
    assert table.c.fault is None
    last = table.events()[-1]
    assert last.kind == "clear" and last.body["signed_off"] == {"user": "ana", "caller_role": "dealer"}
    assert "pin" not in repr(last.body) and "auth" not in last.body
    assert table.audited("signoff_granted") == [{"user": "ana", "command": "clear", "role": "dealer", "key": None}]
    assert [(d["user"], d["reason"]) for d in table.audited("signoff_refused")][1:] == [  # the audit log says which
        ("bo", "user 'bo' is a dealer: only a supervisor signs off"), ("zed", "no user 'zed' in the users file"),
        ("ana", "wrong PIN for 'ana'")]
    assert table.audited("fault_cleared")[0]["by"] == "ana"
    assert PIN.encode() not in table.disk_bytes()


def test_a_dealer_may_not_send_what_its_role_is_not_given(table: Table) -> None:
    before = table.events()
    for cmd, args in (("void", {"reason": "player left"}), ("close", {}), ("chop", {})):
        reply = table.client.request(cmd, **args)
        assert reply["code"] == "forbidden", reply
    assert table.events() == before
    assert [(d["role"], d["command"]) for d in table.audited("forbidden")] == [("dealer", "close")]
    assert [d["command"] for d in table.audited("signoff_refused")] == ["void", "chop"]


def test_five_failed_sign_offs_hold_the_consoles_sign_offs_for_five_minutes(table: Table) -> None:
    for attempt in range(5):
        reply = table.client.request("clear", reason="shoe checked", auth={"user": "ana", "pin": f"59173{attempt}4682"})
        assert reply["code"] == "forbidden" and REFUSED in reply["error"], reply
    assert table.audited("signoff_held") == [{"key": None, "role": "dealer", "address": "127.0.0.1", "at": None,
                                              "seconds": 300.0, "failed": 5}]
    sixth = table.client.request("clear", reason="shoe checked", auth=SUPERVISOR)  # the right PIN, still held
    assert sixth["code"] == "forbidden" and "held for 300 s more" in sixth["error"]
    assert sixth["say"] == {"key": "refusal.sign_off_held", "args": {"seconds": 300}}
    table.now[0] += 299.0
    assert "1 s more" in table.client.request("clear", reason="shoe checked", auth=SUPERVISOR)["error"]
    assert table.c.fault is not None and table.events()[-1].kind == "fault"
    table.now[0] += 1.5
    assert table.client.request("clear", reason="shoe checked", auth=SUPERVISOR)["ok"]
    assert table.c.fault is None
    assert PIN.encode() not in table.disk_bytes() and b"5917334682" not in table.disk_bytes()  # ten digits, as PIN


def test_a_card_entered_by_hand_needs_a_sign_off_and_is_marked_manual(table: Table) -> None:
    assert table.client.request("clear", reason="shoe checked", auth=SUPERVISOR)["ok"]
    assert table.client.request("bet", seat=1, bets={"ante": 100, "blind": 100})["ok"]
    assert table.client.request("deal")["ok"]
    public_before = table.c.public_state()
    refused = table.client.request("card", card="As")
    assert refused["code"] == "forbidden" and "by hand" in refused["error"]
    assert table.client.request("card", card="As", auth=SUPERVISOR)["ok"]
    full, public = table.c.full_state(), table.c.public_state()
    assert full["manual"] == [{"card": "As", "event": table.events()[-1].id,
                               "signed_off": {"user": "ana", "caller_role": "dealer"}}]
    assert "manual" not in public and set(public) == set(public_before) and set(public) <= redact.TABLE_KEYS
    assert "As" not in repr(public)
    assert table.client.request("void", reason="player left", auth=SUPERVISOR)["ok"]
    record = table.c.journal.hands()[-1].record
    assert record["manual"][0]["card"] == "As" and record["signed_off"]["user"] == "ana"


def test_an_open_with_new_limits_needs_a_sign_off(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    t = Table(tmp_path, ctx, local_role="pit", fault=False)
    try:
        same = t.client.request("open", game="uth")  # the configuration's table again: the pit alone
        assert same["ok"], same
        before = t.events()
        new = t.client.request("open", game="uth", limits={"minimum": 500})
        assert new["code"] == "forbidden" and "new limits" in new["error"] and t.events() == before
        assert t.client.request("open", game="3cp", auth=SUPERVISOR)["ok"]
        assert t.events()[-1].body["signed_off"]["user"] == "ana"
        assert t.client.request("bet", seat=1, bets={"ante": 100})["code"] == "forbidden"  # not the pit's
    finally:
        t.close()


def test_with_no_users_file_privileged_steps_are_refused(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    t = Table(tmp_path, ctx, users=False)
    try:
        for auth in (None, SUPERVISOR):
            reply = t.client.request("clear", reason="shoe checked", auth=auth)
            assert reply["code"] == "forbidden" and "no users file is configured" in reply["error"], reply
        assert t.c.fault is not None
    finally:
        t.close()


def test_the_pit_closes_the_table_between_hands_and_it_stays_closed(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    t = Table(tmp_path, ctx, local_role="pit", fault=False)
    try:
        t.c.handle_command(Command.from_mapping({"cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100}}))
        refused = t.client.request("close")
        assert refused["code"] == "illegal" and "in progress" in refused["error"]
        t.c.handle_command(Command.from_mapping({"cmd": "void", "reason": "player left"}))
        assert t.client.request("close")["ok"]
        assert t.events()[-1].kind == "close" and t.c.public_state()["phase"] == "closed"
        assert t.client.request("close")["code"] == "illegal"  # nothing open to close
    finally:
        t.close()
    again = Controller(Journal.open(tmp_path / "state"), default_setup=UTH)
    again.recover()  # the journal replays the close: the configuration's table is not opened again
    assert again.table is None and again.public_state()["phase"] == "closed"
    again.journal.close()


def test_auth_is_neither_an_argument_nor_part_of_the_digest() -> None:
    plain = Command.from_mapping({"cmd": "void", "reason": "x"})
    signed = Command.from_mapping({"cmd": "void", "reason": "x", "auth": SUPERVISOR})
    assert signed.args == plain.args and signed.digest == plain.digest
    assert signed.auth is not None and signed.auth.user == "ana" and PIN not in repr(signed)


def croupier(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`croupier ARGS` in this process (`croupier_here`: the same parsing and code, no second of start-up)."""
    return croupier_here(*args, stdin=stdin)


def test_users_add_reads_the_pin_from_stdin_and_keeps_only_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    done = croupier("users", "add", "ana", "--role", "supervisor", "--file", str(path), stdin=PIN + "\n")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert PIN.encode() not in path.read_bytes()
    user = Users.load(path).get("ana")
    assert user is not None and user.role == "supervisor" and user.pin_matches(PIN) and not user.pin_matches("1234")
    assert croupier("users", "add", "bo", "--role", "dealer", "--file", str(path), stdin="12\n").returncode == 1
    assert croupier("users", "add", "bo", PIN, "--role", "dealer", "--file", str(path)).returncode == 2  # no PIN argument
    listed = croupier("users", "list", "--file", str(path))
    assert listed.returncode == 0 and listed.stdout == "ana\tsupervisor\n"
    assert croupier("users", "remove", "ana", "--file", str(path)).returncode == 0
    assert Users.load(path).by_name == {} and [p.name for p in tmp_path.iterdir()] == ["users.json"]


def test_a_bad_users_file_stops_the_start(tmp_path: Path) -> None:
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    (tmp_path / "users.json").write_text('{"users": {"ana": {"role": "supervisor"}}}')
    with config.open("a") as f:
        f.write(f'[security]\nusers = "{tmp_path}/users.json"\n')
    done = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config), "--state", str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=60)  # its own process: a start that went on would not end
    assert done.returncode == 2 and "[security] users" in done.stderr and "ana" in done.stderr
    assert "Traceback" not in done.stderr


def test_user_changes_are_in_the_audit_log(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """Key and user changes are audited: the users as the controller starts, then who was added,
    removed or given a new PIN, seen at the next sign-off (names and roles, never a hash)."""
    table = Table(tmp_path, ctx)
    try:
        assert table.audited("users_loaded") == [{"file": str(tmp_path / "users.json"),
                                                  "users": [{"user": "ana", "role": "supervisor"},
                                                            {"user": "bo", "role": "dealer"}]}]
        Users({"ana": User.with_pin("ana", "supervisor", "4938271650"),  # a new PIN for ana, bo gone, cy new
               "cy": User.with_pin("cy", "supervisor", "6172839405")}).save(tmp_path / "users.json")
        reply = table.client.request("clear", reason="beam cleaned", then="continue",
                                     auth={"user": "cy", "pin": "6172839405"})
        assert reply["ok"], reply
        changed = table.audited("users_changed")
        assert changed == [{"file": str(tmp_path / "users.json"),
                            "added": [{"user": "cy", "role": "supervisor"}],
                            "removed": [{"user": "bo", "role": "dealer"}],
                            "changed": [{"user": "ana", "role": "supervisor", "was": "supervisor",
                                         "pin_changed": True}]}]
        assert b"6172839405" not in table.disk_bytes() and b"4938271650" not in table.disk_bytes()
    finally:
        table.close()
