"""The archive's rating sessions and dealer shifts: a table's archived hands and its open, close, player and dealer events folded by `engine.ratings`, stored idempotently.

`rate(conn, table, pit, edges)` folds, in the journal's order (the events' ids, each hand at the event
that closed it: its `chain`), everything of `table` after its mark (`rating_marks`: the last close
folded, before which every session and dealer shift is closed and stored), and upserts every session
(`rating_sessions`, keyed (table, player, start)) and every dealer's figures of each opening of the
table (`dealer_shifts`, keyed (table, dealer, the event the opening was folded from)); the mark then
moves to the last close folded (never past an event whose hands before it are not all archived: a
hand's events can reach the archive before the hand, whose page was fetched first). The fold of a table's
current opening is kept between catch-ups (`Fold`, in the `Archive`): each catch-up reads only the events
and hands that came since the last, and writes only the sessions and shifts they changed; a fold from
nothing (the pit started again) gives the same rows. Folding the same rows twice gives the same rows: a catch-up replayed,
or the pit restarted, changes nothing. The sessions are the very objects `croupier ratings --state`
prints for the table's journal: the same fold (`engine.ratings.Ratings`), fed the archived lines
(`hand_record` turns a `croupier history --json` line back into what the fold reads of a hand).

The paytables' edges come from each hand line's profile text (its `[GAME.approved]` figures, or 3CP's
exact count): the archive reads no certificates, so a UTH profile without approved figures rates with
its theo incomplete, as a table without certificates does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

import psycopg
from psycopg.types.json import Jsonb

from engine.ratings import BetEdges, DealerReport, Ratings, SessionReport

Conn = psycopg.Connection[tuple[Any, ...]]


class RatedSpot(TypedDict):
    seat: int
    bets: dict[str, int]


class _Rated(TypedDict):
    hand: int
    status: str | None
    faults: list[Any]


class RatedHand(_Rated, total=False):
    """What `engine.ratings.Ratings.hand` reads of a closed hand: the keys of the journal's record
    (`protocol.records.HouseHandRecord`) it reads, with `poker` for a poker hand (counted for its dealer only).
    The keys not always there are written `total=False` (as `engine.ratings.SessionReport`'s)."""

    poker: bool
    game: str | None
    profile_sha256: str | None
    settlement: Mapping[str, Any] | None
    spots: list[RatedSpot]
    corrected: list[Any]
    chips: Mapping[str, Any]
    tray: Mapping[str, Any]


def hand_record(line: Mapping[str, Any]) -> RatedHand:
    """What `engine.ratings.Ratings.hand` reads of a closed hand, from its `croupier history --json` line.

    >>> hand_record({"hand": 4, "status": "settled", "round": {"game": "3cp", "spots": [
    ...     {"seat": 2, "bets": {"ante": 500}, "play": True}]}, "settlement": {"spots": []},
    ...     "profile": {"sha256": "ab"}})["spots"]
    [{'seat': 2, 'bets': {'ante': 500, 'play': 500}}]
    """
    if "round" not in line and line.get("game") is not None:  # poker: counted for its dealer only
        return {"hand": line["hand"], "status": line.get("status"), "poker": True, "faults": line.get("faults") or []}
    rnd: Mapping[str, Any] = line["round"] if isinstance(line.get("round"), Mapping) else {}
    profile: Mapping[str, Any] = line["profile"] if isinstance(line.get("profile"), Mapping) else {}
    record: RatedHand = {
        "hand": line["hand"], "status": line.get("status"), "game": rnd.get("game"),
        "profile_sha256": profile.get("sha256"), "settlement": line.get("settlement"),
        "spots": [{"seat": s["seat"], "bets": spot_bets(s)} for s in rnd.get("spots") or []],
        "faults": line.get("faults") or [], "corrected": line.get("corrected") or []}
    chips, tray = line.get("chips"), line.get("tray")  # a smart table's: its chip notes and tray flags count for its dealer
    if isinstance(chips, Mapping):
        record["chips"] = chips
    if isinstance(tray, Mapping):
        record["tray"] = tray
    return record


def spot_bets(spot: Mapping[str, Any]) -> dict[str, int]:
    """One spot's bets of a house hand's `round` by circle, the Play included once made (UTH's its
    multiple of the Ante, 3CP's the Ante), as the journal's record holds them.

    >>> spot_bets({"bets": {"ante": 100, "blind": 100}, "play": {"street": "flop", "multiple": 2}})
    {'ante': 100, 'blind': 100, 'play': 200}
    """
    bets = {circle: int(amount) for circle, amount in (spot.get("bets") or {}).items()}
    play = spot.get("play")
    if isinstance(play, Mapping):
        bets["play"] = bets.get("play", 0) + int(play.get("multiple", 1)) * bets.get("ante", 0)
    elif play is True:
        bets["play"] = bets.get("play", 0) + bets.get("ante", 0)
    return bets


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, timezone.utc)


Entry = tuple[int, str, Mapping[str, Any], float, int]
"""`(event id, kind, body, ts, hand)`: an event of a table's, or a closed hand (kind `hand`, its line as body)."""


def _entries(conn: Conn, table: str, after: int, last_hand: int) -> Iterator[Entry]:
    """`(event id, kind, body, ts, hand)` of the table after event `after` in the journal's order: its events
    (`hand` the hand being prepared), and each hand numbered above `last_hand` (kind `hand`, its line as body,
    `hand` its number) at the event that closed it. A hand line without its chain (none from today's tables)
    cannot be placed and is left out."""
    rows: list[Entry] = []
    for event, kind, body, ts, hand in conn.execute(
            "SELECT event, kind, NULL::jsonb, coalesce(ts, extract(epoch FROM at)::float8), hand FROM table_events "
            "WHERE table_name = %s AND event > %s UNION ALL "
            "SELECT event, kind, body, ts, hand FROM rating_events WHERE table_name = %s AND event > %s",
            (table, after, table, after)):
        rows.append((int(event), str(kind), body or {}, float(ts), int(hand or 0)))
    for (line,) in conn.execute("SELECT record FROM hands WHERE table_name = %s AND hand > %s",
                                (table, last_hand)):
        chain = line.get("chain") if isinstance(line, Mapping) else None
        if not isinstance(chain, Mapping) or not isinstance(chain.get("event"), int) or chain["event"] <= after:
            continue
        closed = line.get("closed")
        ts = datetime.fromisoformat(closed).timestamp() if isinstance(closed, str) else 0.0
        rows.append((int(chain["event"]), "hand", line, ts, int(line["hand"])))
    rows.sort(key=lambda r: r[0])
    return iter(rows)


@dataclass(slots=True)
class Fold:
    """A table's fold kept between catch-ups (by `Archive`): the sessions of its current opening as folded up
    to event `event` and hand `hand`, from the mark `since` (`rating_marks`: event, and `mark_hand` its hand),
    and what was last stored of each, so that the next catch-up reads and writes only what came since."""

    ratings: Ratings
    since: int
    mark_hand: int
    event: int
    hand: int
    stored_sessions: dict[tuple[str, float], SessionReport] = field(default_factory=dict)  # by (player, start)
    stored_dealers: dict[str, DealerReport] = field(default_factory=dict)  # by dealer
    read: int = 0  # the entries read from the archive by this fold (its catch-ups')


def rate(conn: Conn, table: str, pit: str | None, edges: dict[str, BetEdges],
         folds: dict[str, Fold] | None = None) -> list[SessionReport]:
    """Fold `table`'s archive after its mark into `rating_sessions` and `dealer_shifts` in one transaction
    on `conn`; returns the sessions written (their reports) that changed, in the order they ended, the open
    ones last. `edges` (game:sha256 -> edges) is kept between calls (a profile's edges are worked out once);
    `folds` too (table -> its `Fold`): a fold kept there, from the mark the archive holds, goes on from what it
    folded last instead of from the mark; it is put back only once the transaction is committed. A fold never
    passes an event after a hand not archived yet (the catch-up fetches a table's hands, then its events: a
    hand closed in between reaches the archive after the events that follow it): it goes on from there next
    time. Raises psycopg's errors."""
    kept = folds.pop(table, None) if folds is not None else None
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('rating:' || %s))", (table,))
        held = conn.execute("SELECT event, hand FROM rating_marks WHERE table_name = %s", (table,)).fetchone()
        mark, mark_hand = (int(held[0]), int(held[1])) if held else (0, 0)
        fold = kept if kept is not None and (kept.since, kept.mark_hand) == (mark, mark_hand) else \
            Fold(_fresh(table, edges), mark, mark_hand, mark, mark_hand - 1)
        written: list[SessionReport] = []
        top = conn.execute("SELECT max(hand) FROM hands WHERE table_name = %s", (table,)).fetchone()
        archived = int(top[0]) if top and top[0] is not None else 0
        for event, kind, body, ts, hand in _entries(conn, table, fold.event, fold.hand):
            if kind != "hand" and hand - 1 > archived:
                break  # a hand closed before this event is not archived yet (its events came first): folded next time
            fold.read += 1
            fold.event = event
            if kind == "hand":
                _profile(fold.ratings, body, ts)
                fold.ratings.hand(hand_record(body), ts)
                fold.hand = hand
                continue
            fold.ratings.event(kind, body, ts)
            if kind == "rating":
                written += _adjust_stored(conn, fold, body, ts, pit)
            if kind == "close":  # every session and shift of this opening is final: stored, the mark moved on
                written += _store(conn, fold, pit)
                conn.execute("INSERT INTO rating_marks VALUES (%s, %s, %s) ON CONFLICT (table_name) "
                             "DO UPDATE SET event = excluded.event, hand = excluded.hand",
                             (table, event, hand or fold.mark_hand))
                fold = Fold(_fresh(table, edges), event, hand or fold.mark_hand, event, fold.hand, read=fold.read)
        written += _store(conn, fold, pit)
    if folds is not None:
        folds[table] = fold
    return written


def _adjust_stored(conn: Conn, fold: Fold, body: Mapping[str, Any], ts: float, pit: str | None) -> list[SessionReport]:
    """A `rating` `adjust` of a session closed before the fold's mark (ended at or before a close folded already:
    the table takes any session of its gaming day) applied to its stored row, found by the card and start its
    `was` names (`engine.ratings.Ratings.adjust_stored`: a step the row carries already changes nothing). The
    paytables it played on are made known to the fold from its first hand's line. Returns the session rewritten."""
    was, seat = body.get("was"), body.get("seat")
    if body.get("action") != "adjust" or not isinstance(was, Mapping) or not isinstance(seat, int) \
            or "session" not in body or fold.ratings.closed_session(seat, float(body["session"]), was.get("card")):
        return []
    row = conn.execute("SELECT report FROM rating_sessions WHERE table_name = %s AND player = %s AND start = %s",
                       (fold.ratings.table, was.get("card"), was.get("session"))).fetchone()
    if row is None:  # not archived (deleted by the retention, or never folded): nothing to adjust
        return []
    report = cast(SessionReport, dict(row[0]))
    first_hand_edges(conn, fold.ratings, report, ts)
    adjusted = fold.ratings.adjust_stored(report, body, ts)
    if adjusted is None:
        return []
    upsert_sessions(conn, [adjusted], pit)
    return [adjusted]


def first_hand_edges(conn: Conn, ratings: Ratings, report: SessionReport, ts: float) -> None:
    """The paytables a stored session played on made known to `ratings` from its first hand's line (for adjusting
    it: `Ratings.adjust_stored`), for that step only: the table's paytables as last opened stay the fold's."""
    if report["hand_numbers"]:
        line = conn.execute("SELECT record FROM hands WHERE table_name = %s AND hand = %s",
                            (ratings.table, report["hand_numbers"][0]["hand"])).fetchone()
        if line is not None:
            last, ratings.last_edges = ratings.last_edges, None
            _profile(ratings, line[0], ts)
            ratings.last_edges = last


def _fresh(table: str, edges: dict[str, BetEdges]) -> Ratings:
    ratings = Ratings(table)
    ratings.edges = edges  # shared: each profile's edges worked out once
    return ratings


def _profile(ratings: Ratings, line: Mapping[str, Any], ts: float) -> None:
    """The hand's paytables made known to the fold (its line carries their text) before it is folded."""
    rnd, profile = line.get("round"), line.get("profile")
    if isinstance(rnd, Mapping) and isinstance(profile, Mapping) and profile.get("content"):
        if f"{rnd.get('game')}:{profile.get('sha256')}" not in ratings.edges:
            ratings.event("open", {"game": rnd.get("game"), "profile": profile}, ts)


def _store(conn: Conn, fold: Fold, pit: str | None) -> list[SessionReport]:
    """Upsert the fold's sessions and dealers' figures (one opening of the table's) that changed since the fold
    last stored them. Returns those sessions."""
    ratings, since = fold.ratings, fold.since
    sessions = [s for s in ratings.reports() if fold.stored_sessions.get((s["player"], s["start"])) != s]
    dealers = [d for d in ratings.dealer_reports() if fold.stored_dealers.get(d["dealer"]) != d]
    fold.stored_sessions.update({(s["player"], s["start"]): s for s in sessions})
    fold.stored_dealers.update({d["dealer"]: d for d in dealers})
    upsert_sessions(conn, sessions, pit)
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO dealer_shifts (table_name, dealer, from_event, started_at, report, pit) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_name, dealer, from_event) DO UPDATE SET "
            "started_at = excluded.started_at, report = excluded.report, pit = excluded.pit, rated_at = now()",
            [(ratings.table, d["dealer"], since, _when(d["first_in"]) if d["first_in"] is not None else None,
              Jsonb(d), pit) for d in dealers])
    return sessions


def upsert_sessions(conn: Conn, sessions: list[SessionReport], pit: str | None) -> None:
    """Write rating sessions (their reports) to `rating_sessions`, each replacing its row (table, player, start)
    (in the caller's transaction). Raises psycopg's errors."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO rating_sessions (table_name, player, start, started_at, ended_at, hands, bets_total, win, "
            "theo, theo_cents, profile_sha256, report, pit) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (table_name, player, start) DO UPDATE SET ended_at = excluded.ended_at, "
            "hands = excluded.hands, bets_total = excluded.bets_total, win = excluded.win, theo = excluded.theo, "
            "theo_cents = excluded.theo_cents, profile_sha256 = excluded.profile_sha256, report = excluded.report, "
            "pit = excluded.pit, rated_at = now()",
            [(s["table"], s["player"], s["start"], _when(s["start"]), _when(s["end"]) if s["end"] else None,
              s["hands"], s["bets_total"], s["win"], s["theo"], s["theo_cents"], s["profile_sha256"], Jsonb(s), pit)
             for s in sessions])


def sessions(conn: Conn, day: str | None = None, player: str | None = None,
             table: str | None = None) -> list[SessionReport]:
    """The archived sessions (their `croupier ratings --json` objects) across tables, by start: those
    started on gaming day `day` (YYYY-MM-DD, the archive's `gaming_day` settings), of card `player`,
    at `table`, as given. Raises psycopg's errors."""
    with conn.transaction():
        rows = conn.execute(
            "SELECT s.report FROM rating_sessions s CROSS JOIN gaming_day g "
            "WHERE (%(day)s::date IS NULL OR ((s.started_at AT TIME ZONE g.time_zone) - g.starts)::date = %(day)s::date) "
            "AND (%(player)s::text IS NULL OR s.player = %(player)s) AND (%(table)s::text IS NULL OR s.table_name = %(table)s) "
            "ORDER BY s.start, s.table_name, s.player", {"day": day, "player": player, "table": table}).fetchall()
    return [cast(SessionReport, dict(row[0])) for row in rows]  # each row's report is a session's (`_store`)


def shifts(conn: Conn, table: str | None = None) -> list[DealerReport]:
    """The archived dealer shifts (`"kind": "dealer"` objects, each with its opening's `from_event`), of
    `table` when given, by table, dealer and opening. Raises psycopg's errors."""
    with conn.transaction():
        rows = conn.execute("SELECT report, from_event FROM dealer_shifts WHERE %(table)s::text IS NULL "
                            "OR table_name = %(table)s ORDER BY table_name, dealer, from_event", {"table": table}).fetchall()
    return [cast(DealerReport, {**dict(row[0]), "from_event": int(row[1])}) for row in rows]
