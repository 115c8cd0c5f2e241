"""The archive's rating sessions and dealer shifts in a real PostgreSQL: two rated demo tables (one closed and opened again mid-way, the controller killed mid-hand) archived from their `history` pages, and `croupier ratings --db` against `croupier ratings --state` for each table, to the cent."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from floor.archive import Archive
from floor.archiver import ArchiverProcess, open_rating_feed
from floor.config import PitConfig
from floor.config import PitTable as FloorTable
from floor.rating_feed import RatingFeed
from floor.ratings import sessions
from floor.stats import set_gaming_day
from floor.migrate import migrate
from firmware_host.service.controller import Controller
from firmware_host.service.history import history_reply
from firmware_host.service.journal import Journal
from firmware_host.service.ratings import journal_ratings
from protocol import keys
from protocol.access import Caller
from protocol.users import User, Users
from protocol.commands import Command, CommandClient
from protocol.config import ConfigError, SecurityConfig
from protocol.curve import ClientKeys
from sim.bots.table import free_tcp_port
from tests.firmware_host.processes import croupier_here, wait_for
from tests.floor.pgserver import PgServer

TABLES = {"sim-uth-1": "uth", "sim-3cp-1": "3cp"}

FIRST, SECOND = 30, 35
"""`make test`'s shift: the UTH table's hands before its close and after it opens again; the 3CP table plays 65 (130
hands: the module's fixture, 62 s at load 12 for the 500 hands it played until 2026-12-04)."""

SOAK_FIRST, SOAK_SECOND = 120, 130
"""`make soak`'s shift, as above: the 3CP table plays 250, a 500-hand shift (`test_a_500_hand_shift_...`)."""

EXACT = ("player", "table", "source", "start", "end", "open", "seats", "hand_numbers", "hands", "voided", "breaks",
         "bets", "bets_total", "average_bets", "average_bet", "win", "theo", "theo_cents", "theo_complete",
         "theo_missing", "profile_sha256", "started", "ended", "bets_from")
"""What the archive's session must hold exactly as the journal's (its open time up to the last hand closed
is the archive's to the millisecond, the history lines' `closed`: `played_s` and `hands_per_hour` within that)."""


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=180, check=False)


def close(state: Path) -> None:
    """The table closed by the pit (every session ends), between two demos on the one journal."""
    c = Controller(Journal.open(state), security=SecurityConfig(local_role="pit"))
    c.recover()
    assert c.handle_command(Command.from_mapping({"cmd": "close"}), None)["ok"]
    c.journal.close()


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`shift(FIRST, SECOND)`, for the module's tests."""
    return shift(tmp_path_factory.mktemp("rated"), FIRST, SECOND)


def shift(root: Path, first: int, second: int) -> dict[str, Path]:
    """Two tables' journals of one seed (the same player cards at both: players moving tables), the UTH one
    closed after `first` hands and opened again for `second` more, the 3CP one's `first + second` hands with its
    controller killed twice mid-hand; the bot dealers relieve each other every 25 hands."""
    out = {}
    for table, game in TABLES.items():
        state = out[table] = root / table
        runs = [("--hands", str(first)), ("--hands", str(second))] if game == "uth" else [
            ("--hands", str(first + second), "--kill", "2")]
        for n, run in enumerate(runs):
            if n:
                close(state)
            done = croupier("demo", "--game", game, *run, "--rated", "0.6", "--quiet", "--seed", "5",
                            "--state", str(state))
            assert done.returncode == 0, done.stderr
    return out


def pages(state: Path, events: bool, after: int = 0) -> Iterator[list[dict[str, Any]]]:
    """The table's `history` pages (its closed hands, or its events) as the pit's catch-up reads them."""
    journal = Journal.open(state, readonly=True)
    try:
        while True:
            reply: Any = history_reply(journal, Command.from_mapping(
                {"cmd": "history", "after": after, "limit": 100, **({"events": True} if events else {})}))
            assert reply["ok"], reply
            yield list(reply["events" if events else "hands"])
            after = int(reply["last"])
            if not reply["more"]:
                return
    finally:
        journal.close()


def archive(db: str, state: Path, table: str, split: int | None = None) -> None:
    """The table's hands and events archived and rated as the catch-up does, page by page; with `split`,
    the hands up to that number first and rated on their own (a catch-up mid-shift), then the rest."""
    with Archive(db, pit="pit-1") as a:
        for upto in ([split] if split else []) + [None]:
            for page in pages(state, events=False, after=a.last_hand(table)):
                a.write(table, [h for h in page if upto is None or h["hand"] <= upto])
            for page in pages(state, events=True, after=a.last_event(table)):
                a.write_events(table, [e for e in page if upto is None or e["hand"] <= upto])
            a.rate(table)


def lines(*args: str) -> list[dict[str, Any]]:
    done = croupier_here("ratings", "--json", *args)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def gaming_day_of(db: str, started: str) -> str:
    """The gaming day (YYYY-MM-DD) of a session started at `started` (ISO 8601), by the archive's settings: the local
    date in its time zone less the hour its day starts at (a casino's day runs from 06:00 to 06:00, say)."""
    setting = set_gaming_day(db, None, None)
    hours, minutes = (int(x) for x in setting["starts"].split(":"))
    local = datetime.fromisoformat(started).astimezone(ZoneInfo(setting["time_zone"]))
    return (local - timedelta(hours=hours, minutes=minutes)).date().isoformat()


def test_the_archive_rates_every_table_as_its_journal_does_to_the_cent(db: str, states: dict[str, Path]) -> None:
    rates_as_the_journal(db, states, FIRST)


@pytest.mark.soak
def test_a_500_hand_shift_archived_rates_as_its_journal_folded_or_not(tmp_path: Path, db: str, pg: PgServer) -> None:
    """Issue 25's 500-hand simulated shift in a real PostgreSQL (`make soak`; `make test`'s shift is 130 hands):
    archived in two catch-ups and rated as the journals rate it; in another database, folded every 17 hands."""
    states = shift(tmp_path, SOAK_FIRST, SOAK_SECOND)
    rates_as_the_journal(db, states, SOAK_FIRST)
    fold_every_17(pg.create_database("floor_soak_fold"), states, SOAK_FIRST + SOAK_SECOND)


def rates_as_the_journal(db: str, states: dict[str, Path], first: int) -> None:
    """The tables archived (the UTH one in two catch-ups, the first mid-way in its first opening) and rated as their
    journals rate them; a player's sessions at both tables; `--player`, `--table`, `--day`, `--reinvestment`."""
    migrate(db)
    archive(db, states["sim-uth-1"], "sim-uth-1", split=first // 2 + 3)
    archive(db, states["sim-3cp-1"], "sim-3cp-1")
    archived = agree(db, states)
    uth = [s for s in archived if s["table"] == "sim-uth-1"]
    assert any(not s["open"] for s in uth) and any(s["open"] for s in uth)  # the close ended those before it
    # one player, two tables: the same card's sessions at each, and --player and --table pick them out
    card = next(s["player"] for s in uth if any(t["player"] == s["player"] for t in archived if t["table"] == "sim-3cp-1"))
    theirs = lines("--db", db, "--player", card)
    assert {s["table"] for s in theirs} == set(TABLES) and all(s["player"] == card for s in theirs)
    assert lines("--db", db, "--table", "sim-3cp-1") == [s for s in archived if s["table"] == "sim-3cp-1"]
    day = gaming_day_of(db, archived[0]["started"])  # (not its calendar date: between midnight and the day's start
    assert lines("--db", db, "--day", day) == archived and lines("--db", db, "--day", "2001-01-01") == []  # it is the day before)
    # the comp at the rate given, from the exact theo
    comp = lines("--db", db, "--reinvestment", "3/10", "--table", "sim-3cp-1")
    assert [c["comp_cents"] for c in comp] == [round(Fraction(s["theo"]) * Fraction(3, 10)) for s in comp]


def test_a_close_archived_before_the_hands_it_follows_waits_for_them(db: str, states: dict[str, Path]) -> None:
    """The catch-up fetches a table's hands, then its events: a hand closed in between, and the table's close
    after it, reach the archive events first. The fold does not pass that close until the hand is there."""
    migrate(db)
    table, state = "sim-uth-1", states["sim-uth-1"]
    with Archive(db, pit="pit-1") as a:
        for page in pages(state, events=False):
            a.write(table, [h for h in page if h["hand"] <= FIRST - 1])  # the last hand before the close missing
        for page in pages(state, events=True):
            a.write_events(table, page)
        a.rate(table)
        with psycopg.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM rating_marks").fetchone() == (0,)
        for page in pages(state, events=False, after=a.last_hand(table)):
            a.write(table, page)
        a.rate(table)
    agree(db, {table: state})


def agree(db: str, states: dict[str, Path]) -> list[dict[str, Any]]:
    """The archive's sessions (`ratings --db`), each table's equal to its journal's (`ratings --state`)."""
    archived = lines("--db", db)
    assert archived and all(s["kind"] == "session" for s in archived)
    for table, state in states.items():
        journal = [s for s in lines("--state", str(state), "--table", table) if s["kind"] == "session"]
        mine = sorted((s for s in archived if s["table"] == table), key=lambda s: (s["start"], s["player"]))
        journal.sort(key=lambda s: (s["start"], s["player"]))
        assert len(mine) == len(journal) >= 6
        for got, want in zip(mine, journal):
            assert {k: got[k] for k in EXACT} == {k: want[k] for k in EXACT}
            assert abs(got["played_s"] - want["played_s"]) <= 0.002
        # the rated paytables' sessions carry their theo (so do the UTH table's second opening's, on the builtin
        # default profile, which files its UTH edges too: engine/profiles/default.toml)
        assert sum(1 for s in mine if s["theo_complete"] and Fraction(s["theo"]) > 0) >= 6
    return archived


def test_archiving_and_rating_again_changes_nothing(db: str, states: dict[str, Path]) -> None:
    migrate(db)
    for table, state in states.items():
        archive(db, state, table)

    def rows() -> list[tuple[Any, ...]]:
        with psycopg.connect(db) as conn:
            return [*conn.execute("SELECT table_name, player, start, report FROM rating_sessions ORDER BY 1, 2, 3"),
                    *conn.execute("SELECT table_name, dealer, from_event, report FROM dealer_shifts ORDER BY 1, 2, 3"),
                    *conn.execute("SELECT table_name, event, hand FROM rating_marks ORDER BY 1")]

    before = rows()
    with Archive(db) as a:  # a replay of every page from the start, and the fold again
        for table, state in states.items():
            for page in pages(state, events=False):
                assert a.write(table, page) == 0
            for page in pages(state, events=True):
                a.write_events(table, page)
            a.rate(table)
    assert rows() == before
    dealers = [d for d in lines("--db", db, "--dealers") if d["kind"] == "dealer"]
    journal = [d for d in lines("--state", str(states["sim-3cp-1"]), "--dealers", "--table", "sim-3cp-1")
               if d["kind"] == "dealer"]
    figures = ("dealer", "hands", "turns", "voids", "corrections", "faults", "average_seats")
    assert [[d[k] for k in figures] for d in dealers if d["table"] == "sim-3cp-1"] == \
        [[d[k] for k in figures] for d in journal]  # never closed: one opening, as the journal's
    assert sum(d["hands"] for d in dealers if d["table"] == "sim-uth-1") == FIRST + SECOND


def test_the_fold_reads_only_what_came_since_and_rates_as_a_fold_from_nothing(db: str,
                                                                                states: dict[str, Path]) -> None:
    fold_every_17(db, states, FIRST + SECOND)


def fold_every_17(db: str, states: dict[str, Path], hands: int) -> None:
    """A catch-up every 17 hands (the UTH table's close among them, and twice a hand's events archived before
    the hand): the kept fold reads each event and hand once, and its rows are those a fold from nothing writes."""
    migrate(db)
    with Archive(db, pit="pit-1") as a:
        for table, state in states.items():
            for upto in [*range(17, hands, 17), None]:
                late = int(upto is not None and upto % 2 == 1)  # the hand `upto` reaches the archive after events after it
                for page in pages(state, events=False, after=a.last_hand(table)):
                    a.write(table, [h for h in page if upto is None or h["hand"] <= upto - late])
                for page in pages(state, events=True, after=a.last_event(table)):
                    a.write_events(table, [e for e in page if upto is None or e["hand"] <= upto + late])
                a.rate(table)
            with psycopg.connect(db) as conn:
                entries = conn.execute(
                    "SELECT (SELECT count(*) FROM table_events WHERE table_name = %(t)s) + (SELECT count(*) FROM "
                    "rating_events WHERE table_name = %(t)s) + (SELECT count(*) FROM hands WHERE table_name = %(t)s)",
                    {"t": table}).fetchone()
            assert entries is not None and a._folds[table].read == entries[0]  # each read once, none twice

    def rows() -> list[tuple[Any, ...]]:
        with psycopg.connect(db) as conn:
            return [*conn.execute("SELECT table_name, player, start, report, ended_at FROM rating_sessions "
                                  "ORDER BY 1, 2, 3"),
                    *conn.execute("SELECT table_name, dealer, from_event, report FROM dealer_shifts ORDER BY 1, 2, 3"),
                    *conn.execute("SELECT table_name, event, hand FROM rating_marks ORDER BY 1")]

    kept = rows()
    with psycopg.connect(db) as conn:
        conn.execute("DELETE FROM rating_sessions; DELETE FROM dealer_shifts; DELETE FROM rating_marks")
    with Archive(db, pit="pit-1") as a:
        for table in states:
            a.rate(table)
    assert rows() == kept and len(kept) > 12
    agree(db, states)


def counts(db: str) -> tuple[int, int, int]:
    """(sessions, open sessions, player events) in the archive."""
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT (SELECT count(*) FROM rating_sessions), "
                           "(SELECT count(*) FROM rating_sessions WHERE ended_at IS NULL), "
                           "(SELECT count(*) FROM rating_events WHERE kind = 'player')").fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def test_the_player_data_past_its_days_is_purged_and_not_folded_again(db: str, states: dict[str, Path]) -> None:
    migrate(db)
    for table, state in states.items():
        archive(db, state, table)
    sessions, still, cards = counts(db)
    before = lines("--db", db)
    with psycopg.connect(db) as conn:
        (close_ts,) = conn.execute("SELECT ts FROM table_events WHERE kind = 'close'").fetchall()[0]
    with Archive(db) as a:
        assert a.purge_players(1) == 0  # nothing is a day old
        assert a.purge_players(1, now=datetime.now(timezone.utc) + timedelta(days=2)) > 0
        for table in states:
            a.rate(table)  # folded again: nothing purged comes back
    gone, open_now, left = counts(db)
    # the UTH table's sessions before its close went, with their cards' events; those open since, and the
    # never-closed 3CP table's (whose ratings are not final), stay
    assert open_now == still and gone < sessions and left < cards
    kept = lines("--db", db)
    assert all(h["hand"] > FIRST for s in kept if s["table"] == "sim-uth-1" for h in s["hand_numbers"])
    assert len(kept) == gone and len([s for s in kept if s["table"] == "sim-3cp-1"]) == len(
        [s for s in before if s["table"] == "sim-3cp-1"])
    assert len(before) - gone == len([s for s in before if s["table"] == "sim-uth-1" and not s["open"]
                                      and s["start"] < close_ts])


def test_the_pits_archiver_purges_the_player_data_past_its_days(tmp_path: Path, db: str,
                                                                 states: dict[str, Path]) -> None:
    migrate(db)
    for table, state in states.items():
        archive(db, state, table)
    sessions, _, cards = counts(db)
    with psycopg.connect(db) as conn:  # the archive's player data ten days old
        for sql in ("UPDATE rating_sessions SET ended_at = ended_at - interval '10 days'",
                    "UPDATE rating_events SET at = at - interval '10 days'",
                    "UPDATE table_events SET at = at - interval '10 days', ts = ts - 864000"):
            conn.execute(sql)
    cfg = PitConfig.parse(f'[pit]\ndb = "{db}"\nplayer_days = 7\n', source=str(tmp_path / "pit.toml"))
    assert cfg.player_days == 7
    with pytest.raises(ConfigError, match="player_days"):
        PitConfig.parse('[pit]\nplayer_days = -1\n', source="pit.toml")
    ctx: zmq.Context[Any] = zmq.Context()
    child = ArchiverProcess(ctx, cfg, 5.0)
    try:
        wait_for(lambda: counts(db)[2] < cards, "the archiver's purge", timeout_s=30)
    finally:
        child.stop()
        ctx.term()
    assert counts(db)[0] < sessions


class CmsClient:
    """The casino management system's side of the rating events: a SUB on `rating/`, each session kept by
    (table, player, start) as its last event left it."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, keys: ClientKeys | None = None) -> None:
        self.sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.LINGER, 0)
        if keys is not None:
            keys.apply(self.sock)
        self.sock.setsockopt(zmq.SUBSCRIBE, b"rating/")
        monitor = self.sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        self.sock.connect(endpoint)
        assert monitor.poll(10000), "no handshake with the rating events' feed"
        self.sock.disable_monitor()
        monitor.close(0)
        self.sessions: dict[tuple[str, str, float], dict[str, Any]] = {}
        self.events: list[str] = []
        self.steps: dict[tuple[str, str, float], list[tuple[str, dict[str, Any]]]] = {}  # each session's events
        self.seq = 0

    def take(self) -> None:
        while self.sock.poll(0):
            topic, body = self.sock.recv_multipart()
            message = json.loads(body)
            assert message["seq"] == self.seq + 1, "a rating event lost"
            self.seq = message["seq"]
            s = message["session"]
            assert topic == f"rating/{s['table']}".encode()
            self.sessions[(s["table"], s["player"], s["start"])] = s
            self.events.append(message["event"])
            self.steps.setdefault((s["table"], s["player"], s["start"]), []).append((message["event"], s))

    def agrees_with(self, db: str) -> bool:
        self.take()
        with psycopg.connect(db) as conn:
            archived = {(s["table"], s["player"], s["start"]): s for s in sessions(conn)}
        return bool(archived) and self.sessions == archived


def test_the_rating_events_feed_a_client_that_agrees_with_the_archive(tmp_path: Path, db: str,
                                                                      states: dict[str, Path]) -> None:
    migrate(db)
    ctx: zmq.Context[Any] = zmq.Context()
    endpoint = f"ipc://{tmp_path}/ratings"
    feed = RatingFeed(ctx, endpoint, None)
    cms = CmsClient(ctx, endpoint)
    try:
        table, state = "sim-3cp-1", states["sim-3cp-1"]
        with Archive(db) as a:
            for upto in (7, 8, 20, 150, None):  # a catch-up after hand 7, 8 (one hand more), 20, 150, then the rest
                for page in pages(state, events=False, after=a.last_hand(table)):
                    a.write(table, [h for h in page if upto is None or h["hand"] <= upto])
                for page in pages(state, events=True, after=a.last_event(table)):
                    a.write_events(table, [e for e in page if upto is None or e["hand"] <= upto])
                feed.sessions(a.rate(table))
                before = len(cms.events)
                wait_for(lambda: cms.agrees_with(db), "the client's sessions as the archive's", timeout_s=10)
                assert upto != 8 or cms.events[before:] and set(cms.events[before:]) <= {"updated", "opened", "closed"}
            feed.sessions(a.rate(table))  # nothing new: nothing sent
        assert {"opened", "updated", "closed"} <= set(cms.events)
        assert cms.events.count("opened") == len(cms.sessions)
    finally:
        feed.close()
        cms.sock.close(0)
        ctx.term()


def catch_up(a: Archive, state: Path, table: str, upto: int | None, feed: RatingFeed, cms: CmsClient) -> None:
    """One catch-up of `table` up to hand `upto` (None: all), its rating events sent and taken by the client."""
    for page in pages(state, events=False, after=a.last_hand(table)):
        a.write(table, [h for h in page if upto is None or h["hand"] <= upto])
    for page in pages(state, events=True, after=a.last_event(table)):
        a.write_events(table, [e for e in page if upto is None or e["hand"] <= upto])
    feed.sessions(a.rate(table))
    wait_for(lambda: cms.take() is None and cms.seq == feed.seq, "the client has every event sent", timeout_s=10)


def test_a_players_session_reaches_the_cms_opened_updated_at_each_hand_then_closed(
        tmp_path: Path, db: str, states: dict[str, Path]) -> None:
    """A catch-up after every hand: each session the client saw begin is `opened`, then `updated` at each hand it
    played (one hand more each time; a break changes no hand), then `closed` as the player leaves, and the client
    holds the archive's sessions."""
    migrate(db)
    ctx: zmq.Context[Any] = zmq.Context()
    endpoint = f"ipc://{tmp_path}/ratings"
    feed, table = RatingFeed(ctx, endpoint, None), "sim-3cp-1"
    cms = CmsClient(ctx, endpoint)
    try:
        with Archive(db) as a:
            for upto in range(1, 41):
                catch_up(a, states[table], table, upto, feed, cms)
        assert cms.agrees_with(db)
        whole = [steps for steps in cms.steps.values() if steps[0][0] == "opened" and steps[-1][0] == "closed"]
        assert whole, cms.steps
        for steps in whole:
            kinds, hands = [kind for kind, _ in steps], [s["hands"] for _, s in steps]
            assert kinds == ["opened", *["updated"] * (len(steps) - 2), "closed"], kinds
            assert all(b - a in (0, 1) for a, b in zip(hands, hands[1:])), hands  # a hand at a time
            assert all(s["hand_numbers"][:len(s["hand_numbers"]) - 1] == p["hand_numbers"]
                       for (_, p), (_, s) in zip(steps, steps[1:]) if s["hands"] > p["hands"]), steps
        assert max(steps[-1][1]["hands"] for steps in whole) >= 5
    finally:
        feed.close()
        cms.sock.close(0)
        ctx.term()


def test_a_closed_session_adjusted_by_the_pit_reaches_the_archive_and_the_cms_updated(
        tmp_path: Path, db: str, states: dict[str, Path]) -> None:
    """The unrated play of a player who left entered by the pit (signed off) after the session closed: the archive
    folds it into that session, the client gets it `updated`, and `croupier ratings --state` agrees."""
    migrate(db)
    shutil.copytree(states["sim-3cp-1"], tmp_path / "state")
    Users({"ana": User.with_pin("ana", "supervisor", "8026491375")}).save(tmp_path / "users.json")
    ctx: zmq.Context[Any] = zmq.Context()
    endpoint, table = f"ipc://{tmp_path}/ratings", "sim-3cp-1"
    feed = RatingFeed(ctx, endpoint, None)
    cms = CmsClient(ctx, endpoint)
    try:
        with Archive(db) as a:
            catch_up(a, tmp_path / "state", table, None, feed, cms)
            journal = Journal.open(tmp_path / "state")
            c = Controller(journal, table=table,
                           security=SecurityConfig(users=str(tmp_path / "users.json"), local_role="pit"))
            c.recover()
            left = [s for s in journal_ratings(journal, table).reports() if not s["open"]][-1]
            step = Command.from_mapping({"cmd": "rating", "id": "pit-1", "seat": left["seats"][-1]["seat"],
                                         "action": "adjust", "session": left["start"], "hands": 7, "average_bet": 500,
                                         "auth": {"user": "ana", "pin": "8026491375"}})
            reply = c.handle_command(step, Caller("pit"))
            assert reply["ok"], reply
            after = {s["start"]: s for s in journal_ratings(journal, table).reports()}[left["start"]]
            journal.close()
            before = len(cms.events)
            catch_up(a, tmp_path / "state", table, None, feed, cms)
        assert cms.events[before:] == ["updated"]
        sent = cms.sessions[(table, left["player"], left["start"])]
        assert sent["end"] == left["end"] and sent["hands"] == left["hands"]
        assert sent["entered"] == after["entered"] and sent["theo"] == after["theo"] != left["theo"]
        assert [(x["action"], x["by"]) for x in sent["adjustments"]] == [("unrated_play", "ana")]
        assert Fraction(sent["theo"]) - Fraction(left["theo"]) == 7 * 500 * Fraction(686689, 20358520)
        with psycopg.connect(db) as conn:  # the archive's row is what was sent (the open sessions' time played
            archived = {(x["table"], x["player"], x["start"]): x for x in sessions(conn)}  # moved on unsent)
        assert archived[(table, left["player"], left["start"])] == sent and archived.keys() == cms.sessions.keys()
    finally:
        feed.close()
        cms.sock.close(0)
        ctx.term()


def test_the_pits_archiver_publishes_the_rating_events_over_curve(tmp_path: Path, db: str,
                                                                  states: dict[str, Path]) -> None:
    """The pit's archiver catches a real controller's table up (its journal the rated demo's) and sends its
    sessions on `[pit] ratings` over CURVE; the table closing sends each open session's `closed`."""
    migrate(db)
    shutil.copytree(states["sim-3cp-1"], tmp_path / "state")
    _, pit_secret = keys.create(tmp_path / "keys", "pit1", "pit")
    cms_public, cms_secret = keys.create(tmp_path / "keys", "cms-1", "pit")
    (tmp_path / "clients").mkdir()
    shutil.copyfile(cms_public, tmp_path / "clients" / cms_public.name)
    ctx: zmq.Context[Any] = zmq.Context()
    c = Controller(Journal.open(tmp_path / "state"), table="sim-3cp-1", security=SecurityConfig(local_role="pit"))
    c.recover()
    commands = f"ipc://{tmp_path}/commands"
    c.bind_commands(ctx, commands)
    thread = threading.Thread(target=c.run, args=(ctx,), daemon=True)
    thread.start()
    endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
    cfg = PitConfig.parse(f'[pit]\ndb = "{db}"\nratings = "{endpoint}"\nkey = "{pit_secret}"\n'
                          f'clients = "{tmp_path / "clients"}"\nlisten = "ipc://{tmp_path}/floor"\n'
                          f'snapshot = "ipc://{tmp_path}/floor-snapshot"\n', source=str(tmp_path / "pit.toml"))
    child = ArchiverProcess(ctx, cfg, 5.0)
    cms = CmsClient(ctx, endpoint, ClientKeys.load(str(cms_secret), str(pit_secret).removesuffix("_secret")))
    client = CommandClient(ctx, commands, timeout_s=5.0, name="pit-test")
    try:
        child.set_tables({"sim-3cp-1": FloorTable("sim-3cp-1", f"ipc://{tmp_path}/p", f"ipc://{tmp_path}/s",
                                                  commands, None)})
        child.want("sim-3cp-1")
        wait_for(lambda: cms.agrees_with(db), "the client's sessions as the archive's", timeout_s=60)
        still = [s for s in cms.sessions.values() if s["open"]]
        assert still and "closed" in cms.events
        assert client.request("close")["ok"]
        child.want("sim-3cp-1")
        wait_for(lambda: cms.agrees_with(db) and not any(s["open"] for s in cms.sessions.values()),
                 "every session closed at the client", timeout_s=60)
        # the system's key revoked: the archiver process cuts its connection and refuses it again
        monitor = cms.sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_FAILED_AUTH)
        (tmp_path / "clients" / "revoked").mkdir()
        shutil.move(str(tmp_path / "clients" / cms_public.name), tmp_path / "clients" / "revoked" / cms_public.name)
        seen: set[int] = set()

        def cut() -> bool:
            while monitor.poll(0):
                seen.add(int(recv_monitor_message(monitor)["event"]))
            return seen >= {zmq.EVENT_DISCONNECTED, zmq.EVENT_HANDSHAKE_FAILED_AUTH}
        wait_for(cut, "the revoked system cut and refused by the archiver", timeout_s=20)
        cms.sock.disable_monitor()
        monitor.close(0)
    finally:
        client.close()
        child.stop()
        c.stop()
        thread.join(10)
        cms.sock.close(0)
        ctx.destroy(linger=0)


def test_a_cms_key_revoked_is_cut_from_the_rating_events_at_once(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """The archiver's rating feed and its ZAP handler (`open_rating_feed`), served from a thread as the archiver's
    main loop serves them, on real ZeroMQ over CURVE: two casino systems get an event; one's key is moved to
    `revoked/`: it is disconnected and its reconnection refused, the other reconnects and gets the next event."""
    _, pit_secret = keys.create(tmp_path / "keys", "pit1", "pit")
    clients = tmp_path / "clients"
    clients.mkdir()
    endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
    secrets = {}
    for name in ("cms-1", "cms-2"):
        public, secrets[name] = keys.create(tmp_path / "keys", name, "pit")
        shutil.copyfile(public, clients / public.name)
    feed, zap = open_rating_feed(ctx, {"ratings": endpoint, "dsn": "unused", "key": str(pit_secret),
                                       "clients": str(clients), "roles": ["pit"]})
    assert feed is not None and zap is not None
    stop = threading.Event()

    def serve_zap() -> None:  # the archiver's main loop: the ZAP requests, the directory looked at
        while not stop.is_set():
            if zap.socket.poll(20):
                zap.serve()
            zap.turn()

    subs: dict[str, tuple[zmq.Socket[Any], zmq.Socket[Any]]] = {}
    for name, secret in secrets.items():
        sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
        ClientKeys.load(str(secret), str(pit_secret).removesuffix("_secret")).apply(sock)
        sock.setsockopt(zmq.SUBSCRIBE, b"rating/")
        monitor = sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
                                          | zmq.EVENT_HANDSHAKE_FAILED_AUTH)
        subs[name] = (sock, monitor)
    seen: dict[str, list[int]] = {name: [] for name in subs}

    def saw(name: str, *events: int) -> bool:
        monitor = subs[name][1]
        while monitor.poll(0):
            seen[name].append(int(recv_monitor_message(monitor)["event"]))
        return all(seen[name].count(e) >= n for e, n in Counter(events).items())

    def session(hands: int) -> dict[str, Any]:
        return {"table": "uth-1", "player": "600012345678", "start": 1.0, "hands": hands, "breaks": 0, "end": None}

    thread = threading.Thread(target=serve_zap, daemon=True)
    thread.start()
    try:
        for sock, _ in subs.values():
            sock.connect(endpoint)
        wait_for(lambda: all(saw(name, zmq.EVENT_HANDSHAKE_SUCCEEDED) for name in subs), "both systems let in", 10)
        got: dict[str, list[Any]] = {name: [] for name in subs}

        def take(name: str) -> list[Any]:
            while subs[name][0].poll(0):
                got[name].append(json.loads(subs[name][0].recv_multipart()[1]))
            return got[name]

        while not all(take(name) for name in subs):  # a PUB's first sends may go before the subscriptions
            feed.sessions([session(len(got["cms-2"]) + feed.seq)])
            subs["cms-2"][0].poll(100)
        (clients / "revoked").mkdir()
        shutil.move(str(clients / "cms-1.key"), clients / "revoked" / "cms-1.key")
        wait_for(lambda: saw("cms-1", zmq.EVENT_HANDSHAKE_SUCCEEDED, zmq.EVENT_DISCONNECTED,
                             zmq.EVENT_HANDSHAKE_FAILED_AUTH), "the revoked system cut and refused", 10)
        wait_for(lambda: saw("cms-2", *[zmq.EVENT_HANDSHAKE_SUCCEEDED] * 2), "the other system back", 10)
        assert feed.reopened == 1 and "cms-1" not in zap.granted
        before = len(take("cms-1"))
        wait_for(lambda: feed.sessions([session(1000 + feed.seq)]) and take("cms-2")[-1]["session"]["hands"] >= 1000,
                 "the next events at the other system", 10)  # the first may go before its subscription is back
        assert len(take("cms-1")) == before  # sent after the other system had it: none for the revoked one
    finally:
        stop.set()
        thread.join(5)
        for sock, monitor in subs.values():
            sock.disable_monitor()
            monitor.close(0)
            sock.close(0)
        feed.close()
        zap.close()


def test_an_archive_not_migrated_or_a_bad_day_is_named_not_a_traceback(db: str) -> None:
    done = croupier_here("ratings", "--db", db, "--json")
    assert done.returncode == 2 and "croupier pit migrate" in done.stderr and "Traceback" not in done.stderr
    done = croupier_here("ratings", "--db", db, "--day", "12/03")
    assert done.returncode == 2 and "--day: a gaming day as YYYY-MM-DD" in done.stderr
    done = croupier_here("ratings", "--player", "600050100")
    assert done.returncode == 2 and "give --db DSN" in done.stderr
