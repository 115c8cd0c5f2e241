"""The controller loop's poller: descriptors and ZeroMQ sockets in one poll(2), a socket's events asked only when due.

`zmq.Poller` (libzmq's `zmq_poll`) asks every ZeroMQ socket for its events at every wait, twice when the wait is
not over at once (a first pass that does not wait, then the wait): two syscalls a socket a pass (libzmq's
`getpid` fork check and a poll of the socket's mailbox), fourteen a turn for the commands' and the two snapshot
sockets, where a card needs none of them. Here, as the ZeroMQ guide and libzmq's `ZMQ_FD` documentation have an
event loop do it, each socket's `ZMQ_FD` is polled with the plain descriptors, and its `ZMQ_EVENTS` asked only when
that descriptor fired (its mailbox has news: the signal is then taken by the asking), at the first turn, or after
the socket was served (a send or a receive may take the signal of a message that arrived meanwhile: the ZMQ_FD
rule, "after any operation, check ZMQ_EVENTS"). A turn with a socket to ask does not wait.
"""

from __future__ import annotations

import select
from typing import Any

import zmq


class Waits:
    """What the loop waits on: plain descriptors (readable) and ZeroMQ sockets (a message to receive)."""

    def __init__(self) -> None:
        self._poll = select.poll()
        self._sockets: dict[int, zmq.Socket[Any]] = {}  # a socket's ZMQ_FD -> the socket
        self._ask: set[zmq.Socket[Any]] = set()  # the sockets whose events are asked at the next turn

    def register(self, what: zmq.Socket[Any] | int, flags: int = zmq.POLLIN) -> None:
        """Wait for `what` to be readable (`flags` is POLLIN, as `zmq.Poller.register`'s)."""
        if isinstance(what, zmq.Socket):
            fd = int(what.getsockopt(zmq.FD))
            self._sockets[fd] = what
            self._ask.add(what)  # a message may be there already, its signal taken
        else:
            fd = what
        self._poll.register(fd, select.POLLIN)

    def unregister(self, fd: int) -> None:
        """Stop waiting on a plain descriptor. Raises KeyError when it is not waited on."""
        self._poll.unregister(fd)

    def served(self, sock: zmq.Socket[Any]) -> None:
        """`sock` was received from or sent on: its events are asked at the next turn (which does not wait)."""
        self._ask.add(sock)

    def poll(self, timeout_ms: int) -> dict[Any, int]:
        """Wait up to `timeout_ms` (none when a socket is to be asked); what is ready: the readable descriptors
        (their poll events) and the sockets with a message to receive (POLLIN)."""
        events = self._poll.poll(0 if self._ask else timeout_ms)
        ready: dict[Any, int] = {}
        sockets = self._sockets
        for fd, event in events:
            sock = sockets.get(fd)
            if sock is None:
                ready[fd] = event
            else:
                self._ask.add(sock)  # its mailbox has news: what, its events say
        if self._ask:
            asked, self._ask = self._ask, set()
            for sock in asked:
                if int(sock.getsockopt(zmq.EVENTS)) & zmq.POLLIN:
                    ready[sock] = zmq.POLLIN
        return ready
