"""The pit view fed by a pit aggregator: the floor's web process follows `croupier pit`'s floor feed and snapshot and hands every table to the `PitHub`.

With `[web] pit` and `pit_snapshot` (`docs/floor.md`) one thread follows the pit's floor feed
(`floor/feed.py`, `docs/floor.md` "The floor feed") by the clone pattern floor-wide: its SUB
subscribes to every topic, then a DEALER asks the floor snapshot for every table and its marker;
the messages queued meanwhile whose `floor_seq` is not above the marker's are dropped, a gap in
`floor_seq` (a message lost, or a pit restarted: its `floor_seq` starts again) takes a new snapshot.
The pit's word on each table stands: an `update` is the table's whole state, `changes` what changed
in it since (applied here to the table's state, `protocol.feed.apply_changes`: the hub gets the
whole state as an `update`, as from the table itself), `offline` / `online`
its flag, `removed` (a `croupier pit reload` that dropped it) takes its tile away, and a table new in
the pit (added by a reload) appears with its first message. A tournament's clock the pit relays
(`[[pit.tournaments]]`) is no table: it is left out (it has `/tournament`). A pit silent for 3 of its heartbeats
(the floor feed sends one whenever it sent nothing for `pit_heartbeat_s`) has every table shown
offline until it answers a snapshot again. With `pit_server_key` both sockets are CURVE clients
with the process's `key`; without it they are plaintext, which the configuration allows only on
loopback or ipc.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import msgpack
import zmq

from floor.web.config import WebConfig
from floor.web.hub import PitHub
from protocol.curve import ClientKeys, client_keys
from protocol.feed import HEADER, apply_changes, unpack

log = logging.getLogger("croupier.pit.web")

SILENT_BEATS = 3
"""The pit's heartbeats of silence after which every table is shown offline."""

FLOOR_KEYS = frozenset((*HEADER, "online", "floor_seq", "archived"))
"""The keys the pit puts on a table's messages beside its state."""


def table_state(message: Mapping[str, Any]) -> dict[str, Any]:
    """The table's state a floor snapshot or update carries: the message less the pit's keys."""
    return {k: v for k, v in message.items() if k not in FLOOR_KEYS}


def is_clock(message: Mapping[str, Any]) -> bool:
    """Whether a floor message is a tournament director's clock (`[[pit.tournaments]]`: the director's view,
    its `tournament` named, no `game`), which has a page of its own (`/tournament`), not a table's tile."""
    return isinstance(message.get("tournament"), str) and "game" not in message


def apply_snapshot(pit: PitHub, states: list[dict[str, Any]]) -> None:
    """The floor snapshot: every table's state (a table the pit has not heard yet has none: offline), and
    the tables the pit no longer follows gone."""
    pit.pit_answers(True)
    names = set()
    for state in states:
        if is_clock(state):
            continue
        name = str(state.get("table"))
        names.add(name)
        pit.publish(name, {**state, "kind": "update", "online": bool(state.get("online"))})
    for name in [n for n in pit.names if n not in names]:
        pit.remove(name)


def apply_message(pit: PitHub, message: Mapping[str, Any]) -> None:
    """One message of the floor feed, as the pit says it."""
    kind, name = message.get("kind"), message.get("table")
    if not isinstance(name, str):
        return  # the floor's own heartbeat
    if kind == "update":
        if is_clock(message):
            pit.remove(name)  # shown as a table until its first state said otherwise (never heard yet)
        else:
            pit.publish(name, message)
    elif kind in ("offline", "online"):
        pit.set_online(name, kind == "online")
    elif kind == "removed":
        pit.remove(name)


def pit_silent(pit: PitHub) -> None:
    pit.pit_answers(False)
    for name in pit.names:
        pit.set_online(name, False)


class FloorFollower(threading.Thread):
    """The thread following the pit's floor feed; hands what it hears to `pit` on `loop`."""

    def __init__(self, pit: PitHub, loop: asyncio.AbstractEventLoop, feed: str, snapshot: str, heartbeat_s: float,
                 keys: ClientKeys | None = None) -> None:
        super().__init__(name="pit-web-floor-feed", daemon=True)
        self.pit = pit
        self.loop = loop
        self.feed = feed
        self.snapshot = snapshot
        self.silent_s = SILENT_BEATS * heartbeat_s
        self.keys = keys
        self.stopping = threading.Event()
        self.snapshots = 0  # snapshots taken (the first, then after each gap, restart or silence)
        self.tables: dict[str, dict[str, Any]] = {}  # each table's state, as the floor feed left it (this thread's)

    @classmethod
    def from_config(cls, cfg: WebConfig, pit: PitHub, loop: asyncio.AbstractEventLoop) -> FloorFollower | None:
        """The follower of `[web] pit`, or None without one. Raises ValueError (a bad key file)."""
        if cfg.pit is None or cfg.pit_snapshot is None:
            return None
        keys = client_keys(cfg.key, cfg.pit_server_key) if cfg.pit_server_key is not None else None
        return cls(pit, loop, cfg.pit, cfg.pit_snapshot, cfg.pit_heartbeat_s, keys)

    def _hand(self, call: Callable[..., None], *args: Any) -> bool:
        try:
            self.loop.call_soon_threadsafe(call, self.pit, *args)
            return True
        except RuntimeError:  # the loop has closed: the process is ending
            return False

    def _socket(self, ctx: zmq.Context[Any], kind: int, endpoint: str) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        if self.keys is not None:
            self.keys.apply(sock)
        if kind == zmq.SUB:
            sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.connect(endpoint)
        return sock

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        try:
            sub = self._socket(ctx, zmq.SUB, self.feed)
            try:
                while not self.stopping.is_set():
                    taken = self._take_snapshot(ctx)
                    if taken is None:
                        if not self._hand(pit_silent):
                            return
                        continue
                    ended = self._follow(sub, taken)
                    if ended == "end" or (ended == "silent" and not self._hand(pit_silent)):
                        return
            finally:
                sub.close(0)
        except Exception:  # a reader never dies quietly: say why, the tiles go offline
            log.exception("pit web: following the pit's floor feed %s failed", self.feed)
        finally:
            ctx.destroy(linger=0)

    def _take_snapshot(self, ctx: zmq.Context[Any]) -> int | None:
        """Ask the floor snapshot for every table; hand them over. Returns the marker's `floor_seq`, or None
        when the pit did not answer within its silence."""
        dealer = self._socket(ctx, zmq.DEALER, self.snapshot)
        try:
            dealer.send(msgpack.packb({"want": "snapshot"}, use_bin_type=True))
            states: list[dict[str, Any]] = []
            deadline = time.monotonic() + self.silent_s
            while not self.stopping.is_set():
                if not dealer.poll(max(1, min(250, int((deadline - time.monotonic()) * 1000)))):
                    if time.monotonic() >= deadline:
                        log.warning("pit web: the pit's floor snapshot %s did not answer: every table offline",
                                    self.snapshot)
                        return None
                    continue
                try:
                    message = unpack(dealer.recv())
                except ValueError as exc:
                    log.warning("pit web: a bad floor snapshot frame: %s", exc)
                    continue
                if message.get("kind") == "end":
                    self.snapshots += 1
                    self.tables = {str(m.get("table")): table_state(m) for m in states}
                    self._hand(apply_snapshot, states)
                    return int(message.get("floor_seq") or 0)
                states.append(message)
            return None
        finally:
            dealer.close(0)

    def _follow(self, sub: zmq.Socket[Any], seq: int) -> str:
        """Follow the floor feed from the snapshot's marker `seq` until a new snapshot is needed: returns
        "gap" (a message lost, a restarted pit), "silent" (the pit's silence), or "end" (the process ends)."""
        heard = time.monotonic()
        live = False  # past the messages queued before the snapshot
        while not self.stopping.is_set():
            if not sub.poll(250):
                if time.monotonic() - heard > self.silent_s:
                    log.warning("pit web: the pit's floor feed %s is silent: every table offline", self.feed)
                    return "silent"
                continue
            frames = sub.recv_multipart()
            heard = time.monotonic()
            try:
                message = unpack(frames[-1])
                floor_seq = int(message["floor_seq"])
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("pit web: a bad floor feed frame: %s", exc)
                continue
            if floor_seq <= seq:
                if live:
                    log.warning("pit web: floor_seq %d after %d: the pit restarted, its snapshot asked", floor_seq, seq)
                    return "gap"
                continue  # queued before the snapshot, which holds it
            if floor_seq != seq + 1:
                log.warning("pit web: floor_seq %d after %d: a gap, the pit's snapshot asked", floor_seq, seq)
                return "gap"
            seq, live = floor_seq, True
            whole = self._whole(message)
            if whole is None:
                log.warning("pit web: changes for a table the pit's snapshot did not hold: its snapshot asked")
                return "gap"
            if not self._hand(apply_message, whole):
                return "end"
        return "end"

    def _whole(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """A table's `changes` applied to its state and handed on as its whole state (an `update`), an
        `update` kept as its state, other messages as they are; None for changes to a table with no state."""
        kind, name = message.get("kind"), message.get("table")
        if not isinstance(name, str):
            return message
        if kind == "update":
            self.tables[name] = table_state(message)
        elif kind == "changes":
            state = self.tables.get(name)
            if state is None:
                return None
            try:
                self.tables[name] = state = apply_changes(state, message)
            except TypeError:
                return None
            return {**{k: message[k] for k in FLOOR_KEYS if k in message}, **state, "kind": "update"}
        elif kind == "removed":
            self.tables.pop(name, None)
        return message

    def stop(self) -> None:
        self.stopping.set()


def pit_source(cfg: WebConfig, loop: asyncio.AbstractEventLoop) -> tuple[PitHub, FloorFollower | None]:
    """The pit view's hub and, with `[web] pit`, the follower of the pit aggregator that feeds it; without, a hub
    for the tables followed here (`[[web.tables]]`)."""
    if cfg.pit is None:
        return PitHub(cfg.tables), None
    pit = PitHub((), source="pit")
    return pit, FloorFollower.from_config(cfg, pit, loop)
