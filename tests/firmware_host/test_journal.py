"""Tests of the journal: durable events, closed hands never replayed, request ids remembered."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

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


def test_a_request_is_kept_with_its_digest(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.append(1, "bet", {"seat": 1}, ts=1.0, req="r1", digest="d" * 64)
    j.append(1, "deal", {}, ts=2.0, req="r2")
    found = j.find_request("r1")
    assert found is not None and (found.kind, found.digest) == ("bet", "d" * 64)
    assert j.find_request("r2").digest is None  # type: ignore[union-attr]
    assert j.find_request("r3") is None
    j.close()


def test_a_schema_1_journal_gets_the_digest_column_and_keeps_its_events(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.executescript("""
        CREATE TABLE events (id INTEGER PRIMARY KEY, hand INTEGER NOT NULL, ts REAL NOT NULL,
                             kind TEXT NOT NULL, body TEXT NOT NULL, req TEXT);
        CREATE TABLE hands (hand INTEGER PRIMARY KEY, game TEXT NOT NULL, status TEXT NOT NULL,
                            closed_event INTEGER NOT NULL, ts REAL NOT NULL, record TEXT NOT NULL);
        CREATE TABLE boots (id INTEGER PRIMARY KEY, boot TEXT NOT NULL, ts REAL NOT NULL);
        INSERT INTO events(hand, ts, kind, body, req) VALUES (1, 1.0, 'bet', '{"seat": 1}', 'old');
        PRAGMA user_version=1;
    """)
    conn.close()
    j = Journal.open(tmp_path)
    assert j._conn.execute("PRAGMA user_version").fetchone()[0] == 5  # 3 added the chain, 4 the hands' lines, 5 the chain's form 2
    assert "line" in {row[1] for row in j._conn.execute("PRAGMA table_info(hands)")}
    old = j.find_request("old")
    assert old is not None and old.body == {"seat": 1} and old.digest is None
    j.append(1, "deal", {}, ts=2.0, req="new", digest="e" * 64)
    assert j.find_request("new").digest == "e" * 64  # type: ignore[union-attr]
    assert j.verify_chain() is None
    j.close()


@pytest.mark.parametrize("value", [
    {"card": "As", "source": "shoe", "seq": 4, "device": "shoe"},
    [12, 3, 1700000000.125, "card", '{"card":"As"}', None],
    {"name": "caf\u00e9 \u2660", "nested": {"a": [1, 2.5, True, False, None]}, "big": 10 ** 30, "neg": -0.0},
    "a bare string \"quoted\"", 7, 1.5, None, True, [], {},
])
def test_the_journal_writes_the_compact_json_the_standard_encoder_writes(value: Any) -> None:
    from firmware_host.service.chain import dumps
    assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6) | st.integers(-3, 3),
                             st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30) | st.floats()
                             | st.text(st.characters(codec="utf-8"), max_size=8) | st.lists(st.integers(), max_size=2),
                             max_size=5))
def test_a_flat_bodys_text_put_together_is_the_standard_encoders(value: dict[Any, Any]) -> None:
    """A flat map's text put together from json's pieces (a card's body: `chain.dumps`) is the very text `json.dumps`
    writes, and any other map (bools, floats, lists, keys not texts) is the encoder's own: the chain is made of it."""
    from firmware_host.service.chain import dumps
    assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_TEXTS = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(["", "card", '{"card":"As","seq":4}',
                                                                            'a "quoted" \\ \n\t\u2028 \x7f caf\u00e9'])


@settings(max_examples=400, deadline=None)
@given(event_id=st.integers(min_value=0, max_value=2 ** 62) | st.booleans(), hand=st.integers(-5, 10 ** 20),
       ts=st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10 ** 6, 10 ** 12), kind=_TEXTS,
       body=_TEXTS, req=st.none() | _TEXTS | st.integers())
def test_an_events_canonical_text_is_the_compact_json_of_its_fields(event_id: int, hand: int, ts: float, kind: str,
                                                                    body: str, req: Any) -> None:
    """The chain's canonical text, put together from json's pieces, is `dumps` of the event's fields as a list (the
    text every journal's chain was made of): any other text would break the chain of every journal written before."""
    from firmware_host.service.chain import canonical, dumps
    assert canonical(event_id, hand, ts, kind, body, req) == dumps(
        [event_id, hand, float(ts), kind, body, None if req is None else str(req)])


def test_the_last_hands_shown_are_the_house_hands_that_journaled_one(tmp_path: Path) -> None:
    """History is rebuilt from the hands that carry a `last_hand` (house games), oldest first; a
    poker hand's record (its own `shown`, no `last_hand`) leaves it as the reducer left it."""
    j = Journal.open(tmp_path)
    for hand in range(1, 15):
        house = hand not in (4, 12, 13)  # poker hands in between
        record: dict[str, Any] = ({"last_hand": {"hand": hand, "voided": False}} if house
                                  else {"shown": {"1": ["Pair of aces"]}})
        j.append_close(hand, "confirm", {}, float(hand), None, "uth" if house else "holdem", "settled", record)
    assert [past["hand"] for past in j.last_hands_shown(10)] == [2, 3, 5, 6, 7, 8, 9, 10, 11, 14]
    assert j.last_hands_shown(0) == []
    j.close()


def test_a_quiet_moments_checkpoint_lets_the_next_commits_reuse_the_wal(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.quiet_after = 20
    wal = tmp_path / (JOURNAL_FILE + "-wal")
    assert j.checkpoint_due() == float("inf")  # nothing committed: nothing to do
    for n in range(19):
        j.append(1, "card", {"card": "As", "seq": n}, 1.0 + n)
    assert j.checkpoint_due() == float("inf")  # not yet worth a checkpoint
    j.append(1, "card", {"card": "As", "seq": 19}, 20.0)
    assert j.checkpoint_due() < 1.0
    grown = wal.stat().st_size
    j.checkpoint()
    assert j.checkpoint_due() == float("inf")
    for n in range(20):  # written over the WAL's start again: the file does not grow
        j.append(1, "card", {"card": "Kd", "seq": 20 + n}, 30.0 + n)
    assert wal.stat().st_size == grown
    j.close()
    r = Journal.open(tmp_path, readonly=True)
    assert [e.body["seq"] for e in r.events()] == list(range(40))  # every event kept through it


def test_without_the_checkpoint_the_wal_grows(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    wal = tmp_path / (JOURNAL_FILE + "-wal")
    for n in range(20):
        j.append(1, "card", {"card": "As", "seq": n}, 1.0 + n)
    grown = wal.stat().st_size
    for n in range(20):
        j.append(1, "card", {"card": "Kd", "seq": 20 + n}, 30.0 + n)
    assert wal.stat().st_size > grown


def test_the_rare_kinds_are_read_through_their_one_index_and_the_old_indexes_are_gone(tmp_path: Path) -> None:
    """`seated_before`, the last `open` and the sensors are served by `events_rare` (one partial index, which SQLite
    uses for a query holding one of its WHERE's terms, or `_SEATED` whole); a journal written with the older indexes
    (the IN-list one, which no query used and which cost every event written a table of its own, and the four of
    a kind each, each of which cost every insert its cursor) loses them at the next open."""
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    Journal.open(tmp_path).close()
    conn.execute("DROP INDEX events_rare")
    conn.execute("CREATE INDEX events_seated ON events(id) WHERE kind IN ('player', 'dealer', 'close')")
    for name, where in (("open", "kind='open'"), ("sensor", "kind='sensor'"), ("hold", "kind='hold'"),
                        ("seats", "kind='player' OR kind='dealer'")):
        conn.execute(f"CREATE INDEX events_{name} ON events(id) WHERE {where}")
    conn.commit()
    conn.close()
    j = Journal.open(tmp_path)
    indexes = {row[0] for row in j._conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert indexes == {"events_req", "events_rare"}
    for n, kind in enumerate(("player", "card", "rating", "bet", "dealer", "close", "player"), 1):
        j.append(1, kind, {"n": n}, ts=float(n))
    assert [(e.kind, e.body["n"]) for e in j.seated_before(7)] == [
        ("player", 1), ("rating", 3), ("dealer", 5), ("close", 6)]
    from firmware_host.service.journal import _SEATED
    for query in (f"SELECT id FROM events WHERE {_SEATED} AND id < 7 ORDER BY id",
                  "SELECT id FROM events WHERE kind='open' AND id < 7 ORDER BY id DESC LIMIT 1",
                  "SELECT max(id) FROM events WHERE kind='sensor' GROUP BY json_extract(body, '$.name')"):
        plan = j._conn.execute(f"EXPLAIN QUERY PLAN {query}").fetchall()
        assert "events_rare" in str(plan), (query, plan)
    j.close()


def test_a_shoe_cards_row_holds_its_card_and_frame_alone_and_older_rows_replay_alike(tmp_path: Path) -> None:
    """A card the shoe read is journaled as `{"card", "seq"}` (what a replay needs: the card, and the frame to
    resume the shoe at); a journal whose card rows say `source` and `device` too, as before 2026-12-05, replays
    to the very same table, its shoe's resume point and retransmit check included."""
    from drivers.card_reader import CardRead
    from protocol.commands import Command
    from firmware_host.service.controller import Controller
    from firmware_host.tables.house.table import HouseSetup

    def controller(path: Path) -> Controller:
        c = Controller(Journal.open(path), table="t", default_setup=HouseSetup("uth", "standard", {"minimum": 100}, 7))
        c.recover()
        return c

    c = controller(tmp_path / "new")
    for seat in (1, 2):
        bet = {"cmd": "bet", "seat": seat, "bets": {"ante": 100, "blind": 100}}
        assert c.handle_command(Command.from_mapping(bet))["ok"]
    for seq, card in enumerate(["As", "Kd", "2c", "3c", "4h"], start=1):
        c.handle_reading(CardRead(card, "shoe", seq))
    events = list(c.journal.events())
    assert [e.body for e in events if e.kind == "card"] == [
        {"card": card, "seq": seq} for seq, card in enumerate(["As", "Kd", "2c", "3c", "4h"], start=1)]
    old = Journal.open(tmp_path / "old")  # the same events, the cards' rows as they were written before
    for e in events:
        body = {**e.body, "source": "shoe", "device": "shoe"} if e.kind == "card" else e.body
        old.append(e.hand, e.kind, body, e.ts, e.req, e.digest)
    old.close()
    c.journal.close()
    new, was = controller(tmp_path / "new"), controller(tmp_path / "old")
    assert new.states() == was.states() and new.state.devices["shoe"]["seq"] == 5
    assert new.state.is_retransmit({"card": "4h", "seq": 5}) and was.state.is_retransmit(
        {"card": "4h", "source": "shoe", "seq": 5, "device": "shoe"})
    new.journal.close()
    was.journal.close()
