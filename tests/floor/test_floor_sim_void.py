"""A simulated floor table's voided hand gives way to the next hand's number at once, as a real table's does, so the pit sees it close even when it is the table's last hand of a run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import zmq

from protocol.feed import Feed
from sim.floor.tables import Endpoints, FloorSim


def heartbeat(feed: Feed) -> None:
    """A heartbeat sent now, whenever the last message went (the feed's clock told it is due)."""
    assert feed.tick(now=feed._last_sent + feed.heartbeat_s)


def receive_up_to(sub: zmq.Socket[Any], seq: int) -> list[dict[str, Any]]:
    """The messages `sub` receives up to the one numbered `seq`."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["seq"] < seq:
        assert sub.poll(5000), f"no message up to seq {seq}: {got[-3:]}"
        got.append(msgpack.unpackb(sub.recv(), raw=False))
    return got


def joined(feed: Feed, sub: zmq.Socket[Any]) -> None:
    """ZeroMQ's slow joiner: heartbeats until `sub` has one (its subscription reached the PUB), then
    every message up to the last heartbeat taken."""
    for _ in range(500):
        heartbeat(feed)
        if sub.poll(10):
            receive_up_to(sub, feed.seq)
            return
    raise AssertionError("the subscriber never joined")


def test_the_state_after_a_void_shows_the_next_hand(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(ctx, 1, 1.0, lambda i: Endpoints(f"ipc://{tmp_path}/p{i}", f"ipc://{tmp_path}/s{i}",
                                                    f"ipc://{tmp_path}/c{i}"), seed=3, pool=100)
    table = sim.tables[0]
    sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(table.endpoints.public)
    try:
        joined(table.feed, sub)
        voided = None
        for _ in range(20000):
            closed = table.advance()
            if closed and table.hands[-1].status != "settled":
                voided = table.hands[-1].hand
                break
        assert voided is not None, "no voided hand in the pool's first hands"
        heartbeat(table.feed)  # after every update sent: what came before it is all the table published
        got = receive_up_to(sub, table.feed.seq)
        assert got[-1]["kind"] == "heartbeat"
        last = next((m for m in reversed(got) if m["kind"] != "heartbeat"), None)
        assert last is not None and last["kind"] == "changes"
        assert last["set"]["hand"] == voided + 1 and last["set"]["phase"] == "bets"  # not the void's own number
        assert table.public()["hand"] == voided + 1
    finally:
        sub.close(0)
        sim.close()
        ctx.destroy(linger=0)
