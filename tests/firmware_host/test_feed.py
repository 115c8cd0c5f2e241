"""Tests of the feed over real ZeroMQ sockets: seq, boot, heartbeats, snapshots, restricted full socket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from firmware_host.feed import Feed, FeedClient, FeedError, pack, unpack


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    c: zmq.Context[Any] = zmq.Context()
    yield c
    c.destroy(linger=0)


def endpoints(tmp_path: Path) -> dict[str, str]:
    return {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot")}


def subscriber(ctx: zmq.Context[Any], ep: str) -> zmq.Socket[Any]:
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(ep)
    return sub


def settle_subscription(feed: Feed, sub: zmq.Socket[Any]) -> None:
    """Publish heartbeats until the subscriber sees one (slow joiner), then drain."""
    for _ in range(200):
        feed.tick(now=feed._last_sent + feed.heartbeat_s)
        if sub.poll(10):
            while sub.poll(20):
                sub.recv()
            return
    raise AssertionError("subscriber never connected")


def test_updates_and_heartbeats_carry_table_boot_seq(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    clock = FakeClock()
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, heartbeat_s=1.0, clock=clock)
    sub = subscriber(ctx, eps["public"])
    full = subscriber(ctx, eps["full"])
    settle_subscription(feed, sub)
    while full.poll(20):
        full.recv()
    before = feed.seq
    feed.publish({"phase": "deal", "spots": [{"seat": 1, "cards": ["??"]}]},
                 {"phase": "deal", "spots": [{"seat": 1, "cards": ["As"]}]})
    m = unpack(sub.recv())
    f = unpack(full.recv())
    assert m == {"table": "t1", "boot": feed.boot, "seq": before + 1, "kind": "update", "phase": "deal",
                 "spots": [{"seat": 1, "cards": ["??"]}]}
    assert f["seq"] == m["seq"] and f["spots"][0]["cards"] == ["As"]
    clock.now += 0.5
    assert not feed.tick()           # not idle long enough
    clock.now += 0.6
    assert feed.tick()
    hb = unpack(sub.recv())
    assert hb == {"table": "t1", "boot": feed.boot, "seq": before + 2, "kind": "heartbeat"}
    feed.close()


def test_snapshot_for_a_late_joiner(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    feed.publish({"phase": "bets", "hand": 7}, {"phase": "bets", "hand": 7, "secret": 1})
    feed.publish({"phase": "deal", "hand": 7}, {"phase": "deal", "hand": 7, "secret": 1})
    for sock_ep, sock, want_secret in ((eps["snapshot"], feed.snap, False),
                                       (eps["full_snapshot"], feed.full_snap, True)):
        for kind in (zmq.DEALER, zmq.REQ):
            client = ctx.socket(kind)
            client.connect(sock_ep)
            client.send(pack({"want": "snapshot"}))
            assert sock is not None and sock.poll(2000)
            assert feed.serve_snapshots(sock) == 1
            assert client.poll(2000)
            snap = unpack(client.recv())
            assert snap["kind"] == "snapshot" and snap["seq"] == feed.seq and snap["phase"] == "deal"
            assert ("secret" in snap) is want_secret
            client.close(0)
    feed.close()


def test_client_follows_clone_pattern(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", **eps, clock=FakeClock())
    feed.publish({"phase": "bets", "hand": 1})
    client = FeedClient(ctx, eps["public"], eps["snapshot"])
    # the controller loop would serve this; do it by hand in a thread-free way
    dealer_reply: dict[str, Any] = {}

    import threading
    t = threading.Thread(target=lambda: dealer_reply.update(client.fetch_snapshot()))
    t.start()
    assert feed.snap.poll(2000)
    feed.serve_snapshots(feed.snap)
    t.join(2)
    assert dealer_reply["seq"] == 1 and client.state == {"phase": "bets", "hand": 1}
    settle_subscription(feed, client.sub)
    feed.publish({"phase": "deal", "hand": 1})
    m = client.receive(2000)
    assert m is not None and m["kind"] == "update" and client.state == {"phase": "deal", "hand": 1}
    client.close()
    feed.close()


def test_full_socket_must_be_restricted(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    with pytest.raises(FeedError, match="loopback"):
        Feed(ctx, "t1", public=eps["public"], snapshot=eps["snapshot"], full="tcp://0.0.0.0:45558")


def test_bind_conflict_is_a_feed_error(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = endpoints(tmp_path)
    feed = Feed(ctx, "t1", public="tcp://127.0.0.1:*", snapshot=eps["snapshot"])
    taken = feed.pub.getsockopt(zmq.LAST_ENDPOINT).decode()
    with pytest.raises(FeedError, match="cannot bind"):
        Feed(ctx, "t2", public=taken, snapshot=f"ipc://{tmp_path}/other")
    feed.close()
