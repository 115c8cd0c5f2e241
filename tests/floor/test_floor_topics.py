"""The floor feed's topics: a table's name and `/`, so that one table's subscription never takes another whose name it begins."""

from __future__ import annotations

import time
from typing import Any

import msgpack
import pytest
import zmq

from floor.config import PitConfig
from protocol.config import ConfigError
from floor.feed import FloorFeed, table_topic


def test_a_tables_topic_is_that_table_alone_and_a_prefix_a_group() -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    feed = FloorFeed(ctx, "inproc://floor", "inproc://floor-snap", heartbeat_s=60.0)
    subs = {}
    try:
        for topic in (b"uth-1/", b"uth-", b""):
            sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
            sock.setsockopt(zmq.SUBSCRIBE, topic)
            sock.connect("inproc://floor")
            subs[topic] = sock
        time.sleep(0.2)  # the subscriptions reach the XPUB
        feed.drain_subscriptions()
        for table in ("uth-1", "uth-10", "uth-2", "3cp-1"):
            feed.publish(table, {"kind": "update", "table": table})
        got: dict[bytes, list[str]] = {}
        for topic, sock in subs.items():
            got[topic] = []
            while sock.poll(500):
                frame, body = sock.recv_multipart()
                assert frame == table_topic(msgpack.unpackb(body)["table"])
                got[topic].append(msgpack.unpackb(body)["table"])
    finally:
        for sock in subs.values():
            sock.close(0)
        feed.close()
        ctx.destroy(linger=0)
    assert got == {b"uth-1/": ["uth-1"], b"uth-": ["uth-1", "uth-10", "uth-2"], b"": ["uth-1", "uth-10", "uth-2", "3cp-1"]}


@pytest.mark.parametrize("name", ["uth/1", "*uth", "uth 1"])
def test_a_table_name_that_would_break_the_topics_is_refused(name: str) -> None:
    text = ('[pit]\n[[pit.tables]]\nname = "NAME"\npublic = "ipc:///tmp/p"\nsnapshot = "ipc:///tmp/s"\n'
            'commands = "ipc:///tmp/c"\n')
    assert PitConfig.parse(text.replace("NAME", "uth-1"), "pit.toml").tables[0].name == "uth-1"
    with pytest.raises(ConfigError, match="#1 name: must not start with"):
        PitConfig.parse(text.replace("NAME", name), "pit.toml")
