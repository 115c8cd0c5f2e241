"""Tests of the journal: durable events, closed hands never replayed, request ids remembered."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from firmware_host.service.journal import JOURNAL_FILE, Journal, JournalError


def test_wal_and_full_sync(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    mode = j._conn.execute("PRAGMA journal_mode").fetchone()[0]
    sync = j._conn.execute("PRAGMA synchronous").fetchone()[0]
    assert (mode, sync) == ("wal", 2)  # 2 = FULL
    j.close()


def test_resume_replays_only_the_hand_in_progress(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.append(1, "open", {"game": "uth"}, ts=1.0)
    j.append(1, "bet", {"seat": 1}, ts=2.0, req="r1")
    j.append_close(1, "confirm", {}, ts=3.0, req="r2", game="uth", status="settled", record={"x": 1})
    e4 = j.append(2, "bet", {"seat": 2}, ts=4.0)
    e5 = j.append(2, "card", {"card": "As"}, ts=5.0)
    j.close()

    j = Journal.open(tmp_path)  # a new process would do the same
    r = j.resume()
    assert r.open_event is not None and r.open_event.body == {"game": "uth"}
    assert r.last_closed_hand == 1
    assert [e.id for e in r.events] == [e4, e5]
    assert r.events[1].body == {"card": "As"} and r.events[1].hand == 2
    assert j.find_request("r1") is not None and j.find_request("zz") is None
    rows = j.hands()
    assert [(h.hand, h.status, h.record) for h in rows] == [(1, "settled", {"x": 1})]


def test_a_later_open_starts_the_replay(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.append(1, "open", {"game": "uth"}, ts=1.0)
    j.append(1, "bet", {"seat": 1}, ts=2.0)
    o2 = j.append(1, "open", {"game": "3cp"}, ts=3.0)
    e = j.append(1, "bet", {"seat": 3}, ts=4.0)
    r = j.resume()
    assert r.open_event is not None and r.open_event.id == o2
    assert [x.id for x in r.events] == [e]


def test_a_hand_cannot_close_twice(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.append_close(1, "confirm", {}, ts=1.0, req=None, game="uth", status="settled", record={})
    with pytest.raises(JournalError, match="hand 1"):
        j.append_close(1, "confirm", {}, ts=2.0, req=None, game="uth", status="settled", record={})
    # the refused close left no event behind
    assert [e.kind for e in j.events()] == ["confirm"]


def test_last_n_hands_oldest_first(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    for h in range(1, 6):
        j.append_close(h, "confirm", {}, ts=float(h), req=None, game="3cp", status="settled", record={"h": h})
    assert [h.hand for h in j.hands(last=2)] == [4, 5]
    assert len(j.hands()) == 5


def test_readonly_sees_committed_events_while_writer_open(tmp_path: Path) -> None:
    w = Journal.open(tmp_path)
    w.append_close(1, "void", {"reason": "x"}, ts=1.0, req=None, game="uth", status="voided", record={})
    r = Journal.open(tmp_path, readonly=True)
    assert [h.status for h in r.hands()] == ["voided"]
    with pytest.raises(sqlite3.Error):
        r._conn.execute("INSERT INTO boots(boot, ts) VALUES ('x', 0)")


def test_missing_journal_readonly(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match=JOURNAL_FILE):
        Journal.open(tmp_path / "none", readonly=True)
