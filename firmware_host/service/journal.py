"""The table's journal: every accepted reading and command, in SQLite (WAL, synchronous=FULL).

The controller writes an event here *before* it applies it and before anything is published, so
the journal alone rebuilds the exact table state after a crash, in the middle of a hand too.

Tables (all text is JSON, readable with the `sqlite3` shell):

- `events(id, hand, ts, kind, body, req)`: one row per accepted input. `hand` is the number of the hand the event
  belongs to (the hand being prepared when idle); `kind` is the event's kind (`open`, `bet`, `card`, `fault`, `clear`,
  ...); `req` is the dealer's request id when it came from the command channel, so a request re-sent after a restart
  is recognised and not applied twice, and `digest` the SHA-256 of that request's canonical form (`Command.digest`),
  so that another request sent under an id already used is told apart from the same one re-sent. (Schema 2 added
  `digest`; a schema-1 journal gets the column at its first open for writing, NULL on its old events.) `chain` links
  each event to the one before: the SHA-256 (hex) of the previous event's chain (empty before the first) and the
  event's canonical text (`service/chain.py`: id, hand, ts, kind, body, req). It is computed in the transaction of
  the insert, from the previous chain kept in memory. `verify_chain()` finds the first event whose chain fails, is
  missing, or follows a gap in the ids. (Schema 3 added `chain`: a journal without the column gets it at its first
  open for writing, computed once over the events it holds, which it therefore vouches for from then on. Schema 5
  the canonical text's form 2, `chain_forms` naming its first event: the events before keep their form 1.)
- `hands(hand, game, status, closed_event, ts, record, line)`: one row per finished hand, written in the same
  transaction as the event that closed it (`settled` or `voided`). A closed hand is never replayed, so nothing is
  settled twice. `line` is the hand's `croupier history --json` line without its chain (`service/history.py`), made
  once when the hand closed: a page of the `history` request reads these lines, never the whole records. (Schema 4
  added `line`: an older journal gets the column at its first open for writing, NULL on its old hands, which the
  controller fills in at its start, `history.backfill_lines`; a NULL line is made from the record when read.)
- `boots(id, boot, ts)`: each start of the controller.

At start, `resume()` returns the last `open` event (the table's configuration) and every event
after the later of that open and the last closed hand: replaying them rebuilds the hand in progress.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.history import HistoryLine
from firmware_host.service.chain import add_chain, dumps as _dumps, first_break, link, mark_form2

log = logging.getLogger(__name__)

JOURNAL_FILE = "journal.sqlite3"
SCHEMA_VERSION = 5
QUIET_CHECKPOINT_S = 0.02
"""Seconds with nothing to do after which the controller checkpoints the WAL (`Journal.checkpoint`)."""
QUIET_CHECKPOINT_COMMITS = 32
"""Commits after which a quiet moment's checkpoint is due: about a hand's events at a house table, a
WAL of 32 to 64 pages, under `wal_autocheckpoint`'s 100 (as often as before, off the cards' path)."""

_SEATED = "(kind='player' OR kind='rating' OR kind='dealer' OR kind='close')"  # `seated_before`'s, in `_RARE`
_RARE = f"kind='open' OR kind='sensor' OR kind='hold' OR {_SEATED[1:-1]}"  # the kinds looked up by kind: `events_rare`
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    hand INTEGER NOT NULL,
    ts REAL NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    req TEXT,
    digest TEXT,
    chain TEXT
);
CREATE INDEX IF NOT EXISTS events_req ON events(req) WHERE req IS NOT NULL;
-- Only the rare kinds that are looked up by kind are indexed, in one partial index (a card or a bet writes no entry;
-- SQLite takes it for a query holding one of its OR's terms, or `_SEATED`'s). Each index, even one a row is not
-- written to, costs every insert ~1,000 instructions (`events_open`, `_sensor`, `_hold`, `_seats` were four); no IN
-- list: each row written is tested against one in a table built for it (`events_seated` did: ~30% of an insert).
DROP INDEX IF EXISTS events_kind; DROP INDEX IF EXISTS events_seated; DROP INDEX IF EXISTS events_open;
DROP INDEX IF EXISTS events_sensor; DROP INDEX IF EXISTS events_hold; DROP INDEX IF EXISTS events_seats;
CREATE INDEX IF NOT EXISTS events_rare ON events(kind, id) WHERE {_RARE};
CREATE TABLE IF NOT EXISTS hands (
    hand INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('settled', 'voided')),
    closed_event INTEGER NOT NULL,
    ts REAL NOT NULL,
    record TEXT NOT NULL,
    line TEXT
);
CREATE TABLE IF NOT EXISTS boots (
    id INTEGER PRIMARY KEY,
    boot TEXT NOT NULL,
    ts REAL NOT NULL
);
"""


class JournalError(RuntimeError):
    """The journal cannot be opened or written (disk, permissions, a newer schema)."""


class DuplicateRequest(Exception):
    """`begin` was given a dealer request id that is already journaled: nothing was written."""

    def __init__(self, req: str) -> None:
        super().__init__(f"request {req!r} is already journaled")
        self.req = req


@dataclass(frozen=True, slots=True)
class Event:
    """One journaled input."""

    id: int
    hand: int
    ts: float
    kind: str
    body: dict[str, Any]
    req: str | None = None
    digest: str | None = None  # the request's digest (`find_request` reads it; None otherwise)


@dataclass(frozen=True, slots=True)
class HandRow:
    """One finished hand as recorded when it closed."""

    hand: int
    game: str
    status: str
    closed_event: int
    ts: float
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClosedLine:
    """A finished hand's history line as stored when it closed (`line`), or, for a hand closed
    without one (before schema 4), its `row` to make the line from."""

    hand: int
    closed_event: int
    line: HistoryLine | None
    row: HandRow | None


@dataclass(frozen=True, slots=True)
class Resume:
    """What the controller replays at start: the table's last `open` and the events after it."""

    open_event: Event | None
    last_closed_hand: int
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class ChainBreak:
    """The first journal event the chain does not vouch for: its id, its kind, and why."""

    id: int
    kind: str
    why: str

    def __str__(self) -> str:
        return f"event {self.id} ({self.kind}): {self.why}"


_INSERT = "INSERT INTO events(id, hand, ts, kind, body, req, chain) VALUES (?,?,?,?,?,?,?)"
_INSERT_READING = "INSERT INTO events(id, hand, ts, kind, body, chain) VALUES (?,?,?,?,?,?)"
"""A reading's row: no request id (a bound None costs sqlite3's adapter look-up, ~3,300 instructions; NULL is the
column's default)."""
_INSERT_NEW_REQ = ("INSERT INTO events(id, hand, ts, kind, body, req, digest, chain) SELECT ?,?,?,?,?,?,?,? "
                   "WHERE NOT EXISTS (SELECT 1 FROM events WHERE req=?)")
def _check_readable(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse (JournalError, the connection closed) a file that is not a journal this controller reads."""
    try:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{path}: not a journal (SQLite: {exc})") from exc
        if not tables:
            raise JournalError(f"{path}: an empty file, not a journal (no controller has written to it)")
        if version > SCHEMA_VERSION:
            raise JournalError(f"{path}: journal schema {version} is newer than this controller's {SCHEMA_VERSION}")
        missing = {"events", "hands", "boots"} - tables
        if missing:
            raise JournalError(f"{path}: not a journal (no table {', '.join(sorted(missing))})")
    except JournalError:
        conn.close()
        raise


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


class Journal:
    """An open journal file. Not thread-safe by design: the controller thread alone writes.

    `history()` and friends may be called from another process (`croupier history`) while the
    controller runs: WAL readers never block the writer.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, tail: tuple[int, str] = (0, "")) -> None:
        self._conn = conn
        self._cursor = conn.cursor()  # a reading's insert, BEGIN and COMMIT: no cursor made for each
        self.path = path
        self._owner = threading.get_ident()
        # the last event's id and chain (read once, at `open` for writing), and where to go back to on a rollback
        self._tail = tail
        self._committed: tuple[int, str] | None = None  # the tail when the open transaction began
        self._before_insert: tuple[int, str] = self._tail  # the tail before the last `insert`
        self._unchecked = 0  # commits since the last checkpoint
        self.quiet_after = QUIET_CHECKPOINT_COMMITS  # commits before a quiet moment's checkpoint is due
        # the column holding each hand's history line (NULL in its place in a journal of schema 3 or older read-only)
        self._line = "line" if "line" in _columns(conn, "hands") else "NULL"

    @classmethod
    def open(cls, state_dir: str | Path, *, readonly: bool = False) -> Journal:
        """Open (creating it unless `readonly`) the journal in `state_dir`.

        Raises JournalError when the directory or file cannot be used.
        """
        directory = Path(state_dir)
        path = directory / JOURNAL_FILE
        if directory.exists() and not directory.is_dir():
            raise JournalError(f"{directory}: not a directory (the state directory holds the journal)")
        if path.is_dir():
            raise JournalError(f"{path}: a directory, not a journal file")
        try:
            if readonly:
                if not path.exists():
                    raise JournalError(f"no journal at {path}")
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                                       check_same_thread=False)
                _check_readable(conn, path)
            else:
                try:
                    directory.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    blocker = next((p for p in directory.parents if p.exists() and not p.is_dir()), None)
                    why = f"{blocker} is not a directory" if blocker is not None else exc.strerror or str(exc)
                    raise JournalError(f"{directory}: cannot create the state directory: {why}") from exc
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                # Checkpoint every 100 WAL pages (SQLite's default: 1000). Each commit's fsync costs
                # about twice as much while the WAL file grows as once it is reused after a checkpoint
                # (the file's size must be made durable too); a WAL of ~400 KB is full after ~50 events
                # instead of ~500 after every start, and the checkpoints' own writes stay as small.
                conn.execute("PRAGMA wal_autocheckpoint=100")
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise JournalError(f"{path}: journal schema {version} is newer than this controller's "
                                       f"{SCHEMA_VERSION}")
                conn.executescript(_SCHEMA)
                columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
                if version == 1 and "digest" not in columns:  # schema 2: the request's digest beside its id
                    conn.execute("ALTER TABLE events ADD COLUMN digest TEXT")
                if "chain" not in columns:  # schema 3: the chain, computed once over the old events
                    add_chain(conn)
                mark_form2(conn)  # schema 5: the events from the next one on chained in form 2 (`service/chain.py`)
                if "line" not in _columns(conn, "hands"):  # schema 4: each hand's history line, NULL on the old ones
                    conn.execute("ALTER TABLE hands ADD COLUMN line TEXT")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                row = conn.execute("SELECT id, chain FROM events ORDER BY id DESC LIMIT 1").fetchone()
                return cls(conn, path, (int(row[0]), str(row[1] or "")) if row else (0, ""))
        except sqlite3.Error as exc:
            raise JournalError(f"{path}: {exc}") from exc
        return cls(conn, path)

    def close(self) -> None:
        self._conn.close()

    # -- writing ----------------------------------------------------------------------------------

    def begin(self, hand: int, kind: str, body: Mapping[str, Any], ts: float, req: str | None = None,
              digest: str | None = None) -> int:
        """Open a transaction and write one event in it; return the event's id. `digest` (with `req`)
        is the request's digest, kept to tell a re-sent request from another under the same id.

        Nothing is durable until `commit()`; `rollback()` forgets the event. Raises JournalError, and
        DuplicateRequest (no transaction left open, nothing written) when `req` is already journaled.
        """
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._committed = self._tail
            text = _dumps(body)
            last_id, last_chain = self._tail
            event_id, chain = last_id + 1, link(last_chain, last_id + 1, hand, ts, kind, text, req)
            if req is None:
                self._conn.execute(_INSERT, (event_id, hand, ts, kind, text, None, chain))
            else:  # the duplicate check rides on the insert (no SELECT of its own)
                cur = self._conn.execute(_INSERT_NEW_REQ, (event_id, hand, ts, kind, text, req, digest, chain, req))
                if cur.rowcount == 0:
                    self.rollback()
                    raise DuplicateRequest(req)
        except sqlite3.Error as exc:
            self.rollback()
            raise JournalError(f"{self.path}: cannot write event {kind}: {exc}") from exc
        self._tail = (event_id, chain)
        return event_id

    def begin_batch(self) -> None:
        """Open a transaction for several events (`insert`). Raises JournalError."""
        try:
            self._cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot begin a transaction: {exc}") from exc
        self._committed = self._tail

    def insert(self, hand: int, kind: str, body: Mapping[str, Any], ts: float) -> int:
        """Write one event inside the open batch, with no savepoint of its own (a device reading:
        the table applies it or it is `forget`-ten and journaled as refused). Raises JournalError."""
        event_id, last_chain = self._tail  # the last event's id and chain (the previous chain in memory)
        event_id += 1
        try:
            text = _dumps(body)  # made once: the row's body and the chain's text
            chain = link(last_chain, event_id, hand, ts, kind, text, None)
            self._cursor.execute(_INSERT_READING, (event_id, hand, ts, kind, text, chain))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot write event {kind}: {exc}") from exc
        self._before_insert, self._tail = self._tail, (event_id, chain)
        return event_id

    def forget(self, event_id: int) -> None:
        """Take back an event `insert`ed in the open batch (nothing else was written with it). Raises JournalError."""
        if event_id != self._tail[0]:
            raise JournalError(f"{self.path}: cannot take back event {event_id}: it is not the last one written")
        try:
            self._conn.execute("DELETE FROM events WHERE id=?", (event_id,))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot take back event {event_id}: {exc}") from exc
        self._tail = self._before_insert

    def close_hand(self, hand: int, game: str, status: str, event_id: int, ts: float,
                   record: Mapping[str, Any], line: HistoryLine | None = None) -> None:
        """Record a finished hand inside the open transaction (the one of the closing event), with its
        history line (`history.closed_line`; None: made from the record when read).

        Raises JournalError when the hand is already closed (the caller rolls back).
        """
        try:
            self._conn.execute("INSERT INTO hands(hand, game, status, closed_event, ts, record, line) "
                               "VALUES (?,?,?,?,?,?,?)", (hand, game, status, event_id, ts, _dumps(record),
                                                          None if line is None else _dumps(line)))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot close hand {hand}: {exc}") from exc

    def fill_lines(self, lines: Mapping[int, HistoryLine]) -> None:
        """Write the history lines of hands closed without one (`history.backfill_lines`), in one
        transaction. Raises JournalError."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany("UPDATE hands SET line=? WHERE hand=? AND line IS NULL",
                                   [(_dumps(line), hand) for hand, line in lines.items()])
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise JournalError(f"{self.path}: cannot write the hands' history lines: {exc}") from exc

    def commit(self) -> None:
        """Make the open transaction durable. Raises JournalError."""
        try:
            self._cursor.execute("COMMIT")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: commit failed: {exc}") from exc
        self._committed = None
        self._unchecked += 1

    def checkpoint_due(self) -> float:
        """Seconds of quiet after which `checkpoint()` has work (inf until `quiet_after` commits since the last)."""
        return QUIET_CHECKPOINT_S if self._unchecked >= self.quiet_after else float("inf")

    def checkpoint(self) -> None:
        """In a quiet moment (no card, no request waiting): copy the WAL's commits into the database
        (PASSIVE: it waits for no reader), so the next commits reuse the WAL from its start and no
        card's commit pays for a checkpoint of its own (`wal_autocheckpoint` stays the safety net of
        an endless stream). A failure leaves the WAL as it is: logged, never raised (nothing is lost)."""
        if self._unchecked < self.quiet_after or self._conn.in_transaction:
            return
        try:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as exc:
            log.warning("%s: checkpoint failed (the WAL keeps the events): %s", self.path, exc)
        self._unchecked = 0

    def rollback(self) -> None:
        """Forget the open transaction (and the chain's tail goes back to the last committed event)."""
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
        if self._committed is not None:
            self._tail, self._committed = self._committed, None

    def append(self, hand: int, kind: str, body: Mapping[str, Any], ts: float, req: str | None = None,
               digest: str | None = None) -> int:
        """Write one event durably (committed, fsynced) and return its id. Raises JournalError."""
        event_id = self.begin(hand, kind, body, ts, req, digest)
        self.commit()
        return event_id

    def append_close(self, hand: int, kind: str, body: Mapping[str, Any], ts: float, req: str | None,
                     game: str, status: str, record: Mapping[str, Any], line: HistoryLine | None = None) -> int:
        """Write the event that closes `hand` and the hand's record (and history line) in one transaction.

        Raises JournalError (the hand is already closed: nothing is written).
        """
        event_id = self.begin(hand, kind, body, ts, req)
        try:
            self.close_hand(hand, game, status, event_id, ts, record, line)
        except BaseException:
            self.rollback()
            raise
        self.commit()
        return event_id

    def record_boot(self, boot: str, ts: float) -> None:
        """Note a start of the controller."""
        self._conn.execute("INSERT INTO boots(boot, ts) VALUES (?, ?)", (boot, ts))

    # -- reading ----------------------------------------------------------------------------------

    @staticmethod
    def _event(row: tuple[Any, ...]) -> Event:
        return Event(id=row[0], hand=row[1], ts=row[2], kind=row[3], body=json.loads(row[4]), req=row[5])

    def resume(self) -> Resume:
        """The last `open` event and every event to replay after it (see the module docstring).

        Raises JournalError when the file cannot be read (damaged pages, a body that is not JSON).
        """
        try:
            return self._resume()
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: cannot read the events to replay: {exc}") from exc

    def _resume(self) -> Resume:
        conn = self._conn
        row = conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE kind='open' "
                           "ORDER BY id DESC LIMIT 1").fetchone()
        open_event = self._event(row) if row else None
        last = conn.execute("SELECT hand, closed_event FROM hands ORDER BY hand DESC LIMIT 1").fetchone()
        last_hand, last_close = (last[0], last[1]) if last else (0, 0)
        start = max(last_close, open_event.id if open_event else 0)
        rows = conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE id > ? ORDER BY id",
                            (start,)).fetchall()
        return Resume(open_event, last_hand, tuple(self._event(r) for r in rows))

    def sensors(self) -> dict[str, bool]:
        """Each sensor's state as its last journaled `sensor` event left it (none yet: absent)."""
        rows = self._conn.execute("SELECT json_extract(body, '$.name'), json_extract(body, '$.active') FROM events "
                                  "WHERE id IN (SELECT MAX(id) FROM events WHERE kind='sensor' "
                                  "GROUP BY json_extract(body, '$.name'))").fetchall()
        return {str(name): bool(active) for name, active in rows if name is not None}

    def find_request(self, req: str) -> Event | None:
        """The event that a dealer request id was journaled with, if any, with the request's digest
        (None for an event journaled before digests were kept)."""
        row = self._conn.execute("SELECT id, hand, ts, kind, body, req, digest FROM events WHERE req=? LIMIT 1",
                                 (req,)).fetchone()
        if not row:
            return None
        return Event(id=row[0], hand=row[1], ts=row[2], kind=row[3], body=json.loads(row[4]), req=row[5],
                     digest=row[6])

    def open_before(self, event_id: int) -> Event | None:
        """The last `open` event journaled before event `event_id`: what a hand that closed at
        `event_id` was played under (a table is opened only between hands)."""
        row = self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE kind='open' AND id < ? "
                                 "ORDER BY id DESC LIMIT 1", (event_id,)).fetchone()
        return self._event(row) if row else None

    def chains(self, event_ids: list[int]) -> dict[int, str]:
        """The stored chain of each of `event_ids` that has one (a hand's closing event: its chain head)."""
        out: dict[int, str] = {}
        for at in range(0, len(event_ids), 500):
            part = event_ids[at:at + 500]
            rows = self._conn.execute(f"SELECT id, chain FROM events WHERE id IN ({','.join('?' * len(part))})",
                                      part).fetchall()
            out.update({int(r[0]): str(r[1]) for r in rows if r[1]})
        return out

    def opens_for(self, first: int, last: int) -> list[Event]:
        """The `open` events that hands closed at events `first`..`last` were played under, oldest
        first: the last one before `first` and every one between (a page of hands reads each once)."""
        before = self._conn.execute("SELECT max(id) FROM events WHERE kind='open' AND id < ?", (first,)).fetchone()
        rows = self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE kind='open' AND id >= ? "
                                  "AND id < ? ORDER BY id", (before[0] or first, last)).fetchall()
        return [self._event(r) for r in rows]

    def table_events(self, after: int, limit: int, scan: int) -> tuple[list[Event], int, bool]:
        """At most `limit` `open`, `close`, `player`, `rating` and `dealer` events among the (at most `scan`) events with ids above
        `after`, oldest first; the id read up to (ask again from there); and whether events wait after
        it. `scan` bounds the rows read, as a first page of a long journal would read it all (the
        kinds are not indexed but `open`'s). Raises JournalError."""
        try:
            top = self._conn.execute("SELECT max(id) FROM events").fetchone()
            newest = max(after, int(top[0] or 0))
            upto = min(newest, after + scan)
            rows = self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE id > ? AND id <= ? "
                                      "AND kind IN ('open', 'close', 'player', 'rating', 'dealer') ORDER BY id LIMIT ?",
                                      (after, upto, limit)).fetchall()
            events = [self._event(r) for r in rows]
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: cannot read the open, close, player and dealer events: {exc}") from exc
        if len(events) == limit:
            return events, events[-1].id, True
        return events, upto, upto < newest

    def hand_events(self, hand: int) -> list[Event]:
        """Every event journaled for one hand number, in order."""
        rows = self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE hand=? ORDER BY id",
                                  (hand,)).fetchall()
        return [self._event(r) for r in rows]

    def hands(self, last: int | None = None) -> list[HandRow]:
        """Finished hands, oldest first; the last `last` of them when given.

        Raises JournalError when the file cannot be read (damaged pages, a record that is not JSON).
        """
        sql = "SELECT hand, game, status, closed_event, ts, record FROM hands ORDER BY hand DESC"
        try:
            rows = self._conn.execute(sql + (" LIMIT ?" if last is not None else ""),
                                      (last,) if last is not None else ()).fetchall()
            return [HandRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in reversed(rows)]
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: cannot read the finished hands: {exc}") from exc

    def last_hands_shown(self, last: int) -> list[dict[str, Any]]:
        """The `last_hand` of the last `last` finished hands that journaled one (house games: the
        players' screen's last hands), oldest first. Raises JournalError."""
        sql = ("SELECT json_extract(record, '$.last_hand') FROM hands "
               "WHERE json_type(record, '$.last_hand') = 'object' ORDER BY hand DESC LIMIT ?")
        try:
            rows = self._conn.execute(sql, (last,)).fetchall()
            return [json.loads(r[0]) for r in reversed(rows)]
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: cannot read the finished hands: {exc}") from exc

    def lines_after(self, after: int, limit: int) -> list[ClosedLine]:
        """The history lines of at most `limit` finished hands numbered above `after`, oldest first.
        Raises JournalError."""
        return self._lines("WHERE hand > ? ORDER BY hand LIMIT ?", (after, limit))

    def lines_newest(self, limit: int) -> list[ClosedLine]:
        """The history lines of the last `limit` finished hands, oldest first. Raises JournalError."""
        return self._lines("ORDER BY hand DESC LIMIT ?", (limit,))[::-1]

    def lines_missing(self, limit: int) -> list[HandRow]:
        """At most `limit` finished hands closed without a history line, oldest first. Raises JournalError."""
        return [c.row for c in self._lines(f"WHERE {self._line} IS NULL ORDER BY hand LIMIT ?", (limit,))
                if c.row is not None]

    def _lines(self, where: str, args: tuple[int, ...]) -> list[ClosedLine]:
        """Each hand's line decoded, or its row (with the record) when it has none."""
        sql = (f"SELECT hand, game, status, closed_event, ts, {self._line}, "
               f"CASE WHEN {self._line} IS NULL THEN record END FROM hands {where}")
        try:
            return [ClosedLine(r[0], r[3], json.loads(r[5]), None) if r[5] is not None else
                    ClosedLine(r[0], r[3], None, HandRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[6])))
                    for r in self._conn.execute(sql, args).fetchall()]
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: cannot read the finished hands: {exc}") from exc

    def last_hold(self, before: int | None = None) -> Event | None:
        """The last `hold` event (with an id below `before`, when given), or None (`tables/hold.py`)."""
        return self.last_of("hold", before)

    def last_of(self, kind: str, before: int | None = None) -> Event | None:
        """The last event of `kind` (with an id below `before`, when given), or None (a hold, a chip set)."""
        row = self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE kind = ? AND id < ? "
                                 "ORDER BY id DESC LIMIT 1", (kind, before if before is not None else 2**62)).fetchone()
        return self._event(row) if row else None

    def seated_before(self, before: int | None = None) -> list[Event]:
        """The `player`, `rating`, `dealer` and `close` events with an id below `before` (all when None), in order:
        who sat and dealt at the table (`tables/players.py`)."""
        rows = self._conn.execute(f"SELECT id, hand, ts, kind, body, req FROM events WHERE {_SEATED} AND id < ? ORDER BY id",
                                  (before if before is not None else 2**62,))
        return [self._event(row) for row in rows]

    def events(self, since: int = 0) -> Iterator[Event]:
        """Every event with id > since, in order."""
        for row in self._conn.execute("SELECT id, hand, ts, kind, body, req FROM events WHERE id > ? ORDER BY id",
                                      (since,)):
            yield self._event(row)

    def integrity_records(self, kind: str = "journal_integrity") -> set[int]:
        """What the journaled faults of `kind` (`journal_integrity`: events; `audit_integrity`: the audit log's
        entries) name as `record`: breaks already faulted."""
        rows = self._conn.execute("SELECT json_extract(body, '$.record') FROM events WHERE kind='fault' "
                                  "AND json_extract(body, '$.kind')=?", (kind,)).fetchall()
        return {int(r[0]) for r in rows if isinstance(r[0], int)}

    def verify_chain(self, after: int = 0) -> ChainBreak | None:
        """The first event after event `after` that the chain does not vouch for (its stored chain
        differs from the one its text and the previous event's chain give, it has none, or ids are
        missing before it), or None when every one checks. Each event is checked against the
        previous event's stored chain, so a break is found where it is and the events after it
        still check. Reads every event once. Raises JournalError when the file cannot be read."""
        try:
            found = first_break(self._conn, after)
        except sqlite3.OperationalError as exc:
            if "chain" in str(exc):
                return ChainBreak(0, "", "the journal has no chain (written before schema 3, opened read-only)")
            raise JournalError(f"{self.path}: cannot read the events to check their chain: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: cannot read the events to check their chain: {exc}") from exc
        return None if found is None else ChainBreak(*found)

    def boots(self) -> list[tuple[str, float]]:
        return [(r[0], r[1]) for r in self._conn.execute("SELECT boot, ts FROM boots ORDER BY id")]
