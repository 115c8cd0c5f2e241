"""A rating session of a gaming day gone adjusted by the pit in the archive, the record of truth for it: signed off by a supervisor, audited, one step at a time per session.

The table holds its gaming day only (`refusal.session_another_day`); a session of a day before it is adjusted
where it is kept, in the archive (`rating_sessions`), by the floor's web process (`floor/web/rating_past.py`),
which checks the supervisor's PIN against its users file first. `adjust(conn, ...)` takes the session's row
under a row lock (`SELECT ... FOR UPDATE`), checks the page saw its latest version (the number of its
adjustments: two pit screens adjusting one session, the second is refused `stale`), applies the very
adjustment the table applies (`engine.ratings.Ratings.adjust_stored`: the unrated play at the Ante's edge of the
paytables the session played on, a start), and writes the row and the audit line (`rating_steps`: who sent it,
who signed it off, when, why, the report before and after) in one transaction; the archiver publishes an
`updated` to the casino system for each (`floor/rating_memory.py`). A session is refused in words when it is of
the current gaming day (the table's), still open or not yet final in the archive (its table not closed since),
unknown, or purged by the retention (`[pit] player_days`, `rating_purges`). The same request id applied once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import psycopg
from psycopg.types.json import Jsonb

from engine.ratings import Ratings, SessionReport, mask_card
from floor.ratings import first_hand_edges, upsert_sessions
from protocol.signed import SignedOff

Conn = psycopg.Connection[tuple[Any, ...]]

_DAY = "((%s AT TIME ZONE g.time_zone) - g.starts)::date"


class PastRefused(Exception):
    """A step refused: `code`, the words' key `key` (`pages/lang`, `refusal.KEY`) and its arguments, and the
    English sentence."""

    def __init__(self, code: str, error: str, **args: Any) -> None:
        super().__init__(error)
        self.code, self.error, self.args_ = code, error, args


@dataclass(frozen=True, slots=True)
class PastStep:
    """The page's step: the session (table, exact start, the seat it ended at, the version the page saw), what it
    enters (the unrated play's hands at an average Ante in the table's smallest unit; a start) and why."""

    table: str
    session: float
    seat: int
    version: int
    hands: int | None = None
    average_bet: int | None = None
    start: float | None = None
    reason: str | None = None


def day_sessions(conn: Conn, table: str, day: str) -> list[dict[str, Any]]:
    """The closed sessions of `table` started on gaming day `day` (YYYY-MM-DD, the archive's `gaming_day`), the
    last ended first, for the pit's dialog: the card masked, the seat it ended at, start, end, hands, the
    hands entered and `version`. Raises psycopg's errors."""
    with conn.transaction():
        rows = conn.execute(
            "SELECT s.report, (" + _DAY % "now()" + ") = %s::date FROM rating_sessions s CROSS JOIN gaming_day g "
            "WHERE s.table_name = %s AND s.ended_at IS NOT NULL AND " + _DAY % "s.started_at" + " = %s::date "
            "ORDER BY s.ended_at DESC, s.player", (day, table, day)).fetchall()
    lines = []
    for report, today in rows:
        seats, entered = report.get("seats") or [], report.get("entered")
        lines.append({"player": mask_card(str(report["player"])), "seat": seats[-1]["seat"] if seats else None,
                      "start": report["start"], "end": report["end"], "hands": report["hands"],
                      "entered_hands": entered.get("hands") if isinstance(entered, Mapping) else None,
                      "version": len(report.get("adjustments") or []), "today": bool(today)})
    return lines


def adjust(conn: Conn, step: PastStep, sent_by: str, signed_off: str, request: str,
           now: float | None = None) -> SessionReport:
    """Apply `step` to its session's row (see the module's docstring), signed off by supervisor `signed_off`, sent
    by `sent_by` under request id `request` (sent again: the session as that step left it). Returns the session's
    new report. Raises PastRefused, psycopg's errors."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('rating-steps'))")  # the steps' ids in commit order
        done = conn.execute("SELECT s.report FROM rating_steps st JOIN rating_sessions s ON s.table_name = st.table_name "
                            "AND s.player = st.player AND s.start = st.start WHERE st.request = %s", (request,)).fetchone()
        if done is not None:
            return cast(SessionReport, dict(done[0]))
        row = _row(conn, step)
        player, report, pit = str(row[0]), cast(SessionReport, dict(row[1])), row[2]
        if len(report["adjustments"]) != step.version:
            raise PastRefused("stale", "that session was adjusted meanwhile (another pit screen?): nothing was "
                              "changed; choose it again to see it as it is now")
        ts = time.time() if now is None else now
        while any(a.get("at") == ts for a in report["adjustments"]):
            ts += 0.001  # an adjustment's time is its identity
        ratings = Ratings(step.table)
        first_hand_edges(conn, ratings, report, ts)
        body: dict[str, Any] = {"action": "adjust", "seat": step.seat, "session": step.session,
                                "signed_off": SignedOff(user=signed_off, caller_role="pit")}
        if step.hands is not None and step.average_bet is not None:
            body |= {"hands": step.hands, "average_bet": step.average_bet}
        if step.start is not None:
            body["start"] = step.start
        adjusted = ratings.adjust_stored(report, body, ts)
        if adjusted is None or len(adjusted["adjustments"]) == len(report["adjustments"]):
            raise PastRefused("nothing_entered", "enter the unrated play (hands and average bet) or a start")
        for entry in adjusted["adjustments"][len(report["adjustments"]):]:
            extra = cast(dict[str, Any], entry)
            extra["sent_by"], extra["via"] = sent_by, "archive"
            if step.reason:
                extra["reason"] = step.reason
        upsert_sessions(conn, [adjusted], pit)
        conn.execute("INSERT INTO rating_steps (table_name, player, start, ts, sent_by, signed_off, reason, before, "
                     "after, pit, request) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                     (step.table, player, report["start"], ts, sent_by, signed_off, step.reason, Jsonb(report),
                      Jsonb(adjusted), pit, request))
    return adjusted


def _row(conn: Conn, step: PastStep) -> tuple[Any, ...]:
    """The session's row (player, report, pit), locked, once checked it may be adjusted here. Raises PastRefused."""
    rows = conn.execute(
        "SELECT s.player, s.report, s.pit, " + _DAY % "s.started_at" + " >= " + _DAY % "now()" + ", "
        "(s.report->>'end')::float8 <= (SELECT coalesce(t.ts, extract(epoch FROM t.at)) FROM rating_marks m JOIN "
        "table_events t ON t.table_name = m.table_name AND t.event = m.event WHERE m.table_name = s.table_name) "
        "FROM rating_sessions s CROSS JOIN gaming_day g WHERE s.table_name = %s AND s.start = %s "
        "FOR UPDATE OF s", (step.table, step.session)).fetchall()
    rows = [r for r in rows if (r[1].get("seats") or [{}])[-1].get("seat") == step.seat]
    if not rows:
        purged = conn.execute("SELECT 1 FROM rating_purges WHERE table_name = %s AND start >= %s",
                              (step.table, step.session)).fetchone()
        if purged is not None:
            raise PastRefused("session_purged", "that rating session is no longer in the archive: the retention "
                              "setting ([pit] player_days) deleted it; nothing was changed")
        raise PastRefused("no_archived_session", "the archive holds no such rating session at that table and "
                          "seat; nothing was changed")
    player, report, pit, today, final = rows[0]
    if report.get("end") is None:
        raise PastRefused("session_open", "that rating session is still open: adjust it at the table")
    if today:
        raise PastRefused("session_today", "that rating session is of the current gaming day: adjust it at the "
                          "table (the dialog's sessions of today)")
    if not final:
        raise PastRefused("session_not_final", "the table has not been closed since that session: its journal "
                          "still holds it; adjust it at the table")
    return player, report, pit
