"""The tournament's record for the floor's archive: built from the director's events once it is over, written once (migration 0003), read back for `croupier stats --tournaments`.

The record (JSON, whole in `tournaments.record`; its parts in their own tables too):

    {"id", "tournament", "buy_in", "fee", "added", "starting_stack", "entries", "players": [entry names],
     "prize_pool", "fees", "started_at", "finished_at",
     "places": [{"place", "player", "prize", "shared"}],
     "levels": [{"stage", "level" (null: a break), "small_blind", "big_blind", "ante", "duration_s",
                 "began_at", "ended_at"}],
     "tables": [the tables it used]}

Times are UTC, ISO 8601. `id` is the state directory's own (made once, kept in `director.sqlite`'s
`meta`), so a restarted director writes the same record under the same id: `ON CONFLICT DO NOTHING`
makes a second write none. A tournament is over once registration is closed and one player is left.
The stages' times are replayed from the clock's events (`stage_times`): a stage began when the time
played reached the sum of the stages before it.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any, cast

from engine.tournament.clock import Clock
from engine.tournament.config import BlindLevel, Stage
from floor.director.config import DirectorConfig
from floor.director.state import CLOCK_KINDS, DirectorStore, TournamentState
from floor.reports import ArchivedTournament, TournamentLevel, TournamentRecord
from protocol.audit import utc_iso

log = logging.getLogger("croupier.director")

RETRY_S = 2.0
"""How often a record the archive did not take is tried again."""

Event = tuple[int, float, str, dict[str, Any]]


def is_over(state: TournamentState) -> bool:
    """Registration closed and one player left: every place is known."""
    return state.registration.closed and state.standings.left == 1


def stage_times(stages: tuple[Stage, ...], events: Iterable[Event], until: float) -> list[tuple[int, float, float]]:
    """(stage, began, ended) of every stage the clock reached by `until`, from its events' times.

    >>> levels = (BlindLevel(25, 50, 0, 600), BlindLevel(50, 100, 0, 600))
    >>> stage_times(levels, [(1, 1000.0, "start", {}), (2, 1300.0, "pause", {}), (3, 1400.0, "resume", {})], 2000.0)
    [(0, 1000.0, 1700.0), (1, 1700.0, 2000.0)]
    """
    clock = Clock(stages)
    bounds, total = [], 0.0
    for stage in stages:
        bounds.append(total)
        total += stage.duration_s
    began: dict[int, float] = {}
    last: float | None = None

    def run_to(at: float) -> None:
        if last is None or not clock.reading(last).running:
            return
        played = clock.played(last)
        for k, bound in enumerate(bounds):
            if k not in began and played < bound <= played + (at - last):
                began[k] = last + (bound - played)

    for _, at, kind, body in events:
        at = max(at, last if last is not None else at)
        if kind not in CLOCK_KINDS:
            continue
        run_to(at)
        if kind == "start":
            clock.start(at)
            began[0] = at
        elif kind == "pause":
            clock.pause(at)
        elif kind == "resume":
            clock.resume(at)
        else:
            clock.adjust(at, float(body["seconds"]))
        last = at
    if last is not None:
        run_to(max(until, last))
    order = sorted(began)
    return [(k, began[k], began[order[i + 1]] if i + 1 < len(order) else max(until, began[k]))
            for i, k in enumerate(order)]


def record_id(store: DirectorStore) -> str:
    """The state directory's tournament id (made at the first call, kept in its `meta`)."""
    row = store.conn.execute("SELECT value FROM meta WHERE key = 'tournament_id'").fetchone()
    if row is not None:
        return str(row[0])
    made = uuid.uuid4().hex
    store.conn.execute("INSERT INTO meta VALUES ('tournament_id', ?)", (made,))
    return made


def build_record(tournament_id: str, state: TournamentState, events: list[Event]) -> TournamentRecord:
    """The record of a tournament that is over (`is_over`)."""
    t, reg = state.tournament, state.registration
    finished = max((at for _, at, _, _ in events), default=0.0)
    started = next((at for _, at, kind, _ in events if kind == "start"), None)
    numbers, number = [], 0
    for stage in t.stages:
        number += isinstance(stage, BlindLevel)
        numbers.append(number)
    levels: list[TournamentLevel] = []
    for k, began, ended in stage_times(t.stages, events, finished):
        stage = t.stages[k]
        level = stage if isinstance(stage, BlindLevel) else None
        levels.append({"stage": k, "level": numbers[k] if level else None,
                       "small_blind": level.small_blind if level else None,
                       "big_blind": level.big_blind if level else None, "ante": level.ante if level else None,
                       "duration_s": stage.duration_s, "began_at": utc_iso(began), "ended_at": utc_iso(ended)})
    return {"id": tournament_id, "tournament": t.name, "buy_in": t.buy_in, "fee": t.fee, "added": t.added,
            "starting_stack": t.starting_stack, "entries": len(reg.entries), "players": [e.name for e in reg.entries],
            "prize_pool": reg.prize_pool, "fees": reg.fees,
            "started_at": utc_iso(started) if started is not None else None, "finished_at": utc_iso(finished),
            "places": [{"place": f.place, "player": f.player, "prize": f.prize, "shared": f.shared}
                       for f in state.standings.finishes()],
            "levels": levels, "tables": list(t.tables),
            "chip_races": state.plan.breaks.races_view(),   # each table's race at each colour-up (director_breaks.py)
            "button_draws": state.plan.buttons.view()}      # each table's first button by its shoe (director_button.py)


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def write_record(dsn: str, record: TournamentRecord) -> bool:
    """Write the record, its places and its levels in one transaction; True when it is new, False
    when the archive holds it already (nothing written). Raises ArchiveError (server down, no schema)."""
    import psycopg
    from psycopg.types.json import Jsonb

    from floor.archive import ArchiveError, connect

    try:
        with connect(dsn) as conn, conn.transaction():
            new = conn.execute(
                "INSERT INTO tournaments (id, name, buy_in, fee, entries, prize_pool, started_at, finished_at, tables, "
                "record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
                (record["id"], record["tournament"], record["buy_in"], record["fee"], record["entries"],
                 record["prize_pool"], _time(record["started_at"]), _time(record["finished_at"]),
                 list(record["tables"]), Jsonb(dict(record)))).fetchone()
            if new is None:
                return False
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO tournament_places VALUES (%s, %s, %s, %s, %s)",
                                [(record["id"], p["player"], p["place"], p["prize"], p["shared"])
                                 for p in record["places"]])
                cur.executemany("INSERT INTO tournament_levels VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                                [(record["id"], lv["stage"], lv["level"], lv["small_blind"], lv["big_blind"],
                                  lv["ante"], lv["duration_s"], _time(lv["began_at"]), _time(lv["ended_at"]))
                                 for lv in record["levels"]])
            return True
    except psycopg.Error as exc:
        raise ArchiveError(f"the tournament's record: {exc}".strip()) from exc


def tournaments(dsn: str) -> list[ArchivedTournament]:
    """Every tournament archived, the latest first: its record, with `hands` (its tables' hands
    archived while it ran, by `tournament_hands`). Raises ArchiveError."""
    import psycopg

    from floor.archive import ArchiveError, connect

    try:
        with connect(dsn) as conn:
            rows = conn.execute("SELECT t.record, (SELECT count(*) FROM tournament_hands h WHERE h.tournament = t.id) "
                                "FROM tournaments t ORDER BY t.finished_at DESC, t.id").fetchall()
    except psycopg.Error as exc:
        raise ArchiveError(f"the tournaments: {exc}".strip()) from exc
    return [cast(ArchivedTournament, {**record, "hands": int(hands)})  # the record as `write_record` wrote it
            for record, hands in rows]


def tournaments_text(done: list[ArchivedTournament]) -> str:
    """The tournaments for a person: a line each, then its places in the money."""
    lines = [f"{len(done)} tournament(s) archived"]
    for t in done:
        lines.append(f"{t['tournament']}  {t['started_at'] or '-'} to {t['finished_at']}: {t['entries']} entries, "
                     f"pool {t['prize_pool']}, fees {t['fees']}, {len(t['levels'])} stage(s), "
                     f"tables {', '.join(t['tables'])}, {t['hands']} hand(s) archived")
        lines += [f"  {p['place']:>3}. {p['player']}  {p['prize']}" for p in t["places"] if p["prize"]]
    return "\n".join(lines)


class TournamentRecorder(threading.Thread):
    """Writes the record to `[director] db` once the tournament is over, from a thread of its own (the
    director's loop never waits for the archive); tried again every `RETRY_S` while the archive is down.
    `outcome` says what happened: None (nothing yet), `written` or `already archived`."""

    def __init__(self, cfg: DirectorConfig, store: DirectorStore) -> None:
        super().__init__(name="director-record", daemon=True)
        assert cfg.db is not None
        self.dsn = cfg.db
        self.store = store
        self.outcome: str | None = None
        self._record: TournamentRecord | None = None
        self._wake = threading.Event()
        self.stopping = threading.Event()

    def when_over(self, state: TournamentState) -> None:
        """From the director's thread, after each step: once it is over, the record is handed over (once)."""
        if self._record is None and is_over(state):
            self._record = build_record(record_id(self.store), state, list(self.store.events()))
            self._wake.set()

    def run(self) -> None:
        from floor.archive import ArchiveError

        while not self.stopping.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            record = self._record
            if record is None or self.outcome is not None:
                continue
            try:
                new = write_record(self.dsn, record)
            except ArchiveError as exc:
                log.warning("director: the tournament's record is not archived yet (again in %.0f s): %s",
                            RETRY_S, exc)
                self.stopping.wait(RETRY_S)
                continue
            self.outcome = "written" if new else "already archived"
            log.info("director: the tournament's record %s (%s)", self.outcome, record["id"])

    def stop(self) -> None:
        self.stopping.set()
        self._wake.set()
        self.join(timeout=8.0)
