"""The pit's signed-off rating steps in the archive, in a real PostgreSQL: a declined player's session opened, its
unrated play entered and adjusted, a card's start entered, the table played on by the demo, archived from its
`history` pages and rated as `croupier ratings --state` rates the journal, to the cent, with every adjustment."""

from __future__ import annotations

from datetime import datetime, time, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import zmq

from firmware_host.service.config import RatingsConfig
from firmware_host.service.controller import Controller
from firmware_host.service.ratings import gaming_day_began, journal_ratings
from floor.archive import Archive
from floor.rating_feed import RatingFeed
from firmware_host.service.journal import Journal
from floor.migrate import migrate
from protocol.access import Caller
from protocol.commands import Command
from protocol.config import SecurityConfig
from protocol.users import User, Users
from tests.floor.test_floor_ratings import CmsClient, archive, catch_up, close, croupier, lines

PIN = "6620417395"


def signed_steps(state: Path, users: Path) -> None:
    """The pit's steps at the table, between two demos, each signed off by the supervisor."""
    c = Controller(Journal.open(state), security=SecurityConfig(users=str(users), local_role="pit"))
    c.recover()
    free = next(seat for seat in range(1, 8) if str(seat) not in c.full_state()["players"])
    carded = next(iter(c.full_state()["players"]), None)
    steps: list[dict[str, Any]] = [
        {"seat": free, "action": "open"},
        {"seat": free, "action": "adjust", "hands": 25, "average_bet": 1500},
        {"seat": free, "action": "adjust", "hands": 25, "average_bet": 1200, "reason": "the pit counted again"}]
    if carded is not None:
        steps.append({"seat": int(carded), "action": "adjust", "start": 1})
    for n, step in enumerate(steps):
        reply = c.handle_command(Command.from_mapping({"cmd": "rating", "id": f"pit-{n}", **step,
                                                      "auth": {"user": "sue", "pin": PIN}}), Caller("pit", "pit-1"))
        assert reply["ok"], reply
    c.journal.close()


def test_the_pits_adjustments_are_archived_and_rated_as_the_journal_rates_them(tmp_path: Path, db: str) -> None:
    users = tmp_path / "users.json"
    Users({"sue": User.with_pin("sue", "supervisor", PIN)}).save(users)
    state, table = tmp_path / "sim-3cp-1", "sim-3cp-1"
    for n in range(2):
        if n:
            signed_steps(state, users)
        done = croupier("demo", "--game", "3cp", "--hands", "30", "--rated", "0.5", "--quiet", "--seed", "9",
                        "--state", str(state))
        assert done.returncode == 0, done.stderr
    migrate(db)
    archive(db, state, table)
    archived = sorted(lines("--db", db), key=lambda s: (s["start"], s["player"]))
    journal = sorted((s for s in lines("--state", str(state), "--table", table) if s["kind"] == "session"),
                     key=lambda s: (s["start"], s["player"]))
    assert len(archived) == len(journal) >= 3
    for got, want in zip(archived, journal):
        assert {k: v for k, v in got.items() if k not in ("played_s", "hands_per_hour")} == \
            {k: v for k, v in want.items() if k not in ("played_s", "hands_per_hour")}
    [declined] = [s for s in archived if s["declined"]]
    assert [(a["action"], a["by"], a["after"]) for a in declined["adjustments"]] == [
        ("open", "sue", {"player": "declined"}), ("unrated_play", "sue", {"hands": 25, "average_bet": 1500}),
        ("unrated_play", "sue", {"hands": 25, "average_bet": 1200})]
    assert declined["adjustments"][2]["before"] == {"hands": 25, "average_bet": 1500}
    ante = Fraction(686689, 20358520)  # 3CP's Ante-and-Play edge a unit of Ante, the standard count
    assert Fraction(declined["entered"]["theo"]) == 25 * 1200 * ante
    assert declined["theo_cents"] == round(Fraction(declined["theo"])) and declined["theo_complete"]
    assert any(a["action"] == "start" for s in archived for a in s["adjustments"])


def test_a_session_closed_before_the_tables_last_close_is_adjusted_in_the_archive_and_sent_updated(
        tmp_path: Path, db: str) -> None:
    """The evening's table closed and archived (its sessions before the archive's mark), then the pit enters the
    unrated play of two of them, one ended by the close, one ended before it: the archive applies each step to the
    stored row, the casino system gets each `updated`, the rows equal `croupier ratings --state`'s to the cent, and
    a catch-up replayed or a pit started again changes nothing."""
    users, state, table = tmp_path / "users.json", tmp_path / "sim-3cp-1", "sim-3cp-1"
    Users({"sue": User.with_pin("sue", "supervisor", PIN)}).save(users)
    done = croupier("demo", "--game", "3cp", "--hands", "30", "--rated", "0.5", "--quiet", "--seed", "11",
                    "--state", str(state))
    assert done.returncode == 0, done.stderr
    close(state)
    migrate(db)
    ctx: zmq.Context[Any] = zmq.Context()
    feed = RatingFeed(ctx, f"ipc://{tmp_path}/ratings", None)
    cms = CmsClient(ctx, f"ipc://{tmp_path}/ratings")
    try:
        with Archive(db) as a:
            catch_up(a, state, table, None, feed, cms)
            journal = Journal.open(state)
            sessions_then = journal_ratings(journal, table).reports()
            by_close, before_close = sessions_then[-1], sessions_then[0]  # the last ended by the close itself
            assert before_close["end"] < by_close["end"] and all(not s["open"] for s in sessions_then)
            c = Controller(journal, table=table, clock=lambda: by_close["end"] + 3600,
                           security=SecurityConfig(users=str(users), local_role="pit"))
            began = datetime.fromtimestamp(sessions_then[0]["start"] - 3600, timezone.utc)  # the day: an hour before
            c.ratings_day = RatingsConfig(day_starts=time(began.hour, began.minute), time_zone="UTC")
            c.recover()
            assert int(before_close["start"]) >= gaming_day_began(c.clock(), c.ratings_day)  # of this gaming day
            for n, s in enumerate((by_close, before_close)):
                step = {"cmd": "rating", "id": f"late-{n}", "seat": s["seats"][-1]["seat"], "action": "adjust",
                        "session": s["start"], "hands": 4 + n, "average_bet": 1000, "auth": {"user": "sue", "pin": PIN}}
                reply = c.handle_command(Command.from_mapping(step), Caller("pit", "pit-1"))
                assert reply["ok"], reply
            journal.close()
            sent_before = len(cms.events)
            catch_up(a, state, table, None, feed, cms)
            assert cms.events[sent_before:] == ["updated", "updated"]
            catch_up(a, state, table, None, feed, cms)  # nothing new: nothing sent
            assert len(cms.events) == sent_before + 2
        archived = sorted(lines("--db", db), key=lambda s: (s["start"], s["player"]))
        journal_lines = sorted((s for s in lines("--state", str(state), "--table", table) if s["kind"] == "session"),
                               key=lambda s: (s["start"], s["player"]))
        assert [{k for k in a if a[k] != b.get(k)} for a, b in zip(archived, journal_lines)] == [set()] * len(archived)
        assert archived == journal_lines  # every session closed: equal in every field
        adjusted = {(s["player"], s["start"]): s for s in archived}
        for n, s in enumerate((by_close, before_close)):
            row = adjusted[(s["player"], s["start"])]
            assert row["entered"]["hands"] == 4 + n and [a["by"] for a in row["adjustments"]] == ["sue"]
            assert Fraction(row["theo"]) - Fraction(s["theo"]) == (4 + n) * 1000 * Fraction(686689, 20358520)
            assert (row["end"], row["hands"]) == (s["end"], s["hands"])
            assert cms.sessions[(table, s["player"], s["start"])] == {k: v for k, v in row.items()
                                                                      if k not in ("started", "ended")}
        with Archive(db) as again:  # the pit started again: its fold from the mark reads the steps, changes no row
            assert again.rate(table) == []
        assert sorted(lines("--db", db), key=lambda s: (s["start"], s["player"])) == archived
    finally:
        feed.close()
        cms.sock.close(0)
        ctx.term()
