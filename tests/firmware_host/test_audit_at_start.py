"""The audit log's chain checked at every start, as the journal's is: a changed, removed or inserted entry stands
an `audit_integrity` fault (critical: only a supervisor's clear lifts it), faulted once per break."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.audit import AuditLog
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


class Rig(JournalRig):
    """A UTH table's controller on a real journal and a real audit log, both in `path`."""

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": UTH}

    def _new(self) -> Controller:
        self.log = AuditLog.open(self.path)
        self.log.write("start", {"table": "t1"})  # as `croupier run` writes at each start, before the replay
        c = Controller(Journal.open(self.path), audit=self.log, **self.controller_args())
        c.recover()
        return c

    def restart(self) -> Controller:
        self.log.close()
        return super().restart()

    def close(self) -> None:
        self.c.journal.close()
        self.log.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def audit_file(path: Path) -> Path:
    return next(p for p in path.iterdir() if p.name.startswith("audit") and p.suffix.startswith(".sqlite"))


def test_an_untouched_audit_log_starts_clean(rig: Rig) -> None:
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.restart()
    assert rig.c.fault is None


def test_a_changed_entry_locks_the_table_until_a_supervisor_clears_it_once(rig: Rig, tmp_path: Path) -> None:
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    rig.close()
    db = sqlite3.connect(audit_file(tmp_path))
    with db:
        changed = db.execute("SELECT counter FROM entries ORDER BY id LIMIT 1").fetchone()[0]
        db.execute("UPDATE entries SET details = replace(details, '}', ',\"x\":1}') WHERE counter = ?", (changed,))
    db.close()
    rig.c = rig._new()
    public = rig.c.public_state()
    assert public["fault"]["kind"] == "audit_integrity", public["fault"]
    assert f"entry {changed} changed" in rig.c.full_state()["fault"]["detail"]
    reply = rig.cmd("void", reason="audit changed")
    assert reply["ok"] is False and reply["code"] == "fault"  # critical: only a clear lifts it
    reply = rig.cmd("bet", seat=2, bets={"ante": 100, "blind": 100})
    assert reply["ok"] is False and reply["code"] == "fault"
    rig.ok("clear", reason="audit log checked against the paper log", then="continue")
    assert rig.c.fault is None
    rig.restart()
    assert rig.c.fault is None  # the same break is not faulted again; nothing is repaired
    assert not rig.log.verify().ok
    rig.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
