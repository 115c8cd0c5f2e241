"""The tamper-evident audit log: its chain, tampering with the real file caught by counter, the
`croupier audit` command, and the entries the controller and `croupier run` write."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.metadata
import json
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.readings import ButtonPress, DeviceOffline, DeviceOnline, OfflineKind
from protocol.audit import (
    AUDIT_FILE, GENESIS, AuditError, AuditLog, Entry, chain_hash, code_hash, config_details, start_details,
)
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import croupier_here, start_cli, table_config, wait_for
from tests.firmware_host.rigs import JournalRig


class Clock:
    """A fake clock: one second later at each reading."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def five_entries(state: Path) -> Path:
    audit = AuditLog.open(state, clock=Clock())
    for n in range(1, 6):
        audit.append("test", {"n": n, "text": f"entry {n}"})
    audit.close()
    return state / AUDIT_FILE


def rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT id, counter, time, kind, details, hash FROM entries ORDER BY id").fetchall()


def rewrite(path: Path, new_rows: list[tuple[Any, ...]]) -> None:
    """Put `new_rows` (counter, time, kind, details, hash) in the file in that order, as a tamperer would."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM entries")
        conn.executemany("INSERT INTO entries (counter, time, kind, details, hash) VALUES (?, ?, ?, ?, ?)", new_rows)
    conn.close()


def read_entries(state: Path) -> list[Entry]:
    audit = AuditLog.open(state, readonly=True)
    try:
        return audit.entries()
    finally:
        audit.close()


def verdict(state: Path) -> Any:
    audit = AuditLog.open(state, readonly=True)
    try:
        return audit.verify()
    finally:
        audit.close()


# -- the chain ----------------------------------------------------------------------------------


def test_chain_verifies_and_each_hash_chains_from_the_one_before(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    got = verdict(tmp_path)
    assert got.ok and got.entries == 5 and got.last_counter == 5
    stored = rows(path)
    assert [r[1] for r in stored] == [1, 2, 3, 4, 5]
    assert got.first_time == stored[0][2] == "2027-01-15T08:00:01.000000Z" and got.last_time == stored[-1][2]
    previous = GENESIS
    for _, counter, when, kind, details, digest in stored:
        assert digest == chain_hash(previous, counter, when, kind, json.loads(details))
        previous = digest
    assert got.last_hash == previous


def test_a_reopened_log_goes_on_with_the_chain(tmp_path: Path) -> None:
    five_entries(tmp_path)
    audit = AuditLog.open(tmp_path)
    entry = audit.append("more", {"after": "restart"})
    audit.close()
    assert entry.counter == 6 and entry.hash == chain_hash(rows(tmp_path / AUDIT_FILE)[4][5], 6, entry.time,
                                                             "more", {"after": "restart"})
    assert verdict(tmp_path).ok and verdict(tmp_path).entries == 6


def test_an_edited_entry_is_named(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("""UPDATE entries SET details = '{"n": 3, "text": "entry three"}' WHERE counter = 3""")
    got = verdict(tmp_path)
    assert (got.bad, got.entries) == (3, 2) and "entry 3 changed" in got.problem


def test_an_edited_time_or_kind_is_named(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE entries SET time = '2027-01-15T07:00:00.000000Z' WHERE counter = 4")
    assert verdict(tmp_path).bad == 4
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE entries SET kind = 'other' WHERE counter = 2")
    assert verdict(tmp_path).bad == 2


def test_a_removed_entry_is_named(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM entries WHERE counter = 3")
    got = verdict(tmp_path)
    assert got.bad == 3 and "entry 3 missing" in got.problem and got.entries == 2


def test_an_inserted_entry_is_named_even_with_a_good_hash(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    old = [r[1:] for r in rows(path)]
    # a forged entry 3 chained properly onto entry 2, slipped in before the real entry 3
    forged_time = "2027-01-15T08:00:03.500000Z"
    forged = (3, forged_time, "test", '{"n": 99}', chain_hash(old[1][4], 3, forged_time, "test", {"n": 99}))
    rewrite(path, [*old[:2], forged, *old[2:]])
    got = verdict(tmp_path)
    assert got.bad == 3 and "repeated" in got.problem and got.entries == 3  # the forgery passes, the real 3 does not


def test_an_inserted_entry_without_a_good_hash_is_named(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    old = [r[1:] for r in rows(path)]
    rewrite(path, [*old[:4], (5, old[3][1], "test", '{"n": 0}', "f" * 64), *old[4:]])
    assert verdict(tmp_path).bad == 5


def test_reordered_entries_are_named(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    old = [r[1:] for r in rows(path)]
    rewrite(path, [old[0], old[2], old[1], *old[3:]])
    got = verdict(tmp_path)
    assert got.bad == 3 and "out of order" in got.problem and got.entries == 1


def test_details_that_are_not_json_are_a_change(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE entries SET details = 'garbage' WHERE counter = 1")
    assert verdict(tmp_path).bad == 1


def test_no_log_and_not_a_log_are_audit_errors(tmp_path: Path) -> None:
    with pytest.raises(AuditError, match="no audit log"):
        AuditLog.open(tmp_path, readonly=True)
    (tmp_path / AUDIT_FILE).write_bytes(b"not sqlite at all, just some bytes " * 10)
    with pytest.raises(AuditError, match="not an audit log"):
        AuditLog.open(tmp_path, readonly=True)


def test_a_failed_write_is_logged_and_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    audit = AuditLog.open(tmp_path)
    audit.close()  # a closed connection: every write fails
    assert audit.write("fault_raised", {"fault": "misread"}) is None
    assert "AUDIT LOG WRITE FAILED" in caplog.text and "fault_raised" in caplog.text
    with pytest.raises(AuditError):
        audit.append("fault_raised", {})


# -- croupier audit ------------------------------------------------------------------------------


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    """`croupier ARGS` in this process (`croupier_here`: the same parsing and code, no second of start-up)."""
    return croupier_here(*args)


def test_cli_verify_summary_then_the_tampered_entry(tmp_path: Path) -> None:
    path = five_entries(tmp_path)
    ok = croupier("audit", "verify", "--state", str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    assert "5 entries" in ok.stdout and "2027-01-15T08:00:01.000000Z" in ok.stdout
    assert "2027-01-15T08:00:05.000000Z" in ok.stdout and rows(path)[-1][5] in ok.stdout
    with sqlite3.connect(path) as conn:
        conn.execute("""UPDATE entries SET details = '{"n": 4, "text": "edited"}' WHERE counter = 4""")
    bad = croupier("audit", "verify", "--state", str(tmp_path))
    assert bad.returncode == 1 and "entry 4 changed" in bad.stdout and "Traceback" not in bad.stderr


def test_cli_show_text_json_and_last(tmp_path: Path) -> None:
    five_entries(tmp_path)
    text = croupier("audit", "show", "--state", str(tmp_path))
    assert text.returncode == 0 and len(text.stdout.splitlines()) == 5 and '"entry 5"' in text.stdout
    last = croupier("audit", "show", "--state", str(tmp_path), "--last", "2", "--json")
    lines = [json.loads(line) for line in last.stdout.splitlines()]
    assert [e["counter"] for e in lines] == [4, 5] and lines[1]["details"] == {"n": 5, "text": "entry 5"}
    assert set(lines[0]) == {"counter", "time", "kind", "details", "hash"}


@pytest.mark.parametrize("action", ["verify", "show"])
def test_cli_without_a_log_says_so(tmp_path: Path, action: str) -> None:
    proc = croupier("audit", action, "--state", str(tmp_path))
    assert proc.returncode == 1 and "no audit log at" in proc.stderr and str(tmp_path) in proc.stderr
    assert "Traceback" not in proc.stderr
    (tmp_path / AUDIT_FILE).write_bytes(b"\x00garbage" * 100)
    proc = croupier("audit", action, "--state", str(tmp_path))
    assert proc.returncode == 1 and "not an audit log" in proc.stderr and "Traceback" not in proc.stderr


# -- the controller's entries -------------------------------------------------------------------


class AuditRig(JournalRig):
    """A house table's controller on a real journal and a real audit log in the same directory."""

    def controller_args(self) -> dict[str, Any]:
        self.audit = AuditLog.open(self.path)
        return {"default_setup": HouseSetup("uth", "default", {"minimum": 100}, 7), "audit": self.audit}

    def restart(self) -> Any:
        self.audit.close()
        return super().restart()

    def entries(self) -> list[tuple[str, dict[str, Any]]]:
        return [(e.kind, e.details) for e in read_entries(self.path)]


@pytest.fixture
def arig(tmp_path: Path) -> Iterator[AuditRig]:
    r = AuditRig(tmp_path)
    yield r
    r.c.journal.close()
    r.audit.close()


def test_controller_writes_fault_raised_and_cleared_and_the_void(arig: AuditRig) -> None:
    arig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    arig.ok("card", card="As")
    arig.ok("card", card="Kd")
    assert arig.entries() == []  # bets and cards are the journal's, not the audit log's
    dup = arig.ok("card", card="Kd")
    raised = arig.entries()
    assert raised == [("fault_raised", {"fault": "duplicate_card", "event": dup["event"],
                                        "detail": raised[0][1]["detail"], "via": "card"})]
    arig.restart()  # replaying the journal writes nothing again
    assert len(arig.entries()) == 1
    clear = arig.ok("clear", reason="two decks mixed", then="void")
    kinds = arig.entries()
    assert kinds[1] == ("fault_cleared", {"fault": "duplicate_card", "fault_event": dup["event"],
                                          "event": clear["event"], "by": None, "reason": "two decks mixed",
                                          "then": "void"})
    assert kinds[2][0] == "void" and kinds[2][1]["hand"] == 1 and kinds[2][1]["via"] == "clear"
    arig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    arig.ok("card", card="2c")
    void = arig.ok("void", reason="player left")
    assert arig.entries()[3] == ("void", {"event": void["event"], "hand": 2, "game": "uth", "by": None,
                                          "reason": "player left", "via": "void"})
    assert verdict(arig.path).ok and verdict(arig.path).entries == 4


def test_controller_writes_device_connects_and_disconnects(arig: AuditRig) -> None:
    arig.c.handle_readings([DeviceOnline("shoe", "CS-2", "00417", "1.4.2", 3)])
    arig.c.handle_reading(DeviceOffline("shoe", "port closed", OfflineKind.DEVICE_OFFLINE))
    got = arig.entries()
    assert [k for k, _ in got] == ["device_connect", "device_disconnect"]
    assert got[0][1]["model"] == "CS-2" and got[0][1]["firmware"] == "1.4.2" and got[0][1]["serial"] == "00417"
    assert got[1][1]["reason"] == "port closed"


def test_a_refused_step_writes_no_entry(arig: AuditRig) -> None:
    assert arig.cmd("clear", reason="nothing")["ok"] is False  # no fault: refused, rolled back
    assert arig.cmd("void", reason="nothing")["ok"] is False
    assert arig.entries() == []


# -- start, configuration, stop --------------------------------------------------------------------


def test_start_details_carry_the_version_and_the_code_hash() -> None:
    details = start_details(table="t1", pid=42)
    assert details["version"] == importlib.metadata.version("croupier")
    assert details["code_sha256"] == code_hash() and len(details["code_sha256"]) == 64
    assert (details["table"], details["pid"]) == ("t1", 42)


def test_code_hash_changes_with_any_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "auditprobe_pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""x."""\n')
    (pkg / "sub" / "mod.py").write_text("A = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = code_hash(["auditprobe_pkg"])
    assert code_hash(["auditprobe_pkg"]) == before
    (pkg / "sub" / "mod.py").write_text("A = 2\n")
    changed = code_hash(["auditprobe_pkg"])
    assert changed != before
    # an extension module (the engine compiled by mypyc runs from them) is code as its source is; data is not
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (pkg / "sub" / f"mod{suffix}").write_bytes(b"\x7fELF forged")
    with_extension = code_hash(["auditprobe_pkg"])
    assert with_extension != changed
    (pkg / "sub" / f"mod{suffix}").write_bytes(b"\x7fELF forged again")
    forged = code_hash(["auditprobe_pkg"])
    assert forged != with_extension
    (pkg / "sub" / "notes.txt").write_text("not code")
    assert code_hash(["auditprobe_pkg"]) == forged
    with pytest.raises(AuditError, match="not installed"):
        code_hash(["no_such_package_here"])


def test_config_details_hash_the_file(tmp_path: Path) -> None:
    config = table_config(tmp_path, "tcp://127.0.0.1:0")
    got = config_details(str(config))
    assert got == {"path": str(config.resolve()), "sha256": hashlib.sha256(config.read_bytes()).hexdigest()}


def test_croupier_run_writes_start_config_and_stop(tmp_path: Path) -> None:
    config = table_config(tmp_path, f"ipc://{tmp_path}/commands")
    state = tmp_path / "state"
    proc, ready = start_cli(["run", "--config", str(config), "--state", str(state)], tmp_path)
    try:
        assert ready["ready"] is True
        start = wait_for(lambda: read_entries(state), "the start entries")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        proc.stdout.close()
    entries = read_entries(state)
    assert [e.kind for e in entries] == ["start", "config", "stop"]
    assert start[0].details["version"] == importlib.metadata.version("croupier")
    assert start[0].details["code_sha256"] == code_hash() and start[0].details["pid"] == ready["pid"]
    assert entries[1].details["sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()
    assert entries[2].details == {"outcome": "stopped", "pid": ready["pid"]}
    assert verdict(state).ok
    Journal.open(state, readonly=True).close()  # beside the journal, in the same directory


def test_controller_writes_a_chop_and_a_button_void(arig: AuditRig) -> None:
    arig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    arig.ok("card", card="As")
    arig.c.handle_reading(ButtonPress("void"))
    assert [k for k, _ in arig.entries()] == ["void"] and arig.entries()[0][1]["via"] == "button"
    arig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=3,
            stacks={"1": 200, "2": 200, "3": 200}, button=3)
    arig.ok("deal")
    for card in "3h As Kd 2c Ah Qs 7d".split():
        arig.ok("card", card=card)
    arig.ok("act", seat=3, action="raise", amount=6)
    arig.ok("act", seat=1, action="fold")
    arig.ok("act", seat=2, action="call")
    for card in "4h Kc 8d 2s".split():
        arig.ok("card", card=card)
    chop = arig.ok("chop")
    assert arig.entries()[1] == ("chop", {"event": chop["event"]})
    assert verdict(arig.path).ok
