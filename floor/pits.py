"""The pit's counts for the per-pit figures of `croupier stats`: each table's drop, fills, credits and count win added up under the pit it played in.

A table's counts for a gaming day go to the pit that archived its last hand of that day (a table
moved from one pit's list to another's during the day is counted once, in the later pit). The
pit's hold % is its tables' count win over their drop (null where the drop is 0; the count win null
until every counted table of the pit has both inventories). Definitions: docs/floor.md, "Figures".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg

from floor.reports import TableCounts

LAST_PIT = """SELECT DISTINCT ON (table_name, gaming_day) table_name, gaming_day, pit FROM hand_figures
         WHERE pit IS NOT NULL ORDER BY table_name, gaming_day, closed_at DESC, hand DESC"""
"""Each table's pit for each gaming day: the pit that archived its last hand of that day (its counts are that pit's)."""

_PIT_COUNTS = f"""SELECT pit, sum(drop_total), sum(fills), sum(credits),
       CASE WHEN bool_and(win IS NOT NULL) THEN sum(win) END
  FROM table_day_counts
  JOIN ({LAST_PIT}) last_pit
 USING (table_name, gaming_day)
 WHERE {{where}} GROUP BY pit ORDER BY pit"""


def pit_day_counts(conn: psycopg.Connection[tuple[Any, ...]], where: str, params: list[Any]) -> dict[str, TableCounts]:
    """Pit -> its tables' counts over the days and tables `where` selects (on `gaming_day`, `table_name`
    and `pit`): drop, fills, credits, the count win and hold %. Raises psycopg.Error."""
    out: dict[str, TableCounts] = {}
    for pit, drop, fills, credits, win in conn.execute(_PIT_COUNTS.format(where=where), params).fetchall():
        out[str(pit)] = {"drop": int(drop), "fills": int(fills), "credits": int(credits),
                         "opening": None, "closing": None,
                         "count_win": None if win is None else int(win),
                         "hold_pct": round(float(Decimal(100) * win / drop), 2) if win is not None and drop else None}
    return out
