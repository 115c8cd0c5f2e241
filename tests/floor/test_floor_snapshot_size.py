"""The floor snapshot of thousands of tables comes whole: its ROUTER holds every frame a reader has not taken yet (past ZeroMQ's default of 1,000 a ROUTER drops them, and the `end` marker with them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import zmq

from floor.feed import FloorFeed


def test_a_snapshot_of_five_thousand_tables_is_answered_whole(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    feed = FloorFeed(ctx, f"ipc://{tmp_path}/floor", f"ipc://{tmp_path}/floor-snap", 1.0)
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        dealer.connect(f"ipc://{tmp_path}/floor-snap")
        dealer.send(msgpack.packb({"want": "snapshot"}))
        assert feed.snap.poll(5000)
        # 5,000 frames of 1 KB sent before the reader takes any: more than the pipes and the kernel hold
        frames = [msgpack.packb({"kind": "snapshot", "table": f"t-{i:04d}", "pad": "x" * 1000}) for i in range(5000)]
        assert feed.serve_snapshots(lambda prefix: frames) == 1
        tables = []
        while dealer.poll(5000):
            message = msgpack.unpackb(dealer.recv(), raw=False)
            if message["kind"] == "end":
                break
            tables.append(message["table"])
        assert message == {"kind": "end", "floor_seq": 0, "tables": 5000}
        assert tables == [f"t-{i:04d}" for i in range(5000)]
    finally:
        dealer.close(0)
        feed.close()
        ctx.destroy(linger=0)
