"""The pit's catch-up: closed hands fetched over each table's command channel (`history`, role pit, pages of 100) on a worker thread, handed to the archive's sink.

Per table the worker asks for the hands after the sink's last one until `more` is false, so a pit
that was down, or a table that was offline, catches up with no gap; then for the table's open and
close events the same way (`floor/events.py`: the figures' open time). A catch-up that fails is not
left to the table's next closed hand (a table gone quiet may close none for hours): the table is
tried again on a timer, with backoff (`RETRY_FIRST_S` doubling to `RETRY_MAX_S`). While the archive
is down one table probes it on that timer and the others wait; the first catch-up the archive takes
again sends every waiting table through at once. Without `[pit] db` the sink is
`CountingSink`: it keeps in memory only each table's last hand and count (and counts any hole in
the numbers, which the tests assert is none).
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from engine.ratings import SessionReport
from floor.config import PitTable
from floor.events import EventFetcher, SinkFailed
from protocol.history import HistoryLine, TableEvent
from protocol.commands import CommandClient

log = logging.getLogger("croupier.pit")

PAGE = 100
"""Hands a `history` request asks for (the table's cap)."""


RETRY_FIRST_S = 0.5
"""The wait before a failed catch-up is tried again; doubled at each failure in a row, up to `RETRY_MAX_S`."""

RETRY_MAX_S = 15.0

CLIENTS_KEPT = 256
"""The tables' command channels kept connected between catch-ups, the most recently used (a DEALER is two
descriptors: 5,000 tables' would be 10,000); a table past them connects again at its next catch-up."""


class CatchUpError(RuntimeError):
    """The archive cannot be used: its module is missing, or it refused to start."""


class ArchiveDown(RuntimeError):
    """The sink refused a read or a write (its server down, say): the table's hands wait for it."""


class HandSink(Protocol):
    """Where closed hands go: the archive (`floor.archive.Archive`) or a counter."""

    def last_hand(self, table: str) -> int:
        """The highest hand number kept for `table` (0 for none)."""
        ...

    def write(self, table: str, records: list[HistoryLine]) -> int:
        """Keep `records` (each a `croupier history --json` line; idempotent). Returns how many."""
        ...

    def last_event(self, table: str) -> int:
        """The highest open / close event id kept for `table` (0 for none: floor/events.py)."""
        ...

    def write_events(self, table: str, events: list[TableEvent]) -> int:
        """Keep a table's open, close, player and dealer events (idempotent). Returns how many."""
        ...

    def rate(self, table: str) -> list[SessionReport]:
        """Fold what is kept of `table` into its rating sessions and dealer shifts (idempotent). Returns the sessions written."""
        ...


class CountingSink:
    """No archive: each table's last hand and count, in memory; a hand number out of turn is a gap."""

    def __init__(self) -> None:
        self.last: dict[str, int] = {}
        self.count: dict[str, int] = {}
        self.gaps: dict[str, int] = {}
        self.events: dict[str, int] = {}  # table -> the last open / close event id

    def last_hand(self, table: str) -> int:
        return self.last.get(table, 0)

    def write(self, table: str, records: list[HistoryLine]) -> int:
        for record in records:
            hand = int(record["hand"])
            if hand != self.last.get(table, 0) + 1:
                self.gaps[table] = self.gaps.get(table, 0) + 1
            self.last[table] = hand
            self.count[table] = self.count.get(table, 0) + 1
        return len(records)

    def last_event(self, table: str) -> int:
        return self.events.get(table, 0)

    def write_events(self, table: str, events: list[TableEvent]) -> int:
        self.events[table] = max([self.events.get(table, 0), *(int(e["event"]) for e in events)])
        return len(events)

    def rate(self, table: str) -> list[SessionReport]:
        return []  # no archive, no ratings kept: each table's own journal has them (`croupier ratings --state`)


def archive_sink(dsn: str, pit: str | None = None) -> HandSink:
    """The archive at `dsn` (`floor.archive`), its rows written as pit `pit`'s. Raises
    CatchUpError when that module or psycopg is missing, or the archive cannot be opened."""
    try:
        module = importlib.import_module("floor.archive")
    except ImportError as exc:
        raise CatchUpError(f"[pit] db is set but the archive cannot be loaded ({exc}): install the `floor` "
                           f"extra (pip install 'croupier[floor]') with floor/archive.py") from None
    try:
        sink: HandSink = module.Archive(dsn, pit=pit)
    except Exception as exc:  # the archive's own errors (ArchiveError) and psycopg's
        raise CatchUpError(f"[pit] db: the archive cannot be opened: {exc}") from None
    return sink


class CatchUp:
    """The worker thread: tables asked for by `want(name)` are caught up one at a time, in order asked;
    a table whose catch-up failed is tried again on a timer (see the module's docstring)."""

    def __init__(self, ctx: zmq.Context[Any], sink: HandSink,
                 keys_for: Callable[[PitTable], tuple[str | None, str | None]], timeout_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ctx = ctx
        self.sink = sink
        self.keys_for = keys_for
        self.timeout_s = timeout_s
        self.tables: dict[str, PitTable] = {}  # replaced whole by set_tables (the poller thread's list)
        self.archived: dict[str, int] = {}  # table -> the last hand the sink holds (read by the poller thread)
        self.failures = 0
        self.clock = clock
        self._retry: dict[str, tuple[float, float]] = {}  # table -> (when it is tried again, the wait used); this thread's
        self._archive_retry: tuple[float, float] | None = None  # the archive down: (its next probe, the wait used)
        self._waiting: dict[str, None] = {}  # tables whose hands wait for the archive, in order (this thread's)
        self._next: deque[str] = deque()  # tables to do before the queue's (the archive back); this thread's
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._asked: set[str] = set()
        self._lock = threading.Lock()
        # this thread's only, the one used last at the end (`CLIENTS_KEPT` of them at most)
        self._clients: OrderedDict[str, tuple[PitTable, CommandClient]] = OrderedDict()
        self.events = EventFetcher()  # the tables' open and close events, after their hands (this thread's)
        self.on_rated: Callable[[list[SessionReport]], object] | None = None  # the rating events' feed (this thread's)
        self._thread = threading.Thread(target=self._run, name="pit-catch-up", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def set_tables(self, tables: dict[str, PitTable]) -> None:
        self.tables = dict(tables)

    def want(self, name: str) -> None:
        """Ask for `name` to be caught up (once, however often asked before the worker gets to it)."""
        with self._lock:
            if name in self._asked:
                return
            self._asked.add(name)
        self._queue.put(name)

    def stop(self) -> bool:
        """Ask the worker to end and wait for it (a request in flight: its timeout). Returns whether it ended."""
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(self.timeout_s * 2)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            name = self._due()
            if name is None:
                try:
                    name = self._queue.get(timeout=self._wait())
                except queue.Empty:
                    continue
                if name is None:
                    break
                with self._lock:
                    self._asked.discard(name)  # asked again from now on: queued again
            self._attempt(name)
        for _, client in self._clients.values():
            client.close()

    def _wait(self) -> float | None:
        """Seconds until the next retry is due (None: none waits)."""
        dues = [due for due, _ in self._retry.values()]
        if self._archive_retry is not None:
            dues.append(self._archive_retry[0])
        return max(0.0, min(dues) - self.clock()) if dues else None

    def _due(self) -> str | None:
        """The table to try now ahead of the queue: one the archive's return let through, the archive's
        probe, or a table whose retry is due."""
        if self._next:
            return self._next.popleft()
        now = self.clock()
        if self._archive_retry is not None and self._archive_retry[0] <= now and self._waiting:
            return next(iter(self._waiting))
        due = min(((when, name) for name, (when, _) in self._retry.items() if when <= now), default=None)
        return due[1] if due is not None else None

    def _attempt(self, name: str) -> None:
        """Catch `name` up now, or note when to try again; a worker never dies."""
        now = self.clock()
        if self._archive_retry is not None and self._archive_retry[0] > now:
            self._waiting[name] = None  # the archive is down and not due for a probe: wait with the rest
            self._retry.pop(name, None)
            return
        try:
            self.catch_up(name)
        except ArchiveDown as exc:
            self.failures += 1
            self._retry.pop(name, None)
            self._waiting[name] = None
            wait = min(RETRY_MAX_S, self._archive_retry[1] * 2) if self._archive_retry else RETRY_FIRST_S
            self._archive_retry = (now + wait, wait)
            log.warning("catch-up of %s: %s (the archive tried again in %.1f s, %d tables waiting)", name, exc,
                        wait, len(self._waiting))
        except Exception as exc:  # the table does not answer, refuses, or the reply is bad
            self.failures += 1
            held = self._retry.get(name)
            wait = min(RETRY_MAX_S, held[1] * 2) if held else RETRY_FIRST_S
            self._retry[name] = (now + wait, wait)
            log.warning("catch-up of %s: %s (tried again in %.1f s)", name, exc, wait)
        else:
            self._retry.pop(name, None)
            self._waiting.pop(name, None)
            if self._archive_retry is not None:  # the archive is back: every table waiting for it, now
                log.warning("the archive is back: catching up %d tables", len(self._waiting))
                self._archive_retry = None
                self._next.extend(self._waiting)
                self._waiting.clear()

    def _client(self, table: PitTable) -> CommandClient:
        held = self._clients.get(table.name)
        if held is not None and held[0] == table:
            self._clients.move_to_end(table.name)
            return held[1]
        if held is not None:
            held[1].close()
            del self._clients[table.name]
        while len(self._clients) >= CLIENTS_KEPT:  # the least recently used closed: the descriptors stay bounded
            self._clients.popitem(last=False)[1][1].close()
        key, server_key = self.keys_for(table)
        client = CommandClient(self.ctx, table.commands, timeout_s=self.timeout_s, name=f"pit{os.getpid()}",
                               key=key, server_key=server_key)
        self._clients[table.name] = (table, client)
        return client

    def catch_up(self, name: str) -> int:
        """Fetch and hand over every closed hand of `name` after the sink's last. Returns how many.
        Raises TimeoutError (the table does not answer), RuntimeError (a refused request), ArchiveDown (the sink's
        errors: the hands written stay written)."""
        table = self.tables.get(name)
        if table is None:  # removed by a reload
            held = self._clients.pop(name, None)
            if held is not None:
                held[1].close()
            return 0
        client = self._client(table)
        try:
            after, fetched = self.sink.last_hand(name), 0
        except Exception as exc:  # the archive's errors (ArchiveError) and whatever a sink raises
            raise ArchiveDown(str(exc)) from exc
        while True:
            reply = client.request("history", after=after, limit=PAGE)
            if not reply.get("ok"):
                raise RuntimeError(f"history refused ({reply.get('code')}): {reply.get('error')}")
            hands = reply["hands"]
            if hands:
                try:
                    self.sink.write(name, hands)
                except Exception as exc:
                    raise ArchiveDown(str(exc)) from exc
                fetched += len(hands)
            after = int(reply["last"])
            self.archived[name] = after
            if not reply["more"]:
                break
        try:
            self.events.fetch(client, self.sink, name)
        except SinkFailed as exc:
            raise ArchiveDown(str(exc)) from exc
        try:
            rated = self.sink.rate(name)  # the ratings folded from what was just archived
        except Exception as exc:  # the archive's errors (ArchiveError) and whatever a sink raises
            raise ArchiveDown(str(exc)) from exc
        if self.on_rated is not None and rated:
            try:
                self.on_rated(rated)
            except Exception:  # the feed's failure is never the archive's
                log.exception("the rating events of %s", name)
        return fetched
