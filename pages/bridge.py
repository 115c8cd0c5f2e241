"""The display's one follower of the table's public feed and its fan-out to the browser screens, each with a bounded queue.

The feed is followed by `protocol.feed.FeedClient` (the clone pattern: subscribe, snapshot, then
each step's changes applied by `seq`; a gap or a new `boot` takes a new snapshot) in one thread of its own: the client
is synchronous and already the one implementation of the pattern, and ZeroMQ sockets belong to
the thread that made them, so the thread owns them and hands each kept message to the asyncio loop
(`loop.call_soon_threadsafe`). Only the public feed is ever followed here.

Messages to a screen are JSON text, one per WebSocket message:

    {"kind": "hello", "heartbeat_s": float}                      first, once
    {"kind": "snapshot" | "update", "table", "boot", "seq", ...state}   the whole state (`FeedClient`'s rebuild)
    {"kind": "heartbeat", "table", "boot", "seq"}                the table is alive

On joining a screen gets `hello` and the current state as a `snapshot`. Each screen has a queue of
at most `QUEUE_MESSAGES`; when a slow screen's queue is full its backlog is dropped for one
`snapshot` of the latest state, so it never holds up the feed thread or the other screens. A message
is encoded once however many screens there are; the `snapshot` of the latest state only when a
screen joins or overflows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import zmq

from protocol.feed import FeedClient
from protocol.messages import Hello

log = logging.getLogger("croupier.display")

QUEUE_MESSAGES = 64


class Screen:
    """One connected browser: its bounded queue of JSON texts to send.

    A coalescing screen (the table display, the dealer console: each state is the whole table) keeps at
    most one state waiting: a burst of updates while it is being sent to (the cards of a deal at the
    shoe's line rate) leaves it the newest, not every one in turn. A screen that shows each step
    (surveillance's log) does not coalesce."""

    def __init__(self, coalesce: bool = False) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=QUEUE_MESSAGES)
        self.resyncs = 0  # times its backlog was dropped for the latest state
        self.coalesce = coalesce
        self._state: str | None = None  # coalescing: the newest state, sent where `_STATE` stands in the queue
        self._state_queued = False

    def offer(self, text: str, latest: Callable[[], str | None] | None, state: bool = False) -> None:
        """Queue `text` (`state`: a snapshot or an update, the whole table); when the queue is full, replace
        the backlog by `latest()` (the current state, encoded only then)."""
        if self.coalesce and state:
            self._state = text
            if self._state_queued:
                return
            text = _STATE
        try:
            self.queue.put_nowait(text)
            if text is _STATE:
                self._state_queued = True
            return
        except asyncio.QueueFull:
            pass
        while not self.queue.empty():
            self.queue.get_nowait()
        self._state, self._state_queued = None, False
        self.resyncs += 1
        current = latest() if latest is not None else None
        if current is not None:
            self.queue.put_nowait(current)

    async def next(self) -> str:
        """The next text to send (waits for one)."""
        text = await self.queue.get()
        if text is _STATE:
            self._state_queued = False
            text, self._state = self._state or "", None
        return text


_STATE = "\x00the newest state"
"""The place of a coalescing screen's waiting state in its queue (compared by identity)."""


class Hub:
    """The latest public state and the connected screens; used from the asyncio loop only."""

    def __init__(self, heartbeat_s: float, coalesce: bool = False) -> None:
        self.coalesce = coalesce
        hello: Hello = {"kind": "hello", "heartbeat_s": heartbeat_s}
        self.hello = json.dumps(hello)
        self._state: dict[str, Any] | None = None  # the current state, as the feed's last snapshot or update
        self._latest: str | None = None  # ... encoded as a `snapshot` message, once asked for
        self.screens: set[Screen] = set()
        self.listeners: list[Callable[[dict[str, Any]], None]] = []  # others told of each message (the pit)

    def snapshot(self) -> str | None:
        """The current state as a `snapshot` message (None before the first), encoded when first asked for:
        only a screen joining or a slow screen's overflow needs it, never the hot path of `publish`."""
        if self._latest is None and self._state is not None:
            self._latest = json.dumps({**self._state, "kind": "snapshot"}, default=str)
        return self._latest

    @property
    def latest(self) -> str | None:
        """The current state as a `snapshot` message (`snapshot()`)."""
        return self.snapshot()

    def join(self) -> Screen:
        screen = Screen(self.coalesce)
        screen.offer(self.hello, None)
        latest = self.latest
        if latest is not None:
            screen.offer(latest, None, state=True)
        self.screens.add(screen)
        return screen

    def leave(self, screen: Screen) -> None:
        self.screens.discard(screen)

    def publish(self, message: dict[str, Any]) -> None:
        """One kept feed message (from the feed thread, through the loop) to every screen, encoded once."""
        text = json.dumps(message, default=str)
        state = message.get("kind") in ("snapshot", "update")
        if state:
            self._state, self._latest = message, None
        for screen in list(self.screens):
            screen.offer(text, self.snapshot, state)
        for listener in self.listeners:
            listener(message)


class FeedFollower(threading.Thread):
    """The thread following the public feed; hands every kept message to `hub` on `loop`."""

    def __init__(self, hub: Hub, loop: asyncio.AbstractEventLoop, public: str, snapshot: str, *,
                 key: str | None = None, server_key: str | None = None) -> None:
        super().__init__(name="display-feed", daemon=True)
        self.hub = hub
        self.loop = loop
        self.public = public
        self.snapshot = snapshot
        self.key = key
        self.server_key = server_key
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        try:
            client = FeedClient(ctx, self.public, self.snapshot, timeout_s=1.0, key=self.key,
                                server_key=self.server_key)
            try:
                self._follow(client)
            finally:
                client.close()
        except Exception:  # a reader never dies quietly: say why, the pages go offline
            log.exception("display: following %s failed", self.public)
        finally:
            ctx.destroy(linger=0)

    def _follow(self, client: FeedClient) -> None:
        while not self.stopping.is_set():
            try:
                message = client.receive(250)
            except TimeoutError as exc:  # the table is down: the pages' heartbeat timer shows offline
                log.warning("display: %s", exc)
                client.state = None  # ask for a snapshot again
                continue
            except ValueError as exc:  # a frame that is not a feed message: counted in the log, skipped
                log.warning("display: bad frame on %s: %s", self.public, exc)
                continue
            if message is None:
                continue
            try:
                self.loop.call_soon_threadsafe(self.hub.publish, message)
            except RuntimeError:  # the loop has closed: the process is ending
                return

    def stop(self) -> None:
        self.stopping.set()


class FollowedFeed:
    """A hub and, when the configuration names the feed, the follower that feeds it: `start` and `stop` with the
    web process (the display's full feed, `firmware_host/display/surveillance.py`; the director's, `pages/tournament.py`)."""

    def __init__(self, hub: Hub, follower: FeedFollower | None = None) -> None:
        self.hub = hub
        self.follower = follower

    def start(self) -> None:
        if self.follower is not None:
            self.follower.start()

    def stop(self) -> None:
        """The follower stopped, and waited for at most 2 s (a daemon thread: it cannot hold the process)."""
        if self.follower is not None:
            self.follower.stop()
            self.follower.join(timeout=2.0)
