"""The pit aggregator's loop: one thread, one poller over every table's SUB (through one epoll: `subpoll`) and snapshot sockets, the floor feed served, tables added and dropped on reload.

A table is `online` from its first snapshot; silent for 3 heartbeats it is marked offline (an
`offline` message on the floor feed), and online again at its next message. Every step of a
table goes out on the floor feed under the table's name (`floorfeed`) as the table sent it (its
`changes`, or a whole `update` from a table that sends whole states), after each snapshot the pit
takes of it its whole state as an `update`; after each hand closes on
its feed, and whenever its snapshot is taken (at start, after a gap or a restart), the table is
handed to the catch-up worker (`catchup`), so command requests stay off this thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import zmq

from floor.archiver import ArchiverProcess
from floor.catchup import CatchUp, CountingSink, HandSink
from floor.config import PitConfig, PitTable, PitTournament
from floor.curve import open_floor_feed
from floor.snapshots import IN_FLIGHT, SnapshotWaves
from floor.subpoll import SubPoll
from floor.follower import TableFollower, follower_for
from protocol.config import ConfigError
from protocol.feed import unpack

log = logging.getLogger("croupier.pit")

OFFLINE_AFTER = 3
"""Heartbeats of silence after which a table is shown offline."""

MIN_TURN_S = 0.01
"""A busy loop turns at most this often: each turn takes what gathered meanwhile, and sends its
floor messages together (ZeroMQ's I/O thread woken once for them, not once a message), at most this
much later."""

FLUSH_EVERY = 32
"""The messages a turn gathers before it sends them (and at its end): a busy turn's first ones would
otherwise wait for the whole turn (tens of ms at 9,000 a second), while one send a message wakes
ZeroMQ's I/O thread at every message."""

PASSED = ("set", "del", "items")
"""The keys of a table's `changes` the pit passes on as they are, under its own header (`_send_step`)."""

POLLIN = int(zmq.POLLIN)

DRAIN = 200
"""The most messages read from one table's SUB in one turn (so one busy table cannot starve the rest)."""


def catch_up_timeout(cfg: PitConfig) -> float:
    """How long the catch-up waits for a table's `history` answer."""
    return max(2.0, 3 * cfg.heartbeat_s)


class Pit:
    """The aggregator: its sockets are this thread's; `run()` until `stop()`; `ask_reload()` from a signal."""

    def __init__(self, cfg: PitConfig, ctx: zmq.Context[Any], sink: HandSink | None = None,
                 clock: Callable[[], float] = time.monotonic, archiver: ArchiverProcess | None = None,
                 in_flight: int = IN_FLIGHT) -> None:
        """Bind the floor feed and follow the configuration's tables. Raises FeedError (an address in use).
        With `archiver` the catch-up and the archive run in its child process (`archiver.py`), `sink` unused;
        without, on a thread of this process into `sink` (None: `CountingSink`). At most `in_flight`
        snapshots are asked at once (`snapshots.py`)."""
        self.cfg = cfg
        self.ctx = ctx
        self.clock = clock
        self.feed, self.zap = open_floor_feed(ctx, cfg, clock)  # CURVE with [pit] key: `floorcurve`
        self.feed.held = []  # a turn's messages sent together at its end (`FloorFeed.held`)
        self.poller = zmq.Poller()
        self.poller.register(self.feed.snap, zmq.POLLIN)
        self.poller.register(self.feed.pub, zmq.POLLIN)
        if self.zap is not None:
            self.poller.register(self.zap.socket, zmq.POLLIN)
            self.zap.on_cut = self._reopen
        self.followers: dict[str, TableFollower] = {}
        self.by_socket: dict[zmq.Socket[Any], TableFollower] = {}  # the snapshot DEALERs awaited
        self.snapshots: SnapshotWaves[TableFollower] = SnapshotWaves(in_flight)  # asked in waves
        self.subs: SubPoll[TableFollower] = SubPoll()  # the tables' SUBs, as one item of the poller
        self.poller.register(self.subs, zmq.POLLIN)
        self.latest: dict[str, int] = {}  # table -> the floor seq of its last step sent on the floor feed
        self.catch_up: CatchUp | ArchiverProcess = archiver if archiver is not None else CatchUp(
            ctx, sink or CountingSink(), cfg.keys_for, timeout_s=catch_up_timeout(cfg))
        self.archiver = archiver
        if archiver is not None:
            self.poller.register(archiver.socket, zmq.POLLIN)
        self.reloads = self.refused = 0
        self._reload_asked = False
        self._stopped = False
        self._watched = 0.0
        self.ended_cleanly = True  # false when the catch-up worker did not end in time (its sockets still open)
        self.apply_tables(cfg.tables, cfg.tournaments)

    # -- the list of tables ----------------------------------------------------------------------

    def apply_tables(self, tables: tuple[PitTable, ...],
                     tournaments: tuple[PitTournament, ...] = ()) -> tuple[list[str], list[str]]:
        """Follow exactly `tables` and the `tournaments`' clocks: new ones subscribed, gone ones dropped, a
        changed one both, the rest untouched. Returns (added or changed, removed or changed)."""
        followed: tuple[PitTable | PitTournament, ...] = (*tables, *tournaments)
        wanted = {t.name: t for t in followed}
        dropped = [name for name, f in self.followers.items() if wanted.get(name) != f.table]
        for name in dropped:
            self._drop(name)
        self.catch_up.set_tables({t.name: t for t in tables})
        added = [name for name in wanted if name not in self.followers]
        now = self.clock()
        for name in added:
            follower = follower_for(self.ctx, wanted[name], *self.cfg.keys_for(wanted[name]), now=now)
            self.followers[name] = follower
            self._ask_snapshot(follower, now)
        self._ask_due(now)
        return added, dropped

    def _drop(self, name: str) -> None:
        follower = self.followers.pop(name)
        self._unwatch(follower)
        follower.close()
        self.latest.pop(name, None)
        self.feed.publish(name, {"table": name, "kind": "removed", "online": False})

    def ask_reload(self) -> None:
        """Ask for the configuration to be read again (safe from a signal handler)."""
        self._reload_asked = True

    def reload(self) -> bool:
        """Read the configuration file again and follow its tables. A bad file is refused, logged, and the
        tables followed stay as they were. Returns whether it was taken."""
        self._reload_asked = False
        try:
            cfg = PitConfig.load(self.cfg.source)
        except ConfigError as exc:
            self.refused += 1
            log.error("reload refused, the tables followed are unchanged: %s", exc)
            return False
        for key in ("name", "listen", "snapshot", "heartbeat_s", "db", "key", "clients", "roles", "ratings",
                    "player_days"):
            if getattr(cfg, key) != getattr(self.cfg, key):
                log.warning("reload: [pit] %s changed: it takes effect at the next start", key)
        self.cfg = replace(self.cfg, tables=cfg.tables, tournaments=cfg.tournaments)
        added, removed = self.apply_tables(cfg.tables, cfg.tournaments)
        self.reloads += 1
        log.warning("reload taken: %d tables; added %s; removed %s", len(self.followers),
                    ", ".join(added) or "none", ", ".join(removed) or "none")
        return True

    # -- the loop --------------------------------------------------------------------------------

    def run(self) -> None:
        self.catch_up.start()
        try:
            while not self._stopped:
                if self._reload_asked:
                    self.reload()
                started = time.monotonic()
                if self.turn(50):  # something was read: let more gather before the next poll of every socket
                    time.sleep(max(0.0, MIN_TURN_S - (time.monotonic() - started)))
        finally:
            self.ended_cleanly = self.catch_up.stop()

    def stop(self) -> None:
        self._stopped = True

    def turn(self, timeout_ms: int) -> bool:
        """One poll and everything ready handled, then the silences checked and the heartbeat due sent.
        Returns whether any socket was ready."""
        events = self.poller.poll(0 if self.subs.waiting else timeout_ms)
        now = self.clock()
        ready = self.subs.ready()
        for table in ready:
            self._on_feed(table, now)
            if len(self.feed.held or ()) >= FLUSH_EVERY:  # a long turn's first messages are not held to its end
                self.feed.flush()
        for sock, _ in events:
            if sock is self.feed.snap:
                self.feed.serve_snapshots(self.snapshot_states)
            elif sock is self.feed.pub:
                self.feed.drain_subscriptions()
            elif self.zap is not None and sock is self.zap.socket:
                self.zap.serve()
            elif self.archiver is not None and sock is self.archiver.socket:
                self.archiver.take()
            elif (awaited := self.by_socket.get(sock)) is not None and sock is awaited.dealer:
                self._on_snapshot(awaited, now)
        if now - self._watched >= self.cfg.heartbeat_s / 10:
            self._watch(now)
            self._watched = now
            if self.zap is not None:
                self.zap.turn()  # the clients directory read again when it changed
            if self.archiver is not None:
                self.archiver.check()
        if self.snapshots.waiting:
            self._ask_due(now)
        if self.feed.beat_due(now):  # (the count of tables online only then: a thousand tables every turn)
            self.feed.tick(len(self.followers), sum(f.online for f in self.followers.values()), now)
        self.feed.flush()
        return bool(events) or bool(ready)

    def _reopen(self, domain: str) -> None:
        """A revoked key was let into the floor feed: its XPUB closed and bound again (`FloorFeed.reopen`)."""
        self.poller.unregister(self.feed.pub)
        self.feed.reopen(domain)
        self.poller.register(self.feed.pub, zmq.POLLIN)

    def _unwatch(self, follower: TableFollower) -> None:
        """Its sockets out of the poller (the SUB left unread while a snapshot is awaited, as the clone pattern wants)."""
        self.subs.remove(follower.client.sub)
        self.snapshots.forget(follower)
        if follower.dealer is not None and follower.dealer in self.by_socket:
            self.poller.unregister(follower.dealer)
            del self.by_socket[follower.dealer]

    def _ask_snapshot(self, follower: TableFollower, now: float) -> None:
        """Queue the table for its snapshot, asked in its wave (`_ask_due`); its SUB left unread meanwhile."""
        self._unwatch(follower)
        follower.drop_request()
        self.snapshots.want(follower)

    def _ask_due(self, now: float) -> None:
        for follower in self.snapshots.due():
            dealer = follower.ask_snapshot(now)
            self.poller.register(dealer, zmq.POLLIN)
            self.by_socket[dealer] = follower

    def _on_snapshot(self, follower: TableFollower, now: float) -> None:
        dealer = follower.dealer
        assert dealer is not None
        try:
            message = unpack(dealer.recv(zmq.NOBLOCK))
            follower.client.take_snapshot(message)
        except (zmq.Again, ValueError, KeyError) as exc:
            log.warning("%s: a bad snapshot reply: %s", follower.name, exc)
            return
        self.poller.unregister(dealer)
        del self.by_socket[dealer]
        self.snapshots.answered(follower)
        follower.drop_request()
        self.subs.add(follower.client.sub, follower)
        follower.heard, follower.online = now, True
        self._send_step(follower, {**message, "kind": "update"})
        follower.hand_closed()
        if follower.catches_up:  # at start, after a restart or a gap: whatever closed meanwhile
            self.catch_up.want(follower.name)

    def _on_feed(self, follower: TableFollower, now: float) -> None:
        """Read the table's SUB until it holds nothing (ZeroMQ's signal is an edge: `subpoll`), at most
        `DRAIN` messages, the rest at the next turn."""
        sub = follower.client.sub
        for _ in range(DRAIN):
            if not sub.get(zmq.EVENTS) & POLLIN:  # (cheaper than the Again a recv would raise at every turn)
                return
            try:
                frame = sub.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                message = unpack(frame)  # a step's changes: a few keys (a whole state only from an old table)
                verdict = follower.client.follow(message)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("%s: a bad feed message: %s", follower.name, exc)
                continue
            follower.heard = now
            if verdict == "snapshot":
                log.warning("%s: seq %s (boot %s) after %s: a gap or a new boot, its snapshot asked", follower.name,
                            message.get("seq"), message.get("boot"), follower.client.seq)
                self._ask_snapshot(follower, now)
                return
            if verdict == "old":
                continue
            if message.get("kind") in ("changes", "update"):
                follower.online = True
                self._send_step(follower, message)
                if follower.hand_closed():
                    self.catch_up.want(follower.name)
            elif not follower.online:
                follower.online = True
                self.feed.publish(follower.name, {"table": follower.name, "boot": follower.client.boot,
                                                  "seq": follower.client.seq, "kind": "online", "online": True})
        self.subs.again(follower)  # `DRAIN` read and more may wait

    def _send_step(self, follower: TableFollower, message: Mapping[str, Any]) -> None:
        """A table's step on the floor feed under the pit's header: its changes as the table sent them, or
        its whole state (an `update`: after a snapshot, or from a table sending whole states)."""
        client = follower.client
        head = {"table": follower.name, "boot": client.boot, "seq": client.seq, "online": True}
        if message.get("kind") == "changes":
            out = {**head, "kind": "changes", **{key: message[key] for key in PASSED if key in message}}
        else:
            out = {**head, "kind": "update", **(client.state or {})}
        self.latest[follower.name] = self.feed.publish(follower.name, out)

    def _watch(self, now: float) -> None:
        """Mark the tables silent for 3 heartbeats offline; ask again for snapshots left unanswered."""
        silent_s = OFFLINE_AFTER * self.cfg.heartbeat_s
        for follower in self.followers.values():
            if follower.dealer is not None and now - follower.asked_at > max(1.0, 2 * self.cfg.heartbeat_s):
                self._ask_snapshot(follower, now)
            if follower.online and now - follower.heard > silent_s:
                follower.online = False
                log.warning("%s: offline (silent for %.1f s)", follower.name, now - follower.heard)
                self.feed.publish(follower.name, {"table": follower.name, "boot": follower.client.boot,
                                                  "seq": follower.client.seq, "kind": "offline", "online": False,
                                                  "silent_s": round(now - follower.heard, 3)})

    def snapshot_states(self, prefix: str) -> Iterator[Mapping[str, Any] | bytes]:
        """Every followed table whose topic (`name/`) starts with `prefix`, by name: its latest state (or
        none yet), as a snapshot frame. `uth-1/` is that table alone, `uth-` a game's tables, `""` all."""
        for name in sorted(self.followers):
            if not f"{name}/".startswith(prefix):
                continue
            follower = self.followers[name]
            # the table's seq as last heard (heartbeats included), its state as of its last update
            keys = {"table": name, "boot": follower.client.boot, "seq": follower.client.seq, "kind": "snapshot",
                    "online": follower.online, "archived": self.catch_up.archived.get(name)}
            if name in self.latest:  # its whole state, as the steps it sent on the floor feed left it
                yield {**keys, **(follower.client.state or {}), "floor_seq": self.latest[name]}
            else:
                yield keys

    def close(self) -> None:
        self.subs.close()
        for follower in self.followers.values():
            follower.close()
        self.followers.clear()
        self.by_socket.clear()
        self.feed.close()
        if self.zap is not None:
            self.zap.close()
