"""The bound on what the pit's SUB holds of one table (`follower.TABLE_QUEUE`, its RCVHWM): when it must be set for libzmq to apply it, that the pit's follower holds no more, and that a table overflowing it is resynchronised by its snapshot.

A PUB with `XPUB_NODROP` refuses a send (`zmq.Again`) instead of dropping it when every pipe to its
subscribers is full, so the messages it takes before refusing are exactly what the pipes hold: its own
SNDHWM plus the SUB's RCVHWM (on ipc, messages of 50 KB: the kernel's buffer holds none of note).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import zmq

from floor.aggregator import Pit
from floor.config import PitConfig, PitTable
from floor.follower import TABLE_QUEUE, TableFollower
from sim.floor.tables import Endpoints, FloorSim

SNDHWM = 10


def _publisher(ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
    pub: zmq.Socket[Any] = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.SNDHWM, SNDHWM)
    pub.setsockopt(zmq.XPUB_NODROP, 1)
    pub.setsockopt(zmq.LINGER, 0)
    pub.bind(endpoint)
    return pub


def _taken(pub: zmq.Socket[Any], most: int = 5000) -> int:
    """Messages of 50 KB the PUB takes before its pipes are full (refused five times, 50 ms apart)."""
    time.sleep(0.3)  # the subscription in
    payload = b"x" * 50_000
    sent = refused = 0
    while refused < 5 and sent < most:
        try:
            pub.send(payload, zmq.NOBLOCK)
            sent, refused = sent + 1, 0
        except zmq.Again:
            refused += 1
            time.sleep(0.05)
    return sent


def _held(tmp_path: Path, when: str | None) -> int:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        endpoint = f"ipc://{tmp_path}/pub-{when}"
        pub = _publisher(ctx, endpoint)
        sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        if when == "before":
            sub.setsockopt(zmq.RCVHWM, 20)
        sub.connect(endpoint)
        if when == "after":
            sub.setsockopt(zmq.RCVHWM, 20)
        return _taken(pub)
    finally:
        ctx.destroy(linger=0)


def test_a_subs_queue_bound_set_after_it_connected_applies_too(tmp_path: Path) -> None:
    """libzmq 4.3 applies a new RCVHWM to the pipes already made (the pit's old line, 100,000 set after
    `FeedClient` connected, did take effect); the pit now sets its bound before connecting all the same."""
    assert _held(tmp_path, None) == 1000 + SNDHWM  # ZeroMQ's default
    assert _held(tmp_path, "before") == 20 + SNDHWM
    assert _held(tmp_path, "after") == 20 + SNDHWM


def test_the_pits_sub_holds_at_most_its_queue_of_one_table(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        pub = _publisher(ctx, f"ipc://{tmp_path}/pub")
        follower = TableFollower(ctx, PitTable("uth-1", f"ipc://{tmp_path}/pub", f"ipc://{tmp_path}/snap",
                                               f"ipc://{tmp_path}/cmd"), None, None, now=0.0)
        assert follower.client.sub.get(zmq.RCVHWM) == TABLE_QUEUE
        assert _taken(pub) == TABLE_QUEUE + SNDHWM
        follower.close()
    finally:
        ctx.destroy(linger=0)


def test_a_table_that_overflows_the_queue_is_taken_again_from_its_snapshot(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(ctx, 1, 1.0, lambda i: Endpoints(*(f"ipc://{tmp_path}/t{i}-{s}" for s in ("pub", "snap", "cmd"))),
                   pool=2, heartbeat_s=0.5)
    table = sim.tables[0]
    cfg = PitConfig(listen=f"ipc://{tmp_path}/floor", snapshot=f"ipc://{tmp_path}/floor-snap", heartbeat_s=0.5,
                    tables=(PitTable(table.name, table.endpoints.public, table.endpoints.snapshot,
                                     table.endpoints.commands),))
    pit = Pit(cfg, ctx)
    follower = pit.followers[table.name]
    try:
        for _ in range(2000):
            sim.serve(0)
            pit.turn(5)
            if follower.online:
                break
        assert follower.online and follower.client.gaps == 0
        for _ in range(TABLE_QUEUE + 12_000):  # the table plays on while the pit reads nothing: past the
            # pit's queue and the table's own (its PUB's SNDHWM, 10,000: `service.feed.Feed`), its newest are dropped
            table.advance()
        for _ in range(2000):
            sim.serve(0)
            table.feed.tick(time.monotonic())  # its heartbeat: a seq past the hole
            pit.turn(5)
            if follower.client.seq == table.feed.seq and pit.by_socket == {}:
                break
        assert follower.client.gaps >= 1  # it saw the hole the queue's bound made ...
        assert follower.client.seq == table.feed.seq  # ... and holds the table's latest all the same
        assert follower.client.state is not None and follower.client.state["hand"] == table.public()["hand"]
    finally:
        pit.close()
        sim.close()
        ctx.destroy(linger=0)
