"""The chip alerts per table and shift and each dealer's figures, read from the archive for `croupier stats` and the pit.

The alerts come from migration 0007's views (`table_shift_alerts`: a smart table's mispays, moved chips,
foreign chips and tray differences per table, gaming day and shift, as each hand's record noted them);
the dealers' from `dealer_figures` (the archive's `dealer_shifts`, folded from the tables' journals by
`floor/ratings.py`), summed per dealer and table over the openings selected, the rates worked from the
sums. Definitions: docs/floor.md, "Chip alerts and dealers".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import psycopg

from floor.reports import DealerFigures, ShiftAlerts

ALERTS = ("mispays", "moved_chips", "foreign_chips", "tray_differences")
"""The alerts counted, in the order the reports give them (the tray's also summed: `tray_difference`)."""

DEALER_SUMS = ("turns", "time_s", "hands", "seats_filled", "voids", "corrections", "faults", *ALERTS)
"""What a dealer's figures add up over the openings of a table."""

Conn = psycopg.Connection[tuple[Any, ...]]

_ALERTS = f"""SELECT table_name, gaming_day, shift, max(pit), sum(chip_hands),
       {", ".join(f"sum({a})" for a in ALERTS)}, sum(tray_difference)
  FROM table_shift_alerts WHERE {{where}} GROUP BY table_name, gaming_day, shift
 HAVING sum(chip_hands) > 0 OR sum(tray_differences) > 0
 ORDER BY table_name, gaming_day, (SELECT starts FROM shifts s WHERE s.name = shift)"""

_DEALERS = f"""SELECT dealer, table_name, max(pit), min(started_at), bool_or(on_table),
       {", ".join(f"sum({s})" for s in DEALER_SUMS)}
  FROM dealer_figures WHERE {{where}} GROUP BY dealer, table_name ORDER BY dealer, table_name"""


def selection(day: date | None = None, tables: Sequence[str] | None = None, pit: str | None = None,
              shift: str | None = None) -> tuple[str, list[Any]]:
    """The WHERE clause, and its parameters, that selects the rows of the archive's figures views (on
    `gaming_day`, `table_name`, `pit`, `shift`) of gaming day `day`, the tables `tables`, pit `pit` and shift
    `shift`, each only when given: what the figures, the alerts, the pits' counts and the dealers' figures
    are read through.

    >>> selection(date(2026, 12, 4), ["uth-1"], shift="day")
    ('gaming_day = %s AND table_name = ANY(%s) AND shift = %s', [datetime.date(2026, 12, 4), ['uth-1'], 'day'])
    >>> selection()
    ('true', [])
    """
    chosen = {"gaming_day = %s": day, "table_name = ANY(%s)": None if tables is None else list(tables),
              "pit = %s": pit, "shift = %s": shift}
    given = {test: value for test, value in chosen.items() if value is not None}
    return " AND ".join(given) or "true", list(given.values())


def shift_alerts(conn: Conn, where: str, params: list[Any]) -> list[ShiftAlerts]:
    """Per table, gaming day and shift `where` selects (on `table_name`, `gaming_day`, `shift`, `pit`), the
    alerts of the hands whose chips were read (a table without a chip reader: no row). Raises psycopg.Error."""
    out: list[ShiftAlerts] = []
    for row in conn.execute(_ALERTS.format(where=where), params).fetchall():
        table, day, shift, pit, hands, mispays, moved, foreign, differences, difference = row  # ALERTS' order
        out.append({"table": str(table), "day": day.isoformat(), "shift": shift, "pit": pit, "chip_hands": int(hands),
                    "mispays": int(mispays), "moved_chips": int(moved), "foreign_chips": int(foreign),
                    "tray_differences": int(differences), "tray_difference": int(difference)})
    return out


def table_alerts(rows: list[ShiftAlerts]) -> dict[str, dict[str, int]]:
    """Each table's alerts summed over its shifts' rows (`shift_alerts`).

    >>> row = {"table": "t", "day": "2026-12-01", "shift": "day", "pit": None, "chip_hands": 3, "mispays": 1,
    ...        "moved_chips": 0, "foreign_chips": 2, "tray_differences": 1, "tray_difference": -500}
    >>> table_alerts([row, row])["t"]["tray_difference"]
    -1000
    """
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        sums = out.setdefault(row["table"], dict.fromkeys(("chip_hands", *ALERTS, "tray_difference"), 0))
        counts = (row["chip_hands"], row["mispays"], row["moved_chips"], row["foreign_chips"], row["tray_differences"],
                  row["tray_difference"])
        for key, count in zip(sums, counts):
            sums[key] += count
    return out


def dealer_figures(conn: Conn, day: date | None = None, tables: list[str] | None = None,
                   pit: str | None = None) -> list[DealerFigures]:
    """Each dealer's figures per table over the openings archived whose first sign-in fell on gaming day
    `day` (all when None), at `tables` and in `pit` when given, by dealer and table (`started`: ISO 8601).
    Raises psycopg.Error."""
    where, params = selection(day, tables, pit)
    out: list[DealerFigures] = []
    for row in conn.execute(_DEALERS.format(where=where), params).fetchall():
        dealer, table, in_pit, started, on_table, *sums = row
        turns, time_s, hands, seats, voids, corrections, faults, mispays, moved, foreign, differences = sums  # DEALER_SUMS
        time_s = round(float(time_s), 3)
        hours = time_s / 3600
        out.append({"dealer": str(dealer), "table": str(table), "pit": in_pit,
                    "started": started.isoformat() if started is not None else None, "on_table": bool(on_table),
                    "turns": int(turns), "time_s": time_s, "hands": int(hands), "voids": int(voids),
                    "corrections": int(corrections), "faults": int(faults), "mispays": int(mispays),
                    "moved_chips": int(moved), "foreign_chips": int(foreign), "tray_differences": int(differences),
                    "hands_per_hour": round(int(hands) / hours, 2) if hours > 0 else None,
                    "average_seats": round(int(seats) / int(hands), 2) if hands else None})
    return out
