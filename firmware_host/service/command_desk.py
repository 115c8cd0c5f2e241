"""The command channel's side of the controller's loop: requests screened and decoded, sign-offs' PINs hashed off the loop, each client answered in order.

A supervisor's sign-off costs a memory-hard hash (tens of milliseconds, `service.users`): done on
the loop, a stream of sign-offs would hold back every card and update behind it. So a request
whose sign-off needs its PIN hashed (`SignOff.pin_check`) is handed to one worker thread and the
loop goes on; when the hash is done the loop is woken (a pipe, as the inbox), the request is
taken with the result (`Controller.handle_command(..., verdict)`) and answered. Both the hash and
the answer (its audit entry's fsync, the step) wait for a pause in the shoe's cards (`_quiet`).
Requests the same client (its ROUTER routing id) sends meanwhile wait behind it, at most `MAX_PARKED`, and are taken
in the order sent; at most `MAX_CHECKS` hashes wait at once. Past either bound, `busy`: nothing is
hashed, decoded further or journaled.
"""

from __future__ import annotations

import collections
import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from engine.errors import say
from protocol.access import Caller
from protocol.commands import Command, Malformed, encode_reply, error_reply, request_id_of
from protocol.history import Reply
from protocol.requests import Refusal
from firmware_host.service.inbox import Inbox
from protocol.config import SecurityConfig
from protocol.fairness import Admission
from protocol.signoff import SignOff, Verdict
from protocol.zap import ZapHandler, caller_of

log = logging.getLogger("croupier.controller")

MAX_CHECKS = 4
"""Sign-offs waiting for their hash at once, all clients together."""
MAX_PARKED = 32
"""Requests one client may send while its sign-off is being checked."""
QUIET_S = 0.1
MAX_DEFER_S = 2.0
"""A hash waits until no reading has come for `QUIET_S` (the shoe is not dealing: a sign-off is mostly for a
paused table), and its request is handed back to the loop the same way (the shoe may have started dealing
during the hash), at most `MAX_DEFER_S` after it was asked in all: the cards' path keeps its cache and its
turns while they stream."""
SIGNED_OFF_WAIT_S = 2 * MAX_DEFER_S + 1.0
"""How long a client (the bots, the dealer console's relay) waits for a signed-off command's answer before
re-sending it: its PIN's hash waits for a pause in the cards, and so does its answer, each up to MAX_DEFER_S,
and the hash itself runs below the loop (WORKER_NICE). A request re-sent on a fresh socket is hashed again,
behind the one before: a client that gives up sooner asks for more hashing, not less."""
WORKER_NICE = 10
"""The hashing thread's nice value when the controller runs at the ordinary policy: below the loop, which keeps a core
for the cards."""
WORKER_PRIORITY = 1
"""The hashing thread's real-time priority when the controller runs at a real-time one (deploy/croupier.service): the
lowest, below the loop's. Its hashes take at most half of one core (`PinChecks._work` rests as long as it hashed), at
most one a second per key (`protocol.signoff`)."""


def below_the_loop() -> None:
    """Put the calling thread below the controller's loop. At the ordinary policy (a shell, the demo, the tests):
    nice `WORKER_NICE`. At the real-time policy the controller's unit gives it (`CPUSchedulingPolicy=`, which every
    thread it starts inherits): the lowest real-time priority, `WORKER_PRIORITY`, still above every ordinary
    process, because this thread shares the GIL with the loop: when the loop gives the GIL up to it (CPython makes
    the giver wait until the taker runs), a taker at an ordinary priority waits for a core behind every busy process
    on the Pi, and the loop with it (measured: tens of ms a card under a sign-off flood, docs/benchmarks.md,
    "Scheduling"). Lowering a priority is always permitted (RLIMIT_RTPRIO 0; RestrictRealtime= refuses only taking a
    real-time policy, not `sched_setparam`). Linux: a thread has its own priority; elsewhere the process's stays."""
    tid = threading.get_native_id()
    try:
        if os.sched_getscheduler(tid) in (os.SCHED_FIFO, os.SCHED_RR):
            os.sched_setparam(tid, os.sched_param(WORKER_PRIORITY))
        else:
            os.setpriority(os.PRIO_PROCESS, tid, max(WORKER_NICE, os.getpriority(os.PRIO_PROCESS, tid)))
    except (AttributeError, OSError):  # no per-thread priority (another system): the process's priority
        log.warning("sign-off checks at the controller's own priority: its thread could not be put below the loop")


_Request = tuple[list[Any], Command, Caller]
"""A request taken off the socket: its envelope (where to answer), the command, who sent it."""


class PinChecks:
    """One worker thread (started at the first sign-off) hashing sign-offs' PINs; the loop learns of each result
    through `fileno()`."""

    def __init__(self, last_reading: Callable[[], float] = lambda: 0.0) -> None:
        self.last_reading = last_reading  # when the loop last took a reading (time.monotonic)
        self._jobs: queue.SimpleQueue[tuple[bytes, _Request, Callable[[], Verdict]] | None] = queue.SimpleQueue()
        self._done = Inbox()
        self._checking: dict[bytes, int] = {}  # client -> its sign-off being hashed (1 at most)
        self._parked: dict[bytes, collections.deque[_Request]] = {}
        self._thread: threading.Thread | None = None  # started at the first sign-off

    def fileno(self) -> int:
        return self._done.fileno()

    def waits(self, client: bytes) -> bool:
        """Whether the client's requests wait behind its sign-off being checked."""
        return client in self._checking or client in self._parked

    def full(self) -> bool:
        return len(self._checking) >= MAX_CHECKS

    def submit(self, client: bytes, request: _Request, check: Callable[[], Verdict]) -> None:
        self._checking[client] = 1
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="pin-checks", daemon=True)
            self._thread.start()
        self._jobs.put((client, request, check))

    def park(self, client: bytes, request: _Request) -> bool:
        """Hold a request behind the client's sign-off. False: the client holds too many already."""
        parked = self._parked.setdefault(client, collections.deque())
        if len(parked) >= MAX_PARKED:
            return False
        parked.append(request)
        return True

    def done(self) -> list[tuple[bytes, _Request, Verdict]]:
        """The checks done since the last call (the client's check is no longer pending)."""
        finished = self._done.drain()
        for client, _, _ in finished:
            self._checking.pop(client, None)
        return finished

    def next_parked(self, client: bytes) -> _Request | None:
        """The client's next request held behind its check, while none is being checked."""
        if client in self._checking:
            return None
        parked = self._parked.get(client)
        if not parked:
            self._parked.pop(client, None)
            return None
        request = parked.popleft()
        if not parked:
            del self._parked[client]
        return request

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(5)
        self._done.close()

    def _work(self) -> None:
        below_the_loop()
        while (job := self._jobs.get()) is not None:
            client, request, check = job
            deadline = time.monotonic() + MAX_DEFER_S
            self._quiet(deadline)  # the shoe is dealing: the hash after its cards
            started = time.monotonic()
            try:
                verdict = check()
            except Exception:  # never: a hash of a string; counted as a failed sign-off
                log.exception("sign-off check")
                verdict = Verdict(None, False)
            hashed = time.monotonic() - started
            self._quiet(deadline)  # dealing again since: answered (an audit entry's fsync, the step) after its cards
            self._done.post((client, request, verdict))
            time.sleep(hashed)  # hashes back to back at most half the time: the loop's cache

    def _quiet(self, deadline: float) -> None:
        """Wait until no reading has come for `QUIET_S`, or until `deadline`."""
        while time.monotonic() < deadline and time.monotonic() - self.last_reading() < QUIET_S:
            time.sleep(QUIET_S / 4)


class Table(Protocol):
    """What the desk needs of the controller (`service.controller.Controller`)."""

    admission: Admission
    security: SecurityConfig
    zap: ZapHandler | None
    signoff: SignOff
    inbox: Inbox
    last_reading_at: float

    def handle_command(self, cmd: Command, caller: Caller | None = None,
                       verdict: Verdict | None = None) -> Reply: ...


class CommandDesk:
    """The controller's command socket served from its loop (`Controller.run`); `waiting_fds` are the driven
    devices' descriptors (a reading waiting there ends a turn's requests)."""

    def __init__(self, controller: Table, waiting_fds: list[Callable[[], int | None]]) -> None:
        self.c = controller
        self.waiting_fds = waiting_fds
        self.pins = PinChecks(lambda: controller.last_reading_at)

    def serve(self, sock: zmq.Socket[Any]) -> None:
        """The requests waiting on the socket: at most `per_turn`, fewer when a reading waits."""
        admission = self.c.admission
        for _ in range(admission.per_turn):  # ZMQ_EVENTS says whether one waits (cheaper than zmq.Again)
            if not int(sock.get(zmq.EVENTS)) & zmq.POLLIN:
                return
            try:
                received = sock.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            caller = caller_of(received[-1], self.c.security.local_role, self.c.zap)
            if caller is None:  # a key revoked since it connected: not applied, no reply
                continue
            frames = [frame.bytes for frame in received]
            envelope, payload, refusal = admission.screen(frames, caller.key)  # too big, not one frame, busy
            if refusal is not None:
                sock.send_multipart([*envelope, encode_reply(refusal)])
                continue
            try:
                cmd = Command.decode(payload, admission.max_request_bytes)
            except Malformed as exc:
                reply = error_reply(request_id_of(payload, admission.max_request_bytes), "malformed", str(exc), exc.say)
                sock.send_multipart([*envelope, encode_reply(reply)])
                continue
            client = envelope[0]
            if self.pins.waits(client):  # behind its own sign-off being checked: in the order sent
                if not self.pins.park(client, (envelope, cmd, caller)):
                    sock.send_multipart([*envelope, encode_reply(_busy(cmd, "parked"))])
            else:
                self._take(sock, (envelope, cmd, caller))
            if self.c.inbox or self._reading_waits():
                return  # a reading waits: it comes first, the next turn takes it before more requests

    def checked(self, sock: zmq.Socket[Any]) -> None:
        """Answer the requests whose sign-off has been hashed, then what their clients sent meanwhile."""
        for client, (envelope, cmd, caller), verdict in self.pins.done():
            self._answer(sock, envelope, cmd, caller, verdict)
            while (request := self.pins.next_parked(client)) is not None:
                self._take(sock, request)

    def close(self) -> None:
        self.pins.close()

    def _take(self, sock: zmq.Socket[Any], request: _Request) -> None:
        """Answer a request now, or hand its sign-off's hash to the worker."""
        envelope, cmd, caller = request
        if self.pins.full() and self.c.signoff.wants_pin(cmd, caller):
            sock.send_multipart([*envelope, encode_reply(_busy(cmd, "checks"))])
            return
        check = self.c.signoff.pin_check(cmd, caller)
        if check is not None:
            self.pins.submit(envelope[0], request, check)
            return
        self._answer(sock, envelope, cmd, caller, None)

    def _answer(self, sock: zmq.Socket[Any], envelope: list[Any], cmd: Command, caller: Caller,
                verdict: Verdict | None) -> None:
        reply: Reply
        try:
            reply = self.c.handle_command(cmd, caller, verdict)
        except Exception as exc:  # never let one request take the table down
            log.exception("command failed")
            reply = error_reply(cmd.id, "internal", f"{type(exc).__name__}: {exc}")
        sock.send_multipart([*envelope, encode_reply(reply)])

    def _reading_waits(self) -> bool:
        """Whether a driven device (the shoe's link) has bytes waiting to be read (polled, no wait)."""
        fds = [fd for fd in (fileno() for fileno in self.waiting_fds) if fd is not None]
        return bool(fds) and bool(select.select(fds, [], [], 0)[0])


def _busy(cmd: Command, why: str) -> Refusal:
    """`busy` for a request that cannot wait for a sign-off's check (`why`: its client's queue, or every check)."""
    message = ("too many requests sent while this console's sign-off is being checked: send again in 1 s"
               if why == "parked" else "the table is checking other sign-offs: send again in 1 s")
    return {**error_reply(cmd.id, "busy", message, say("refusal.sign_off_busy", seconds=1)), "retry_s": 1.0}
