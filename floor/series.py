"""The day's figures per clock hour, per table and per pit, from the archive: what the pit screen's chart of the day's win and hands draws.

`day_series(conn, day, pit=None)` reads the view `table_hour_figures` (migration 0004) for one gaming
day and returns one series per table, per pit and for the whole floor, each a list aligned with the
day's local clock hours. `croupier stats --by-hour --json` prints it. Definitions: docs/floor.md,
"Figures per clock hour".
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import psycopg

from floor.archive import ArchiveError, connect
from floor.reports import DaySeries, HourSeries, PitSeries, TableSeries

Conn = psycopg.Connection[tuple[Any, ...]]

SERIES = ("hands", "house_win", "open_hours")
"""What each series gives per clock hour: hands closed, the house's win on them, the open time (hours)."""

NO_JIT = "SET LOCAL jit = off"
"""Said in each figures transaction: the views' cost estimates (a lateral series per open spell) pass
PostgreSQL's JIT threshold even on a handful of rows, and compiling them takes a second or more, longer
than the queries themselves (measured: docs/floor.md, "Figures per clock hour")."""

_ROWS = """SELECT table_name, game, pit, clock_hour, hands, house_win, open_hours FROM table_hour_figures
 WHERE gaming_day = %(day)s AND (%(pit)s::text IS NULL OR pit = %(pit)s)
   AND (%(tables)s::text[] IS NULL OR table_name = ANY(%(tables)s::text[]))
 ORDER BY table_name, clock_hour, pit NULLS FIRST"""


def day_hours(day: date, starts: timedelta) -> list[datetime]:
    """The local clock hours of a gaming day that starts at `starts` (local time): from the hour the day
    starts in to the last hour before the next day starts.

    >>> [h.strftime("%H:%M") for h in day_hours(date(2026, 12, 1), timedelta(hours=6))][:2]
    ['06:00', '07:00']
    >>> len(day_hours(date(2026, 12, 1), timedelta(hours=6, minutes=30)))  # 06:00 ... 06:00 the next morning
    25
    """
    begin = datetime.combine(day, datetime.min.time()) + starts
    end = begin + timedelta(days=1)
    hour = begin.replace(minute=0, second=0, microsecond=0)
    hours = []
    while hour < end:
        hours.append(hour)
        hour += timedelta(hours=1)
    return hours


def current_day(conn: Conn) -> date:
    """Today's gaming day, by the archive's gaming-day setting. Raises psycopg.Error."""
    row = conn.execute("SELECT ((now() AT TIME ZONE time_zone) - starts)::date FROM gaming_day").fetchone()
    assert row is not None  # migration 0002 inserts its one row
    return date.fromisoformat(str(row[0]))


def _empty(n: int) -> HourSeries:
    return {"hands": [0] * n, "house_win": [0] * n, "open_hours": [0.0] * n}


def _add(series: HourSeries, at: int, hands: int, win: int, hours: Decimal) -> None:
    series["hands"][at] += hands
    series["house_win"][at] += win
    series["open_hours"][at] += float(hours)


def day_series(conn: Conn, day: date, pit: str | None = None, tables: Iterable[str] | None = None) -> DaySeries:
    """The figures of gaming day `day` per local clock hour, of one pit's tables or all (and of the
    `tables` named only, when given: a pit screen's tables, each listed even with nothing archived):

        {"day": "2026-12-01", "pit": null, "time_zone": "UTC",
         "hours": ["2026-12-01T06:00", ..., "2026-12-02T05:00"],   # local clock hours, in order
         "tables": [{"table", "game", "pit", "hands": [...], "house_win": [...], "open_hours": [...]}],
         "pits": [{"pit", "tables": N, "hands": [...], "house_win": [...], "open_hours": [...]}],
         "floor": {"hands": [...], "house_win": [...], "open_hours": [...]}}

    Every list has one entry per hour of `hours`: the hands closed in that clock hour, the house's win on
    them (table's smallest unit; negative when it paid out), and the hours the table was open in it (idle
    spells counted closed). A table's `game` and `pit` are those of its last hour played that day; its
    hands archived before pits were named count in `floor` and under no pit. Tables and pits are sorted
    by name; a day with no hand gives empty `tables` and `pits` and zero series. Raises psycopg.Error
    (the schema not migrated: psycopg.errors.UndefinedTable)."""
    with conn.transaction():
        conn.execute(NO_JIT)
        setting = conn.execute("SELECT starts, time_zone FROM gaming_day").fetchone()
        assert setting is not None
        names = None if tables is None else list(tables)
        rows = conn.execute(_ROWS, {"day": day, "pit": pit, "tables": names}).fetchall()
    hours = day_hours(day, setting[0])
    index = {hour: i for i, hour in enumerate(hours)}
    series_of: dict[str, TableSeries] = {name: {"table": name, "game": None, "pit": None, **_empty(len(hours))}
                                         for name in names or ()}
    pits: dict[str, PitSeries] = {}
    pit_tables: dict[str, set[str]] = {}
    floor = _empty(len(hours))
    for table, game, row_pit, clock_hour, hands, win, open_hours in rows:
        at = index.get(clock_hour)
        if at is None:  # outside the day's hours (a clock turned back): not charted
            continue
        entry = series_of.setdefault(str(table), {"table": str(table), "game": None, "pit": None,
                                               **_empty(len(hours))})
        entry["game"] = game if game is not None else entry["game"]
        entry["pit"] = row_pit if row_pit is not None else entry["pit"]
        for series in (entry, floor):
            _add(series, at, int(hands), int(win), open_hours)
        if row_pit is not None:
            pit_tables.setdefault(str(row_pit), set()).add(str(table))
            _add(pits.setdefault(str(row_pit), {"pit": str(row_pit), "tables": 0, **_empty(len(hours))}),
                 at, int(hands), int(win), open_hours)
    for name, in_pit in pits.items():
        in_pit["tables"] = len(pit_tables[name])
    for series in (*series_of.values(), *pits.values(), floor):
        series["open_hours"] = [round(hours, 4) for hours in series["open_hours"]]
    return {"day": day.isoformat(), "pit": pit, "time_zone": str(setting[1]),
            "hours": [hour.strftime("%Y-%m-%dT%H:%M") for hour in hours],
            "tables": [series_of[name] for name in sorted(series_of)], "pits": [pits[name] for name in sorted(pits)],
            "floor": floor}


def series_at(dsn: str, day: date | None = None, pit: str | None = None) -> DaySeries:
    """`day_series` of the archive at `dsn`, for today's gaming day when `day` is None. Raises ArchiveError
    (the server unreachable, the schema not migrated)."""
    try:
        with connect(dsn) as conn:
            return day_series(conn, day if day is not None else current_day(conn), pit)
    except psycopg.errors.UndefinedTable as exc:
        raise ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                           .replace("\n", " ")) from exc
    except psycopg.Error as exc:
        raise ArchiveError(f"the archive's server: {exc}".strip()) from exc
