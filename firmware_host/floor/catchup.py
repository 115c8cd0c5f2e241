"""The pit's catch-up: closed hands fetched over each table's command channel (`history`, role pit, pages of 100) on a worker thread, handed to the archive's sink.

Per table the worker asks for the hands after the sink's last one until `more` is false, so a pit
that was down, or a table that was offline, catches up with no gap. Without `[pit] db` the sink is
`CountingSink`: it keeps in memory only each table's last hand and count (and counts any hole in
the numbers, which the tests assert is none).
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from firmware_host.floor.config import PitTable
from firmware_host.service.commands import CommandClient

log = logging.getLogger("croupier.pit")

PAGE = 100
"""Hands a `history` request asks for (the table's cap)."""


class CatchUpError(RuntimeError):
    """The archive cannot be used: its module is missing, or it refused to start."""


class HandSink(Protocol):
    """Where closed hands go: the archive (`firmware_host.floor.archive.Archive`) or a counter."""

    def last_hand(self, table: str) -> int:
        """The highest hand number kept for `table` (0 for none)."""
        ...

    def write(self, table: str, records: list[dict[str, Any]]) -> int:
        """Keep `records` (each a `croupier history --json` line; idempotent). Returns how many."""
        ...


class CountingSink:
    """No archive: each table's last hand and count, in memory; a hand number out of turn is a gap."""

    def __init__(self) -> None:
        self.last: dict[str, int] = {}
        self.count: dict[str, int] = {}
        self.gaps: dict[str, int] = {}

    def last_hand(self, table: str) -> int:
        return self.last.get(table, 0)

    def write(self, table: str, records: list[dict[str, Any]]) -> int:
        for record in records:
            hand = int(record["hand"])
            if hand != self.last.get(table, 0) + 1:
                self.gaps[table] = self.gaps.get(table, 0) + 1
            self.last[table] = hand
            self.count[table] = self.count.get(table, 0) + 1
        return len(records)


def archive_sink(dsn: str) -> HandSink:
    """The archive at `dsn` (`firmware_host.floor.archive`). Raises CatchUpError when that module or
    psycopg is missing, or the archive cannot be opened."""
    try:
        module = importlib.import_module("firmware_host.floor.archive")
    except ImportError as exc:
        raise CatchUpError(f"[pit] db is set but the archive cannot be loaded ({exc}): install the `floor` "
                           f"extra (pip install 'croupier[floor]') with firmware_host/floor/archive.py") from None
    try:
        sink: HandSink = module.Archive(dsn)
    except Exception as exc:  # the archive's own errors (ArchiveError) and psycopg's
        raise CatchUpError(f"[pit] db: the archive cannot be opened: {exc}") from None
    return sink


class CatchUp:
    """The worker thread: tables asked for by `want(name)` are caught up one at a time, in order asked."""

    def __init__(self, ctx: zmq.Context[Any], sink: HandSink,
                 keys_for: Callable[[PitTable], tuple[str | None, str | None]], timeout_s: float = 5.0) -> None:
        self.ctx = ctx
        self.sink = sink
        self.keys_for = keys_for
        self.timeout_s = timeout_s
        self.tables: dict[str, PitTable] = {}  # replaced whole by set_tables (the poller thread's list)
        self.archived: dict[str, int] = {}  # table -> the last hand the sink holds (read by the poller thread)
        self.failures = 0
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._asked: set[str] = set()
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[PitTable, CommandClient]] = {}  # this thread's only
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
        while (name := self._queue.get()) is not None:
            with self._lock:
                self._asked.discard(name)  # asked again from now on: queued again
            try:
                self.catch_up(name)
            except Exception as exc:  # a worker never dies: the table is asked for again at its next hand
                self.failures += 1
                log.warning("catch-up of %s: %s", name, exc)
        for _, client in self._clients.values():
            client.close()

    def _client(self, table: PitTable) -> CommandClient:
        held = self._clients.get(table.name)
        if held is not None and held[0] == table:
            return held[1]
        if held is not None:
            held[1].close()
        key, server_key = self.keys_for(table)
        client = CommandClient(self.ctx, table.commands, timeout_s=self.timeout_s, name=f"pit{os.getpid()}",
                               key=key, server_key=server_key)
        self._clients[table.name] = (table, client)
        return client

    def catch_up(self, name: str) -> int:
        """Fetch and hand over every closed hand of `name` after the sink's last. Returns how many.
        Raises TimeoutError (the table does not answer), RuntimeError (a refused request), the sink's errors."""
        table = self.tables.get(name)
        if table is None:  # removed by a reload
            held = self._clients.pop(name, None)
            if held is not None:
                held[1].close()
            return 0
        client = self._client(table)
        after, fetched = self.sink.last_hand(name), 0
        while True:
            reply = client.request("history", after=after, limit=PAGE)
            if not reply.get("ok"):
                raise RuntimeError(f"history refused ({reply.get('code')}): {reply.get('error')}")
            hands = reply["hands"]
            if hands:
                self.sink.write(name, hands)
                fetched += len(hands)
            after = int(reply["last"])
            self.archived[name] = after
            if not reply["more"]:
                return fetched
