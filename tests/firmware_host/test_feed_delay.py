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
from sim.bots import TableEndpoints
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
        time.sleep(0.2)  # the subscriptions reach the PUB sockets (slow joiner; no timing asserted)
        seq = feed.publish({"phase": "deal", "spots": [{"seat": 1, "cards": ["??"]}]},
                           {"phase": "deal", "spots": [{"seat": 1, "cards": ["As"]}]})
        assert unpack(public.recv())["seq"] == seq
        assert feed.release_due() == pytest.approx(0.5)
        clock.now += 0.4
        assert feed.tick() is False and not full.poll(200), "the full update went out before it was due"
        snap = ask_snapshot(ctx, feed, eps["full_snapshot"])
        assert snap["seq"] < seq and "As" not in repr(snap), "the full snapshot is ahead of the delayed stream"
        clock.now += 0.1
        feed.tick()
        assert full.poll(2000)
        held = unpack(full.recv())
        assert held["seq"] == seq and held["set"]["spots"][0]["cards"] == ["As"]
        assert ask_snapshot(ctx, feed, eps["full_snapshot"])["spots"] == [{"seat": 1, "cards": ["As"]}]
        assert feed.release_due() == float("inf")
        # a heartbeat on the full stream keeps its place in the sequence: held like the updates
        clock.now += 10.0
        assert feed.tick()
        assert unpack(public.recv())["kind"] == "heartbeat"
        assert not full.poll(200)
        clock.now += 0.5
        feed.tick()
        assert full.poll(2000) and unpack(full.recv()) == {"table": "t1", "boot": feed.boot, "seq": seq + 1,
                                                            "kind": "heartbeat"}
    finally:
        full.close(0)
        public.close(0)
        feed.close()


def test_without_a_delay_the_full_feed_goes_out_at_once(ctx: zmq.Context[Any], tmp_path: Path) -> None:
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "full", "full_snapshot")}
    feed = Feed(ctx, "t1", **eps, heartbeat_s=10.0, clock=FakeClock())
    full = subscriber(ctx, eps["full"])
    try:
        time.sleep(0.2)  # the subscription reaches the PUB socket
        seq = feed.publish({"phase": "deal"}, {"phase": "deal", "secret": 1})
        assert full.poll(2000) and unpack(full.recv())["seq"] == seq
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

        def dealt() -> int | None:
            return next((s for s, (_, m) in sorted(seen["public"].items())
                         if m["kind"] == "changes" and (m["set"].get("spots") or [{}])[0].get("cards")), None)

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
