"""`croupier pit rating`'s sign-off under attack: the table's own gate and holds (`protocol.signoff`), counted per terminal account and pit boss in the holds file beside the users file, so that a flood of wrong PINs is held and a right PIN after it refused."""

from __future__ import annotations

import io
import json
import os
import pwd
import threading
from pathlib import Path

import pytest

from cli import main
from cli.pit_rating import HOLDS_FILE
from protocol.audit import AUDIT_FILE, AuditLog
from protocol.signoff import REFUSED
from protocol.signoff_holds import HOLD_S
from protocol.users import User, Users
from sim.pgserver import free_port

HELD = "sign-offs from this console are held for"
SIGNED_OFF = "the archive cannot be written"
"""Past the gate, the step goes to the archive: here a port with no server, so a sign-off that passed says this."""


@pytest.fixture
def users(tmp_path: Path) -> Path:
    path = tmp_path / "floor" / "users.json"
    path.parent.mkdir()
    Users({"sue": User.with_pin("sue", "supervisor", "7315"), "pat": User.with_pin("pat", "pit", "2468")}).save(path)
    return path


def adjust(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path, pin: str,
           by: str = "pat", supervisor: str = "sue") -> tuple[int, str]:
    """One `croupier pit rating` adjusting a session, the PIN on standard input: its exit status and standard error."""
    monkeypatch.setattr("sys.stdin", io.StringIO(pin + "\n"))
    dsn = f"host=127.0.0.1 port={free_port()} user=nobody dbname=none connect_timeout=2"
    status = main(["pit", "rating", "--db", dsn, "--table", "uth-1", "--session", "1700000000.5", "--seat", "3",
                   "--version", "0", "--hands", "4", "--average-bet", "2500", "--by", by, "--users", str(users),
                   "--supervisor", supervisor])
    return status, capsys.readouterr().err


def test_twenty_wrong_pins_are_held_and_the_right_pin_after_them_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    status, said = adjust(monkeypatch, capsys, users, "7315")
    assert status == 1 and SIGNED_OFF in said  # the right PIN passes the gate first
    answers = [adjust(monkeypatch, capsys, users, f"{n:04d}") for n in range(20)]
    assert all(status == 1 for status, _ in answers)
    assert all(REFUSED in said for _, said in answers[:5]), answers[:5]
    assert all(HELD in said for _, said in answers[5:]), answers[5:]  # held at the fifth: never hashed since
    status, said = adjust(monkeypatch, capsys, users, "7315")
    assert status == 1 and HELD in said and SIGNED_OFF not in said
    held = json.loads((users.parent / HOLDS_FILE).read_text(encoding="utf-8"))["keys"]
    account = next(key for key in held if key.endswith(" at pat"))
    assert held[account]["holds"] == 1 and held[account]["until"] > 0
    assert os.stat(users.parent / HOLDS_FILE).st_mode & 0o077 == 0  # written as a secret
    status, said = adjust(monkeypatch, capsys, users, "7315", by="kim")  # another pit boss at the terminal
    assert status == 1 and SIGNED_OFF in said


def test_the_terminal_is_held_after_twenty_failures_whoever_it_names(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    """`--by` is the caller's word: naming a new pit boss every fifth guess gives twenty guesses, then the terminal's
    account is held for every name."""
    for n in range(20):
        status, said = adjust(monkeypatch, capsys, users, f"{n:04d}", by=f"boss{n // 4}")
        assert status == 1 and REFUSED in said, (n, said)
    status, said = adjust(monkeypatch, capsys, users, "7315", by="someone-new")
    assert status == 1 and HELD in said
    assert f"{int(HOLD_S)} s" in said


def test_a_wrong_role_or_an_unknown_supervisor_is_the_one_refusal_and_counts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    wrong_role = adjust(monkeypatch, capsys, users, "2468", supervisor="pat")  # a pit boss's own PIN
    forged = adjust(monkeypatch, capsys, users, "7315", supervisor="root")  # a name not in the file
    empty = adjust(monkeypatch, capsys, users, "")
    assert [status for status, _ in (wrong_role, forged, empty)] == [1, 1, 1]
    assert wrong_role[1] == forged[1] == empty[1]  # one refusal whatever failed
    assert REFUSED in forged[1]
    for n in range(2):
        adjust(monkeypatch, capsys, users, f"{n:04d}")
    status, said = adjust(monkeypatch, capsys, users, "7315")  # the fifth failure came just before: held
    assert status == 1 and HELD in said


def test_failures_sent_at_once_are_each_counted(monkeypatch: pytest.MonkeyPatch, users: Path) -> None:
    """Eight processes' worth of wrong PINs at once (threads here): the holds file is taken in turns, none lost."""
    from argparse import Namespace

    from cli.pit_rating import _signed_off
    args = Namespace(users=str(users), supervisor="sue", by="pat", seat=3, table="uth-1", session=1700000000.5)
    said: list[str | None] = []
    threads = [threading.Thread(target=lambda n=n: said.append(_signed_off(args, f"9{n:03d}"))) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(said) == 8  # five hashed and refused, the fifth holding the three after it
    assert sum(REFUSED in (s or "") for s in said) == 5 and sum(HELD in (s or "") for s in said) == 3, said
    assert HELD in (_signed_off(args, "7315") or "")


def test_a_holds_file_that_cannot_be_written_refuses_every_sign_off(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    (users.parent / HOLDS_FILE).mkdir()  # what no one writes a file over, root included
    status, said = adjust(monkeypatch, capsys, users, "7315")
    assert status == 1 and "cannot be written" in said and SIGNED_OFF not in said


def test_every_failed_and_held_sign_off_is_in_the_pits_audit_log_never_its_pin(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    """The security officer reads the terminal's sign-offs where the table's are read (`croupier audit show`, its
    chain verified): who sent, who was named, the terminal's account, when, what step at which table, never a PIN."""
    wrong = [f"8{n}61{n}93" for n in range(6)]  # PINs no time, counter or hash would spell by chance
    for pin in wrong:
        adjust(monkeypatch, capsys, users, pin)
    status, said = adjust(monkeypatch, capsys, users, "7315", by="kim")  # another pit boss: signed off
    assert status == 1 and SIGNED_OFF in said
    account = f"cli:{pwd.getpwuid(os.getuid()).pw_name}"
    step = {"table": "uth-1", "session": 1700000000.5, "seat": 3, "action": "adjust", "via": "croupier pit rating"}
    log = AuditLog.open(users.parent, readonly=True)
    try:
        assert log.verify().ok
        entries = [(e.kind, e.details, e.time) for e in log.entries() if e.kind.startswith("signoff_")]
    finally:
        log.close()
    refused = [d for kind, d, _ in entries if kind == "signoff_refused"]
    assert [d["reason"] for d in refused[:5]] == ["wrong PIN for 'sue'"] * 5  # hashed and refused: which, audited
    assert "held" in refused[5]["reason"]  # the sixth, held: refused unhashed, audited too
    assert all({"user": "sue", "at": "pat", "role": "pit", "key": account, "command": "rating"}.items() <= d.items()
               and step.items() <= d.items() for d in refused), refused
    held = [d for kind, d, _ in entries if kind == "signoff_held"]
    assert held == [{"key": account, "role": "pit", "address": "", "at": "pat", "seconds": held[0]["seconds"],
                     "failed": 5, **step}]
    granted = [d for kind, d, _ in entries if kind == "signoff_granted"]
    assert granted == [{"user": "sue", "at": "kim", "role": "pit", "key": account, "command": "rating", **step}]
    assert all(when.endswith("Z") and when[:4].isdigit() for _, _, when in entries)  # when: UTC
    disk = b"".join(p.read_bytes() for p in users.parent.iterdir() if p.name.startswith(AUDIT_FILE))
    assert not any(pin.encode() in disk for pin in wrong)  # never a PIN, right or wrong
    assert not any("7315" in json.dumps(d) for _, d, _ in entries)
    assert main(["audit", "show", "--state", str(users.parent), "--json"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(e["kind"] == "signoff_refused" for e in shown) == 6


def test_an_audit_log_that_cannot_be_opened_refuses_every_sign_off(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    (users.parent / AUDIT_FILE).mkdir()  # not a file: no entry could be written
    status, said = adjust(monkeypatch, capsys, users, "7315")
    assert status == 1 and "audit log cannot be written" in said and SIGNED_OFF not in said


def test_users_loaded_is_audited_only_when_the_users_file_changed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], users: Path) -> None:
    """Three runs read one users file: one `users_loaded`, with its sha256; the file changed, the next run writes
    another (a run a step: one entry a run was noise that hid the changes)."""
    import hashlib

    for pin in ("0001", "7315", "0002"):
        adjust(monkeypatch, capsys, users, pin)
    first = hashlib.sha256(users.read_bytes()).hexdigest()
    Users({"sue": User.with_pin("sue", "supervisor", "7315"), "kim": User.with_pin("kim", "pit", "1470")}).save(users)
    for pin in ("0003", "0004"):
        adjust(monkeypatch, capsys, users, pin)
    log = AuditLog.open(users.parent, readonly=True)
    try:
        loaded = [e.details for e in log.entries() if e.kind == "users_loaded"]
    finally:
        log.close()
    assert [d["sha256"] for d in loaded] == [first, hashlib.sha256(users.read_bytes()).hexdigest()]
    assert [u["user"] for u in loaded[1]["users"]] == ["kim", "sue"]
