"""Tests of the full feed's delay (`[security] full_delay_s`): held back on the stream, and the full snapshot never ahead of it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from drivers.card_reader import SimCardReader
from protocol.commands import CommandClient
from firmware_host.service.controller import Controller
from protocol.feed import Feed, apply_changes, pack, state_of, unpack
from firmware_host.service.journal import Journal
from sim.bots.table import TableEndpoints
from firmware_host.tables.house.table import HouseSetup

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def subscriber(ctx: zmq.Context[Any], ep: str) -> zmq.Socket[Any]:
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(ep)
    return sub


class Sends:
    """A feed's socket with its sends seen as they are made: what the feed sent, asked of the feed
    itself rather than waited for at a subscriber."""

    def __init__(self, sock: zmq.Socket[Any]) -> None:
        self.sock = sock
        self.frames: list[bytes] = []

    def send(self, frame: bytes, *args: Any, **kwargs: Any) -> Any:
        self.frames.append(frame)
        return self.sock.send(frame, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


def receive_up_to(sub: zmq.Socket[Any], seq: int) -> list[dict[str, Any]]:
    """The messages `sub` receives up to the one numbered `seq`."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["seq"] < seq:
        assert sub.poll(5000), f"no message up to seq {seq}: {got}"
        got.append(unpack(sub.recv()))
    return got


def join(feed: Feed, clock: FakeClock, *subs: zmq.Socket[Any]) -> None:
    """ZeroMQ's slow joiner: a PUB drops what it sends before a subscription reaches it. Heartbeats on
    the fake clock (the full one released after its delay) until every subscriber has one, then
    every message up to the last heartbeat taken, so that the test starts from an empty line."""
    for _ in range(500):
        clock.now += feed.heartbeat_s
        assert feed.tick()
        clock.now += feed.full_delay_s
        feed.tick()
        if all(sub.poll(10) for sub in subs):
            for sub in subs:
                receive_up_to(sub, feed.seq)
            return
    raise AssertionError("the subscribers never joined")


def ask_snapshot(ctx: zmq.Context[Any], feed: Feed, endpoint: str) -> dict[str, Any]:
    client = ctx.socket(zmq.DEALER)
    client.setsockopt(zmq.LINGER, 0)
    client.connect(endpoint)
    client.send(pack({"want": "snapshot"}))
    assert feed.full_snap is not None and feed.full_snap.poll(2000)
    feed.serve_snapshots(feed.full_snap)
    assert client.poll(2000)
    snap = unpack(client.recv())
    client.close(0)
    return snap


def full_snapshot(ctx: zmq.Context[Any], endpoint: str) -> dict[str, Any]:
    client = ctx.socket(zmq.DEALER)
    client.setsockopt(zmq.LINGER, 0)
    client.connect(endpoint)
    client.send(pack({"want": "snapshot"}))
    assert client.poll(5000)
    snap = unpack(client.recv())
    client.close(0)
    return snap


def test_the_feed_holds_full_messages_until_due(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    clock = FakeClock()
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot")}
    feed = Feed(ctx, "t1", **eps, heartbeat_s=10.0, clock=clock, full_delay_s=0.5)
    full = subscriber(ctx, eps["full"])
    public = subscriber(ctx, eps["public"])
    try:
        feed.set_state({"phase": "bets"})  # the state replayed at start: shown once due too
        assert ask_snapshot(ctx, feed, eps["full_snapshot"]) == {"table": "t1", "boot": feed.boot, "seq": 0,
                                                                 "kind": "snapshot"}
        clock.now += 0.5
        feed.tick()
        assert ask_snapshot(ctx, feed, eps["full_snapshot"])["phase"] == "bets"
        join(feed, clock, public, full)
        sent = Sends(feed.full_pub)  # type: ignore[arg-type]
        feed.full_pub = sent  # type: ignore[assignment]
        seq = feed.publish({"phase": "deal", "spots": [{"seat": 1, "cards": ["??"]}]},
                           {"phase": "deal", "spots": [{"seat": 1, "cards": ["As"]}]})
        assert [m["seq"] for m in receive_up_to(public, seq)] == [seq]
        assert feed.release_due() == pytest.approx(0.5) and sent.frames == []
        clock.now += 0.4
        assert feed.tick() is False and sent.frames == [], "the full update went out before it was due"
        snap = ask_snapshot(ctx, feed, eps["full_snapshot"])
        assert snap["seq"] < seq and "As" not in repr(snap), "the full snapshot is ahead of the delayed stream"
        clock.now += 0.1
        feed.tick()
        assert len(sent.frames) == 1
        [held] = receive_up_to(full, seq)
        assert held["seq"] == seq and held["set"]["spots"][0]["cards"] == ["As"]
        assert ask_snapshot(ctx, feed, eps["full_snapshot"])["spots"] == [{"seat": 1, "cards": ["As"]}]
        assert feed.release_due() == float("inf")
        # a heartbeat on the full stream keeps its place in the sequence: held like the updates
        clock.now += 10.0
        assert feed.tick()
        assert [m["kind"] for m in receive_up_to(public, seq + 1)] == ["heartbeat"]
        assert len(sent.frames) == 1  # the heartbeat held on the full stream
        clock.now += 0.5
        feed.tick()
        assert len(sent.frames) == 2
        assert receive_up_to(full, seq + 1) == [{"table": "t1", "boot": feed.boot, "seq": seq + 1, "kind": "heartbeat"}]
    finally:
        full.close(0)
        public.close(0)
        feed.close()


def test_without_a_delay_the_full_feed_goes_out_at_once(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot")}
    clock = FakeClock()
    feed = Feed(ctx, "t1", **eps, heartbeat_s=10.0, clock=clock)
    full = subscriber(ctx, eps["full"])
    try:
        join(feed, clock, full)
        sent = Sends(feed.full_pub)  # type: ignore[arg-type]
        feed.full_pub = sent  # type: ignore[assignment]
        seq = feed.publish({"phase": "deal"}, {"phase": "deal", "secret": 1})
        assert len(sent.frames) == 1  # sent with the public update, not held
        assert [m["seq"] for m in receive_up_to(full, seq)] == [seq]
        assert feed.release_due() == float("inf")
    finally:
        full.close(0)
        feed.close()


def test_a_full_subscriber_gets_each_update_no_earlier_than_the_delay(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    delay = 0.5
    eps = TableEndpoints.tcp()
    feed = Feed(ctx, "t9", public=eps.public, snapshot=eps.snapshot, full=eps.full, full_snapshot=eps.full_snapshot,
                heartbeat_s=0.2, full_delay_s=delay)
    c = Controller(Journal.open(tmp_path / "state"), table="t9", default_setup=UTH, feed=feed)
    c.recover()
    thread = threading.Thread(target=c.run, args=(ctx, eps.commands), daemon=True)
    thread.start()
    public, full = subscriber(ctx, eps.public), subscriber(ctx, eps.full)
    poller = zmq.Poller()
    poller.register(public, zmq.POLLIN)
    poller.register(full, zmq.POLLIN)
    seen: dict[str, dict[int, tuple[float, dict[str, Any]]]] = {"public": {}, "full": {}}

    def take(until: Any, timeout_s: float = 15.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not until():
            assert time.monotonic() < deadline, "the feed stopped"
            for sock, _ in poller.poll(500):
                message = unpack(sock.recv())
                seen["public" if sock is public else "full"].setdefault(message["seq"], (time.monotonic(), message))

    dealer = CommandClient(ctx, eps.commands, timeout_s=10.0)
    shoe = SimCardReader(c.inbox.post)
    try:
        take(lambda: seen["public"] and seen["full"])  # both subscriptions are in (slow joiner)
        first = max(seen["public"])
        base = full_snapshot(ctx, eps.full_snapshot)  # the full changes seen from here on rebuild the state
        assert dealer.request("bet", seat=2, bets={"ante": 100, "blind": 100})["ok"]
        shoe.start()
        shoe.deal("As")

        def cards(m: dict[str, Any]) -> Any:  # the spot's cards a change gives: the list whole, or the spot's place
            places = (m.get("items") or {}).get("spots")
            return (m["set"].get("spots") or [{}])[0].get("cards") if not places else places[1][0][1].get("cards")

        def dealt() -> int | None:
            return next((s for s, (_, m) in sorted(seen["public"].items()) if m["kind"] == "changes" and cards(m)), None)

        take(lambda: dealt() is not None)
        card_seq = dealt()
        assert card_seq is not None
        asked = time.monotonic()
        snap = full_snapshot(ctx, eps.full_snapshot)
        answered = time.monotonic() - asked
        for card in ("Kd", "Qh", "Jc"):
            shoe.deal(card)
        take(lambda: any((m.get("set") or {}).get("phase") == "preflop" for _, m in seen["full"].values()))

        updates = [s for s, (_, m) in seen["public"].items() if m["kind"] == "changes" and s > first]
        assert len(updates) >= 5  # the bet, four cards
        for seq in updates:
            assert seq in seen["full"], f"update {seq} never reached the full feed"
            gap = seen["full"][seq][0] - seen["public"][seq][0]
            assert gap >= delay * 0.6, f"update {seq} reached the full feed {gap:.3f} s after the public one"
        # the full snapshot shows the state the delayed stream showed at its seq, never a newer one
        assert snap["seq"] in seen["full"]
        shown = state_of(base)  # the full state the delayed stream had shown at the snapshot's seq
        for s, (_, m) in sorted(seen["full"].items()):
            if base["seq"] < s <= snap["seq"] and m["kind"] == "changes":
                shown = apply_changes(shown, m)
        assert state_of(snap) == shown
        if answered < delay * 0.8:  # asked right after the card was public: its full update was not yet due
            assert snap["seq"] < card_seq and "As" not in repr(snap)
        assert "As" in repr(seen["full"][card_seq][1])
    finally:
        shoe.close()
        dealer.close()
        public.close(0)
        full.close(0)
        c.stop()
        thread.join(5)
        c.journal.close()
