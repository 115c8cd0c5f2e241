"""The bound on what the pit's SUB holds of one table (`follower.TABLE_QUEUE`, its RCVHWM): the pit's follower sets it, and a table overflowing it is resynchronised by its snapshot.

How many messages libzmq's pipes hold under a given HWM is libzmq's to test, not ours: what is ours
is the bound the follower asks for, and what the pit does when a table's messages were dropped.
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


def test_the_pits_sub_is_bounded_by_its_queue_of_one_table(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        follower = TableFollower(ctx, PitTable("uth-1", f"ipc://{tmp_path}/pub", f"ipc://{tmp_path}/snap",
                                               f"ipc://{tmp_path}/cmd"), None, None, now=0.0)
        assert follower.client.sub.get(zmq.RCVHWM) == TABLE_QUEUE
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
