"""A floor-sim table's update frames, put together from pieces packed once (`sim/floor/frames.py`), equal byte for byte those `Feed.publish` packs from the same state, through real feeds on ipc, hands closed and voided included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import zmq

from protocol.feed import Feed
from sim.floor.tables import Endpoints, FloorSim
from sim.floor.frames import template
from firmware_host.tables.house.sign import HISTORY_HANDS


def subscriber(ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
    sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.connect(endpoint)
    return sub


def test_every_update_frame_equals_the_one_feed_packs(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(ctx, 2, 1.0, lambda i: Endpoints(f"ipc://{tmp_path}/p{i}", f"ipc://{tmp_path}/s{i}",
                                                    f"ipc://{tmp_path}/c{i}"), seed=3, pool=100)
    feeds: list[Feed] = []
    subs: list[zmq.Socket[Any]] = []
    try:
        for table in sim.tables:
            assert all(template(state) is not None for hand in table.pool for state in hand.states)
            reference = Feed(ctx, table.name, public=f"ipc://{tmp_path}/ref-{table.name}",
                             snapshot=f"ipc://{tmp_path}/ref-snap-{table.name}", boot=table.feed.boot)
            feeds.append(reference)
            pair = (subscriber(ctx, table.endpoints.public), subscriber(ctx, f"ipc://{tmp_path}/ref-{table.name}"))
            subs += pair
            while not all(sock.poll(20) for sock in pair):  # heartbeats until both subscriptions are in
                table.feed.tick(float("inf"))
                reference.tick(float("inf"))
            for sock in pair:
                while sock.poll(100):
                    sock.recv()
            compared = 0
            while len(table.hands) < HISTORY_HANDS + 3 or all(h.status == "settled" for h in table.hands):
                table.advance()
                reference.seq = table.feed.seq - 1
                reference.publish(table.shown or {})
                ours, theirs = (sock.recv() if sock.poll(2000) else b"" for sock in pair)
                assert ours == theirs, f"{table.name} seq {table.feed.seq}: the frames differ"
                compared += 1
                assert compared < 20000, "no voided hand in the table's first hands"
            assert compared > 100 and table.shown is not None and len(table.shown["history"]) == HISTORY_HANDS
    finally:
        for sock in subs:
            sock.close(0)
        for feed in feeds:
            feed.close()
        sim.close()
        ctx.destroy(linger=0)
