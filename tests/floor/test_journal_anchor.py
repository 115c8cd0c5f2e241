"""The journal's chain anchored in the floor's archive (issue: the journal's chain can be rewritten): each archived
hand keeps the chain head at its close, and `croupier audit verify --against DSN --table NAME` catches a journal
rewritten with its chain recomputed, which the journal's own check cannot (real PostgreSQL, real journal)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from floor.archive import Archive
from floor.migrate import migrate
from protocol.audit import AuditLog
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.history import hand_lines
from firmware_host.service.chain import link as _link
from firmware_host.service.journal import JOURNAL_FILE, Journal
from protocol.users import User, Users
from tests.firmware_host.processes import croupier_here
from tests.floor.test_floor_archive import UTH, play


def verify(state: Path, dsn: str) -> subprocess.CompletedProcess[str]:
    return croupier_here("audit", "verify", "--state", str(state), "--against", dsn, "--table", "t1")  # in this process


def rewrite(state: Path, old: str, new: str) -> int:
    """An attacker's edit: `old` becomes `new` in one event's body, and every event's chain from it recomputed as
    the journal computes it. Returns the event's id."""
    conn = sqlite3.connect(state / JOURNAL_FILE)
    with conn:
        rows = conn.execute("SELECT id, hand, ts, kind, body, req FROM events ORDER BY id").fetchall()
        (changed,) = [r[0] for r in rows if old in r[4]]
        previous = ""
        for event_id, hand, ts, kind, body, req in rows:
            body = body.replace(old, new) if event_id == changed else body
            previous = _link(previous, event_id, hand, ts, kind, body, req)
            conn.execute("UPDATE events SET body = ?, chain = ? WHERE id = ?", (body, previous, event_id))
    conn.close()
    return changed


def test_a_rewritten_journal_is_caught_against_the_archive(tmp_path: Path, db: str) -> None:
    migrate(db)
    state = tmp_path / "state"
    state.mkdir()
    Users({"sup-7": User.with_pin("sup-7", "supervisor", "4321")}).save(state / "users.json")
    AuditLog.open(state).close()
    c = Controller(Journal.open(state), default_setup=UTH,
                   security=SecurityConfig(local_role="pit", users=str(state / "users.json")))
    c.recover()
    play(c, 3)  # 3 settled, 2 voided, 1 settled: 6 hands
    lines = hand_lines(c.journal, c.journal.lines_after(0, 100))
    c.journal.close()
    assert [line["hand"] for line in lines] == [1, 2, 3, 4, 5, 6]
    assert all(set(line["chain"]) == {"event", "head"} for line in lines)
    with Archive(db) as archive:
        archive.write("t1", lines)

    done = verify(state, db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "journal anchored: 6 hands of table 't1' archived match the journal's chain" in done.stdout

    event = rewrite(state, '"ante":200', '"ante":900')  # hand 5's bet, after the fact
    journal = Journal.open(state, readonly=True)
    try:
        assert journal.verify_chain() is None  # the journal's own chain holds: it was recomputed
        hand = next(e.hand for e in journal.events() if e.id == event)
    finally:
        journal.close()
    done = verify(state, db)
    assert done.returncode == 1, done.stdout
    assert f"journal REWRITTEN: {state}: hand {hand} " in done.stdout, done.stdout


def test_against_needs_both_the_dsn_and_the_table(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "audit", "verify", "--state", str(tmp_path),
                           "--against", "dbname=x"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--against DSN and --table NAME together" in done.stderr
