"""The controller's loop: one thread polls the commands, snapshots, the inbox and driven devices, and serves each."""

from __future__ import annotations

import gc
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from firmware_host.service.command_desk import CommandDesk, Table
from firmware_host.service.inbox import Inbox
from firmware_host.service.journal import Journal, JournalError
from firmware_host.service.polled import Polled
from firmware_host.service.waits import Waits
from protocol.fairness import MAX_FRAME_FACTOR, Admission
from protocol.feed import Feed
from protocol.keys import KeyPair, serve_curve
from protocol.signoff import SignOff
from protocol.zap import ZapHandler

log = logging.getLogger("croupier.controller")


class Collector:
    """The garbage collector as the loop runs it: never inside a turn's work (a card's read, step, commit and
    publish), only at a turn's end, once its steps are out (`turn`). While the loop runs, the automatic collection
    is off (it runs at whatever allocation crosses gen 0's threshold: inside a card's step one card in ~six, and a
    gen-1 collection there, ~1 ms, was the card's p99); `turn` collects the generation CPython would at the same
    counts and thresholds, less the full collection's long-lived ratio (a full one after every `t1 * t2` young
    ones: the start-up's objects are frozen, `cli.run`, so it goes over what the table made since). Memory stays
    bounded as with the automatic collection: every turn ends with the check, whatever the loop did in it."""

    def __init__(self) -> None:
        self._was_enabled = False
        self.collections = [0, 0, 0]
        """The collections made, by generation."""

    def take_over(self) -> None:
        """The automatic collection off: the loop's turns collect (`turn`)."""
        self._was_enabled = gc.isenabled()
        gc.disable()

    def give_back(self) -> None:
        """The automatic collection as it was before `take_over`."""
        if self._was_enabled:
            gc.enable()

    def turn(self) -> None:
        """At a turn's end: collect the generation due (CPython's rule: the oldest whose count is over its
        threshold, once gen 0's is), if any."""
        t0, t1, t2 = gc.get_threshold()
        c0, c1, c2 = gc.get_count()
        if t0 <= 0 or c0 <= t0:
            return
        generation = 2 if c2 > t2 and c1 > t1 else 1 if c1 > t1 else 0
        gc.collect(generation)
        self.collections[generation] += 1


class Served(Table, Protocol):
    """What the loop needs of the controller (`service.controller.Controller`)."""

    journal: Journal
    feed: Feed | None
    admission: Admission
    zap: ZapHandler | None
    signoff: SignOff
    inbox: Inbox

    def handle_readings(self, readings: list[Any]) -> None: ...


def bind_commands(ctx: zmq.Context[Any], endpoint: str, admission: Admission,
                  keys: KeyPair | None = None) -> zmq.Socket[Any]:
    """The command channel's ROUTER socket, bound (a CURVE server on TCP with the table's `keys`). Raises zmq.ZMQError."""
    sock: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_FACTOR * admission.max_request_bytes)  # a peer past it is cut
    try:
        serve_curve(sock, endpoint, keys, "commands")
        sock.bind(endpoint)
    except zmq.ZMQError:
        sock.close(0)
        raise
    return sock


def serve(c: Served, commands: zmq.Socket[Any], stop: threading.Event, pollables: list[Any],
          waiting_fds: list[Callable[[], int | None]], on_turn: Callable[[], float] | None) -> None:
    """Serve until `stop` is set: commands, snapshots, the inbox, driven devices (`pollables`), heartbeats.

    `waiting_fds` is filled with the driven devices' descriptors (a reading waiting there ends a turn's requests).
    `on_turn` is called once per turn (systemd's watchdog ping) and returns the seconds until it wants the next.

    A turn's fixed costs are kept to what can have changed (a card is one turn): the devices' descriptors are
    looked at again only after they were pumped (a port is reopened or lost only then), their earliest due time
    is kept, the waits are compared without building arguments for `min`, and the ZeroMQ sockets' events are asked
    only when their descriptors fired or they were served (`service.waits`)."""
    poller = Waits()  # a socket's events asked only when its descriptor fired or it was served
    poller.register(commands, zmq.POLLIN)
    inbox = c.inbox.fileno()
    poller.register(inbox, zmq.POLLIN)
    feed, journal, signoff, zap = c.feed, c.journal, c.signoff, c.zap
    snaps = feed.snapshot_sockets() if feed is not None else []
    if zap is not None:
        poller.register(zap.socket, zmq.POLLIN)
    for s in snaps:
        poller.register(s, zmq.POLLIN)
    devices = [Polled(device) for device in pollables]
    waiting_fds[:] = [d.device.fileno for d in devices]  # a reading waiting there stops a turn's requests
    desk = CommandDesk(c, waiting_fds)  # the requests; sign-offs' PINs hashed on its worker thread
    checked = desk.pins.fileno()
    poller.register(checked, zmq.POLLIN)
    for d in devices:
        d.watch(poller)
    devices_due = 0.0 if devices else math.inf  # the earliest of the devices' due times
    clock, poll, waiting = time.monotonic, poller.poll, c.inbox.items
    c.inbox.owner = threading.get_ident()
    collector = Collector()
    try:
        collector.take_over()
        while not stop.is_set():
            now = clock()
            wait = feed.next_due() if feed is not None else 1.0
            due = journal.checkpoint_due()
            if due < wait:
                wait = due
            if on_turn is not None and (due := on_turn()) < wait:
                wait = due
            if zap is not None and (due := zap.turn()) < wait:  # the clients directory re-read when it changed
                wait = due
            if (due := signoff.turn()) < wait:  # a flood of refusals' count audited
                wait = due
            if devices_due - now < wait:
                wait = devices_due - now
            ready = poll(max(0, int(wait * 1000)) + 1)
            if not ready and not waiting:
                journal.checkpoint()  # a quiet moment: the WAL's checkpoint off the cards' path
            if devices and (ready or clock() >= devices_due):
                devices_due = _pump(devices, poller, ready, clock())
            woken = inbox in ready
            if woken or waiting:  # what a served device read is in the inbox: take it now
                items = c.inbox.drain(woken)
                try:
                    c.handle_readings(items)
                except JournalError:
                    raise  # nothing can be accepted any more: stop, be restarted, replay
                except Exception:  # a bad reading never takes the table down
                    log.exception("readings %r", items)
            if ready:
                _serve_ready(c, desk, poller, commands, checked, snaps, ready)
            if feed is not None:
                feed.tick()
            collector.turn()  # the turn's steps are out: a collection due is made now, never inside a step
    finally:
        collector.give_back()
        c.inbox.owner = None
        desk.close()


def _pump(devices: list[Polled], poller: Waits, ready: dict[Any, int], now: float) -> float:
    """Pump the devices due or readable (each then watched on its descriptor anew); the earliest due time left."""
    earliest = math.inf
    for d in devices:
        if now >= d.due or (d.fd is not None and d.fd in ready):
            d.pump(now)
            d.watch(poller)  # a port reopened (or lost) in the pump has a new descriptor (or none)
        if d.due < earliest:
            earliest = d.due
    return earliest


def _serve_ready(c: Served, desk: CommandDesk, poller: Waits, commands: zmq.Socket[Any], checked: int,
                 snaps: list[zmq.Socket[Any]], ready: dict[Any, int]) -> None:
    """The sockets a turn found readable, served: ZAP, the requests, the checked sign-offs, snapshots (each socket
    served is asked its events again at the next turn: `Waits.served`)."""
    if c.zap is not None and c.zap.socket in ready:
        c.zap.serve()
        poller.served(c.zap.socket)
    if commands in ready:
        desk.serve(commands)
        poller.served(commands)
    if checked in ready:  # sign-offs hashed off the loop: their requests answered now
        desk.checked(commands)
        poller.served(commands)
    for s in snaps:
        if s in ready:
            c.feed.serve_snapshots(s)  # type: ignore[union-attr]
            poller.served(s)
