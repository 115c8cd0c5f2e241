"""A past gaming day's rating session adjusted by the pit in the archive, in a real PostgreSQL: the row's figures and
its audit, `croupier ratings --db`, the casino system's `updated`, and the refusals (stale, unknown, purged, of
today, open, not final), two pit screens at once serialised."""

from __future__ import annotations

import json
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq

from floor.archive import Archive
from floor.migrate import migrate
from floor.rating_feed import RatingFeed
from floor.rating_memory import FeedMemory
from floor.rating_past import PastRefused, PastStep, adjust, day_sessions
from tests.firmware_host.processes import croupier_here, wait_for
from tests.floor.test_floor_ratings import CmsClient, catch_up, close, croupier, lines

TABLE = "sim-3cp-1"
ANTE = Fraction(686689, 20358520)  # 3CP's Ante-and-Play edge a unit of Ante, the standard count


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rated 3CP table's evening, closed (every session final), then opened again for 14 hands (open sessions)."""
    path = tmp_path_factory.mktemp("past") / TABLE
    for n, hands in enumerate((30, 14)):
        if n:
            close(path)
        done = croupier("demo", "--game", "3cp", "--hands", str(hands), "--rated", "0.5", "--quiet", "--seed", "11",
                        "--state", str(path))
        assert done.returncode == 0, done.stderr
    return path


def reopened(db: str) -> float:
    """When the table opened again after the evening's close (the sessions before it are final in the archive)."""
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT max(ts) FROM table_events WHERE kind = 'open'").fetchone()
    assert row is not None
    return float(row[0])


def yesterday(db: str, upto: float) -> str:
    """The sessions that started before `upto` moved two days back (a past gaming day); returns that day."""
    with psycopg.connect(db) as conn:
        conn.execute("UPDATE rating_sessions SET started_at = started_at - interval '2 days' WHERE start < %s", (upto,))
        row = conn.execute("SELECT (((now() - interval '2 days') AT TIME ZONE time_zone) - starts)::date::text "
                           "FROM gaming_day").fetchone()
    assert row is not None
    return str(row[0])


def test_a_past_days_session_is_adjusted_in_the_archive_audited_and_sent_updated(tmp_path: Path, db: str,
                                                                                state: Path) -> None:
    migrate(db)
    ctx: zmq.Context[Any] = zmq.Context()
    endpoint = f"ipc://{tmp_path}/ratings"
    feed = RatingFeed(ctx, endpoint, None, FeedMemory(db))
    cms = CmsClient(ctx, endpoint)
    journal_before = croupier_here("ratings", "--state", str(state), "--table", TABLE, "--json").stdout
    try:
        with Archive(db) as a:
            catch_up(a, state, TABLE, None, feed, cms)
        evening = [s for s in lines("--db", db) if not s["open"]]
        opened_again = reopened(db)
        day = yesterday(db, opened_again)
        with psycopg.connect(db) as conn:
            listed = day_sessions(conn, TABLE, day)
        target = next(s for s in evening if s["hands"] and s["start"] < opened_again)
        line = next(x for x in listed if x["start"] == target["start"])
        assert line["player"] == "••••" + target["player"][-4:] and line["version"] == 0 and not line["today"]
        assert all(target["player"] not in str(x) for x in listed)  # the card masked
        step = PastStep(TABLE, target["start"], line["seat"], 0, hands=12, average_bet=1500, reason="slip found late")
        with psycopg.connect(db) as conn:
            got = adjust(conn, step, "pat", "sue", "pit-web:pat:a1")
            again = adjust(conn, step, "pat", "sue", "pit-web:pat:a1")  # the same request sent again: applied once
        assert again == got
        assert Fraction(got["theo"]) - Fraction(target["theo"]) == 12 * 1500 * ANTE
        assert (got["end"], got["hands"], got["win"]) == (target["end"], target["hands"], target["win"])
        [entry] = got["adjustments"]
        assert (entry["action"], entry["by"], entry["after"], entry["before"]) == (
            "unrated_play", "sue", {"hands": 12, "average_bet": 1500}, None)
        assert {k: entry.get(k) for k in ("sent_by", "via", "reason")} == {  # type: ignore[misc]
            "sent_by": "pat", "via": "archive", "reason": "slip found late"}
        with psycopg.connect(db) as conn:
            audit = conn.execute("SELECT sent_by, signed_off, reason, before, after FROM rating_steps").fetchall()
        stored = {k: v for k, v in target.items() if k not in ("started", "ended")}  # the CLI's own
        assert audit == [("pat", "sue", "slip found late", stored, got)]
        shown = next(s for s in lines("--db", db, "--day", day) if s["start"] == target["start"])
        assert shown["theo"] == got["theo"] and shown["adjustments"] == got["adjustments"]
        assert croupier_here("ratings", "--state", str(state), "--table", TABLE, "--json").stdout == journal_before
        before = len(cms.events)
        assert feed.archive_steps() == 1
        wait_for(lambda: cms.take() is None and cms.seq == feed.seq, "the client has the step", timeout_s=10)
        assert cms.events[before:] == ["updated"]
        assert cms.sessions[(TABLE, target["player"], target["start"])]["theo"] == got["theo"]
        assert feed.archive_steps() == 0  # published once
    finally:
        feed.close()
        assert feed.memory is not None
        feed.memory.close()
        cms.sock.close(0)
        ctx.term()


def test_a_past_days_step_is_refused_in_words(db: str, state: Path) -> None:
    migrate(db)
    with Archive(db) as a:
        catch_up_quiet(a, state)
    sessions = lines("--db", db)
    opened_again = reopened(db)
    past = [s for s in sessions if s["start"] < opened_again]
    today = next(s for s in sessions if not s["open"] and s["start"] >= opened_again) \
        if any(not s["open"] and s["start"] >= opened_again for s in sessions) else None
    still_open = next(s for s in sessions if s["open"])

    def refused(s: dict[str, Any], version: int = 0, start: float | None = None) -> str:
        step = PastStep(TABLE, s["start"] if start is None else start, s["seats"][-1]["seat"], version, 3, 500)
        with psycopg.connect(db) as conn, pytest.raises(PastRefused) as caught:
            adjust(conn, step, "pat", "sue", f"pit-web:pat:{len(str(s))}{version}{start}")
        return caught.value.code

    assert refused(past[0]) == "session_today"  # not moved back: of the current gaming day, the table's
    assert refused(still_open) == "session_open"
    if today is not None:
        assert refused(today) in ("session_today", "session_not_final")
    yesterday(db, opened_again)
    assert refused(past[0], start=past[0]["start"] + 0.5) == "no_archived_session"
    assert refused(past[0], version=3) == "stale"
    with psycopg.connect(db) as conn:  # two pit screens at once, each having seen version 0: one applied
        conn.execute("UPDATE rating_marks SET event = event")  # (the mark stays: the evening's close)
    outcomes: list[str] = []

    def screen(n: int) -> None:
        step = PastStep(TABLE, past[0]["start"], past[0]["seats"][-1]["seat"], 0, 5 + n, 1000)
        with psycopg.connect(db) as conn:
            try:
                adjust(conn, step, f"pit{n}", "sue", f"pit-web:pit{n}:x")
                outcomes.append("ok")
            except PastRefused as exc:
                outcomes.append(exc.code)
    screens = [threading.Thread(target=screen, args=(n,)) for n in range(2)]
    for t in screens:
        t.start()
    for t in screens:
        t.join(30)
    assert sorted(outcomes) == ["ok", "stale"]
    with Archive(db) as a:  # the retention: the evening's sessions purged, one asked for is said purged
        with psycopg.connect(db) as conn:
            conn.execute("UPDATE rating_sessions SET ended_at = ended_at - interval '10 days' WHERE start < %s",
                         (opened_again,))
        assert a.purge_players(7) > 0
    assert refused(past[1]) == "session_purged"


def catch_up_quiet(a: Archive, state: Path) -> None:
    from tests.floor.test_floor_ratings import pages
    for page in pages(state, events=False, after=a.last_hand(TABLE)):
        a.write(TABLE, page)
    for page in pages(state, events=True, after=a.last_event(TABLE)):
        a.write_events(TABLE, page)
    a.rate(TABLE)


def test_the_pits_terminal_lists_a_past_day_and_adjusts_a_session_signed_off(tmp_path: Path, db: str,
                                                                             state: Path) -> None:
    """`croupier pit rating`: the day's sessions listed (masked), a wrong PIN refused in words and nothing written,
    the step applied with the PIN on standard input, a stale version refused in words."""
    import subprocess
    import sys

    from protocol.users import User, Users

    migrate(db)
    with Archive(db) as a:
        catch_up_quiet(a, state)
    sessions = lines("--db", db)
    opened_again = reopened(db)
    later = next(s for s in sessions if not s["open"] and s["start"] > opened_again)  # closed since the table opened
    day = yesterday(db, later["start"] + 0.001)  # again: it and the evening's moved to a past day
    Users({"sue": User.with_pin("sue", "supervisor", "7315"), "pat": User.with_pin("pat", "pit", "2468")}).save(
        tmp_path / "users.json")

    def pit(*args: str, pin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cli", "pit", "rating", "--db", db, "--table", TABLE, *args],
                              input=pin + "\n", capture_output=True, text=True, timeout=120, check=False)

    listed = [json.loads(x) for x in pit("--day", day).stdout.splitlines()]
    assert listed and all(x["player"].startswith("••••") for x in listed)
    not_final = pit("--session", repr(later["start"]), "--seat", str(later["seats"][-1]["seat"]), "--version", "0",
                    "--hands", "1", "--average-bet", "100", "--by", "pat", "--users", str(tmp_path / "users.json"),
                    "--supervisor", "sue", pin="7315")
    assert not_final.returncode == 1 and "has not been closed since that session" in not_final.stderr
    first = next(x for x in listed if x["start"] < opened_again)
    step = ("--session", repr(first["start"]), "--seat", str(first["seat"]), "--version", "0", "--hands", "6",
            "--average-bet", "1000", "--reason", "rating slip", "--by", "pat", "--users", str(tmp_path / "users.json"))
    wrong = pit(*step, "--supervisor", "pat", pin="2468")  # a pit boss's own PIN signs nothing off
    assert wrong.returncode == 1 and "sign-off refused" in wrong.stderr
    done = pit(*step, "--supervisor", "sue", pin="7315")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["entered"]["hands"] == 6 and report["adjustments"][-1]["reason"] == "rating slip"
    stale = pit(*step, "--supervisor", "sue", pin="7315")
    assert stale.returncode == 1 and "adjusted meanwhile" in stale.stderr
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT sent_by, signed_off FROM rating_steps").fetchall() == [("pat", "sue")]
