"""The tables' SUB sockets watched through one epoll of their ZeroMQ file descriptors, so a turn of the pit costs what is ready, not what is followed.

A `zmq.Poller` asks every socket registered for its events at every poll: about 2.3 ms for 1,000
tables' SUB sockets here, a quarter of a core at the pit's hundred turns a second. Here each SUB's
`ZMQ_FD` is in one `select.epoll`, itself one item of the pit's poller: the epoll answers only the
sockets whose state may have changed. That descriptor tells of a change, not of a message (ZeroMQ's
edge-triggered signal), so a socket handed out by `ready()` must be read until its `ZMQ_EVENTS` shows
no message; one left with messages (the pit's per-turn limit) is handed out again by the next
`ready()` (`again`). Linux only, as the pit is (`select.epoll`).
"""

from __future__ import annotations

import select
from typing import Any, Generic, TypeVar

import zmq

T = TypeVar("T")


class SubPoll(Generic[T]):
    """SUB sockets, each with what it stands for (a table's follower)."""

    def __init__(self) -> None:
        self.epoll = select.epoll()
        self._by_fd: dict[int, T] = {}
        self._fds: dict[int, int] = {}  # id(socket) -> its descriptor (asked while the socket is open)
        self._pending: dict[T, None] = {}  # handed out again at the next `ready()`, in order

    def fileno(self) -> int:
        """The epoll's descriptor: readable when a socket's may be (register it in the `zmq.Poller`)."""
        return self.epoll.fileno()

    def add(self, sock: zmq.Socket[Any], item: T) -> None:
        """Watch `sock`; it is handed out at the next `ready()` (messages may have queued before)."""
        fd = int(sock.get(zmq.FD))
        self.epoll.register(fd, select.EPOLLIN)
        self._by_fd[fd] = item
        self._fds[id(sock)] = fd
        self._pending[item] = None

    def remove(self, sock: zmq.Socket[Any]) -> None:
        """Stop watching `sock` (before it is closed: its descriptor goes with it). Not watched: nothing."""
        fd = self._fds.pop(id(sock), None)
        if fd is None:
            return
        self.epoll.unregister(fd)
        item = self._by_fd.pop(fd)
        self._pending.pop(item, None)

    def __contains__(self, sock: zmq.Socket[Any]) -> bool:
        return id(sock) in self._fds

    def again(self, item: T) -> None:
        """`item`'s socket still holds messages: hand it out at the next `ready()`."""
        self._pending[item] = None

    @property
    def waiting(self) -> bool:
        """Whether a socket is known to hold messages now (the next poll should not wait)."""
        return bool(self._pending)

    def ready(self) -> list[T]:
        """The items whose sockets may hold messages: read each until its events show none."""
        out = self._pending
        self._pending = {}
        for fd, _ in self.epoll.poll(0):
            item = self._by_fd.get(fd)
            if item is not None:
                out[item] = None
        return list(out)

    def close(self) -> None:
        self.epoll.close()
        self._by_fd.clear()
        self._fds.clear()
        self._pending.clear()
