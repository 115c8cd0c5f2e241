"""The archive of every table's closed hands in PostgreSQL: idempotent batched writes keyed (table, hand), and the catch-up from a table's journal.

The pit calls `last_hand(table)`, asks the table's command channel for the closed hands after it
(`{"cmd": "history", "after": N}`, in pages), and `write`s each page; `catch_up` does that loop
with the page fetch given. A hand written twice is one row, so a retry after any failure (the
server down, the pit killed mid-batch) leaves no gap and nothing twice. Each batch is one
transaction: its hands are COPY'd into a temporary staging table, then inserted with
`ON CONFLICT DO NOTHING`; their faults, voids and sign-offs go in beside the hands new in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from types import TracebackType
from typing import Any, TypeVar

import psycopg
from psycopg.types.json import Jsonb

from engine.ratings import SessionReport
from floor.ratings import Fold, rate, spot_bets
from floor.events import EVENT_COLUMNS, RATING_EVENT_COLUMNS, RATING_KINDS, EventError, event_row

HAND_COLUMNS = ("table_name", "hand", "status", "game", "poker", "opened_at", "closed_at", "profile_name",
                "profile_sha256", "limits", "voided", "handle", "handle_total", "house_net", "signed_off", "record")

_T = TypeVar("_T")

FetchPage = Callable[[int], tuple[Sequence[Mapping[str, Any]], bool]]
"""`fetch_page(after) -> (records, more)`: a table's closed hands numbered above `after`, oldest first."""


class ArchiveError(RuntimeError):
    """The archive could not do what was asked: its server is unreachable or went away (retry later),
    or a record is not a closed hand's `croupier history --json` line. Nothing of the failed batch is written."""


def connect(dsn: str) -> psycopg.Connection[tuple[Any, ...]]:
    """A connection to the archive's database. Raises ArchiveError when it cannot be made."""
    try:
        return psycopg.connect(dsn, connect_timeout=5)
    except psycopg.Error as exc:
        raise ArchiveError(f"cannot reach the archive's server: {exc}".strip()) from exc


def circle_handle(record: Mapping[str, Any]) -> dict[str, int]:
    """What was wagered on a house hand per bet circle (ante, blind, trips, pair_plus, play ...).

    UTH's Play is its multiple of the Ante, 3CP's equals the Ante; a voided hand returned every bet,
    so nothing was wagered; a poker hand has no circles (its house take is the rake).

    >>> circle_handle({"status": "settled", "round": {"game": "uth", "spots": [
    ...     {"bets": {"ante": 100, "blind": 100}, "play": {"street": "flop", "multiple": 2}}]}})
    {'ante': 100, 'blind': 100, 'play': 200}
    """
    rnd = record.get("round")
    if record.get("status") != "settled" or not isinstance(rnd, Mapping):
        return {}
    handle: dict[str, int] = {}
    for spot in rnd.get("spots") or []:
        for circle, amount in spot_bets(spot).items():
            handle[circle] = handle.get(circle, 0) + amount
    return handle


def house_net(record: Mapping[str, Any]) -> int:
    """The house's win on the hand: the settlement's `house_net`, a poker hand's rake, 0 for a void."""
    if record.get("status") != "settled":
        return 0
    if record.get("game") is not None and "round" not in record:  # poker: the house takes the rake only
        results = record.get("results") or {}
        return int(results.get("rake") or 0)
    settlement = record.get("settlement") or {}
    return int(settlement.get("house_net") or 0)


def _when(value: Any) -> datetime | None:
    """A record's time (seconds since the epoch, or ISO 8601 text) as a timestamp; None when absent."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, timezone.utc)
    if isinstance(value, str):
        return datetime.fromisoformat(value)
    return None


def hand_row(table: str, record: Mapping[str, Any]) -> tuple[Any, ...]:
    """The `hands` row of one `croupier history --json` record (HAND_COLUMNS' order). Raises ArchiveError."""
    hand, status = record.get("hand"), record.get("status")
    if not isinstance(hand, int) or isinstance(hand, bool) or hand < 1:
        raise ArchiveError(f"{table}: a record without a hand number (1 or more): {str(dict(record))[:120]}")
    if status not in ("settled", "voided"):
        raise ArchiveError(f"{table}: hand {hand}: status {status!r} is not a closed hand's (settled, voided)")
    try:
        poker = "round" not in record and record.get("game") is not None
        rnd: Mapping[str, Any] = record["round"] if isinstance(record.get("round"), Mapping) else {}
        profile: Mapping[str, Any] = record["profile"] if isinstance(record.get("profile"), Mapping) else {}
        handle = circle_handle(record)
        signed = any(f.get("cleared_by") for f in record.get("faults") or [])
        return (table, hand, status, record.get("game") if poker else rnd.get("game"), poker,
                _when(record.get("opened")), _when(record.get("closed")), profile.get("name"),
                profile.get("sha256"), Jsonb(dict(record.get("limits") or {})), status == "voided", Jsonb(handle),
                sum(handle.values()), house_net(record), signed, Jsonb(dict(record)))
    except (TypeError, ValueError, AttributeError) as exc:
        raise ArchiveError(f"{table}: hand {hand}: not a `croupier history --json` record: {exc}") from exc


def _beside(table: str, record: Mapping[str, Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]],
                                                             list[tuple[Any, ...]]]:
    """The hand's faults, its void and its sign-offs as rows of their tables."""
    hand = record["hand"]
    faults: list[tuple[Any, ...]] = []
    signs: list[tuple[Any, ...]] = []
    for n, fault in enumerate(record.get("faults") or [], 1):
        faults.append((table, hand, n, str(fault.get("kind")), fault.get("detail"), fault.get("cleared_by"),
                       fault.get("reason"), fault.get("then")))
        if fault.get("cleared_by"):
            signs.append((table, hand, len(signs) + 1, "clear", fault["cleared_by"], fault.get("reason")))
    voids = [(table, hand, record.get("reason"))] if record.get("status") == "voided" else []
    return faults, voids, signs


_EVENTS = (f"INSERT INTO table_events ({', '.join(EVENT_COLUMNS)}) VALUES ({', '.join(['%s'] * len(EVENT_COLUMNS))}) "
           "ON CONFLICT (table_name, event) DO NOTHING")

_RATING_EVENTS = (f"INSERT INTO rating_events ({', '.join(RATING_EVENT_COLUMNS)}) "
                  f"VALUES ({', '.join(['%s'] * len(RATING_EVENT_COLUMNS))}) ON CONFLICT (table_name, event) DO NOTHING")

_STAGE = ("CREATE TEMPORARY TABLE IF NOT EXISTS hands_staging (LIKE hands INCLUDING DEFAULTS) "
          "ON COMMIT DELETE ROWS")
_COLUMNS = ", ".join((*HAND_COLUMNS, "pit"))
_UPSERT = (f"INSERT INTO hands ({_COLUMNS}) SELECT {_COLUMNS} FROM hands_staging "
           "ON CONFLICT (table_name, hand) DO NOTHING RETURNING hand")


class Archive:
    """The archive at `dsn` (a PostgreSQL conninfo or URI, its schema made by `croupier pit migrate`).

    One connection, made when first needed and made again after the server went away. Use as a
    context manager or call `close()`. `pit` is the pit whose hands and events these are (`[pit] name`:
    a floor of several pits archives into one database; null when not given)."""

    def __init__(self, dsn: str, pit: str | None = None) -> None:
        self.dsn = dsn
        self.pit = pit
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        self._edges: dict[str, Any] = {}  # game:sha256 -> the profile's edges, for the ratings (floor/ratings.py)
        self._folds: dict[str, Fold] = {}  # table -> its ratings folded so far (floor/ratings.py: read only what came since)

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self.close()
            self._conn = connect(self.dsn)
        return self._conn

    def _run(self, work: Callable[[psycopg.Connection[tuple[Any, ...]]], _T]) -> _T:
        """`work(conn)` in the archive's connection. A connection kept from before that turns out dead
        (the server restarted since its last use: nothing of `work` was committed) is made again and
        `work` tried once more on it; any other failure raises ArchiveError (via `_down`)."""
        kept = self._conn is not None and not self._conn.closed and not self._conn.broken
        try:
            return work(self._connection())
        except psycopg.OperationalError as exc:
            if not (kept and self._conn is not None and self._conn.broken):
                raise self._down(exc) from exc
            self.close()
        except psycopg.Error as exc:
            raise self._down(exc) from exc
        try:
            return work(self._connection())
        except psycopg.Error as exc:
            raise self._down(exc) from exc

    def _down(self, exc: psycopg.Error) -> ArchiveError:
        self.close()  # the next call connects again
        if isinstance(exc, psycopg.errors.UndefinedTable):
            return ArchiveError(f"the archive's schema is not made or not up to date ({exc}): "
                                "run `croupier pit migrate --db DSN`".replace("\n", " "))
        return ArchiveError(f"the archive's server: {exc}".strip())

    def last_hand(self, table: str) -> int:
        """The highest hand number archived for `table` (0 if none). Raises ArchiveError."""
        def read(conn: psycopg.Connection[tuple[Any, ...]]) -> tuple[Any, ...] | None:
            with conn.transaction():
                return conn.execute("SELECT max(hand) FROM hands WHERE table_name = %s", (table,)).fetchone()

        row = self._run(read)
        return int(row[0]) if row is not None and row[0] is not None else 0

    def write(self, table: str, records: Iterable[Mapping[str, Any]]) -> int:
        """Archive closed hands of `table` in one transaction; return how many rows are new (a hand
        already archived is left as it is). Raises ArchiveError: then nothing of the batch is written."""
        batch = list(records)
        rows = [(*hand_row(table, r), self.pit) for r in batch]  # every record checked before anything is sent
        if not rows:
            return 0
        return self._run(lambda conn: self._write(conn, table, batch, rows))

    @staticmethod
    def _write(conn: psycopg.Connection[tuple[Any, ...]], table: str, batch: list[Mapping[str, Any]],
               rows: list[tuple[Any, ...]]) -> int:
        """One batch in one transaction on `conn`; raises psycopg's errors."""
        with conn.transaction():
            conn.execute(_STAGE)
            with conn.cursor() as cur:
                with cur.copy(f"COPY hands_staging ({_COLUMNS}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                cur.execute(_UPSERT)
                new = {int(r[0]) for r in cur.fetchall()}
                faults: list[tuple[Any, ...]] = []
                voids: list[tuple[Any, ...]] = []
                signs: list[tuple[Any, ...]] = []
                for record in batch:
                    if record["hand"] in new:
                        f, v, s = _beside(table, record)
                        faults += f
                        voids += v
                        signs += s
                if faults:
                    cur.executemany("INSERT INTO faults VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                                    "ON CONFLICT DO NOTHING", faults)
                if voids:
                    cur.executemany("INSERT INTO voids VALUES (%s, %s, %s) ON CONFLICT DO NOTHING", voids)
                if signs:
                    cur.executemany("INSERT INTO sign_offs VALUES (%s, %s, %s, %s, %s, %s) "
                                    "ON CONFLICT DO NOTHING", signs)
        return len(new)

    def last_event(self, table: str) -> int:
        """The highest open, close, player or dealer event id archived for `table` (0 if none). Raises ArchiveError."""
        def read(conn: psycopg.Connection[tuple[Any, ...]]) -> tuple[Any, ...] | None:
            with conn.transaction():
                return conn.execute("SELECT greatest((SELECT max(event) FROM table_events WHERE table_name = %s), "
                                    "(SELECT max(event) FROM rating_events WHERE table_name = %s))",
                                    (table, table)).fetchone()

        row = self._run(read)
        return int(row[0]) if row is not None and row[0] is not None else 0

    def write_events(self, table: str, events: Iterable[Mapping[str, Any]]) -> int:
        """Archive a table's open, close, player and dealer events (`floor/events.py`'s lines) in one
        transaction; an event archived before is left as it is. Returns how many were sent. Raises
        ArchiveError (nothing written)."""
        try:
            lines = list(events)
            rows = [event_row(table, self.pit, e) for e in lines]
        except EventError as exc:
            raise ArchiveError(str(exc)) from exc
        if not rows:
            return 0
        rated = [(*r[:6], Jsonb(r[6]), r[7]) for e, r in zip(lines, rows) if e.get("kind") in RATING_KINDS]
        opens = [r for e, r in zip(lines, rows) if e.get("kind") not in RATING_KINDS]

        def write(conn: psycopg.Connection[tuple[Any, ...]]) -> int:
            with conn.transaction(), conn.cursor() as cur:
                if opens:
                    cur.executemany(_EVENTS, opens)
                if rated:
                    cur.executemany(_RATING_EVENTS, rated)
            return len(rows)

        return self._run(write)

    def rate(self, table: str) -> list[SessionReport]:
        """Fold `table`'s archived hands and events into its rating sessions and dealer shifts (`floor/ratings.py`:
        idempotent; from where the last call left off). Returns the sessions written that changed (their `croupier ratings --json` objects). Raises ArchiveError."""
        return self._run(lambda conn: rate(conn, table, self.pit, self._edges, self._folds))

    def purge_players(self, days: int, now: datetime | None = None) -> int:
        """Delete the player data older than `days` (before `now`, default the clock's): the rating sessions
        that ended before then, and the `player` events folded before then (the card numbers), of the tables
        whose ratings are final up to a close after them (`rating_marks`), so that nothing purged is folded
        again. Returns how many rows went. Raises ArchiveError."""
        cutoff = (now or datetime.now(timezone.utc)) - timedelta(days=days)

        def purge(conn: psycopg.Connection[tuple[Any, ...]]) -> int:
            with conn.transaction():
                gone = conn.execute(
                    "DELETE FROM rating_sessions s USING rating_marks m JOIN table_events t "
                    "ON t.table_name = m.table_name AND t.event = m.event "
                    "WHERE s.table_name = m.table_name AND s.ended_at < %s "
                    "AND s.ended_at <= to_timestamp(coalesce(t.ts, extract(epoch FROM t.at))) + interval '1 microsecond' "
                    "RETURNING s.table_name, s.start", (cutoff,)).fetchall()
                sessions = len(gone)  # (a µs more: ended_at, Python's datetime of the end, is 1 µs past PostgreSQL's
                # to_timestamp of the same seconds 3% of the time: a session ended by the close itself was then kept)
                events = conn.execute(
                    "DELETE FROM rating_events e USING rating_marks m WHERE e.table_name = m.table_name "
                    "AND e.kind = 'player' AND e.event <= m.event AND e.at < %s", (cutoff,)).rowcount
                latest: dict[str, float] = {}  # a session asked for later that started by then: said purged
                for table, start in gone:  # (floor/rating_past.py)
                    latest[table] = max(latest.get(table, start), start)
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO rating_purges VALUES (%s, %s) ON CONFLICT (table_name) DO UPDATE "
                                    "SET start = greatest(rating_purges.start, excluded.start)", list(latest.items()))
            return sessions + events

        return self._run(purge)

    def catch_up(self, table: str, fetch_page: FetchPage) -> int:
        """Archive every closed hand of `table` after the last one archived: `fetch_page(after)` from
        `last_hand(table)` on, each page written, until a page says no more wait. Returns the rows new.

        Raises ArchiveError (the pages written stay written: call again to go on from there) and
        whatever `fetch_page` raises."""
        after, written = self.last_hand(table), 0
        while True:
            records, more = fetch_page(after)
            written += self.write(table, records)
            if records:
                after = max(int(r["hand"]) for r in records)
            if not more:
                return written
            if not records:
                raise ArchiveError(f"{table}: the table said more hands wait after {after} but sent none")
