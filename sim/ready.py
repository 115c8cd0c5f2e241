"""Which of many ZeroMQ sockets have a request waiting, at the cost of the ones that do: epoll on each socket's `ZMQ_FD`, with a full `zmq.Poller` poll now and then.

A `zmq.Poller` over 2,000 sockets (a thousand simulated tables' snapshot and command sockets) asks
each one for its events: about 2 ms of CPU a poll here, whether any is ready or not. A ZeroMQ
socket's `ZMQ_FD` becomes readable when something happened on it (a message came, a peer
connected); reading `ZMQ_EVENTS` takes those notices in and says whether a message is waiting. So an
epoll on the descriptors (level-triggered) wakes for the sockets that had news, and only those are
asked. ZeroMQ signals the descriptor on a socket's pipe going from empty to not empty, as seen by
the last read: a socket must be read until `zmq.Again` after it is reported (as the tables do). A
full poll every `full_every_s` catches anything missed all the same.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import Any

import zmq


class ReadySockets:
    """`register(sock)`, `unregister(sock)`, `poll(timeout_ms)`: the sockets with a message waiting."""

    def __init__(self, full_every_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._epoll = select.epoll()
        self._by_fd: dict[int, zmq.Socket[Any]] = {}
        self._fd: dict[zmq.Socket[Any], int] = {}
        self._poller = zmq.Poller()
        self.full_every_s, self._clock = full_every_s, clock
        self._full_at = clock() + full_every_s

    def register(self, sock: zmq.Socket[Any]) -> None:
        fd = int(sock.getsockopt(zmq.FD))
        self._epoll.register(fd, select.EPOLLIN)
        self._by_fd[fd], self._fd[sock] = sock, fd
        self._poller.register(sock, zmq.POLLIN)

    def unregister(self, sock: zmq.Socket[Any]) -> None:
        """Forget `sock` (before it is closed: its descriptor goes with it)."""
        fd = self._fd.pop(sock)
        del self._by_fd[fd]
        self._epoll.unregister(fd)
        self._poller.unregister(sock)

    def poll(self, timeout_ms: int) -> list[zmq.Socket[Any]]:
        """The sockets with a message waiting, after at most `timeout_ms` (0: at once)."""
        now = self._clock()
        if now >= self._full_at:
            self._full_at = now + self.full_every_s
            return [sock for sock, _ in self._poller.poll(timeout_ms)]
        ready = []
        for fd, _ in self._epoll.poll(max(0, timeout_ms) / 1000):
            sock = self._by_fd.get(fd)
            if sock is not None and int(sock.getsockopt(zmq.EVENTS)) & zmq.POLLIN:
                ready.append(sock)
        return ready

    def close(self) -> None:
        self._epoll.close()
