"""One gaming day for the table and the archive: the pit's rating step carries the floor's gaming day (the archive's, `floor.web.rating.floor_day`), and the table checks a closed session against it, naming both settings when its own `[ratings]` differs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, time, timezone
from pathlib import Path
from typing import Any

import pytest
import zmq

from firmware_host.service.config import RatingsConfig
from firmware_host.service.ratings import journal_ratings
from floor.web.rating import RatingRelay, floor_day
from pages.config import TableFeed
from tests.firmware_host.test_rating_signoff import say_in
from tests.firmware_host.test_signoff import PIN, SUPERVISOR, Table
from tests.own_loop import in_own_loop

SIGNOFF = {"user": "ana", "pin": PIN, "at": "pat"}
"""The supervisor's sign-off as the floor's web process relays it, for pit boss `pat` signed in at /pit."""


def utc(hour: int, minute: int = 0) -> float:
    return datetime(2026, 12, 3, hour, minute, tzinfo=timezone.utc).timestamp()


def figures(starts: str, zone: str = "UTC") -> str:
    """The pit's latest `figures` message as the archive's reader sends it (`floor.figures.read_figures`)."""
    return json.dumps({"kind": "figures", "source": "archive", "day": "2026-12-03", "starts": starts, "time_zone": zone})


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[tuple[Table, list[float], RatingRelay]]:
    """A table whose session at seat 2 ran 07:00-07:30 UTC, now 09:00 UTC; a relay of the floor's web process to it,
    the floor's figures (and so its gaming day) set by each test."""
    t = Table(tmp_path, ctx, local_role="pit", fault=False)
    now = [utc(7)]
    t.c.clock = lambda: now[0]
    assert t.client.request("player", seat=2, action="in", card="60002222", source="pit")["ok"]
    now[0] = utc(7, 30)
    assert t.client.request("player", seat=2, action="out")["ok"]
    now[0] = utc(9)
    feed = TableFeed("uth-1", "tcp://127.0.0.1:1", "tcp://127.0.0.1:2", commands=t.client.endpoint)
    relay = RatingRelay({"uth-1": feed},
                        ctx=ctx)
    yield t, now, relay
    relay._thread.shutdown()
    t.close()


def session(t: Table) -> dict[str, Any]:
    (only,) = journal_ratings(t.c.journal, "uth-1").reports()
    return only


def adjust(relay: RatingRelay, req: str, start: float) -> dict[str, Any]:
    return in_own_loop(relay.relay("uth-1", f"pit-web:pat:{req}", {"seat": 2, "action": "adjust", "session": start,
                                                                    "hands": 12, "average_bet": 2500}, SIGNOFF))


def test_a_session_between_the_two_starts_is_the_floors_days_and_adjusted_at_the_table(
        table: tuple[Table, list[float], RatingRelay]) -> None:
    t, _, relay = table
    t.c.ratings_day = RatingsConfig(day_starts=time(8))  # the table's own: 08:00 UTC, after the session began
    start = session(t)["start"]
    before = t.events()
    alone = t.client.request("rating", req_id="own", seat=2, action="adjust", session=start, hands=12,
                             average_bet=2500, auth=SUPERVISOR)  # a step without the floor's day: the table's own
    assert alone["say"] == {"key": "refusal.session_another_day", "args": {"seat": 2}}, alone
    assert t.events() == before
    relay.day = lambda: floor_day(figures("06:00"))  # the archive's: the pit lists it among today's closed sessions
    reply = adjust(relay, "a1", start)
    assert reply["ok"], reply
    body = t.events()[-1].body
    assert (body["day_starts"], body["time_zone"]) == ("06:00", "UTC")  # the rule that decided, journaled
    end = session(t)["end"]
    assert body["was"] == {"card": "60002222", "session": start, "end": end} and int(end) == int(utc(7, 30))
    after = session(t)
    assert after["entered"]["hands"] == 12 and after["end"] == end  # kept its end, the play entered
    assert [(a["by"], a["action"]) for a in after["adjustments"]] == [("ana", "unrated_play")]


def test_a_session_the_floor_holds_of_the_day_before_is_refused_naming_both_settings(
        table: tuple[Table, list[float], RatingRelay]) -> None:
    t, _, relay = table
    t.c.ratings_day = RatingsConfig(day_starts=time(6))  # the table's own: 06:00 UTC, before the session began
    relay.day = lambda: floor_day(figures("08:00"))  # the floor's day began at 08:00: the session is yesterday's
    before = t.events()
    reply = adjust(relay, "b1", session(t)["start"])
    assert reply["ok"] is False and reply["say"] == {
        "key": "refusal.session_another_floor_day", "args": {"seat": 2, "floor": "08:00 UTC", "table": "06:00 UTC"}}
    assert "08:00 UTC" in reply["error"] and "06:00 UTC" in reply["error"]
    assert t.events() == before and session(t)["adjustments"] == []  # nothing journaled, nothing lost
    for lang in ("en", "fr"):
        words = say_in(lang, reply["say"])
        assert "08:00 UTC" in words and "06:00 UTC" in words and "[ratings]" in words
    relay.day = lambda: floor_day(figures("06:00"))  # the floor's set back to the table's: the same step applies
    assert adjust(relay, "b2", session(t)["start"])["ok"]


def test_equal_settings_change_nothing_and_no_figures_leave_the_tables_own(
        table: tuple[Table, list[float], RatingRelay]) -> None:
    t, now, relay = table
    t.c.ratings_day = RatingsConfig(day_starts=time(8))
    relay.day = lambda: floor_day(figures("08:00"))  # equal: the old refusal, in its old words
    reply = adjust(relay, "c1", session(t)["start"])
    assert reply["say"] == {"key": "refusal.session_another_day", "args": {"seat": 2}}, reply
    relay.day = lambda: floor_day(json.dumps({"kind": "figures", "source": "archive", "error": "down"}))
    assert adjust(relay, "c2", session(t)["start"])["say"]["key"] == "refusal.session_another_day"
    now[0] = utc(7, 45)  # before the table's 08:00: its own day holds the session, no figures needed
    assert adjust(relay, "c3", session(t)["start"])["ok"]
    assert "day_starts" not in t.events()[-1].body


@pytest.mark.parametrize("forged", [{"day_starts": "06:00"}, {"time_zone": "UTC"},
                                    {"day_starts": "25:00", "time_zone": "UTC"},
                                    {"day_starts": "06:00", "time_zone": "Mars/Olympus"}])
def test_a_forged_floor_day_is_malformed(table: tuple[Table, list[float], RatingRelay], forged: dict[str, Any]) -> None:
    t, _, _ = table
    before = t.events()
    reply = t.client.request("rating", req_id="f", seat=2, action="adjust", session=session(t)["start"], hands=1,
                             average_bet=100, auth=SUPERVISOR, **forged)
    assert reply["ok"] is False and reply["code"] == "malformed", reply
    assert t.events() == before


def test_the_floors_day_comes_with_a_closed_session_only(table: tuple[Table, list[float], RatingRelay]) -> None:
    t, _, _ = table
    reply = t.client.request("rating", req_id="g", seat=2, action="adjust", hands=1, average_bet=100,
                             day_starts="06:00", time_zone="UTC", auth=SUPERVISOR)
    assert reply["code"] == "malformed" and "closed session only" in reply["error"], reply
