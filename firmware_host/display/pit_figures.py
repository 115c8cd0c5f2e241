"""The pit view's figures: per table its hands per hour and the house's win of the gaming day, and the day's chart, read from the floor's archive every `figures_s`.

With `[display] floor_db` (a libpq DSN of the floor's PostgreSQL; the `floor` extra) a task of the
display's loop reads `pit_series.day_series` for the tables on the pit, in a worker thread, over a
read-only connection made for each reading, every `[display] figures_s` seconds (and at once when a
table joins or leaves the pit), and sends the pit screens one message (`PitHub.show_figures`):

    {"kind": "figures", "source": "archive", "day": "2026-12-01", "starts": "06:00", "time_zone": "UTC",
     "hours": ["06:00", ...], "elapsed": 10.5,
     "tables": {"uth-1": {"hands": [per hour], "win": [per hour], "day_hands", "day_win", "hands_per_hour"}},
     "pit": {the same, summed over the pit's tables}}

A table's hands per hour are its hands of the day over its open hours: the clock hours it closed a
hand in, the hour under way counted by its share gone by. A failure of the server is sent as
`{"kind": "figures", "source": "archive", "error": "..."}` (the page says so) and tried again at the
next reading. Without `floor_db` one `{"kind": "figures", "source": "feed"}` tells the page its
figures are the feed's (the session since the table opened, the hands seen since the display started).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from firmware_host.display.pit import PitHub

log = logging.getLogger("croupier.display")

CHANGE_CHECK_S = 0.5
"""How often the tables on the pit are compared with those of the last reading (a new one is read at once)."""

CURRENT_HOUR_MIN = 1 / 60
"""The least share of the hour under way counted as open (so a hand in its first seconds is not a rate of thousands)."""


def open_hours(hands: Sequence[int], elapsed: float) -> float:
    """The hours a table was open by the clock hours it closed a hand in; the hour under way by its share
    gone by.

    >>> open_hours([3, 0, 2, 1], 3.25)
    2.25
    """
    current = int(elapsed) if 0 <= elapsed < len(hands) else None
    total = 0.0
    for hour, count in enumerate(hands):
        if count:
            total += max(elapsed - hour, CURRENT_HOUR_MIN) if hour == current else 1.0
    return total


def line(hands: list[int], win: list[int], elapsed: float) -> dict[str, Any]:
    """One table's (or the pit's) figures of the day from its hours."""
    hours = open_hours(hands, elapsed)
    return {"hands": hands, "win": win, "day_hands": sum(hands), "day_win": sum(win),
            "hands_per_hour": round(sum(hands) / hours, 1) if hours else None}


def read_figures(dsn: str, tables: list[str], day: date | None = None) -> dict[str, Any]:
    """The `figures` message of the tables on the pit, from the archive. Raises ArchiveError."""
    import psycopg  # the `floor` extra: only a display with floor_db needs it

    from firmware_host.display.pit_series import day_series
    from firmware_host.floor.archive import ArchiveError, connect

    try:
        with connect(dsn) as conn:
            conn.read_only = True
            series = day_series(conn, day, tables)
    except psycopg.errors.UndefinedTable as exc:
        raise ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                           .replace("\n", " ")) from exc
    except psycopg.Error as exc:
        raise ArchiveError(f"the archive's server: {exc}".strip().replace("\n", " ")) from exc
    per_table = {}
    pit_hands, pit_win = [0] * len(series.hours), [0] * len(series.hours)
    for name in tables:
        slots = series.tables.get(name) or [(0, 0)] * len(series.hours)
        hands, win = [h for h, _ in slots], [w for _, w in slots]
        per_table[name] = line(hands, win, series.elapsed)
        pit_hands = [a + b for a, b in zip(pit_hands, hands)]
        pit_win = [a + b for a, b in zip(pit_win, win)]
    pit = line(pit_hands, pit_win, series.elapsed)
    pit["tables"] = len(tables)
    return {"source": "archive", "day": series.day.isoformat(), "starts": series.starts,
            "time_zone": series.time_zone, "hours": list(series.hours), "elapsed": round(series.elapsed, 3),
            "tables": per_table, "pit": pit}


class PitFigures:
    """The display's reader of the archive for the pit (`start` on the loop, `stop` at the end)."""

    def __init__(self, pit: PitHub, dsn: str | None, every_s: float,
                 read: Callable[[str, list[str]], dict[str, Any]] = read_figures) -> None:
        self.pit = pit
        self.dsn = dsn
        self.every_s = every_s
        self.read = read
        self.task: asyncio.Task[None] | None = None
        self.readings = self.failures = 0

    def start(self) -> None:
        if self.dsn is None:
            self.pit.show_figures({"source": "feed"})
            return
        self.task = asyncio.get_running_loop().create_task(self._run(self.dsn))

    async def _run(self, dsn: str) -> None:
        from firmware_host.floor.archive import ArchiveError

        while True:
            names = sorted(self.pit.names)
            try:
                message = await asyncio.to_thread(self.read, dsn, names)
                self.readings += 1
            except ArchiveError as exc:
                self.failures += 1
                log.warning("display: the pit's figures: %s", exc)
                message = {"source": "archive", "error": str(exc)}
            self.pit.show_figures(message)
            waited = 0.0
            while waited < self.every_s and sorted(self.pit.names) == names:  # a table added or gone: read now
                step = min(CHANGE_CHECK_S, self.every_s - waited)
                await asyncio.sleep(step)
                waited += step

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
