"""Tests of the journal's chain: a changed, a missing or an unchained event locks the table at the next start."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from drivers.readings import CardRead
from firmware_host.service.controller import Controller
from firmware_host.service.journal import JOURNAL_FILE, Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
BET_3 = '"seat":3,"bets":{"ante":250'  # the text of seat 3's bet, once in the file


class Rig(JournalRig):
    """A UTH table's controller on a real journal."""

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": UTH}

    def close(self) -> None:
        self.c.journal.close()

    def bets(self) -> None:
        self.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
        self.ok("bet", seat=3, bets={"ante": 250, "blind": 250})

    def event_id(self, text: str) -> int:
        ids = [e.id for e in self.c.journal.events() if text in str(e.body).replace(" ", "").replace("'", '"')]
        assert len(ids) == 1, ids
        return ids[0]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def flip_on_disk(path: Path, old: bytes, new: bytes) -> None:
    """Change bytes of the journal file itself, as a disk or a hand with a hex editor would."""
    assert len(old) == len(new)
    data = (path / JOURNAL_FILE).read_bytes()
    assert data.count(old) == 1, data.count(old)
    (path / JOURNAL_FILE).write_bytes(data.replace(old, new))


def assert_locked(r: Rig, event_id: int, why: str) -> None:
    """The table stands on a journal_integrity fault naming `event_id`, and takes no step."""
    public = r.c.public_state()
    assert public["fault"]["kind"] == "journal_integrity", public["fault"]
    detail = r.c.full_state()["fault"]["detail"]
    assert f"event {event_id} " in detail and why in detail, detail
    assert r.c.light == "fault" or r.c.state.light == "fault"
    for cmd, args in (("bet", {"seat": 5, "bets": {"ante": 100, "blind": 100}}), ("deal", {})):
        reply = r.cmd(cmd, **args)
        assert reply["ok"] is False and reply["code"] == "fault", (cmd, reply)
    assert r.cmd("open", game="3cp", limits={"minimum": 100})["ok"] is False


def test_a_byte_flipped_on_disk_locks_the_table_and_names_the_event(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    changed = rig.event_id(BET_3)
    rig.close()
    flip_on_disk(tmp_path, BET_3.encode(), BET_3.replace("3", "4", 1).encode())
    rig.c = rig._new()
    assert_locked(rig, changed, "checksum mismatch")
    # replayed as the journal holds it (not repaired), and the card dealt now is not dealt
    assert [s["seat"] for s in rig.c.public_state()["spots"] if s["bets"]] == [1, 4]
    rig.c.handle_reading(CardRead("As", "shoe", 1))
    assert rig.c.public_state()["phase"] == "bets"
    assert rig.c.full_state()["ignored"] == [{"card": "As", "fault": "journal_integrity"}]
    # the fault is journaled: a restart still stands on it, raised once
    rig.restart()
    assert_locked(rig, changed, "checksum mismatch")
    assert sum(1 for e in rig.c.journal.events() if e.kind == "fault") == 1


def test_a_changed_event_that_no_longer_applies_stops_the_start_naming_it(rig: Rig, tmp_path: Path) -> None:
    from firmware_host.service.journal import JournalError

    rig.bets()
    changed = rig.event_id(BET_3)
    rig.close()
    flip_on_disk(tmp_path, BET_3.encode(), BET_3.replace("250", "950", 1).encode())  # ante 950, blind 250
    with pytest.raises(JournalError, match=f"integrity check: event {changed} \\(bet\\): checksum mismatch"):
        rig.c = rig._new()
    rig.c = Controller(Journal.open(tmp_path))
    assert rig.c.journal.verify_chain() is not None


def test_a_row_changed_with_sqlite_is_caught(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    changed = rig.event_id(BET_3)
    rig.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.execute("UPDATE events SET ts = ts + 1 WHERE id=?", (changed - 1,))
    conn.commit()
    conn.close()
    rig.c = rig._new()
    assert_locked(rig, changed - 1, "checksum mismatch")


def test_a_deleted_row_is_a_gap(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    rig.ok("bet", seat=5, bets={"ante": 100, "blind": 100})
    gone = rig.event_id(BET_3)
    rig.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.execute("DELETE FROM events WHERE id=?", (gone,))
    conn.commit()
    conn.close()
    rig.c = rig._new()
    assert_locked(rig, gone + 1, f"event {gone} missing")
    assert [s["seat"] for s in rig.c.public_state()["spots"] if s["bets"]] == [1, 5]


def test_a_row_written_without_its_chain_is_caught(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    rig.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    cur = conn.execute("INSERT INTO events(hand, ts, kind, body) VALUES (1, 5.0, 'bet', "
                       "'{\"seat\":6,\"bets\":{\"ante\":100,\"blind\":100}}')")
    conn.commit()
    conn.close()
    rig.c = rig._new()
    assert_locked(rig, int(cur.lastrowid or 0), "no chain")


def test_after_a_supervisor_clear_the_table_goes_on(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    changed = rig.event_id(BET_3)
    rig.close()
    flip_on_disk(tmp_path, BET_3.encode(), BET_3.replace("3", "6", 1).encode())
    rig.c = rig._new()
    assert_locked(rig, changed, "checksum mismatch")
    assert rig.cmd("void", reason="journal changed")["code"] == "fault"  # only a clear lifts it
    rig.ok("clear", reason="journal checked against the paper log", then="void")
    assert rig.c.fault is None and rig.c.public_state()["hand"] == 2
    rig.restart()
    assert rig.c.fault is None
    rig.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
    rig.ok("deal")
    # the break is not repaired and is not faulted again: the next start goes on
    assert rig.c.journal.verify_chain() is not None
    rig.restart()
    assert rig.c.fault is None and rig.c.public_state()["phase"] == "deal"


def test_an_untouched_journal_starts_clean(rig: Rig) -> None:
    rig.bets()
    rig.ok("deal")
    rig.c.handle_readings([CardRead(c, "shoe", i) for i, c in enumerate("As Kd Qh Ac Tc 9d".split(), 1)])
    rig.ok("void", reason="test")
    assert rig.c.journal.verify_chain() is None
    before = rig.c.full_state()
    rig.restart()
    assert rig.c.fault is None and rig.c.full_state() == before
    assert not [e for e in rig.c.journal.events() if e.kind == "fault"]


def test_a_rollback_and_a_duplicate_keep_the_chain(rig: Rig) -> None:
    rig.bets()
    assert rig.cmd("bet", seat=2, bets={"ante": 1})["ok"] is False  # rolled back
    rig.ok("bet", seat=4, bets={"ante": 100, "blind": 100}, id="r1")
    assert rig.cmd("bet", seat=4, bets={"ante": 100, "blind": 100}, id="r1")["duplicate"]  # nothing written
    rig.c.handle_readings([CardRead("As", "shoe", 1), CardRead("As", "shoe", 2)])  # a duplicate card: a fault
    assert rig.c.fault is not None and rig.c.fault.kind == "duplicate_card"
    rig.ok("clear", reason="stray card")
    assert rig.c.journal.verify_chain() is None
    rig.restart()
    assert rig.c.fault is None and rig.c.journal.verify_chain() is None


def test_an_old_schema_journal_migrates_and_verifies(rig: Rig, tmp_path: Path) -> None:
    rig.bets()
    before = rig.c.full_state()
    rig.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.executescript("ALTER TABLE events DROP COLUMN chain; PRAGMA user_version=2;")
    conn.close()
    with pytest.raises(sqlite3.OperationalError):
        sqlite3.connect(tmp_path / JOURNAL_FILE).execute("SELECT chain FROM events")
    rig.c = rig._new()
    assert rig.c.fault is None and rig.c.full_state() == before
    assert rig.c.journal.verify_chain() is None
    rig.ok("deal")
    rig.restart()
    assert rig.c.fault is None and rig.c.journal.verify_chain() is None
    journal = Journal.open(tmp_path, readonly=True)
    try:
        assert journal.verify_chain() is None
    finally:
        journal.close()


def as_schema_4(path: Path) -> None:
    """Make a journal what a controller before schema 5 wrote: every event chained in form 1, no `chain_forms`."""
    from firmware_host.service.chain import link_v1
    conn = sqlite3.connect(path / JOURNAL_FILE)
    with conn:
        previous = ""
        for event_id, hand, ts, kind, body, req in conn.execute(
                "SELECT id, hand, ts, kind, body, req FROM events ORDER BY id").fetchall():
            previous = link_v1(previous, event_id, hand, ts, kind, body, req)
            conn.execute("UPDATE events SET chain=? WHERE id=?", (previous, event_id))
        conn.execute("DROP TABLE chain_forms")
    conn.execute("PRAGMA user_version=4")
    conn.close()


def test_a_schema_4_journal_keeps_its_form_1_chain_and_goes_on_in_form_2(rig: Rig, tmp_path: Path) -> None:
    """A journal written before schema 5 opens, read-only too, and verifies: its events keep the form-1 text they
    were chained in, the events written from then on are chained in form 2, and a change on either side is caught."""
    rig.bets()
    rig.close()
    as_schema_4(tmp_path)
    old = Journal.open(tmp_path, readonly=True)
    try:
        assert old.verify_chain() is None  # no `chain_forms` read-only: form 1 throughout
        last_old = max(e.id for e in old.events())
    finally:
        old.close()
    rig.c = rig._new()
    assert rig.c.fault is None
    conn = rig.c.journal._conn
    assert conn.execute("SELECT first FROM chain_forms WHERE form=2").fetchone() == (last_old + 1,)
    rig.ok("deal")
    rig.restart()
    assert rig.c.fault is None and rig.c.journal.verify_chain() is None
    rig.close()
    journal = Journal.open(tmp_path, readonly=True)
    try:
        assert journal.verify_chain() is None
    finally:
        journal.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.execute("UPDATE events SET ts = ts + 1e-6 WHERE id=?", (last_old + 1,))  # a form-2 event's time, by 1 us
    conn.commit()
    conn.close()
    rig.c = rig._new()
    assert_locked(rig, last_old + 1, "checksum mismatch")


def test_the_form_2_mark_moved_is_caught(rig: Rig, tmp_path: Path) -> None:
    """`chain_forms` is no way around the chain: a journal told that its events are of the other form fails."""
    rig.bets()
    rig.close()
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.execute("UPDATE chain_forms SET first = first + 1 WHERE form=2")
    conn.commit()
    conn.close()
    rig.c = rig._new()
    assert_locked(rig, 1, "checksum mismatch")


_FIELDS = st.text(st.characters(codec="utf-8"), max_size=10) | st.sampled_from(["", " ", "\n", '" 1 \n', "null"])


@settings(max_examples=400, deadline=None)
@given(event_id=st.integers(0, 2 ** 62), hand=st.integers(-5, 10 ** 20), ts=st.floats(allow_nan=False),
       kind=_FIELDS, body=_FIELDS, req=st.none() | _FIELDS)
def test_an_events_form_2_text_gives_back_its_fields(event_id: int, hand: int, ts: float, kind: str, body: str,
                                                     req: str | None) -> None:
    """Form 2's text is read back into the very fields it was made of: two different rows never share a text."""
    from firmware_host.service.chain import text
    said = text(event_id, hand, ts, kind, body, req)
    head, _, rest = said.partition("\n")
    first, second, stamp, tail = head.split(" ", 3)
    decode = json.JSONDecoder().raw_decode
    got_kind, end = decode(tail)
    assert tail[end] == " "
    got_req, end = decode(tail, end + 1)
    assert end == len(tail)
    assert (int(first), int(second), float.fromhex(stamp), got_kind, rest, got_req) == (event_id, hand, ts, kind, body,
                                                                                      req)
