"""The controller's loop: one thread polls the commands, snapshots, the inbox and driven devices, and serves each."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from firmware_host.service.command_desk import CommandDesk, Table
from firmware_host.service.inbox import Inbox
from firmware_host.service.journal import Journal, JournalError
from firmware_host.service.polled import Polled
from protocol.fairness import MAX_FRAME_FACTOR, Admission
from protocol.feed import Feed
from protocol.keys import KeyPair, serve_curve
from protocol.signoff import SignOff
from protocol.zap import ZapHandler

log = logging.getLogger("croupier.controller")


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
    `on_turn` is called once per turn (systemd's watchdog ping) and returns the seconds until it wants the next."""
    poller = zmq.Poller()
    poller.register(commands, zmq.POLLIN)
    inbox = c.inbox.fileno()
    poller.register(inbox, zmq.POLLIN)
    snaps = c.feed.snapshot_sockets() if c.feed else []
    zap = c.zap.socket if c.zap is not None else None
    if zap is not None:
        poller.register(zap, zmq.POLLIN)
    for s in snaps:
        poller.register(s, zmq.POLLIN)
    devices = [Polled(device) for device in pollables]
    waiting_fds[:] = [d.device.fileno for d in devices]  # a reading waiting there stops a turn's requests
    desk = CommandDesk(c, waiting_fds)  # the requests; sign-offs' PINs hashed on its worker thread
    checked = desk.pins.fileno()
    poller.register(checked, zmq.POLLIN)
    clock = time.monotonic
    c.inbox.owner = threading.get_ident()
    try:
        while not stop.is_set():
            wait = min(c.feed.next_due() if c.feed else 1.0, c.journal.checkpoint_due())
            if on_turn is not None:
                wait = min(wait, on_turn())
            if c.zap is not None:  # the clients directory re-read when it changed
                wait = min(wait, c.zap.turn())
            wait = min(wait, c.signoff.turn())  # a flood of refusals' count audited
            if devices:
                now = clock()
                for d in devices:
                    d.watch(poller)
                    wait = min(wait, d.due - now)
            ready = dict(poller.poll(max(0, int(wait * 1000)) + 1))
            if not ready and not c.inbox:
                c.journal.checkpoint()  # a quiet moment: the WAL's checkpoint off the cards' path
            if devices:
                now = clock()
                for d in devices:
                    if now >= d.due or (d.fd is not None and d.fd in ready):
                        d.pump(now)
            woken = inbox in ready
            if woken or c.inbox:  # what a served device read is in the inbox: take it now
                items = c.inbox.drain(woken)
                try:
                    c.handle_readings(items)
                except JournalError:
                    raise  # nothing can be accepted any more: stop, be restarted, replay
                except Exception:  # a bad reading never takes the table down
                    log.exception("readings %r", items)
            if zap in ready:
                c.zap.serve()  # type: ignore[union-attr]
            if commands in ready:
                desk.serve(commands)
            if checked in ready:  # sign-offs hashed off the loop: their requests answered now
                desk.checked(commands)
            for s in snaps:
                if s in ready:
                    c.feed.serve_snapshots(s)  # type: ignore[union-attr]
            if c.feed is not None:
                c.feed.tick()
    finally:
        c.inbox.owner = None
        desk.close()
