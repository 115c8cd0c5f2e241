"""The floor feed the pit serves: an XPUB with each table's name as topic, heartbeats, and a snapshot ROUTER (the clone pattern, floor-wide).

Frames (all bodies msgpack maps; `docs/floor.md`, "Pit aggregator"):

    XPUB   [b"uth-07/", {"table", "boot", "seq", "kind": "changes", "set": {...}, "del": [...], "online": true, "floor_seq": N}]
    XPUB   [b"uth-07/", {"table", "boot", "seq", "kind": "update", ...state, "online": true, "floor_seq": N}]
    XPUB   [b"uth-07/", {"table", "boot", "seq", "kind": "offline" | "online" | "removed", "online": bool, "floor_seq": N}]
    XPUB   [b"*",      {"kind": "heartbeat", "floor_seq": N, "tables": T, "online": K}]
    ROUTER <- {"want": "snapshot"} or {"want": "snapshot", "prefix": "uth-"}
           -> one frame per table whose name starts with the prefix: {"kind": "snapshot", "table", "boot",
              "seq", "online", "floor_seq", "archived", ...state}, then {"kind": "end", "floor_seq": N, "tables": T}

`floor_seq` rises by one at every message the XPUB sends (heartbeats included): a floor-wide
subscriber that sees a gap takes a new snapshot, and drops queued messages not above the marker's.
A table's `changes` are the table's own (`protocol/feed.py`), applied to the state its snapshot or its
last `update` on the floor feed gave (`protocol.feed.apply_changes`); the pit sends an `update` (the
whole state) after each snapshot it takes of the table.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgpack
import zmq

from protocol.feed import FeedError, unpack
from protocol.keys import KeyPair, serve_curve

log = logging.getLogger("croupier.pit")

_MORE = int(zmq.SNDMORE)

FLOOR_TOPIC = b"*"
"""The topic of the floor's own messages (heartbeats): subscribe to it beside a table's name to hear the pit."""


@functools.lru_cache(maxsize=8192)
def table_topic(table: str) -> bytes:
    """A table's topic on the floor feed: its name and `/`, so that subscribing to `uth-1/` is that
    table alone (ZeroMQ matches by prefix: `uth-1` alone would take `uth-10` too), `uth-` a game's."""
    return table.encode() + b"/"


class FloorFeed:
    """The publishing side, owned by the pit's poller thread."""

    def __init__(self, ctx: zmq.Context[Any], listen: str, snapshot: str, heartbeat_s: float,
                 clock: Callable[[], float] = time.monotonic, keys: KeyPair | None = None) -> None:
        """Bind both sockets (CURVE servers under ZAP domains `floor` and `floor_snapshot` when `keys`
        are given and the endpoint is TCP: `floorcurve`). Raises FeedError (an address in use, a bad endpoint)."""
        self.heartbeat_s = heartbeat_s
        self.seq = 0
        self._ctx, self._listen, self._keys = ctx, listen, keys
        self._clock = clock
        self._last_sent = clock()
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self.held: list[tuple[bytes, bytes]] | None = None
        """When a list, messages are gathered there until `flush()` (the pit's poller sends a turn's at once:
        ZeroMQ's I/O thread is woken once for them, not once a message: a third of the CPU a message)."""
        self.guard: Callable[[str, zmq.Frame], bool] | None = None  # may a snapshot request be answered
        self.pub: zmq.Socket[Any] = ctx.socket(zmq.XPUB)
        self.snap: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
        for sock, endpoint, domain in ((self.pub, listen, "floor"), (self.snap, snapshot, "floor_snapshot")):
            self._bind(sock, endpoint, domain)

    def _bind(self, sock: zmq.Socket[Any], endpoint: str, domain: str, tries: int = 1) -> None:
        sock.setsockopt(zmq.LINGER, 0)
        # before the bind: a subscriber's pipe takes the HWM it finds when it connects; and the snapshot's
        # ROUTER sends a frame a table, which past its HWM (1,000 by default) it drops: the marker with them
        sock.setsockopt(zmq.SNDHWM, 200000)
        serve_curve(sock, endpoint, self._keys, domain)
        for attempt in range(tries):
            try:
                sock.bind(endpoint)
                return
            except zmq.ZMQError as exc:
                if attempt + 1 == tries or exc.errno != zmq.EADDRINUSE:
                    self.close()
                    raise FeedError(f"cannot bind floor socket {endpoint}: {exc}") from exc
                time.sleep(0.01)  # the closed socket's port is released by ZeroMQ's I/O thread

    def reopen(self, domain: str) -> None:
        """Close the XPUB (`floor`) and bind it again: every subscriber is cut, reconnects and is checked
        by the ZAP handler again (a revoked key is not let back in); the others see a gap in
        `floor_seq` and take a new floor snapshot. Another domain: nothing to do."""
        if domain != "floor":
            return
        self.pub.close(0)
        self.pub = self._ctx.socket(zmq.XPUB)
        self._bind(self.pub, self._listen, "floor", tries=200)

    def publish(self, table: str, message: dict[str, Any]) -> int:
        """Send one table's message (its `floor_seq` set here). Returns the floor seq."""
        self.seq += 1
        message["floor_seq"] = self.seq
        self._send(table_topic(table), self._pack(message))
        return self.seq

    def _send(self, topic: bytes, body: bytes) -> None:
        if self.held is not None:
            self.held.append((topic, body))
        else:
            self.pub.send(topic, _MORE)  # two sends, not send_multipart: its flags cost at 9,000 a second
            self.pub.send(body)
        self._last_sent = self._clock()

    def flush(self) -> int:
        """Send what `held` gathered, at once. Returns how many messages."""
        held, send = self.held or [], self.pub.send
        for topic, body in held:
            send(topic, _MORE)
            send(body)
        count = len(held)
        held.clear()
        return count

    def beat_due(self, now: float) -> bool:
        """Whether nothing went out for `heartbeat_s` (`tick` would send a heartbeat)."""
        return now - self._last_sent >= self.heartbeat_s

    def tick(self, tables: int, online: int, now: float | None = None) -> bool:
        """A heartbeat when nothing went out for `heartbeat_s`. Returns whether one was sent."""
        now = self._clock() if now is None else now
        if now - self._last_sent < self.heartbeat_s:
            return False
        self.seq += 1
        self._send(FLOOR_TOPIC, self._pack({"kind": "heartbeat", "floor_seq": self.seq, "tables": tables,
                                            "online": online}))
        self._last_sent = now
        return True

    def drain_subscriptions(self) -> int:
        """Read the subscription messages the XPUB queues (so they never pile up). Returns how many."""
        read = 0
        while True:
            try:
                self.pub.recv(zmq.NOBLOCK)
            except zmq.Again:
                return read
            read += 1

    def serve_snapshots(self, states: Callable[[str], Iterable[Mapping[str, Any] | bytes]]) -> int:
        """Answer every pending snapshot request: `states(prefix)` gives the tables' snapshot maps (a map
        gets `kind` set to "snapshot"; bytes are a snapshot frame made already, sent as they are).
        A malformed request is logged and answered with the marker alone. Returns how many were answered."""
        served = 0
        while True:
            try:
                frames = self.snap.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return served
            if self.guard is not None and not self.guard("floor_snapshot", frames[-1]):
                continue  # a key revoked since it connected: nothing more for it
            envelope, prefix = [f.bytes for f in frames[:-1]], ""
            try:
                request = unpack(frames[-1].bytes)
                prefix = request.get("prefix") or ""
                if not isinstance(prefix, str):
                    raise ValueError(f"prefix must be a string, not {prefix!r}")
            except ValueError as exc:
                log.warning("floor snapshot: a malformed request: %s", exc)
                prefix = "\0"  # matches no table
            count = 0
            for state in states(prefix):
                frame = state if isinstance(state, bytes) else self._pack({**state, "kind": "snapshot"})
                self.snap.send_multipart([*envelope, frame])
                count += 1
            self.snap.send_multipart([*envelope, self._pack({"kind": "end", "floor_seq": self.seq, "tables": count})])
            served += 1

    def close(self) -> None:
        self.pub.close(0)
        self.snap.close(0)
