"""A table's public feed recorded once (tools/record_feed.py, tests/data/feeds/) and played again on loopback ZeroMQ: the display follows it as it follows a table.

    feed = RecordedFeed.load("uth-21", tmp_path)   # bound, serving its first state as the snapshot
    display(feed)                                  # the `display` fixture takes it for a table
    seq, state = feed.next()                       # the next recorded state published as an update
    feed.close()

The real `protocol.feed.Feed` publishes (the wire, the snapshots and the heartbeats are the table's
own), from one thread that owns its sockets. `by_seq` holds the cards of the state at each seq (its
update's, or the state a heartbeat's seq stands for), by (boot, seq), as a feed client following it
would have them; `hands` the recording's closed hands as
`croupier history --json` printed them.
"""

from __future__ import annotations

import gzip
import json
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from protocol.feed import Feed

FEEDS = Path(__file__).resolve().parent.parent / "data" / "feeds"


@dataclass
class Endpoints:
    public: str
    snapshot: str


class RecordedFeed(threading.Thread):
    """A recording played again: the first state the snapshot, each `next()` the next state's update."""

    keys = None  # no CURVE: the display follows it in the clear, on ipc

    def __init__(self, head: dict[str, Any], states: list[dict[str, Any]], hands: list[dict[str, Any]],
                 run_dir: Path, places: Any) -> None:
        super().__init__(daemon=True)
        self.head, self.states, self.hands = head, states, hands
        self.table: str = head["table"]
        self.heartbeat_s: float = head["heartbeat_s"]
        self.endpoints = Endpoints(f"ipc://{run_dir}/public", f"ipc://{run_dir}/snapshot")
        self.places = places
        self.by_seq: dict[tuple[str, int], Any] = {}
        self.played = 0  # states published so far, the snapshot's first
        self.boot = ""
        self._calls: queue.Queue[tuple[dict[str, Any], queue.Queue[int]]] = queue.Queue()
        self._bound = threading.Event()
        self._stopping = threading.Event()
        self._error: BaseException | None = None

    @classmethod
    def load(cls, name: str, run_dir: Path, places: Any = lambda state: state) -> RecordedFeed:
        """tests/data/feeds/NAME.jsonl.gz, bound in `run_dir` and serving; `places(state)` is what
        `by_seq` keeps of each state."""
        with gzip.open(FEEDS / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines if line.strip()]
        head = records[0]
        assert head["kind"] == "recording", head
        feed = cls(head, [r["state"] for r in records if r["kind"] == "state"],
                   [r["hand"] for r in records if r["kind"] == "hand"], run_dir, places)
        feed.start()
        assert feed._bound.wait(10), f"the recorded feed did not bind: {feed._error}"
        return feed

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        try:
            feed = Feed(ctx, self.table, public=self.endpoints.public, snapshot=self.endpoints.snapshot,
                        heartbeat_s=self.heartbeat_s)
        except Exception as exc:  # told to `load`, which waits for the bind
            self._error = exc
            ctx.destroy(linger=0)
            return
        try:
            self.boot = feed.boot
            feed.set_state(self.states[0])
            self.by_seq[(feed.boot, 0)] = self.places(self.states[0])
            self.played = 1
            self._bound.set()
            shown = self.by_seq[(feed.boot, 0)]
            while not self._stopping.is_set():
                if feed.snap.poll(10):
                    feed.serve_snapshots(feed.snap)
                while not self._calls.empty():
                    state, done = self._calls.get_nowait()
                    shown = self.by_seq[(feed.boot, feed.seq + 1)] = self.places(state)  # before a page can draw it
                    done.put(feed.publish(state))
                if feed.heartbeat_due() <= 0:  # a heartbeat's seq: the same state (a snapshot may answer at it)
                    self.by_seq[(feed.boot, feed.seq + 1)] = shown
                    feed.tick()
        finally:
            feed.close()
            ctx.destroy(linger=0)

    def left(self) -> int:
        """How many recorded states are still to publish."""
        return len(self.states) - self.played

    def next(self) -> tuple[int, dict[str, Any]]:
        """Publish the next recorded state; its seq and the state."""
        state = self.states[self.played]
        self.played += 1
        done: queue.Queue[int] = queue.Queue()
        self._calls.put((state, done))
        return done.get(timeout=10), state

    def close(self) -> None:
        self._stopping.set()
        self.join(10)
