"""The director's tournament as events: the clock, the entries and the players out, kept in SQLite and replayed at start.

Each director step is one event `(at, kind, body)`: `at` is the wall-clock second it was taken
(time.time(): the clock is the room's, and a director restarted after a crash finds the clock where
the room's time put it, paused or running), `kind` one of `EVENT_KINDS`. `TournamentState.apply` is
the one way the tournament changes; `DirectorStore.take` writes the event in a transaction, applies
it, and commits only when it was taken (a refused step leaves neither the state nor the file changed).

    start    {}                          the clock starts at level 1
    pause    {}                          the director's pause
    resume   {}
    adjust   {"seconds": s}              the stage in progress gets s seconds more (fewer when negative)
    enter    {"player": name}            an entry (buy-in paid), at the clock's level; after the seat draw
             + "seed", "table", "seat", "stack": the seat the director drew for him (director_entries.py)
    out      {"players": {name: stack}}  the players out in one hand, with their stacks at its start
             (+ "table", "hand" when taken from the table's feed: director_feeds.py)
    seated   {"table": t, "seats": {seat: name}}  who sits where at table t (the pit's word)
    close    {}                          registration is over: the field is known
    seat-draw, moving, moves, hand-for-hand, break, acked   the director's floor: the seats it drew, the
             players it moved, hand-for-hand, the breaks and their chip races (`director_breaks.py`), the
             orders the tables took (`director_seating.py`)

The events table also keeps who signed off a step (`signed_off`, never a PIN); the `meta` table the
tournament file's SHA-256, so a restart with another tournament file is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.errors import TournamentError
from engine.tournament.clock import Clock, ClockReading
from engine.tournament.config import BlindLevel, Break, TournamentFile
from engine.tournament.places import Registration, Standings, prizes
from floor.director.entries import check_seat, seat_entry
from floor.director.feeds import Seating
from floor.director.seating import FLOOR_KINDS, FloorPlan
from floor.reports import ClockView, LevelView, Payout

EVENT_KINDS = ("start", "pause", "resume", "adjust", "enter", "out", "close", "seated", *FLOOR_KINDS)
CLOCK_KINDS = ("start", "pause", "resume", "adjust")
"""The clock's steps: each needs a supervisor's sign-off."""


class DirectorError(ValueError):
    """A director state directory that cannot be used (another tournament's, unreadable)."""


def _level(level: BlindLevel | None, number: int) -> LevelView | None:
    if level is None:
        return None
    return {"number": number, "small_blind": level.small_blind, "big_blind": level.big_blind, "ante": level.ante,
            "duration_s": level.duration_s}


class TournamentState:
    """One tournament's clock, entries and eliminations, built from its events alone."""

    def __init__(self, tournament: TournamentFile) -> None:
        self.tournament = tournament
        self.clock = Clock(tournament.stages)
        self.registration = Registration(tournament)
        self.standings = Standings(self.registration)
        self.seating = Seating(tournament.tables, tournament.seats_per_table)
        self.plan = FloorPlan(tournament, self.seating)
        self.started = False
        self.last_at = 0.0

    def now(self, at: float) -> float:
        """`at`, never before the last event's time (a wall clock stepped back is held, not followed)."""
        return max(at, self.last_at)

    def apply(self, kind: str, body: Mapping[str, Any], at: float) -> None:
        """Apply one event. Raises TournamentError (nothing changed) when it is refused."""
        at = self.now(at)
        if kind != "start" and kind in CLOCK_KINDS and not self.started:
            raise TournamentError("the clock is not started yet: start it first")
        if kind == "start":
            self.clock.start(at)
            self.started = True
        elif kind == "pause":
            self.clock.pause(at)
        elif kind == "resume":
            self.clock.resume(at)
        elif kind == "adjust":
            self.clock.adjust(at, float(body["seconds"]))
        elif kind == "enter":   # after the draw, with the seat the director drew for him (director_entries.py)
            if "table" in body:
                check_seat(self.plan, body)
            entry = self.registration.enter(str(body["player"]), self.level_number(at))
            if "table" in body:
                seat_entry(self.plan, body, entry.player, entry.number)
        elif kind == "out":
            out = {str(p): int(s) for p, s in dict(body["players"]).items()}
            self.standings.eliminate(out)
            self.plan.busted(out, body.get("hand"))  # the director's tables: each player out leaves his seat
            self.seating.leave(out, body.get("table"), body.get("hand"))
        elif kind == "seated":
            self.seating.seat(str(body["table"]), dict(body["seats"]), {e.player for e in self.registration.alive})
        elif kind in FLOOR_KINDS:
            self.plan.apply(kind, body, {e.player for e in self.registration.alive})
        elif kind == "close":
            if self.registration.closed:
                raise TournamentError("registration is already closed")
            self.registration.close()
        else:
            raise TournamentError(f"unknown director step {kind!r} (known: {', '.join(EVENT_KINDS)})")
        self.last_at = at

    def level_number(self, at: float) -> int:
        """The clock's level at `at`, as an entry counts it (0 before the start)."""
        return self.clock.reading(self.now(at)).level_number if self.started else 0

    def chips(self) -> int:
        """The chips in play: every entry's starting stack, changed by the chip races' recorded changes."""
        return len(self.registration.entries) * self.tournament.starting_stack + sum(
            int(r["change"]) for r in self.plan.breaks.races)

    def reading(self, at: float) -> ClockReading | None:
        """The clock at `at` (None before the start)."""
        return self.clock.reading(self.now(at)) if self.started else None

    def next_break_s(self, reading: ClockReading) -> tuple[float, int] | None:
        """(seconds until the next break begins, its length) while a level is played; None when no
        break is ahead (or during one: its countdown is `left_s`)."""
        if reading.left_s is None or reading.on_break:
            return None
        ahead = reading.left_s
        for stage in self.tournament.stages[reading.stage + 1:]:
            if isinstance(stage, Break):
                return ahead, stage.duration_s
            ahead += stage.duration_s
        return None

    def view(self, at: float) -> ClockView:
        """What the feed publishes: the clock and the standings (money in cents, stacks in chips)."""
        t, reg = self.tournament, self.registration
        reading = self.reading(at)
        left = self.standings.left
        entries = len(reg.entries)
        try:
            shares = t.shares_for(max(entries, 1))
        except TournamentError:
            shares = ()
        payouts: list[Payout] = [{"place": k + 1, "prize": p} for k, p in enumerate(prizes(reg.prize_pool, shares))] if shares else []
        out: ClockView = {
            "tournament": t.name, "buy_in": t.buy_in, "fee": t.fee, "started": self.started,
            "running": bool(reading and reading.running), "registration_open": not reg.closed,
            "late_registration_until_level": t.late_registration_until_level,
            "entries": entries, "players_left": left, "prize_pool": reg.prize_pool,
            "average_stack": self.chips() // left if left else 0, "payouts": payouts,
            "level": None, "on_break": False, "left_s": None, "stage": None, "next_level": None, "next_break": None,
        }
        if reading is None:
            first = t.levels[0]
            out["next_level"] = _level(first, 1)
            return out
        out.update({"stage": reading.stage, "on_break": reading.on_break, "left_s": reading.left_s,
                    "level": _level(reading.level, reading.level_number),
                    "next_level": _level(reading.next_level, reading.level_number + 1)})
        upcoming = self.next_break_s(reading)
        if upcoming is not None:
            out["next_break"] = {"in_s": upcoming[0], "duration_s": upcoming[1]}
        if reg.closed:
            out["finishes"] = [{"place": f.place, "player": f.player, "prize": f.prize, "shared": f.shared}
                               for f in self.standings.finishes()]
        return out

    def level_in_force(self, at: float) -> tuple[int, BlindLevel] | None:
        """The level the tables are to play from their next hand: the clock's, or on a break the
        level after it (no hand is begun on a break); None before the start."""
        reading = self.reading(at)
        if reading is None:
            return None
        if reading.level is not None:
            return reading.level_number, reading.level
        if reading.next_level is not None:
            return reading.level_number + 1, reading.next_level
        return None  # pragma: no cover - a schedule ends with a level of play


class DirectorStore:
    """The director's events in `DIR/director.sqlite` (WAL, synchronous=FULL)."""

    def __init__(self, directory: str | Path, tournament_text: str) -> None:
        """Open (or make) the store for the tournament file `tournament_text`. Raises DirectorError when the
        directory holds another tournament or cannot be used."""
        path = Path(directory)
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path / "director.sqlite", isolation_level=None, check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self.conn.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, at REAL NOT NULL, "
                              "kind TEXT NOT NULL, body TEXT NOT NULL, signed_off TEXT)")
            digest = hashlib.sha256(tournament_text.encode("utf-8")).hexdigest()
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'tournament_sha256'").fetchone()
            if row is None:
                self.conn.execute("INSERT INTO meta VALUES ('tournament_sha256', ?)", (digest,))
            elif row[0] != digest:
                raise DirectorError(f"{path}: this state directory holds another tournament (its file's sha256 "
                                    f"{row[0][:12]}..., not {digest[:12]}...): give a new --state DIR")
        except (OSError, sqlite3.Error) as exc:
            raise DirectorError(f"{path}: cannot use the director's state: {exc}") from None

    def events(self) -> Iterator[tuple[int, float, str, dict[str, Any]]]:
        for event_id, at, kind, body in self.conn.execute("SELECT id, at, kind, body FROM events ORDER BY id"):
            yield event_id, at, kind, json.loads(body)

    def replay(self, state: TournamentState) -> int:
        """Apply every stored event to `state`. Returns how many. Raises DirectorError for one refused."""
        count = 0
        for event_id, at, kind, body in self.events():
            try:
                state.apply(kind, body, at)
            except (TournamentError, KeyError, TypeError, ValueError) as exc:
                raise DirectorError(f"event {event_id} ({kind}) cannot be replayed: {exc}") from None
            count += 1
        return count

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def take(self, state: TournamentState, kind: str, body: Mapping[str, Any], at: float,
             signed_off: Mapping[str, Any] | None = None) -> int:
        """Write the event, apply it, commit. Returns its id. Raises TournamentError (refused: nothing
        written) or sqlite3.Error."""
        with self._transaction():
            cursor = self.conn.execute("INSERT INTO events (at, kind, body, signed_off) VALUES (?, ?, ?, ?)",
                                       (state.now(at), kind, json.dumps(dict(body), sort_keys=True),
                                        None if signed_off is None else json.dumps(dict(signed_off))))
            state.apply(kind, body, at)
        return int(cursor.lastrowid or 0)

    def close(self) -> None:
        self.conn.close()
