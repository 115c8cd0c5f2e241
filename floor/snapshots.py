"""The pit's snapshot requests in waves: at most `IN_FLIGHT` tables' snapshots asked at once, the rest queued in order, so a floor of thousands of tables stays under the process's file descriptors.

Each snapshot asked holds a DEALER (its ZeroMQ mailbox and its connection: two descriptors) beside
the table's SUB (two more). At the pit's start every table wants its snapshot at once, and a Linux
process here may hold 20,000 descriptors: 5,000 tables asked together would pass it. So a table wanting
its snapshot (at start, on a reload adding it, after a gap or a restart, or asked again when
unanswered) is queued, and asked when fewer than `IN_FLIGHT` are out; an unanswered one asked again
goes to the back of the queue, its place given to the next.

>>> waves = SnapshotWaves(limit=2)
>>> for table in ("a", "b", "c"):
...     waves.want(table)
>>> waves.due()
['a', 'b']
>>> waves.answered("a")
>>> waves.due(), waves.asked, waves.waiting
(['c'], 2, 0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

IN_FLIGHT = 200
"""The most snapshots asked at once (400 descriptors): a wave of 200 is answered in tens of milliseconds
by tables on a LAN, so 5,000 tables are all asked within seconds."""

T = TypeVar("T", bound=Hashable)


class SnapshotWaves(Generic[T]):
    """The tables waiting for their snapshot to be asked, in order, and those asked and not answered yet."""

    def __init__(self, limit: int = IN_FLIGHT) -> None:
        """Raises ValueError for a limit below 1."""
        if limit < 1:
            raise ValueError(f"snapshots in flight: {limit} is not at least 1")
        self.limit = limit
        self._queue: deque[T] = deque()  # may hold an item forgotten since (skipped when reached)
        self._queued: set[T] = set()
        self._asked: set[T] = set()

    @property
    def asked(self) -> int:
        """Snapshots asked and not answered."""
        return len(self._asked)

    @property
    def waiting(self) -> int:
        """Tables queued for their snapshot to be asked."""
        return len(self._queued)

    def want(self, item: T) -> None:
        """Queue `item` (once, however often wanted; one asked already gives its place up and goes to the back)."""
        self._asked.discard(item)
        if item not in self._queued:
            self._queued.add(item)
            self._queue.append(item)

    def due(self) -> list[T]:
        """The items to ask now, in the order wanted, counted as asked: as many as keep `limit` out."""
        out: list[T] = []
        while self._queue and len(self._asked) < self.limit:
            item = self._queue.popleft()
            if item in self._queued:
                self._queued.discard(item)
                self._asked.add(item)
                out.append(item)
        return out

    def answered(self, item: T) -> None:
        """`item`'s snapshot came: its place is free."""
        self._asked.discard(item)

    def forget(self, item: T) -> None:
        """`item` is no longer followed (or its request is dropped): out of the queue and of those asked."""
        self._asked.discard(item)
        self._queued.discard(item)
