"""A rating session still open from a gaming day gone (its table never closed since) flagged in the pit's `rated` message: its gaming day by the archive's `gaming_day`, so the pit shows it and the pit boss closes it (a real PostgreSQL)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import psycopg

from engine.ratings import Ratings
from floor.figures import read_rated
from floor.migrate import migrate
from floor.ratings import upsert_sessions
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)


def test_an_open_session_of_a_day_gone_carries_its_gaming_day(db: str) -> None:  # noqa: F811
    migrate(db)
    now = time.time()
    r = Ratings("uth-1")
    r.event("player", {"seat": 2, "action": "in", "card": "600011112222", "source": "reader"}, now - 2 * 86400)
    r.event("player", {"seat": 5, "action": "in", "card": "600033334444", "source": "reader"}, now - 60)
    with psycopg.connect(db) as conn:
        upsert_sessions(conn, r.reports(), "pit-1")
        starts, zone = conn.execute("SELECT to_char(starts, 'HH24:MI'), time_zone FROM gaming_day").fetchone()
    assert (starts, zone) == ("06:00", "UTC")  # the archive's default: the day of a moment is its date 6 h before
    lines = {line["seat"]: line for line in read_rated(db, ["uth-1"])["tables"]["uth-1"]}
    old = datetime.fromtimestamp(now - 2 * 86400 - 6 * 3600, timezone.utc).date().isoformat()
    assert lines[2]["past_day"] == old and lines[5]["past_day"] is None
    assert lines[2]["player"] == "••••2222"  # masked as every line
