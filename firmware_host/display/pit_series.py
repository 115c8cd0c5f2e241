"""The day's series for the pit view from the floor's archive: per table, per clock hour of the gaming day, the hands closed and the house's win.

One query over the archive's `hands` (migration 0001: `closed_at`, `house_net`) and the gaming day's
setting (0002's `gaming_day`: when it starts, in which time zone; `croupier stats day`), read only.
It stands behind `day_series` alone, so that the floor's own series (`floor/series.py`, when it is
merged) can take its place. A hand counts in the clock hour its `closed_at` falls in, voided hands
too (their win is 0), as `croupier stats` counts hands; a hand with no `closed_at` is in no hour.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import psycopg

_DAY = """SELECT d.day, to_char(g.starts, 'HH24:MI'), g.time_zone,
       ((d.day + g.starts) AT TIME ZONE g.time_zone) AS opens,
       ((d.day + g.starts + interval '1 day') AT TIME ZONE g.time_zone) AS closes,
       extract(epoch FROM now() - ((d.day + g.starts) AT TIME ZONE g.time_zone)) / 3600.0 AS elapsed
  FROM gaming_day g,
       LATERAL (SELECT coalesce(%(day)s::date, ((now() AT TIME ZONE g.time_zone) - g.starts)::date) AS day) d"""

_HOURS = """SELECT to_char(h AT TIME ZONE %(tz)s, 'HH24:MI')
  FROM generate_series(%(opens)s::timestamptz, %(closes)s::timestamptz - interval '1 hour', interval '1 hour') h
 ORDER BY h"""

_BUCKETS = """SELECT table_name, floor(extract(epoch FROM closed_at - %(opens)s::timestamptz) / 3600)::int AS hour,
       count(*), sum(house_net)
  FROM hands
 WHERE closed_at >= %(opens)s AND closed_at < %(closes)s
   AND (%(tables)s::text[] IS NULL OR table_name = ANY(%(tables)s::text[]))
 GROUP BY table_name, hour ORDER BY table_name, hour"""


@dataclass(frozen=True, slots=True)
class DaySeries:
    """A gaming day hour by hour: `hours` each clock hour's start (local `HH:MM`, 24 of them but on the days
    the clocks change), `tables` per table one (hands, house win) per hour, `elapsed` the hours of the day
    gone by now (at most its length; negative for a day to come)."""

    day: date
    starts: str
    time_zone: str
    hours: tuple[str, ...]
    elapsed: float
    tables: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def day_series(conn: psycopg.Connection[tuple[Any, ...]], day: date | None = None,
               tables: Iterable[str] | None = None) -> DaySeries:
    """The gaming day `day` (default: the one under way now) per table and clock hour: hands closed and the
    house's win, for `tables` only when given (every table with a hand that day otherwise). Raises
    psycopg.Error (the server, a schema not migrated)."""
    row = conn.execute(_DAY, {"day": day}).fetchone()
    if row is None:
        raise psycopg.DataError("the archive has no gaming day setting (run `croupier pit migrate`)")
    the_day, starts, time_zone, opens, closes, elapsed = row
    window = {"opens": opens, "closes": closes}
    hours = tuple(str(r[0]) for r in conn.execute(_HOURS, {**window, "tz": time_zone}).fetchall())
    names = None if tables is None else list(tables)
    out: dict[str, list[tuple[int, int]]] = {name: [(0, 0)] * len(hours) for name in names or ()}
    for name, hour, hands, win in conn.execute(_BUCKETS, {**window, "tables": names}).fetchall():
        slots = out.setdefault(str(name), [(0, 0)] * len(hours))
        if 0 <= hour < len(slots):
            slots[hour] = (int(hands), int(win))
    return DaySeries(the_day, str(starts), str(time_zone), hours, min(float(elapsed), float(len(hours))), out)
