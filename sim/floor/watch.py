"""What `croupier floor-sim` sees of the pit it feeds: the pit's floor snapshot (every table online, every closed hand archived) and its floor feed (each update's lag after the table's publish, gaps).

The lag book (`LagBook`) is kept by a watcher on a thread (`FloorWatch`) or in a process of its
own (`sim.watch_process`); either way a table's publish time and the floor feed's arrival time are
read off CLOCK_MONOTONIC, which on Linux is one clock for every process of the machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import msgpack
import zmq

from protocol.curve import ClientKeys


def floor_snapshot(ctx: zmq.Context[Any], endpoint: str, timeout_s: float = 5.0,
                   keys: ClientKeys | None = None) -> dict[str, dict[str, Any]] | None:
    """Every table's state as the pit's floor snapshot gives it (by name), or None when the pit does not
    answer (nor does a CURVE pit to a key it does not let in). `keys`: a client key and the pit's public one."""
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    if keys is not None:
        keys.apply(dealer)
    dealer.connect(endpoint)
    try:
        dealer.send(msgpack.packb({"want": "snapshot"}))
        tables: dict[str, dict[str, Any]] = {}
        while dealer.poll(int(timeout_s * 1000)):
            message = msgpack.unpackb(dealer.recv(), raw=False)
            if message.get("kind") == "end":
                return tables
            tables[str(message.get("table"))] = message
        return None
    finally:
        dealer.close(0)


def all_online(view: Mapping[str, Mapping[str, Any]] | None, names: list[str]) -> bool:
    return view is not None and all(view.get(name, {}).get("online") for name in names)


def all_archived(view: Mapping[str, Mapping[str, Any]] | None, last: Mapping[str, int]) -> bool:
    """Whether the pit says every table's closed hands up to `last[name]` are archived."""
    return view is not None and all((view.get(name, {}).get("archived") or 0) >= hand for name, hand in last.items())


FLOOR_HEAD = frozenset(("table", "boot", "seq", "kind", "floor_seq"))


def floor_head(body: bytes, unpacker: msgpack.Unpacker | None = None) -> dict[str, Any]:
    """The keys of a floor-feed message the watcher needs (table, boot, seq, kind, floor_seq), the other
    values skipped undecoded (a whole state after the pit's snapshot of a table; a step's changes are
    small). `unpacker`: one to reuse (each message is read to its end, nothing left in it)."""
    return _walk(body, unpacker or msgpack.Unpacker(raw=False))


def _walk(body: bytes, unpacker: msgpack.Unpacker) -> dict[str, Any]:
    unpacker.feed(body)
    head: dict[str, Any] = {}
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key in FLOOR_HEAD:
            head[key] = unpacker.unpack()
        else:
            unpacker.skip()
    return head


class LagBook:
    """Each update's lag from its table's publish (noted) to its arrival on the floor feed, in either
    order (`early`: with the notes passed on in batches, an update can arrive before its note), the
    notes never matched, and the floor_seq gaps."""

    def __init__(self, early: bool = False) -> None:
        self.sent: dict[tuple[str, str, int], int] = {}  # (table, boot, seq) -> when published (ns)
        self.early: dict[tuple[str, str, int], int] | None = {} if early else None  # -> when it arrived
        self.lags_ns: list[int] = []
        self.received = self.gaps = 0
        self._floor_seq: int | None = None

    def note(self, table: str, boot: str, seq: int, at_ns: int) -> None:
        key = (table, boot, seq)
        came = self.early.pop(key, None) if self.early is not None else None
        if came is None:
            self.sent[key] = at_ns
        else:
            self.received += 1
            self.lags_ns.append(came - at_ns)

    def arrived(self, head: Mapping[str, Any], now_ns: int, counting: bool = True) -> None:
        floor_seq = head.get("floor_seq")
        if self._floor_seq is not None and isinstance(floor_seq, int) and floor_seq != self._floor_seq + 1:
            self.gaps += 1
        self._floor_seq = floor_seq if isinstance(floor_seq, int) else None
        if head.get("kind") not in ("changes", "update"):
            return
        key = (head.get("table"), head.get("boot"), head.get("seq"))
        at = self.sent.pop(key, None)  # type: ignore[arg-type]  # a key of anything never matches
        if at is not None:
            self.received += 1
            self.lags_ns.append(now_ns - at)
        elif self.early is not None and counting:
            self.early[key] = now_ns  # type: ignore[index]

    def report(self) -> dict[str, Any]:
        lags = sorted(self.lags_ns)

        def ms(q: float) -> float | None:
            return round(lags[min(len(lags) - 1, int(len(lags) * q))] / 1e6, 2) if lags else None

        return {"received": self.received, "missing": len(self.sent), "floor_gaps": self.gaps,
                "lag_p50_ms": ms(0.5), "lag_p99_ms": ms(0.99), "lag_max_ms": ms(1.0)}


def floor_sub(ctx: zmq.Context[Any], listen: str, keys: ClientKeys | None) -> zmq.Socket[Any]:
    """A SUB on the pit's floor feed, every topic, no high-water mark."""
    sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    if keys is not None:
        keys.apply(sub)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(listen)
    return sub


class FloorWatch(threading.Thread):
    """Subscribes to the pit's floor feed on a thread of the tables' process; `published(table, boot,
    seq)` notes each update the tables send; `report()` gives the lags, the updates never seen on the
    floor feed, and the floor_seq gaps. It shares the tables' GIL: `croupier floor-sim --watch` runs
    `sim.watch_process.WatchProcess` instead (the same book, in a process of its own)."""

    def __init__(self, ctx: zmq.Context[Any], listen: str, keys: ClientKeys | None = None) -> None:
        """`keys`: a client key and the pit's public one, for a pit whose floor feed is CURVE."""
        super().__init__(name="floor-watch", daemon=True)
        self.sub = floor_sub(ctx, listen, keys)
        self.book = LagBook()
        self.sent = self.book.sent
        self.counting = False
        self.heard = False  # a first message from the pit came: the subscription reached its XPUB
        self._done = threading.Event()

    def published(self, table: str, boot: str, seq: int) -> None:
        """Note an update about to be sent (called before the send: noted after it, the pit, in another
        process, can pass the update on and this thread read it first, under load, so it would never match)."""
        if self.counting:
            self.book.note(table, boot, seq, time.monotonic_ns())

    def run(self) -> None:
        while not self._done.is_set():
            if not self.sub.poll(100):
                continue
            while True:
                try:
                    _, body = self.sub.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                now = time.monotonic_ns()
                self.heard = True
                self.book.arrived(floor_head(body), now)

    def stop(self) -> None:
        self._done.set()
        self.join(5)
        self.sub.close(0)

    def report(self) -> dict[str, Any]:
        return self.book.report()


class FloorView(threading.Thread):
    """The pit's floor snapshot taken every `every_s` on its own thread (`latest`), so that the tables'
    thread keeps answering the pit's requests while a snapshot of a thousand tables is read."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, every_s: float, keys: ClientKeys | None = None) -> None:
        super().__init__(name="floor-view", daemon=True)
        self.ctx, self.endpoint, self.every_s, self.keys = ctx, endpoint, every_s, keys
        self.latest: dict[str, dict[str, Any]] | None = None
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.latest = floor_snapshot(self.ctx, self.endpoint, 5.0, self.keys) or self.latest
            self._done.wait(self.every_s)

    def stop(self) -> None:
        self._done.set()
        self.join(10)
