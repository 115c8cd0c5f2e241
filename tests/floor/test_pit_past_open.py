"""A rating session still open from a gaming day gone (its table never closed since) flagged in the pit's `rated` message: its gaming day by the archive's `gaming_day`, so the pit shows it and the pit boss closes it (a real PostgreSQL; the pit's clock driven: the minute after 06:00 UTC, where the wall clock made this test fail)."""

from __future__ import annotations

from datetime import datetime, timezone

import psycopg
import pytest

from engine.ratings import Ratings
from floor.figures import read_rated
from floor.migrate import migrate
from floor.ratings import upsert_sessions
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)

AT_0600 = datetime(2026, 12, 4, 6, 0, tzinfo=timezone.utc).timestamp()
"""The archive's default gaming day (06:00 UTC) begins: the 4th's."""


@pytest.mark.parametrize("after", [30.0, 3 * 3600.0])
def test_an_open_session_of_a_day_gone_carries_its_gaming_day(db: str, after: float) -> None:  # noqa: F811
    """At 06:00:30 (the minute the wall clock failed this in) and at 09:00: a session of two days before, one opened
    ten seconds before 06:00 (the 3rd's, gone), one opened after 06:00 (the 4th's: not flagged)."""
    migrate(db)
    now = AT_0600 + after
    r = Ratings("uth-1")
    r.event("player", {"seat": 2, "action": "in", "card": "600011112222", "source": "reader"}, now - 2 * 86400)
    r.event("player", {"seat": 4, "action": "in", "card": "600055556666", "source": "reader"}, AT_0600 - 10)
    r.event("player", {"seat": 5, "action": "in", "card": "600033334444", "source": "reader"}, AT_0600 + after / 2)
    with psycopg.connect(db) as conn:
        upsert_sessions(conn, r.reports(), "pit-1")
        starts, zone = conn.execute("SELECT to_char(starts, 'HH24:MI'), time_zone FROM gaming_day").fetchone()
    assert (starts, zone) == ("06:00", "UTC")  # the archive's default: the day of a moment is its date 6 h before
    lines = {line["seat"]: line for line in read_rated(db, ["uth-1"], at=now)["tables"]["uth-1"]}
    assert (lines[2]["past_day"], lines[4]["past_day"], lines[5]["past_day"]) == ("2026-12-02", "2026-12-03", None)
    assert lines[2]["player"] == "••••2222"  # masked as every line
    before = {line["seat"]: line["past_day"] for line in read_rated(db, ["uth-1"], at=AT_0600 - 1)["tables"]["uth-1"]}
    assert before[4] is None and before[2] == "2026-12-02"  # a second before 06:00, 05:59:50 is the day's own
