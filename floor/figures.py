"""The pit's figures read from the archive: per table its hands per hour and the house's win of the gaming day, the pit's and each dealer's at its tables (docs/floor.md, "Figures"); the rated players at each table (docs/ratings.md, "The pit's rated players")."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

import psycopg

from floor.archive import ArchiveError, connect
from engine.ratings import SessionReport, mask_card
from floor.reports import ArchiveFailure, ClosedLine, DayLine, PitFigures, PitRated, RatedLine
from floor.series import day_series
from floor.shift_counts import dealer_figures

_SETTING = """SELECT ((now() AT TIME ZONE time_zone) - starts)::date, to_char(starts, 'HH24:MI'),
       now() AT TIME ZONE time_zone FROM gaming_day"""


def line(hands: list[int], win: list[int], open_hours: list[float]) -> DayLine:
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


def read_figures(dsn: str, tables: list[str], day: date | None = None) -> PitFigures:
    """The `figures` message of the tables on the pit, from the archive (today's gaming day when `day` is
    None). Raises ArchiveError."""
    try:
        with connect(dsn) as conn:
            conn.read_only = True
            setting = conn.execute(_SETTING).fetchone()
            if setting is None:
                raise ArchiveError("the archive has no gaming day setting: run `croupier pit migrate --db DSN`")
            today, starts, now = setting
            series = day_series(conn, day if day is not None else today, tables=tables)
            dealers = dealer_figures(conn, day if day is not None else today, tables)
    except psycopg.errors.UndefinedTable as exc:
        raise ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                           .replace("\n", " ")) from exc
    except psycopg.Error as exc:
        raise ArchiveError(f"the archive's server: {exc}".strip().replace("\n", " ")) from exc
    hours = [datetime.fromisoformat(hour) for hour in series["hours"]]
    elapsed = (now - hours[0]).total_seconds() / 3600 if hours else 0.0  # local clock hours, as the series' are
    n = len(hours)
    per_table: dict[str, DayLine] = {}
    pit_hands, pit_win, pit_open = [0] * n, [0] * n, [0.0] * n
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
            "tables": {name: per_table[name] for name in tables}, "pit": pit, "dealers": dealers}


def pit_figures(dsn: str, tables: list[str]) -> PitFigures | ArchiveFailure:
    """The pit screens' `figures` message of today's gaming day; a failure of the archive's server as
    `{"source": "archive", "error": "..."}` (the page says so; the display tries again at its next reading)."""
    try:
        return read_figures(dsn, tables)
    except ArchiveError as exc:
        return {"source": "archive", "error": str(exc)}


def rated_line(report: SessionReport) -> RatedLine:
    """The pit's line for one open session (its `croupier ratings --json` object): what the pit sees of it
    (`RatedLine`), the card masked (`engine.ratings.mask_card`), never in full; a key an older archive's
    report lacks is null.

    >>> line = rated_line({"player": "600012345678", "seats": [{"since": 1.0, "seat": 2}], "start": 1.0,
    ...     "played_s": 60.0, "hands": 1, "average_bet": 2000, "theo_cents": 44, "theo_complete": True, "win": -500,
    ...     "on_break": False, "breaks": 0, "bets_from": {"taps": 1}})
    >>> line["player"], line["seat"]
    ('••••5678', 2)
    """
    seats = report.get("seats")
    return {"player": mask_card(str(report["player"])), "start": report.get("start"),
            "played_s": report.get("played_s"), "hands": report.get("hands"), "average_bet": report.get("average_bet"),
            "theo_cents": report.get("theo_cents"), "theo_complete": report.get("theo_complete"),
            "win": report.get("win"), "on_break": report.get("on_break"), "breaks": report.get("breaks"),
            "bets_from": report.get("bets_from"), "declined": report.get("declined"),
            "seat": seats[-1].get("seat") if seats else None, "past_day": None}


def read_rated(dsn: str, tables: list[str], at: float | None = None) -> PitRated:
    """The `rated` message of the tables on the pit: each one's open rating sessions in the archive, by seat
    (`{"source": "archive", "tables": {name: [line, ...]}}`, a table with none listed empty), the gaming day the one
    holding `at` (seconds since the epoch; None: the server's now). Raises ArchiveError."""
    now = "coalesce(to_timestamp(%(at)s::float8), now())"
    try:
        with connect(dsn) as conn:
            conn.read_only = True
            rows = conn.execute(  # each with its gaming day when a day gone (the table never closed since)
                "SELECT s.table_name, s.report, CASE WHEN ((s.started_at AT TIME ZONE g.time_zone) - g.starts)::date < "
                f"(({now} AT TIME ZONE g.time_zone) - g.starts)::date THEN ((s.started_at AT TIME ZONE g.time_zone) - "
                "g.starts)::date END FROM rating_sessions s CROSS JOIN gaming_day g WHERE s.ended_at IS NULL "
                "AND s.table_name = ANY(%(tables)s) ORDER BY s.table_name, s.start",
                {"tables": tables, "at": at}).fetchall()
            ended = conn.execute(  # the gaming day's, by the archive's `gaming_day` (the table's own rule: its start)
                "SELECT s.table_name, s.report FROM rating_sessions s CROSS JOIN gaming_day g WHERE s.ended_at IS NOT "
                "NULL AND s.table_name = ANY(%(tables)s) AND ((s.started_at AT TIME ZONE g.time_zone) - g.starts)::date "
                f"= (({now} AT TIME ZONE g.time_zone) - g.starts)::date ORDER BY s.table_name, s.ended_at DESC",
                {"tables": tables, "at": at}).fetchall()
    except psycopg.errors.UndefinedTable as exc:
        raise ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                           .replace("\n", " ")) from exc
    except psycopg.Error as exc:
        raise ArchiveError(f"the archive's server: {exc}".strip().replace("\n", " ")) from exc
    out: dict[str, list[RatedLine]] = {name: [] for name in tables}
    for table, report, past_day in rows:
        line = rated_line(report)  # the archive's JSON: a SessionReport as written
        line["past_day"] = past_day.isoformat() if past_day is not None else None
        out[str(table)].append(line)
    for lines in out.values():
        lines.sort(key=lambda line: (line["seat"] is None, line["seat"] or 0))
    closed: dict[str, list[ClosedLine]] = {name: [] for name in tables}
    for table, report in ended:
        closed[str(table)].append(closed_line(report))  # the last ended first
    return {"source": "archive", "tables": out, "closed": closed}


def closed_line(report: SessionReport) -> ClosedLine:
    """The rating dialog's line for a closed session of the gaming day: its seat, card masked, start (what names it
    to the table), end, hands and the hands entered for it already.

    >>> closed_line({"player": "600012345678", "seats": [{"since": 1.0, "seat": 2}], "start": 1.5, "end": 90.0,
    ...     "hands": 3, "entered": None})["player"]
    '••••5678'
    """
    seats, entered = report.get("seats"), report.get("entered")
    return {"player": mask_card(str(report["player"])), "seat": seats[-1].get("seat") if seats else None,
            "start": report["start"], "end": report.get("end"), "hands": report.get("hands"),
            "entered_hands": entered.get("hands") if isinstance(entered, Mapping) else None}


def pit_rated(dsn: str, tables: list[str]) -> PitRated | ArchiveFailure:
    """The pit screens' `rated` message; a failure of the archive's server as `{"source": "archive", "error": "..."}`."""
    try:
        return read_rated(dsn, tables)
    except ArchiveError as exc:
        return {"source": "archive", "error": str(exc)}
