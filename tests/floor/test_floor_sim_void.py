"""A simulated floor table's voided hand gives way to the next hand's number at once, as a real table's does, so the pit sees it close even when it is the table's last hand of a run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

from sim.floor.tables import Endpoints, FloorSim


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
        time.sleep(0.3)  # the subscription reaches the PUB
        voided = None
        for _ in range(20000):
            closed = table.advance()
            if closed and table.hands[-1].status != "settled":
                voided = table.hands[-1].hand
                break
        assert voided is not None, "no voided hand in the pool's first hands"
        last = None
        while sub.poll(500):
            last = msgpack.unpackb(sub.recv(), raw=False)
        assert last is not None and last["kind"] == "changes"
        assert last["set"]["hand"] == voided + 1 and last["set"]["phase"] == "bets"  # not the void's own number
        assert table.public()["hand"] == voided + 1
    finally:
        sub.close(0)
        sim.close()
        ctx.destroy(linger=0)
