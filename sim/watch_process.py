"""`croupier floor-sim --watch`'s watcher in a process of its own: it reads the pit's floor feed, the tables' process passes it a note of each update it publishes, and it gives back the lags.

The tables' process notes each update's (table, boot, seq, CLOCK_MONOTONIC ns before the send) and
passes the notes on in batches (one msgpack list a batch of steps) on a PUB socket of its own (ipc,
in a directory of its own, topic `NOTES`, no high-water mark) that the watcher's one SUB connects to
beside the pit's floor feed: one socket read with a blocking `recv` costs about half a poll of two
(a wake-up per message at the soak's rate). Its subscription is in before play (`heard`: the
watcher heard both), and `finish` is sent again until the report comes.

CLOCK_MONOTONIC is system-wide on Linux: every process of the machine reads the same clock, so a
note taken in the tables' process and an arrival read here subtract to the lag. A batch can come
after the pit passed its updates on: an arrival with no note yet waits for it (`LagBook(early=True)`).
The watcher has a GIL of its own: on a thread of the tables' process it slowed their sends (a
`Socket.send` releases the GIL, and took it back only when the watcher gave it up), so the lag it
measured was partly floor-sim's own.

With `--processes K` the tables play in K processes of their own (`sim.floor_split`), each noting its
updates on a `NotesPub` of its own: the watcher's SUB connects to each of them too (`sources`), and
it says it heard the notes once a hello came from every one.

The child is started with multiprocessing's "spawn" context (a fresh interpreter: no fork of a
process holding a ZeroMQ context) and ends when told to finish, or when its parent is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any

import msgpack
import zmq

from protocol.curve import ClientKeys
from sim.floor.watch import LagBook, floor_head, floor_sub


NOTES = b"\x00notes"
"""The topic of the notes on the watcher's SUB (the pit's topics are table names and `*`)."""


class NotesPub:
    """Where a process playing tables notes its updates for the watcher: a PUB bound on ipc in a
    directory of its own (`endpoint`); `published` notes an update while `counting`, `flush` passes the
    notes on, `hello` says this source is there (the watcher counts one from each)."""

    def __init__(self, ctx: zmq.Context[Any], source: str = "tables") -> None:
        self.source = source
        self._dir = tempfile.mkdtemp(prefix="croupier-watch-")
        self.endpoint = f"ipc://{self._dir}/notes"
        self._pub: zmq.Socket[Any] = ctx.socket(zmq.PUB)
        self._pub.setsockopt(zmq.SNDHWM, 0)
        self._pub.setsockopt(zmq.LINGER, 5000)
        self._pub.bind(self.endpoint)
        self._notes: list[Any] = []  # table, boot, seq, ns, table, boot, seq, ns, ...
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self.counting = False

    def published(self, table: str, boot: str, seq: int) -> None:
        """Note an update about to be sent (before the send: the pit may pass it on before it returns)."""
        if self.counting:
            self._notes += (table, boot, seq, time.monotonic_ns())

    def flush(self) -> None:
        """Pass the notes taken so far on to the watcher."""
        if self._notes:
            self.send("notes", self._notes)
            self._notes = []

    def hello(self) -> None:
        self.send("hello", self.source)

    def send(self, kind: str, body: Any) -> None:
        self._pub.send(NOTES, zmq.SNDMORE)
        self._pub.send(self._pack([kind, body]))

    def close(self) -> None:
        self._pub.close(0)
        shutil.rmtree(self._dir, ignore_errors=True)


class WatchProcess(NotesPub):
    """The tables' side: `published(table, boot, seq)` notes an update (while `counting`), `flush()`
    passes the notes on, `heard` says the watcher heard the pit's floor feed and the notes (from this
    side and from every one of `sources`, other processes' `NotesPub` endpoints); `finish(grace_s)`
    then `done()` until the report is in, `report()` (received, missing, floor_gaps, lag p50/p99/max)."""

    def __init__(self, ctx: zmq.Context[Any], listen: str, keys: ClientKeys | None = None,
                 sources: tuple[str, ...] = ()) -> None:
        super().__init__(ctx)
        spawn = multiprocessing.get_context("spawn")
        self._conn, child_end = spawn.Pipe(duplex=False)
        self.process = spawn.Process(target=watch_main, args=(listen, (self.endpoint, *sources), child_end, keys),
                                     name="floor-watch", daemon=True)
        self.process.start()
        child_end.close()
        self._heard = False
        self._finish: float | None = None
        self._report: dict[str, Any] | None = None

    @property
    def heard(self) -> bool:
        """Whether the watcher heard the pit's floor feed and this side's notes (a hello sent until then)."""
        self._read()
        if not self._heard:
            self.hello()
        return self._heard

    def _read(self) -> None:
        while self._report is None and self._conn.poll(0):
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                self._report = {"error": "the watcher process ended without a report"}
                return
            if message.get("kind") == "heard":
                self._heard = True
            elif message.get("kind") == "report":
                self._report = {k: v for k, v in message.items() if k != "kind"}

    def finish(self, grace_s: float) -> None:
        """No more notes: the watcher waits up to `grace_s` for the updates not yet seen, then reports."""
        self.counting = False
        self.flush()
        self._finish = grace_s
        self.send("finish", grace_s)

    def done(self) -> bool:
        """Whether the report is in (or the watcher is gone); `finish` said again meanwhile (the watcher
        takes the first it reads)."""
        self._read()
        if self._report is None and not self.process.is_alive():
            self._read()
            if self._report is None:
                self._report = {"error": "the watcher process ended without a report"}
        if self._report is None and self._finish is not None:
            self.send("finish", self._finish)
        return self._report is not None

    def report(self, timeout_s: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while not self.done() and time.monotonic() < deadline:
            self._conn.poll(0.1)
        return self._report if self._report is not None else {"error": "no report from the watcher process"}

    def stop(self) -> None:
        self._pub.close(0)
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        self._conn.close()
        self.close()


class _Watcher:
    """The watcher process's state: the lag book, whether it heard the floor and the notes, when to stop."""

    def __init__(self, parent: Connection, sources: int = 1) -> None:
        self.parent = parent
        self.sources = sources  # the notes' sources to hear a hello from
        self.hellos: set[str] = set()
        self.book = LagBook(early=True)
        self.floor = self.notes = self.said_heard = False
        self.finish_at: float | None = None
        self.unpacker = msgpack.Unpacker(raw=False)

    def running(self) -> bool:
        return self.finish_at is None or (bool(self.book.sent) and time.monotonic() < self.finish_at)

    def take(self, topic: bytes, body: bytes, now_ns: int) -> None:
        if topic == NOTES:
            kind, items = msgpack.unpackb(body, raw=False)
            if kind == "hello":
                self.hellos.add(str(items))
                self.notes = len(self.hellos) >= self.sources
            elif kind == "notes":
                for i in range(0, len(items), 4):
                    self.book.note(items[i], items[i + 1], items[i + 2], items[i + 3])
            elif kind == "finish" and self.finish_at is None:
                self.finish_at = time.monotonic() + float(items)
        else:
            self.floor = True
            self.book.arrived(floor_head(body, self.unpacker), now_ns)
        if self.floor and self.notes and not self.said_heard:
            self.parent.send({"kind": "heard"})
            self.said_heard = True


def watch_main(listen: str, notes: tuple[str, ...], parent: Connection, keys: ClientKeys | None) -> None:
    """The watcher process: the floor feed and the notes (from every endpoint of `notes`), on one SUB,
    read into one `LagBook` until told to finish (and every note matched, or the grace is over); then
    the report sent to the parent."""
    ctx: zmq.Context[Any] = zmq.Context()
    sub = floor_sub(ctx, listen, keys)  # every topic: the floor's, and NOTES
    for endpoint in notes:
        sub.connect(endpoint)
    sub.setsockopt(zmq.RCVTIMEO, 250)  # to look at the parent and the grace when nothing comes
    watcher, ppid = _Watcher(parent, len(notes)), os.getppid()
    try:
        while watcher.running():
            if os.getppid() != ppid:
                return  # the tables' process is gone: nobody to report to
            try:
                topic = sub.recv()
            except zmq.Again:
                continue
            body = sub.recv()  # every message here is two frames: the topic, the body
            watcher.take(topic, body, time.monotonic_ns())
        parent.send({"kind": "report", **watcher.book.report()})
    except (BrokenPipeError, EOFError):
        return
    finally:
        sub.close(0)
        ctx.term()
        parent.close()
