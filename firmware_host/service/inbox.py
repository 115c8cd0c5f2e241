"""The controller's inbox: where device threads and GPIO callbacks post readings for the one thread that owns the table."""

from __future__ import annotations

import collections
import os
import threading
from typing import Any


class Inbox:
    """Where reader threads and GPIO callbacks post readings; the controller thread drains it.

    `post` is thread-safe and wakes the controller's poller through a pipe; a reading posted on
    the controller's own thread (a device it serves from its loop) needs no wake-up and gets none.
    """

    def __init__(self) -> None:
        self.items: collections.deque[Any] = collections.deque()  # posted, not yet drained (truthy while any wait)
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._rfd, False)
        os.set_blocking(self._wfd, False)
        self.owner: int | None = None  # the controller thread's ident once it serves the loop

    def post(self, item: Any) -> None:
        self.items.append(item)
        if threading.get_ident() == self.owner:
            return  # the loop takes it before it polls again
        try:
            os.write(self._wfd, b"\x01")
        except BlockingIOError:
            pass  # the pipe is full: the controller is already awake

    def fileno(self) -> int:
        return self._rfd

    def __len__(self) -> int:
        return len(self.items)

    def drain(self, woken: bool = True) -> list[Any]:
        """Every item posted so far. `woken`: the pipe was found readable (empty it too)."""
        if woken:
            try:
                os.read(self._rfd, 1 << 16)  # a pipe holds at most 64 KiB: one read empties it
            except BlockingIOError:
                pass
        items = []
        while self.items:
            items.append(self.items.popleft())
        return items

    def close(self) -> None:
        for fd in (self._rfd, self._wfd):
            try:
                os.close(fd)
            except OSError:
                pass
