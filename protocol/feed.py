"""The table's feed: changes to the public state on PUB, snapshots for late joiners, the full state's changes on a restricted socket.

Wire format (written once, here; `docs/feed.md` repeats it for integrators). Every message is one
ZeroMQ frame holding one msgpack map; the ZeroMQ Guide's clone pattern, key-value changes with a
sequence number:

    {"table": str, "boot": str, "seq": int, "kind": "changes", "set": {key: value, ...}, "del": [key, ...],
     "items": {key: [length, [[index, value], ...]], ...}}                      (`items` only when there are)
    {"table": str, "boot": str, "seq": int, "kind": "heartbeat"}
    {"table": str, "boot": str, "seq": int, "kind": "snapshot", ...state}       (the snapshot ROUTER's answer)
    {"table": str, "boot": str, "seq": int, "kind": "update", ...state}         (`changes=False` only)

- `boot` is new at every start of the controller; `seq` is strictly increasing within a boot and
  shared by the public and the full stream (each step goes out on both with the same `seq`).
- `changes` carries the state's top-level keys whose value changed since the message before (`set`,
  each key with its whole new value), the keys gone (`del`), and the lists changed in a few places
  only (`items`: the list's new length and its changed places, `diff`): applied in `seq` order to
  the snapshot they follow, they give the state (`apply_changes`). The state's keys: `game`, `hand`,
  `phase`, `board`, `dealer`, `spots`, `fault`, ... (`docs/feed.md`). On the public stream a face-down
  card is `"??"`: the public changes are taken between two redacted public states, never from the
  full one; burns and undealt cards are never there. On the full stream every card is shown.
- A feed made with `changes=False` (`[feed] changes = false`) sends `update` instead: the whole state
  at every step, for a client that does not follow changes yet. `FeedClient` takes either.
- `heartbeat` carries nothing else; it goes out when nothing else was sent for `heartbeat_s`.
- Snapshot (the clone pattern): a client first subscribes to the PUB socket, then sends any one frame
  (conventionally msgpack `{"want": "snapshot"}`) to the ROUTER snapshot socket with a DEALER or REQ
  socket. The reply is the whole current state with `kind` = `snapshot` and the `seq` of the last
  message published. The client then drops messages whose `seq` is not above it and applies the
  rest in order; a different `boot` means the controller restarted, a `seq` that is not the next one
  that a message was lost: take a new snapshot.
- With the table's CURVE keys every TCP socket is a CURVE server whose ZAP domain is the socket's
  name (`protocol/zap.py` decides who gets in); a PUB socket is closed and bound again to cut a
  revoked key (`Feed.reopen`), which subscribers see as a gap. `docs/security.md`.
- With `[security] full_delay_s` every full-feed message (changes and heartbeats, in order) goes out
  that long after the public one of the same `seq`, and the full snapshot answers with the state and
  `seq` the delayed stream last showed, never ahead of it.
- A client with a key pair connects as a CURVE client (`service.curve`).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack
import zmq

from protocol.config import is_restricted_endpoint
from protocol.curve import client_keys
from protocol.keys import KeyPair, serve_curve


class FeedError(RuntimeError):
    """A feed socket cannot be bound, or a restricted socket is asked for a public address."""


def new_boot() -> str:
    """A fresh boot id: 16 hex digits, different at every start."""
    return os.urandom(8).hex()


HEADER = ("table", "boot", "seq", "kind")
"""The keys of every message's header; the rest of a snapshot or an update is the state."""

_MISSING = object()


def moved(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The keys of state `new` whose value is not the very object it was in `old`: the only ones `diff`
    looks at (a value the same object as before is unchanged: the states' values are never changed in place
    once published). A step moves a few of a state's keys (about 4 of 30 a card).

    >>> phase = "deal"
    >>> moved({"hand": 3, "phase": phase}, {"hand": 3, "phase": phase, "next": "spot 1"})
    ['next']
    """
    return [key for key, value in new.items() if old.get(key, _MISSING) is not value]


def diff(old: Mapping[str, Any], new: Mapping[str, Any], keys: list[str] | None = None) -> dict[str, Any]:
    """The changes from state `old` to state `new`, as a `changes` message's body: `set`, the keys whose
    value is new or changed, with it; `del`, the keys gone; and, when a list changed in a few of its
    places only (a card to one spot of seven, a step appended to the hand's `sequence`), `items`
    instead of the whole list in `set`: key -> `[length, [[index, value], ...]]`. Only the keys `moved`
    are looked at, or `keys` when given: keys of `new` known to hold every moved one (a public state's,
    from the full state's moved keys: `Feed.publish`).

    >>> diff({"hand": 3, "phase": "bets", "fault": None}, {"hand": 3, "phase": "deal", "next": "spot 1"})
    {'set': {'phase': 'deal', 'next': 'spot 1'}, 'del': ['fault']}
    >>> diff({"board": ["2c", "7d", "9h"]}, {"board": ["2c", "7d", "9h", "Ts"]})
    {'set': {}, 'del': [], 'items': {'board': [4, [[3, 'Ts']]]}}
    """
    put: dict[str, Any] = {}
    items: dict[str, Any] = {}
    added = 0
    for key in moved(old, new) if keys is None else keys:
        value, was = new[key], old.get(key, _MISSING)
        if was is _MISSING:
            added += 1
        elif was is value:
            continue
        elif type(value) is list and type(was) is list:
            size = len(was)
            if size < len(value) and value[:size] == was:  # grown at its end only (a step, a card): the new places
                places = [[i, value[i]] for i in range(size, len(value))]
            else:  # each place looked at once, by identity first (a card to one spot of seven)
                places = [[i, item] for i, item in enumerate(value)
                          if i >= size or (was[i] is not item and was[i] != item)]
                if not places and size == len(value):
                    continue  # an equal list
            if 2 * len(places) <= len(value):  # a few places: those alone
                items[key] = [len(value), places]
                continue
        elif was == value:
            continue
        put[key] = value
    # every key of `new` but the `added` ones is one of `old`'s: when they are all of them, none is gone
    body = {"set": put, "del": [] if len(old) == len(new) - added else [key for key in old if key not in new]}
    if items:
        body["items"] = items
    return body


def item_at(items: list[Any], place: int) -> list[Any]:
    """A list's change in `items` when one place of it is new (`apply_changes`): `[its length, [[place, item]]]`.

    >>> item_at(["2c", "7d"], 1)
    [2, [[1, '7d']]]
    """
    return [len(items), [[place, items[place]]]]


def named_changes(last: Mapping[str, Any], new: Mapping[str, Any], keys: list[str], grown: frozenset[str],
                  places: Mapping[str, list[int]]) -> dict[str, Any]:
    """The changes from state `last` to state `new`, a copy of `last` but for the parts of `keys` (those of them it
    holds), each changed as the step that made them says (no looking for them, no whole-list comparison): a key of
    `grown`, a list grown at its end only (its new places in `items`); a key of `places`, a list of the same length
    whose other places are the very items they were (those places in `items`); any other, in `set` unless equal to
    what it was. Applied to `last` they give `new` (`apply_changes`): what `diff` would give, but for a named list's
    places sent where `diff` might send the list whole.

    >>> named_changes({"board": ["2c"], "next": "board", "to_act": None}, {"board": ["2c", "7d"], "next": "spot 1",
    ...               "to_act": None}, ["board", "next"], frozenset({"board"}), {})
    {'set': {'next': 'spot 1'}, 'del': [], 'items': {'board': [2, [[1, '7d']]]}}
    """
    put: dict[str, Any] = {}
    items: dict[str, Any] = {}
    for key in keys:
        value = new.get(key, _MISSING)
        if value is _MISSING:
            continue  # a part of the other state's alone
        was = last.get(key, _MISSING)
        if was is value:
            continue
        if type(value) is list and type(was) is list:
            if key in grown:
                size = len(was)
                items[key] = item_at(value, size) if len(value) == size + 1 \
                    else [len(value), [[i, value[i]] for i in range(size, len(value))]]
                continue
            named = places.get(key)
            if named is not None:  # most often one place (no comprehension made for it)
                items[key] = item_at(value, named[0]) if len(named) == 1 \
                    else [len(value), [[i, value[i]] for i in named]]
                continue
        if was != value:
            put[key] = value
    body = {"set": put, "del": []}
    if items:
        body["items"] = items
    return body


@dataclass(slots=True)
class Named:
    """A step's changes to both states made from the parts it named (`named_changes`), with the states they were
    taken from: `Feed.publish` sends them when those are the very states it sent last, else takes its own."""

    last_public: Mapping[str, Any]
    last_full: Mapping[str, Any]
    public: dict[str, Any]
    full: dict[str, Any]

    def joined(self, public: Mapping[str, Any], full: Mapping[str, Any], keys: tuple[str, ...],
               sizes: tuple[int, int]) -> Named | None:
        """These changes with those of `keys` joined, for states `public` and `full` that were `sizes` keys long when
        the changes were made and have had (only) keys of `keys` put in since (a caller's own parts: the tray's):
        each of them in `set` unless the very or an equal value was there before, in `del` when gone. None when the
        states grew by other keys than those.

        >>> named = Named({"tray": 1}, {"tray": 1}, {"set": {}, "del": []}, {"set": {}, "del": []})
        >>> named.joined({"phase": "deal"}, {"phase": "deal", "tray": 2}, ("tray",), (1, 1)).full
        {'set': {'tray': 2}, 'del': []}
        """
        if any(len(state) - sum(key in state for key in keys) != size for state, size in zip((public, full), sizes)):
            return None
        out = []
        for last, state, changes in ((self.last_public, public, self.public), (self.last_full, full, self.full)):
            put, gone = dict(changes["set"]), list(changes["del"])
            for key in keys:
                value, was = state.get(key, _MISSING), last.get(key, _MISSING)
                if value is _MISSING:
                    if was is not _MISSING:
                        gone.append(key)
                elif was is _MISSING or (was is not value and was != value):
                    put[key] = value
            out.append({**changes, "set": put, "del": gone})
        return Named(self.last_public, self.last_full, out[0], out[1])


def apply_changes(state: Mapping[str, Any], message: Mapping[str, Any]) -> dict[str, Any]:
    """The state after a `changes` message (`diff`'s `set`, `del` and `items`): a new map, and a new
    list for each list changed in places (`state` and its values are left as they were: their holders
    may keep them). Raises TypeError when the message's parts are not as `diff` makes them.

    >>> apply_changes({"hand": 3, "phase": "bets", "fault": None}, {"set": {"phase": "deal"}, "del": ["fault"]})
    {'hand': 3, 'phase': 'deal'}
    >>> apply_changes({"board": ["2c", "7d", "9h"]}, {"set": {}, "del": [], "items": {"board": [4, [[3, "Ts"]]]}})
    {'board': ['2c', '7d', '9h', 'Ts']}
    """
    put, gone, items = message.get("set") or {}, message.get("del") or (), message.get("items") or {}
    if not isinstance(put, dict) or not isinstance(gone, (list, tuple)) or not isinstance(items, dict):
        raise TypeError("a changes message's set and items must be maps and its del a list")
    new = {**state, **put}
    for key in gone:
        new.pop(key, None)
    for key, change in items.items():
        was = new.get(key)
        try:
            size, places = change
            value = was[:size] + [None] * (size - len(was))  # type: ignore[index, arg-type]
            for index, item in places:
                value[index] = item
        except (TypeError, ValueError, IndexError) as exc:
            raise TypeError(f"a changes message's items for {key!r} do not fit the state: {exc}") from exc
        new[key] = value
    return new


def state_of(message: Mapping[str, Any]) -> dict[str, Any]:
    """The state a snapshot or an update carries: the message less its header."""
    return {k: v for k, v in message.items() if k not in HEADER}


def _as_packed(value: Any) -> Any:
    """The feed's strict packer's `default`: a value whose type is not exactly one msgpack packs, as the non-strict
    packer packs it (a list or tuple of any kind as a list, a dict subclass as a dict, a subclass of int, float, text or
    bytes as its base: an enum's value). The same bytes as `pack`, without the isinstance check (a class's MRO walked)
    the non-strict packer makes of every list, ~7,600 instructions a card's two frames (`tests/protocol/test_feed_frames.py`). Raises TypeError as msgpack
    does for anything else."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value) if isinstance(value, bytes) else bytearray(value)
    raise TypeError(f"can not serialize {type(value).__name__!r} object")


def strict_packer() -> Callable[[Any], bytes]:
    """A packer's `pack` (for one thread) with `pack`'s bytes: strict types, the others by `_as_packed`."""
    packed: Callable[[Any], bytes] = msgpack.Packer(use_bin_type=True, strict_types=True, default=_as_packed).pack
    return packed


def pack(message: Mapping[str, Any]) -> bytes:
    packed: bytes = msgpack.packb(message, use_bin_type=True)
    return packed


def unpack(frame: bytes) -> dict[str, Any]:
    """Decode one feed frame. Raises ValueError when it is not a msgpack map."""
    try:
        value = msgpack.unpackb(frame, raw=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise ValueError(f"not a msgpack frame: {exc}") from exc
    if not isinstance(value, dict):
        raise ValueError("feed frame is not a map")
    return value


class Feed:
    """The publishing side, owned by the controller thread (ZeroMQ sockets are not thread-safe)."""

    def __init__(self, ctx: zmq.Context[Any], table: str, *, public: str, snapshot: str, full: str = "",
                 full_snapshot: str = "", heartbeat_s: float = 1.0, boot: str | None = None,
                 clock: Callable[[], float] = time.monotonic, keys: KeyPair | None = None,
                 full_delay_s: float = 0.0, changes: bool = True) -> None:
        """Bind the sockets; with the table's `keys` every TCP one is a CURVE server (its ZAP domain
        the socket's name: bind the ZAP handler first). Raises FeedError (address in use, or a full
        socket not restricted while there are no keys).

        With `full_delay_s` every full-feed message is held back that long (sent by `tick()` once
        due) and the full snapshot answers with the full state as the delayed stream last showed it.
        With `changes` false every step goes out as a whole `update` instead of its `changes`.
        """
        for ep in (full, full_snapshot):
            if ep and not is_restricted_endpoint(ep) and keys is None:
                raise FeedError(f"the full state may only be bound to loopback or ipc without CURVE keys, not {ep!r}")
        self._ctx = ctx
        self._keys = keys
        self._endpoints = {"public": public, "snapshot": snapshot, "full": full, "full_snapshot": full_snapshot}
        self.guard: Callable[[str, zmq.Frame], bool] | None = None  # may a snapshot request be answered
        self.table = table
        self.boot = boot or new_boot()
        self.seq = 0
        self.heartbeat_s = heartbeat_s
        self._clock = clock
        self._last_sent = clock()
        self._public_state: Mapping[str, Any] = {}
        self._full_state: Mapping[str, Any] = {}
        self.full_delay_s = full_delay_s
        # held full-feed messages, oldest first: (due, seq, frame or None for a state alone, full state)
        self._held: deque[tuple[float, int, bytes | None, Mapping[str, Any]]] = deque()
        self._full_shown: tuple[int, Mapping[str, Any]] = (0, {})  # what the delayed stream has shown
        self._pack = strict_packer()  # one packer, reused (this thread only)
        self.changes = changes
        self._sockets: list[zmq.Socket[Any]] = []
        try:
            self.pub = self._bind(zmq.PUB, "public")
            self.snap = self._bind(zmq.ROUTER, "snapshot")
            self.full_pub = self._bind(zmq.PUB, "full") if full else None
            self.full_snap = self._bind(zmq.ROUTER, "full_snapshot") if full_snapshot else None
        except (zmq.ZMQError, FeedError):
            self.close()
            raise

    def _bind(self, kind: int, name: str, tries: int = 1) -> zmq.Socket[Any]:
        endpoint = self._endpoints[name]
        sock: zmq.Socket[Any] = self._ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        if kind == zmq.PUB:
            sock.setsockopt(zmq.SNDHWM, 10000)
        serve_curve(sock, endpoint, self._keys, name)
        self._sockets.append(sock)
        for attempt in range(tries):
            try:
                sock.bind(endpoint)
                return sock
            except zmq.ZMQError as exc:
                if attempt + 1 == tries or exc.errno != zmq.EADDRINUSE:
                    raise FeedError(f"cannot bind feed socket {endpoint}: {exc}") from exc
                time.sleep(0.01)  # the closed socket's port is released by ZeroMQ's I/O thread
        raise FeedError(f"cannot bind feed socket {endpoint}")  # not reached: tries >= 1

    def reopen(self, name: str) -> None:
        """Close PUB socket `name` ("public" or "full") and bind it again: every subscriber is cut,
        reconnects and is checked by the ZAP handler again (a revoked key is not let back in); the
        subscribers that are see a gap in `seq` and take a new snapshot. Raises FeedError."""
        old = self.pub if name == "public" else self.full_pub
        if old is None:
            return
        self._sockets.remove(old)
        old.close(0)
        new = self._bind(zmq.PUB, name, tries=200)
        if name == "public":
            self.pub = new
        else:
            self.full_pub = new

    def snapshot_sockets(self) -> list[zmq.Socket[Any]]:
        """The ROUTER sockets the controller's poller must watch."""
        return [s for s in (self.snap, self.full_snap) if s is not None]

    def _header(self, kind: str) -> dict[str, Any]:
        return {"table": self.table, "boot": self.boot, "seq": self.seq, "kind": kind}

    def publish(self, public: Mapping[str, Any], full: Mapping[str, Any] | None = None, *,
                redacted: bool = False, known: tuple[Mapping[str, Any], list[str]] | None = None,
                named: Named | None = None) -> int:
        """Send one step: what changed in the public state since the last one on the public socket, what
        changed in the full state on the full one (`full` None: the public state is the full one), both
        with the same seq. Returns the seq.

        `redacted`: `public` is `full` redacted part by part (`engine.redact`: each public part made from
        the full part of its key alone, neither changed once made), so a public part can differ from the
        last one only where the full part is not the very object it was: the full state's moved keys are
        found once (`moved`) and the public changes looked for among them alone, still taken between the
        two public states. `known`: the full state's moved keys as the caller found them (its redaction
        did), with the full state they were taken against: taken as they are when that is the very state
        this feed sent last, else found here. `named`: both changes made from the parts the step named (a
        clean card's, `firmware_host/tables/views.py`; the public ones from the redacted public parts), sent
        as they are when taken from the very states this feed sent last, else the changes are found here."""
        self.seq += 1
        full = full if full is not None else public
        # the states are the caller's to give away: kept as they are, never changed here (snapshots
        # answer with them, and the next step's changes are taken against them)
        last_public, last_full = self._public_state, self._full_state
        self._public_state, self._full_state = public, full
        if named is not None and self.changes and named.last_full is last_full and named.last_public is last_public:
            header = self._header("changes")
            self.pub.send(self._pack({**header, **named.public}))
            if self.full_pub is not None:
                self._send_full(self._pack({**header, **named.full}))
            self._last_sent = self._clock()
            return self.seq
        keys = None
        if redacted and self.changes:
            keys = known[1] if known is not None and known[0] is last_full else moved(last_full, full)
        # the public changes: between two redacted states only
        self.pub.send(self._step(last_public, public, None if keys is None else [k for k in keys if k in public]))
        if self.full_pub is not None:
            self._send_full(self._step(last_full, full, keys))
        self._last_sent = self._clock()
        return self.seq

    def _step(self, last: Mapping[str, Any], state: Mapping[str, Any], keys: list[str] | None = None) -> bytes:
        """One step's frame: its changes from `last` (`diff`, looking at `keys` when given), or, without
        `changes`, the whole state."""
        if not self.changes:
            frame: bytes = self._pack({**self._header("update"), **state})
            return frame
        frame = self._pack({**self._header("changes"), **diff(last, state, keys)})
        return frame

    def _send_full(self, frame: bytes | None, now: float | None = None) -> None:
        if not self.full_delay_s:
            if frame is not None and self.full_pub is not None:
                self.full_pub.send(frame)
            return
        now = self._clock() if now is None else now
        self._held.append((now + self.full_delay_s, self.seq, frame, self._full_state))

    def release_due(self, now: float | None = None) -> float:
        """Seconds until the oldest held full-feed message is due (inf when none is held)."""
        if not self._held:
            return float("inf")
        return self._held[0][0] - (self._clock() if now is None else now)

    def next_due(self) -> float:
        """Seconds until `tick()` has something to send: a heartbeat or a held full-feed message."""
        now = self._clock()
        return min(self.heartbeat_due(now), self.release_due(now))

    def release(self, now: float | None = None) -> int:
        """Send the held full-feed messages that are due. Returns how many."""
        now = self._clock() if now is None else now
        sent = 0
        while self._held and self._held[0][0] <= now:
            _, seq, frame, state = self._held.popleft()
            if frame is not None and self.full_pub is not None:
                self.full_pub.send(frame)
                sent += 1
            self._full_shown = (seq, state)
        return sent

    def set_state(self, public: Mapping[str, Any], full: Mapping[str, Any] | None = None) -> None:
        """Set the state snapshots answer with, without publishing: before the first `publish` only (right
        after replay), since the next step's changes are taken against it and a follower that took
        its snapshot before would miss the difference."""
        self._public_state = dict(public)
        self._full_state = dict(full) if full is not None else self._public_state
        self._send_full(None)  # delayed: the full snapshot shows it once due

    def heartbeat_due(self, now: float | None = None) -> float:
        """Seconds until the next heartbeat is due (<= 0: due now)."""
        now = self._clock() if now is None else now
        return self._last_sent + self.heartbeat_s - now

    def tick(self, now: float | None = None) -> bool:
        """Send the held full-feed messages now due, and a heartbeat if nothing went out for
        `heartbeat_s`. Returns whether a heartbeat was sent."""
        if self._held:
            self.release(now)
        if self.heartbeat_due(now) > 0:
            return False
        self.seq += 1
        frame = self._pack(self._header("heartbeat"))
        self.pub.send(frame)
        if self.full_pub is not None:
            self._send_full(frame, now)
        self._last_sent = self._clock() if now is None else now
        return True

    def serve_snapshots(self, sock: zmq.Socket[Any]) -> int:
        """Answer every pending snapshot request on `sock` (without blocking). Returns how many."""
        served = 0
        full = sock is self.full_snap
        head = self._header("snapshot")
        state = self._public_state
        if full:
            state = self._full_state
            if self.full_delay_s:  # never ahead of the delayed stream
                self.release()
                head["seq"], state = self._full_shown
        while True:
            try:
                frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return served
            if self.guard is not None and not self.guard("full_snapshot" if full else "snapshot", frames[-1]):
                continue  # a key revoked since it connected: nothing more for it
            envelope = frames[:-1]  # identity, and the empty delimiter when the client is a REQ
            sock.send_multipart([*envelope, pack({**head, **state})])
            served += 1

    def close(self) -> None:
        for sock in self._sockets:
            sock.close(0)
        self._sockets.clear()


class FeedClient:
    """A subscriber that follows the clone pattern: subscribe, snapshot, then the newer changes applied.

    `receive()` returns every message kept: a snapshot, a heartbeat, and for each step an `update`
    holding the whole state the step left (rebuilt here from its `changes`: the consumers get whole
    states whatever the wire carried); `state` is the latest table state. A gap in `seq` or a new
    `boot` is answered with a new snapshot, so `state` is never a stale one taken for current.
    """

    def __init__(self, ctx: zmq.Context[Any], public: str, snapshot: str, timeout_s: float = 2.0, *,
                 key: str | None = None, server_key: str | None = None, queue: int | None = None) -> None:
        """Subscribe to `public`. With `key` (this client's secret certificate file) and `server_key`
        (the table's public one) both sockets are CURVE clients; `queue` bounds the messages the SUB holds
        unread (its RCVHWM, set before it connects; None: ZeroMQ's 1,000). Raises ValueError (a bad key
        file, or one of the two without the other)."""
        self.ctx = ctx
        self.public = public
        self.snapshot_endpoint = snapshot
        self.timeout_ms = int(timeout_s * 1000)
        self.keys = client_keys(key, server_key)
        self.sub = ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        if self.keys is not None:
            self.keys.apply(self.sub)
        if queue is not None:
            self.sub.setsockopt(zmq.RCVHWM, queue)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(public)
        self.boot: str | None = None
        self.table: str | None = None  # the table's name, as its messages give it
        self.seq = 0
        self.state: dict[str, Any] | None = None
        self.gaps = 0  # messages found missing (each answered with a new snapshot)

    def fetch_snapshot(self) -> dict[str, Any]:
        """Ask the snapshot socket for the current state. Raises TimeoutError when nobody answers."""
        dealer = self.ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.SNDTIMEO, self.timeout_ms)  # no peer (a refused handshake): at most the timeout
        if self.keys is not None:
            self.keys.apply(dealer)
        try:
            dealer.connect(self.snapshot_endpoint)
            try:
                dealer.send(pack({"want": "snapshot"}))
            except zmq.Again:
                raise TimeoutError(f"no snapshot from {self.snapshot_endpoint}: nobody took the request") from None
            if not dealer.poll(self.timeout_ms):
                raise TimeoutError(f"no snapshot from {self.snapshot_endpoint}")
            message = unpack(dealer.recv())
        finally:
            dealer.close(0)
        return self.take_snapshot(message)

    def take_snapshot(self, message: dict[str, Any]) -> dict[str, Any]:
        """Adopt a snapshot reply (however it was asked for: the pit asks without blocking). Returns it.
        Raises KeyError when it has no `boot` or `seq`."""
        self.boot = message["boot"]
        self.seq = message["seq"]
        self.table = message.get("table", self.table)
        self.state = state_of(message)
        return message

    def follow(self, message: dict[str, Any]) -> str:
        """The clone pattern's verdict on one message from the SUB socket, applied: `"keep"` (the next
        one: `seq` and, for a step, `state` moved on), `"old"` (already in the snapshot: drop it) or
        `"snapshot"` (a new boot, or a gap, counted in `gaps`: take a new snapshot). Raises TypeError
        (a changes message that is not one: `apply_changes`), KeyError (no `seq`)."""
        if message.get("boot") != self.boot:
            return "snapshot"
        if message["seq"] <= self.seq:
            return "old"
        if message["seq"] != self.seq + 1:
            self.gaps += 1
            return "snapshot"
        kind = message.get("kind")
        if kind == "changes":
            self.state = apply_changes(self.state or {}, message)
        elif kind == "update":
            self.state = state_of(message)
        self.seq = message["seq"]
        return "keep"

    def update(self) -> dict[str, Any]:
        """The latest step as a whole-state `update` message (what `receive` gives for a step)."""
        return {"table": self.table, "boot": self.boot, "seq": self.seq, "kind": "update", **(self.state or {})}

    def receive(self, timeout_ms: int | None = None) -> dict[str, Any] | None:
        """The next message to keep (None on timeout).

        Takes a new snapshot (and returns it) when the boot changes or when a message's `seq` is not
        the next one: a subscriber can miss messages (ZeroMQ's slow joiner: a SUB that reconnects to a
        restarted controller loses what was published before its subscription arrived), and a later
        message, a heartbeat say, must not be taken as proof that the state it holds is current.
        Raises TimeoutError when a snapshot is not answered.
        """
        if self.state is None:
            return self.fetch_snapshot()
        wait = self.timeout_ms if timeout_ms is None else timeout_ms
        while self.sub.poll(wait):
            message = unpack(self.sub.recv())
            try:
                verdict = self.follow(message)
            except (TypeError, KeyError):  # a message not as the feed makes them: the state is in doubt
                self.gaps += 1
                verdict = "snapshot"
            if verdict == "snapshot":
                return self.fetch_snapshot()
            if verdict == "old":
                continue  # already in the snapshot
            if message.get("kind") == "changes":
                self.table = message.get("table", self.table)
                return self.update()
            return message
        return None

    def messages(self, timeout_ms: int | None = None) -> Iterator[dict[str, Any]]:
        while True:
            message = self.receive(timeout_ms)
            if message is None:
                return
            yield message

    def close(self) -> None:
        self.sub.close(0)
