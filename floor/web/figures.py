"""The pit view's figures: per table its hands per hour and the house's win of the gaming day, and the day's chart, read from the floor's archive every `figures_s`.

With `[web] floor_db` (a libpq DSN of the floor's PostgreSQL; the `floor` extra) a task of the
floor web process's loop calls the floor's reader (`floor.figures.pit_figures`, given by `floor/web/server.py`;
a test may give another), which reads the floor's own
series, `floor.series.day_series(conn, day, tables=...)` for the tables on the pit (what `croupier stats --by-hour --json` prints), in a worker thread, over a
read-only connection made for each reading, every `[web] figures_s` seconds (and at once when a
table joins or leaves the pit), and sends the pit screens one message (`PitHub.show_figures`):

    {"kind": "figures", "source": "archive", "day": "2026-12-01", "starts": "06:00", "time_zone": "UTC",
     "hours": ["06:00", ...], "elapsed": 10.5,
     "tables": {"uth-1": {"hands": [per hour], "win": [per hour], "open_hours": [per hour],
                          "day_hands", "day_win", "day_open_hours", "hands_per_hour"}},
     "pit": {the same, summed over the pit's tables, and "tables": N},
     "dealers": [each dealer's figures at the pit's tables that day: `floor.shift_counts.dealer_figures`]}

The hub sends the `dealers` apart, to the screens signed in with a floor role only (`hub.py`).
At each reading it also reads the rated players at the pit's tables (`floor.figures.pit_rated`: each
table's open rating sessions, the card masked; docs/ratings.md) and sends `{"kind": "rated", "source":
"archive", "tables": {name: [...]}}` (or its `error`): the archive's fold follows each catch-up, so the
list is refreshed as hands close, within `figures_s`.

`hands`, `win` and `open_hours` are the series' `hands`, `house_win` and `open_hours`, hour by hour
(the open time from the table's open / close events, idle spells counted closed: docs/floor.md,
"Figures"). A table's hands per hour are the day's hands over the day's open hours so far (the sum of
its `open_hours`), rounded to 2 places as `croupier stats` rounds its rates; null when the open time is
0 (no hand, or hands with no open time counted: one hand alone, or each after an idle spell). A
failure of the server is sent as `{"kind": "figures", "source": "archive", "error": "..."}` (the page
says so) and tried again at the next reading. Without `floor_db` one `{"kind": "figures", "source":
"feed"}` tells the page its figures are the feed's (the session since the table opened, the hands seen
since the floor's web process started).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from floor import reports
from floor.web.hub import PitHub

log = logging.getLogger("croupier.pit.web")

FiguresReader = Callable[[str, list[str]], reports.PitFigures | reports.ArchiveFailure]
"""`read(dsn, tables)`: the pit's figures (`floor.figures.pit_figures`)."""
RatedReader = Callable[[str, list[str]], reports.PitRated | reports.ArchiveFailure]
"""`rated(dsn, tables)`: the rated players at the pit's tables (`floor.figures.pit_rated`)."""

CHANGE_CHECK_S = 0.5
"""How often the tables on the pit are compared with those of the last reading (a new one is read at once)."""

class PitFigures:
    """The floor web process's reader of the archive for the pit (`start` on the loop, `stop` at the end)."""

    def __init__(self, pit: PitHub, dsn: str | None, every_s: float,
                 read: FiguresReader | None = None, rated: RatedReader | None = None) -> None:
        self.pit = pit
        self.dsn = dsn
        self.every_s = every_s
        self.read = read
        self.rated = rated  # the rated players' reader (`floor.figures.pit_rated`), at the same readings
        self.task: asyncio.Task[None] | None = None
        self.readings = self.failures = 0

    def start(self) -> None:
        if self.dsn is None or self.read is None:
            self.pit.show_figures({"source": "feed"})
            return
        self.task = asyncio.get_running_loop().create_task(self._run(self.dsn, self.read))

    async def _run(self, dsn: str, read: FiguresReader) -> None:
        while True:
            names = sorted(self.pit.names)
            message = await asyncio.to_thread(read, dsn, names)
            if "error" in message:
                self.failures += 1
                log.warning("pit web: the pit's figures: %s", message["error"])
            else:
                self.readings += 1
            self.pit.show_figures(message)
            if self.rated is not None:
                rated = await asyncio.to_thread(self.rated, dsn, names)
                if "error" in rated:
                    log.warning("pit web: the rated players: %s", rated["error"])
                self.pit.show_rated(rated)
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
