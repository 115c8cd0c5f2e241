"""`croupier floor-sim --watch`'s watcher in a process of its own: it reads the pit's floor feed, the tables' process passes it a note of each update it publishes, and it gives back the lags.

The tables' process notes each update's (table, boot, seq, CLOCK_MONOTONIC ns before the send) and
passes the notes on in batches (one msgpack list a batch of steps) on a PUSH socket to this
process's PULL (ipc, in a directory of its own). CLOCK_MONOTONIC is system-wide on Linux: every
process of the machine reads the same clock, so a note taken in the tables' process and an arrival
read here subtract to the lag. A batch can come after the pit passed its updates on: an arrival with
no note yet waits for it (`LagBook(early=True)`). The watcher has a GIL of its own: on a thread of
the tables' process it slowed their sends (a `Socket.send` releases the GIL, and took it back only
when the watcher gave it up), so the lag it measured was partly floor-sim's own.

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

from firmware_host.service.curve import ClientKeys
from firmware_host.sim.floor_watch import LagBook, floor_head, floor_sub


class WatchProcess:
    """The tables' side: `published(table, boot, seq)` notes an update (while `counting`), `flush()`
    passes the notes on, `heard` says the watcher heard the pit's floor feed; `finish(grace_s)` then
    `done()` until the report is in, `report()` (received, missing, floor_gaps, lag p50/p99/max)."""

    def __init__(self, ctx: zmq.Context[Any], listen: str, keys: ClientKeys | None = None) -> None:
        self._dir = tempfile.mkdtemp(prefix="croupier-watch-")
        endpoint = f"ipc://{self._dir}/notes"
        spawn = multiprocessing.get_context("spawn")
        self._conn, child_end = spawn.Pipe(duplex=False)
        self.process = spawn.Process(target=watch_main, args=(listen, endpoint, child_end, keys),
                                     name="floor-watch", daemon=True)
        self.process.start()
        child_end.close()
        self._push: zmq.Socket[Any] = ctx.socket(zmq.PUSH)
        self._push.setsockopt(zmq.SNDHWM, 0)
        self._push.setsockopt(zmq.LINGER, 5000)
        self._push.connect(endpoint)  # queued until the child has bound its PULL
        self._notes: list[Any] = []  # table, boot, seq, ns, table, boot, seq, ns, ...
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self.counting = False
        self._heard = False
        self._report: dict[str, Any] | None = None

    def published(self, table: str, boot: str, seq: int) -> None:
        """Note an update about to be sent (before the send: the pit may pass it on before it returns)."""
        if self.counting:
            self._notes += (table, boot, seq, time.monotonic_ns())

    def flush(self) -> None:
        """Pass the notes taken so far on to the watcher."""
        if self._notes:
            self._push.send(self._pack(["notes", self._notes]))
            self._notes = []

    @property
    def heard(self) -> bool:
        """Whether the watcher heard the pit's floor feed (its subscription reached the pit's XPUB)."""
        self._read()
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
        self._push.send(self._pack(["finish", grace_s]))

    def done(self) -> bool:
        """Whether the report is in (or the watcher is gone)."""
        self._read()
        if self._report is None and not self.process.is_alive():
            self._read()
            if self._report is None:
                self._report = {"error": "the watcher process ended without a report"}
        return self._report is not None

    def report(self, timeout_s: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while not self.done() and time.monotonic() < deadline:
            self._conn.poll(0.1)
        return self._report if self._report is not None else {"error": "no report from the watcher process"}

    def stop(self) -> None:
        self._push.close(0)
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        self._conn.close()
        shutil.rmtree(self._dir, ignore_errors=True)


def watch_main(listen: str, notes: str, parent: Connection, keys: ClientKeys | None) -> None:
    """The watcher process: the floor feed and the notes read into one `LagBook` until told to finish
    (and every note matched, or the grace is over), then the report sent to the parent."""
    ctx: zmq.Context[Any] = zmq.Context()
    sub = floor_sub(ctx, listen, keys)
    pull: zmq.Socket[Any] = ctx.socket(zmq.PULL)
    pull.setsockopt(zmq.LINGER, 0)
    pull.bind(notes)
    poller = zmq.Poller()
    poller.register(sub, zmq.POLLIN)
    poller.register(pull, zmq.POLLIN)
    book, heard, finish_at, ppid = LagBook(early=True), False, None, os.getppid()
    unpacker = msgpack.Unpacker(raw=False)
    try:
        # one message a socket a poll: a poll of two sockets costs less than asking a socket for its
        # events (pyzmq makes an enum of them) or trying it until zmq.Again (an exception)
        while finish_at is None or (book.sent and time.monotonic() < finish_at):
            if os.getppid() != ppid:
                return  # the tables' process is gone: nobody to report to
            for sock, _ in poller.poll(100):
                if sock is pull:
                    finish_at = _take_notes(pull.recv(), book, finish_at)
                    continue
                sub.recv()  # the topic (the pit's floor messages are two frames: topic, body)
                body = sub.recv()
                now = time.monotonic_ns()
                if not heard:
                    parent.send({"kind": "heard"})
                    heard = True
                book.arrived(floor_head(body, unpacker), now)
        parent.send({"kind": "report", **book.report()})
    except (BrokenPipeError, EOFError):
        return
    finally:
        sub.close(0)
        pull.close(0)
        ctx.term()
        parent.close()


def _take_notes(frame: bytes, book: LagBook, finish_at: float | None) -> float | None:
    kind, body = msgpack.unpackb(frame, raw=False)
    if kind == "notes":
        for i in range(0, len(body), 4):
            book.note(body[i], body[i + 1], body[i + 2], body[i + 3])
    elif kind == "finish":
        finish_at = time.monotonic() + float(body)
    return finish_at
