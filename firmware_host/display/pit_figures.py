"""The pit view's figures: per table its hands per hour and the house's win of the gaming day, and the day's chart, read from the floor's archive every `figures_s`.

With `[display] floor_db` (a libpq DSN of the floor's PostgreSQL; the `floor` extra) a task of the
display's loop reads the floor's own series, `floor.series.day_series(conn, day, tables=...)` for the
tables on the pit (what `croupier stats --by-hour --json` prints), in a worker thread, over a
read-only connection made for each reading, every `[display] figures_s` seconds (and at once when a
table joins or leaves the pit), and sends the pit screens one message (`PitHub.show_figures`):

    {"kind": "figures", "source": "archive", "day": "2026-12-01", "starts": "06:00", "time_zone": "UTC",
     "hours": ["06:00", ...], "elapsed": 10.5,
     "tables": {"uth-1": {"hands": [per hour], "win": [per hour], "open_hours": [per hour],
                          "day_hands", "day_win", "day_open_hours", "hands_per_hour"}},
     "pit": {the same, summed over the pit's tables, and "tables": N}}

`hands`, `win` and `open_hours` are the series' `hands`, `house_win` and `open_hours`, hour by hour
(the open time from the table's open / close events, idle spells counted closed: docs/floor.md,
"Figures"). A table's hands per hour are the day's hands over the day's open hours so far (the sum of
its `open_hours`), rounded to 2 places as `croupier stats` rounds its rates; null when the open time is
0 (no hand, or hands with no open time counted: one hand alone, or each after an idle spell). A
failure of the server is sent as `{"kind": "figures", "source": "archive", "error": "..."}` (the page
says so) and tried again at the next reading. Without `floor_db` one `{"kind": "figures", "source":
"feed"}` tells the page its figures are the feed's (the session since the table opened, the hands seen
since the display started).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from firmware_host.display.pit import PitHub

log = logging.getLogger("croupier.display")

CHANGE_CHECK_S = 0.5
"""How often the tables on the pit are compared with those of the last reading (a new one is read at once)."""

_SETTING = """SELECT ((now() AT TIME ZONE time_zone) - starts)::date, to_char(starts, 'HH24:MI'),
       now() AT TIME ZONE time_zone FROM gaming_day"""


def line(hands: list[int], win: list[int], open_hours: list[float]) -> dict[str, Any]:
    """One table's (or the pit's) figures of the day from its hours: the day's hands per open hour, null
    when it was open no time.

    >>> line([3, 0, 2], [100, 0, -40], [0.5, 0.0, 0.25])["hands_per_hour"]
    6.67
    >>> line([1, 0, 0], [50, 0, 0], [0.0, 0.0, 0.0])["hands_per_hour"] is None
    True
    """
    day_open = round(sum(open_hours), 4)
    return {"hands": hands, "win": win, "open_hours": open_hours, "day_hands": sum(hands), "day_win": sum(win),
            "day_open_hours": day_open, "hands_per_hour": round(sum(hands) / day_open, 2) if day_open else None}


def read_figures(dsn: str, tables: list[str], day: date | None = None) -> dict[str, Any]:
    """The `figures` message of the tables on the pit, from the archive (today's gaming day when `day` is
    None). Raises ArchiveError."""
    import psycopg  # the `floor` extra: only a display with floor_db needs it

    from firmware_host.floor.archive import ArchiveError, connect
    from firmware_host.floor.series import day_series

    try:
        with connect(dsn) as conn:
            conn.read_only = True
            setting = conn.execute(_SETTING).fetchone()
            if setting is None:
                raise ArchiveError("the archive has no gaming day setting: run `croupier pit migrate --db DSN`")
            today, starts, now = setting
            series = day_series(conn, day if day is not None else today, tables=tables)
    except psycopg.errors.UndefinedTable as exc:
        raise ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                           .replace("\n", " ")) from exc
    except psycopg.Error as exc:
        raise ArchiveError(f"the archive's server: {exc}".strip().replace("\n", " ")) from exc
    hours = [datetime.fromisoformat(hour) for hour in series["hours"]]
    elapsed = (now - hours[0]).total_seconds() / 3600 if hours else 0.0  # local clock hours, as the series' are
    n = len(hours)
    per_table, pit_hands, pit_win, pit_open = {}, [0] * n, [0] * n, [0.0] * n
    for entry in series["tables"]:
        hands, win, open_hours = entry["hands"], entry["house_win"], entry["open_hours"]
        per_table[entry["table"]] = line(hands, win, open_hours)
        pit_hands = [a + b for a, b in zip(pit_hands, hands)]
        pit_win = [a + b for a, b in zip(pit_win, win)]
        pit_open = [a + b for a, b in zip(pit_open, open_hours)]
    pit = line(pit_hands, pit_win, [round(hours_open, 4) for hours_open in pit_open])
    pit["tables"] = len(tables)
    return {"source": "archive", "day": series["day"], "starts": str(starts), "time_zone": series["time_zone"],
            "hours": [hour.strftime("%H:%M") for hour in hours], "elapsed": round(min(elapsed, float(n)), 3),
            "tables": {name: per_table[name] for name in tables}, "pit": pit}


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
