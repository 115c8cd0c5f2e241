"""The floor's figures read from the archive: per table and per game, for a gaming day or all, and the pit's counts.

The figures come from the views of migrations 0002 and 0004 (`hand_figures`, `table_day_figures`,
`table_day_counts`; per pit `floor/pits.py`); this module only filters and sums them, and fills `bet_edges` (each bet's
house edge per archived profile as the ratings take it, `engine.rating_edges.bet_edges`: the profile's approved
figures, then a paytable certificate's when `croupier stats --certificates DIR` gives one, then for Three Card
Poker the engine's exact count: docs/math.md) before a report.
Definitions: docs/floor.md, "Figures".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import psycopg

from engine.paytables import parse_profile
from engine.ratings import CIRCLE_BETS, bet_edges
from floor.archive import ArchiveError, connect
from floor.pits import LAST_PIT, pit_day_counts
from floor.reports import (CountedTable, CountsShown, DealersReport, Figures, FiguresReport, GameFigures, PitTotals, Rates,
                           TableCounts, TableFigures)
from floor.series import NO_JIT
from floor.shift_counts import dealer_figures, selection, shift_alerts, table_alerts
from protocol.certificates import read_certificate

COUNT_KINDS = ("drop", "fill", "credit", "opening", "closing")
"""What the pit enters for a table's gaming day: drop, fill and credit add up; the latest opening and closing stand."""

FIGURES = ("hands", "voids", "spots", "handle", "house_win", "average_bet", "open_hours", "hands_per_hour",
           "win_per_hour", "theoretical", "win_minus_theoretical", "win_over_theoretical", "rake")
"""The figures of a table or a game, in the order of the CSV's columns (beside `handle_by_circle`)."""

COUNTS = tuple(CountsShown.__annotations__)  # drop, fills, credits, opening, closing, count_win, hold_pct
"""A table's counts and the win and hold they give (the CSV's last columns)."""

Conn = psycopg.Connection[tuple[Any, ...]]


CERTIFIED_CIRCLES: Mapping[str, Mapping[str, str | None]] = CIRCLE_BETS
"""Game -> bet circle -> the certificate's bet whose house edge it carries (None: 0, carried by the Ante's):
the table's ratings read the same table (`engine.ratings.CIRCLE_BETS`)."""


def certified_edges(directory: str | Path) -> dict[tuple[str, str], dict[str, Fraction]]:
    """(profile sha256, game) -> circle -> house edge, from every certificate of `directory` (a game the
    certificate has no sheet of is left out). Raises ArchiveError when the directory cannot be listed."""
    out: dict[tuple[str, str], dict[str, Fraction]] = {}
    if not Path(directory).is_dir():
        raise ArchiveError(f"certificates {directory}: not a directory")
    try:
        paths = sorted(Path(directory).glob("*.json"))
    except OSError as exc:
        raise ArchiveError(f"certificates {directory}: {exc.strerror or exc}") from exc
    for path in paths:
        cert = read_certificate(path)
        if cert is None:
            continue
        for game, circles in CERTIFIED_CIRCLES.items():
            bets = (cert.get("sheets", {}).get(game) or {}).get("bets") or {}
            if not bets:
                continue
            edges: dict[str, Fraction] = {}
            for circle, bet in circles.items():
                if bet is None:
                    edges[circle] = Fraction(0)
                elif bet in bets:
                    figure = bets[bet]
                    edges[circle] = Fraction(str(figure.get("house_edge_exact", figure["house_edge"])))
            out[str(cert["profile"].get("sha256")), game] = edges
    return out


def refresh_edges(conn: Conn, certified: Mapping[tuple[str, str], Mapping[str, Fraction]] | None = None) -> int:
    """Fill `bet_edges` for every archived UTH and 3CP profile not in it yet (and again for one a certificate
    names); return how many profiles were filled. Each circle's edge is the one a rating session takes
    (`engine.rating_edges.bet_edges`, the one place): the profile's approved figures (`[GAME.approved]`, as
    `croupier math approve` files them), then its certificate's (`certified`, `certified_edges`), then for 3CP
    the engine's exact count; a circle with none gets no row (its hands' theoretical win is null, never a flat
    guess). A profile whose text was not archived, is not the text of its sha256, or does not parse, gets no
    edges but a certificate's."""
    added, certified = 0, certified or {}
    with conn.transaction():
        known = {(str(sha), str(game)) for sha, game in conn.execute("SELECT DISTINCT profile_sha256, game FROM bet_edges")}
        rows = conn.execute(
            "SELECT DISTINCT ON (profile_sha256, game) profile_sha256, game, record -> 'profile' ->> 'content' "
            "FROM hands WHERE game IN ('uth', '3cp') AND profile_sha256 IS NOT NULL "
            "AND record -> 'profile' ->> 'content' IS NOT NULL").fetchall()
        filled: dict[tuple[str, str], Mapping[str, Fraction]] = {}
        for sha, game, content in rows:
            key = (str(sha), str(game))
            if (key in known and key not in certified) or hashlib.sha256(str(content).encode("utf-8")).hexdigest() != sha:
                continue
            try:
                profile = parse_profile(str(content), "archived profile")
            except (ValueError, TypeError):
                continue
            carries = CIRCLE_BETS[key[1]]  # the certificate's figures by bet, as the ratings read them
            bets = {bet: edge for circle, edge in certified.get(key, {}).items() if (bet := carries.get(circle))}
            filled[key] = bet_edges(key[1], profile, key[0], bets).edges
        for key, edges in certified.items():  # a certified profile whose text is not archived: its certificate's
            filled.setdefault(key, edges)
        for (sha, game), edges in filled.items():
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO bet_edges VALUES (%s, %s, %s, %s::numeric, %s) ON CONFLICT "
                                "(profile_sha256, game, circle) DO UPDATE SET edge = EXCLUDED.edge, exact = EXCLUDED.exact",
                                [(sha, game, circle, _numeric(edge), str(edge)) for circle, edge in edges.items()])
            added += 1
    return added


def _numeric(edge: Fraction) -> str:
    """A Fraction as a decimal text with 30 places (numeric's exactness is plenty for a handle x edge)."""
    with localcontext(prec=60):
        return str((Decimal(edge.numerator) / Decimal(edge.denominator)).quantize(Decimal(10) ** -30))


def enter_count(dsn: str, table: str, day: date, kind: str, amount: int) -> None:
    """Enter one count for a table's gaming day. Raises ArchiveError."""
    if kind not in COUNT_KINDS:
        raise ArchiveError(f"a count is one of {', '.join(COUNT_KINDS)}, not {kind!r}")
    try:
        with connect(dsn) as conn:
            conn.execute("INSERT INTO table_counts (table_name, gaming_day, kind, amount) VALUES (%s, %s, %s, %s)",
                         (table, day, kind, amount))
    except psycopg.Error as exc:
        raise _error(exc) from exc


def set_gaming_day(dsn: str, starts: str | None, time_zone: str | None,
                   idle_minutes: int | None = None) -> dict[str, Any]:
    """Set when the gaming day starts (HH:MM local), in which time zone, and after how many minutes with
    no hand a table counts as closed; return all three as set. Raises ArchiveError."""
    try:
        with connect(dsn) as conn:
            if time_zone is not None:
                if conn.execute("SELECT 1 FROM pg_timezone_names WHERE name = %s", (time_zone,)).fetchone() is None:
                    raise ArchiveError(f"{time_zone!r} is not a time zone PostgreSQL knows (e.g. Europe/Paris, UTC)")
                conn.execute("UPDATE gaming_day SET time_zone = %s", (time_zone,))
            if starts is not None:
                conn.execute("UPDATE gaming_day SET starts = %s::interval", (starts,))
            if idle_minutes is not None:
                conn.execute("UPDATE gaming_day SET idle = make_interval(mins => %s)", (idle_minutes,))
            row = conn.execute("SELECT to_char(starts, 'HH24:MI'), time_zone, extract(epoch FROM idle) / 60 "
                               "FROM gaming_day").fetchone()
    except psycopg.Error as exc:
        raise _error(exc) from exc
    assert row is not None
    return {"starts": str(row[0]), "time_zone": str(row[1]), "idle_minutes": int(row[2])}


def _error(exc: psycopg.Error) -> ArchiveError:
    if isinstance(exc, psycopg.errors.UndefinedTable):
        return ArchiveError(f"the archive's schema is not up to date ({exc}): run `croupier pit migrate --db DSN`"
                            .replace("\n", " "))
    return ArchiveError(f"the archive's server: {exc}".strip())


_GROUPED = """SELECT {keys}, bool_or(poker), sum(hands), sum(voids), sum(spots), sum(handle), sum(house_win),
       sum(open_hours), sum(rake) FILTER (WHERE poker),
       CASE WHEN bool_and(theoretical IS NOT NULL) THEN sum(theoretical) END
  FROM {view} WHERE {where} GROUP BY {keys} ORDER BY {keys}"""

_CIRCLES = """SELECT {keys}, c.key, sum(c.value::bigint) FROM hand_figures, jsonb_each_text(handle) c
 WHERE {where} GROUP BY {keys}, c.key ORDER BY {keys}, c.key"""

_COUNTS = """SELECT table_name, sum(drop_total), sum(fills), sum(credits),
       CASE WHEN count(*) = 1 THEN max(opening) END, CASE WHEN count(*) = 1 THEN max(closing) END,
       CASE WHEN bool_and(win IS NOT NULL) THEN sum(win) END
  FROM table_day_counts WHERE {where} GROUP BY table_name ORDER BY table_name"""


def _num(value: Any, places: int = 2) -> float | None:
    return None if value is None else round(float(value), places)


def _rates(row: Mapping[str, Any]) -> Rates:
    """The figures derived from the sums: average bet, the rates per open hour, win against theoretical."""
    hours, win, theo = row["open_hours"], row["house_win"], row["theoretical"]
    per_hour = hours is not None and hours > 0
    return {
        "average_bet": _num(Decimal(row["handle"]) / row["spots"]) if row["spots"] else None,
        "open_hours": _num(hours, 4),
        "hands_per_hour": _num(row["hands"] / hours) if per_hour else None,
        "win_per_hour": _num(win / hours) if per_hour else None,
        "theoretical": _num(theo),
        "win_minus_theoretical": _num(win - theo) if theo is not None else None,
        "win_over_theoretical": _num(win / theo, 4) if theo else None,
    }


def _grouped(conn: Conn, keys: tuple[str, ...], where: str, params: list[Any],
             view: str = "table_day_figures") -> list[tuple[tuple[Any, ...], Figures]]:
    """Figures grouped by `keys` (table_name and game, game, or pit) over the days and tables selected,
    from `view` (`table_day_figures`, or `table_shift_figures` for one shift): each group's key values and its
    figures."""
    cols = ", ".join(keys)
    circles: dict[tuple[Any, ...], dict[str, int]] = {}
    for row in conn.execute(_CIRCLES.format(keys=cols, where=where), params).fetchall():
        circles.setdefault(tuple(row[:len(keys)]), {})[str(row[-2])] = int(row[-1])
    out = []
    for row in conn.execute(_GROUPED.format(keys=cols, where=where, view=view), params).fetchall():
        n = len(keys)
        poker, hands, voids, spots, handle, win, hours, rake, theo = row[n:]
        sums: dict[str, Any] = {"hands": int(hands), "voids": int(voids), "spots": int(spots),
                                "handle": int(handle), "house_win": int(win),
                                "open_hours": Decimal(hours) if hours is not None else None,
                                "theoretical": theo}
        figures: Figures = {"poker": bool(poker), "hands": sums["hands"], "voids": sums["voids"],
                            "spots": sums["spots"], "handle": sums["handle"],
                            "handle_by_circle": circles.get(tuple(row[:n]), {}), "house_win": sums["house_win"],
                            **_rates(sums), "rake": int(rake) if rake is not None else None}
        out.append((tuple(row[:n]), figures))
    return out


_NO_COUNTS: CountsShown = {"drop": None, "fills": None, "credits": None, "opening": None, "closing": None,
                           "count_win": None, "hold_pct": None}
"""The counts of a line where none was entered (and of every line for one shift)."""


def _shown(counts: TableCounts | None) -> CountsShown:
    return _NO_COUNTS if counts is None else {"drop": counts["drop"], "fills": counts["fills"],
                                              "credits": counts["credits"], "opening": counts["opening"],
                                              "closing": counts["closing"], "count_win": counts["count_win"],
                                              "hold_pct": counts["hold_pct"]}


def _counts(conn: Conn, where: str, params: list[Any]) -> dict[str, TableCounts]:
    """Each table's counts over the days selected; opening and closing only for a single day."""
    out: dict[str, TableCounts] = {}
    for table, drop, fills, credits, opening, closing, win in conn.execute(
            _COUNTS.format(where=where), params).fetchall():
        out[str(table)] = {"drop": int(drop), "fills": int(fills), "credits": int(credits),
                           "opening": None if opening is None else int(opening),
                           "closing": None if closing is None else int(closing),
                           "count_win": None if win is None else int(win),
                           "hold_pct": _num(Decimal(100) * win / drop) if win is not None and drop else None}
    return out


def figures(dsn: str, day: date | None = None, table: str | None = None, shift: str | None = None,
            certificates: str | None = None, pit: str | None = None) -> FiguresReport:
    """The figures of the archive, for one gaming day, table, shift and pit or all: `{"hands": the archived
    closed hands selected, "day", "table", "shift", "pit", "tables": [per table and game, with its counts:
    a day's, so none for one shift], "games": [per game], "pits": [per pit, with its tables' counts]}`;
    the theoretical win by the figures of the certificates in `certificates` where they certify a
    profile. Raises ArchiveError."""
    certified = certified_edges(certificates) if certificates else None
    tables_selected = [table] if table is not None else None
    day_clause, day_params = selection(day, tables_selected)  # the tables' counts: by day and table
    if pit is not None:
        # a table's counts of a day are the pit's where it played its last hand that day (floor/pits.py LAST_PIT)
        day_clause += f" AND (table_name, gaming_day) IN (SELECT table_name, gaming_day FROM ({LAST_PIT}) p WHERE pit = %s)"
        day_params.append(pit)
    pit_clause, pit_params = selection(day, tables_selected, pit)  # the pits' counts: by day, table, pit
    clause, params = selection(day, tables_selected, pit, shift)
    view = "table_day_figures" if shift is None else "table_shift_figures"
    try:
        with connect(dsn) as conn:
            refresh_edges(conn, certified)
            with conn.transaction():
                conn.execute(NO_JIT)
                if shift is not None and conn.execute("SELECT 1 FROM shifts WHERE name = %s",
                                                      (shift,)).fetchone() is None:
                    known = [str(r[0]) for r in conn.execute("SELECT name FROM shifts ORDER BY starts")]
                    raise ArchiveError(f"no shift {shift!r} (the shifts: {', '.join(known)})")
                hands = conn.execute(f"SELECT count(*) FROM hand_figures WHERE {clause}", params).fetchone()
                by_table = _grouped(conn, ("table_name", "game"), clause, params, view)
                by_game = _grouped(conn, ("game",), clause, params, view)
                by_pit = _grouped(conn, ("pit",), clause + " AND pit IS NOT NULL", params, view)
                alerts = shift_alerts(conn, clause, params)
                counts = _counts(conn, day_clause, day_params) if shift is None else {}
                pit_counts = pit_day_counts(conn, pit_clause, pit_params) if shift is None else {}
    except psycopg.Error as exc:
        raise _error(exc) from exc
    per_table = table_alerts(alerts)
    played: list[TableFigures] = [  # the alerts a smart table's: None without a chip reader
        {"table": name, "game": game, **f, **_shown(counts.get(name)), "alerts": per_table.get(name)}
        for (name, game), f in by_table]
    tables: list[TableFigures | CountedTable] = list(played)
    for name in sorted(set(counts) - {t["table"] for t in played}):  # counted, but no hand archived for the days
        tables.append({"table": name, "game": None, "hands": None, "voids": None, "spots": None, "handle": None,
                       "house_win": None, "average_bet": None, "open_hours": None, "hands_per_hour": None,
                       "win_per_hour": None, "theoretical": None, "win_minus_theoretical": None,
                       "win_over_theoretical": None, "rake": None, "poker": None, "handle_by_circle": {},
                       **_shown(counts[name])})
    games: list[GameFigures] = [{"game": game, **f} for (game,), f in by_game]
    pits: list[PitTotals] = [{"pit": name, **f, **_shown(pit_counts.get(name))} for (name,), f in by_pit]
    return {"hands": int(hands[0]) if hands else 0, "day": day.isoformat() if day else None, "table": table,
            "shift": shift, "pit": pit, "tables": tables, "games": games, "pits": pits, "alerts": alerts}


def dealers(dsn: str, day: date | None = None, table: str | None = None, pit: str | None = None) -> DealersReport:
    """Each dealer's figures per table (`floor.shift_counts.dealer_figures`) for a gaming day, table and pit
    or all. Raises ArchiveError."""
    try:
        with connect(dsn) as conn:
            conn.read_only = True
            rows = dealer_figures(conn, day, [table] if table is not None else None, pit)
    except psycopg.Error as exc:
        raise _error(exc) from exc
    return {"day": day.isoformat() if day else None, "table": table, "pit": pit, "dealers": rows}
