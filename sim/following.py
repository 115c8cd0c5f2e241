"""A simulation thread that follows a table's full feed and acts on each state it holds, until stopped."""

from __future__ import annotations

import logging
import threading
from typing import Any, cast

import zmq

from drivers.errors import DeviceError
from protocol.feed import FeedClient
from protocol.messages import FullState
from sim.bots.table import TableEndpoints

log = logging.getLogger("croupier.sim")


class FollowingThread(threading.Thread):
    """Follows the full feed (a snapshot again after the controller was down) and calls `on_state`
    with the state after each message or quiet 200 ms; `stop()` ends it. Subclasses open what else
    they use in `open` (closed with the feed) and act in `on_state`."""

    def __init__(self, name: str, endpoints: TableEndpoints, key: str | None, server_key: str | None,
                 feed_key: str | None = None) -> None:
        super().__init__(name=name, daemon=True)
        self.endpoints = endpoints
        self.key, self.server_key = key, server_key  # CURVE: the commands' key (a dealer's), the table's public one
        self.feed_key = feed_key if feed_key is not None else key  # the full feed's (a surveillance key's)
        self.feed: FeedClient | None = None
        self._done = threading.Event()

    def stop(self) -> None:
        self._done.set()
        self.join(timeout=5.0)

    def open(self, ctx: zmq.Context[Any]) -> list[Any]:
        """What the thread uses beside the feed (each with `close()`). Raises DeviceError, OSError."""
        return []

    def on_state(self, state: FullState) -> None:
        """Act on the table's state now. Raises DeviceError, OSError (the thread stops)."""

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        self.feed = feed = FeedClient(ctx, self.endpoints.full, self.endpoints.full_snapshot, timeout_s=1.0,
                                      key=self.feed_key, server_key=self.server_key)
        things: list[Any] = [feed]
        try:
            things += self.open(ctx)
            while not self._done.is_set():
                try:
                    feed.receive(200)
                except TimeoutError:
                    feed.state = None  # the controller is down: snapshot again when it is back
                    continue
                self.on_state(cast(FullState, feed.state or {}))
        except (DeviceError, OSError) as exc:
            log.error("%s stopped: %s", self.name, exc)
        finally:
            for thing in things:
                try:
                    thing.close()
                except Exception:  # closing must go on for the others
                    log.debug("closing %r", thing, exc_info=True)
            ctx.destroy(linger=0)
