"""The floor pages' follower of a pit's floor feed against the pit's own `FloorFeed` on real sockets: over CURVE (and refused without the keys), a gap taking a new snapshot, a removed table gone, a tournament's clock left out, a silent pit showing every table offline."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.auth

from floor.web.hub import PitHub
from floor.web.pit_feed import FloorFollower, apply_snapshot
from floor.feed import FloorFeed
from protocol import keys
from protocol.curve import ClientKeys
from sim.bots.table import free_tcp_port
from tests.firmware_host.processes import wait_for

HEARTBEAT_S = 0.1


class Pit(threading.Thread):
    """The pit's side: its real floor feed, served from one thread (snapshots, heartbeats) while `beating`; the
    test's calls (`publish`, `remove`) run on that thread between polls."""

    def __init__(self, ctx: zmq.Context[Any]) -> None:
        super().__init__(daemon=True)
        self.listen, self.snapshot = f"tcp://127.0.0.1:{free_tcp_port()}", f"tcp://127.0.0.1:{free_tcp_port()}"
        self.feed = FloorFeed(ctx, self.listen, self.snapshot, HEARTBEAT_S)
        self.states: dict[str, dict[str, Any]] = {}
        self.calls: list[Callable[[], None]] = []
        self.beating = threading.Event()
        self.beating.set()
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            if self.feed.snap.poll(20):
                self.feed.serve_snapshots(lambda prefix: [
                    {**s, "table": n, "floor_seq": self.feed.seq} for n, s in self.states.items()])
            self.feed.drain_subscriptions()
            while self.calls:
                self.calls.pop(0)()
            if self.beating.is_set():
                self.feed.tick(len(self.states), len(self.states))

    def update(self, name: str, hand: int, lose_one: bool = False) -> None:
        def send() -> None:
            state = {"table": name, "boot": "b1", "seq": hand, "kind": "update", "game": "uth", "hand": hand,
                     "phase": "bets", "session": {"hands": hand - 1, "house_net": 0}, "online": True}
            self.states[name] = state
            if lose_one:
                self.feed.seq += 1  # a message the follower never gets
            self.feed.publish(name, dict(state))
        self.calls.append(send)

    def clock(self, name: str) -> None:
        """A tournament director's clock relayed as the pit does (`[[pit.tournaments]]`)."""
        def send() -> None:
            state = {"table": name, "boot": "d1", "seq": 1, "kind": "update", "tournament": "Sunday",
                     "level": {"number": 1}, "online": True}
            self.states[name] = state
            self.feed.publish(name, dict(state))
        self.calls.append(send)

    def remove(self, name: str) -> None:
        def send() -> None:
            self.states.pop(name, None)
            self.feed.publish(name, {"table": name, "kind": "removed", "online": False})
        self.calls.append(send)

    def stop(self) -> None:
        self.stopping.set()
        self.join(5)
        self.feed.close()


class Display:
    """A display's pit hub on an event loop of its own thread, and its follower of the pit."""

    def __init__(self, pit: Pit, client: ClientKeys | None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.hub = PitHub((), source="pit")
        self.follower = FloorFollower(self.hub, self.loop, pit.listen, pit.snapshot, HEARTBEAT_S, client)
        self.follower.start()

    def tables(self) -> dict[str, dict[str, Any]]:
        async def read() -> dict[str, dict[str, Any]]:
            return {name: dict(line) for name, line in self.hub.states.items()}
        return asyncio.run_coroutine_threadsafe(read(), self.loop).result(5)

    def answers(self) -> bool | None:
        """What the screens were last told of the pit: whether it answers (None: nothing yet)."""
        async def read() -> str | None:
            return self.hub.pit_state
        state = asyncio.run_coroutine_threadsafe(read(), self.loop).result(5)
        return None if state is None else bool(json.loads(state)["online"])

    def close(self) -> None:
        self.follower.stop()
        self.follower.join(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def curve_pit(tmp_path: Path) -> Iterator[tuple[Pit, ClientKeys, Path]]:
    """A pit whose floor feed and snapshot are CURVE servers (its certificate), and a display's client keys."""
    public, secret = keys.create(tmp_path, "pit1", "pit")
    _, display_secret = keys.create(tmp_path, "podium", "display")
    _, server_secret = zmq.auth.load_certificate(str(secret))
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.setsockopt(zmq.CURVE_SERVER, 1)  # every socket the floor feed makes: a CURVE server
    ctx.setsockopt(zmq.CURVE_SECRETKEY, server_secret)
    pit = Pit(ctx)
    pit.start()
    yield pit, ClientKeys.load(str(display_secret), str(public)), tmp_path
    pit.stop()
    ctx.destroy(linger=0)


def test_the_display_follows_a_pit_over_curve_and_a_plaintext_one_hears_nothing(
        curve_pit: tuple[Pit, ClientKeys, Path]) -> None:
    pit, client, _ = curve_pit
    pit.update("uth-1", 4)
    plain = Display(pit, None)
    display = Display(pit, client)
    try:
        wait_for(lambda: display.tables().get("uth-1", {}).get("hand") == 4, "the table over CURVE")
        pit.update("uth-1", 5)
        shown = wait_for(lambda: display.tables().get("uth-1") if display.tables()["uth-1"]["hand"] == 5 else None,
                         "the update over CURVE")
        assert shown["online"] is True and shown["game"] == "uth"
        assert display.answers() is True
        wait_for(lambda: plain.answers() is False, "the plaintext display to say the pit does not answer")
        assert plain.tables() == {} and plain.follower.snapshots == 0  # without the keys: no snapshot, no table
    finally:
        plain.close()
        display.close()


def test_a_gap_in_floor_seq_takes_a_new_snapshot_a_removed_table_goes_and_a_silent_pit_is_all_offline(
        curve_pit: tuple[Pit, ClientKeys, Path]) -> None:
    pit, client, _ = curve_pit
    pit.update("uth-1", 1)
    pit.update("3cp-2", 1)
    pit.clock("sunday")  # a tournament's clock on the floor feed: not a table
    display = Display(pit, client)
    try:
        wait_for(lambda: set(display.tables()) == {"uth-1", "3cp-2"}, "both tables")
        pit.clock("sunday")
        pit.update("3cp-2", 2)
        wait_for(lambda: display.tables()["3cp-2"]["hand"] == 2, "the update after the clock's")
        assert set(display.tables()) == {"uth-1", "3cp-2"}
        # hand 2 was published after the display's snapshot was answered (both tables shown first), so it came
        # on the live stream, past the snapshot's marker: the snapshots taken so far are all there will be
        # until a gap, a restart or a silence
        taken = display.follower.snapshots
        pit.update("uth-1", 2, lose_one=True)
        wait_for(lambda: display.follower.snapshots > taken, "a new snapshot after the gap")
        assert wait_for(lambda: display.tables()["uth-1"]["hand"] == 2, "the state from the new snapshot")
        pit.remove("3cp-2")
        wait_for(lambda: set(display.tables()) == {"uth-1"}, "the removed table gone")
        pit.beating.clear()  # the pit goes silent
        wait_for(lambda: display.tables()["uth-1"]["online"] is False, "every table offline")
        pit.beating.set()
        pit.update("uth-1", 3)
        wait_for(lambda: display.tables()["uth-1"].get("online") is True and display.tables()["uth-1"]["hand"] == 3,
                 "the table online again once the pit speaks")
    finally:
        display.close()


def test_a_screen_joined_before_the_pits_tables_are_known_gets_all_of_them_and_a_removed_one_goes() -> None:
    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        hub = PitHub((), source="pit")
        early = hub.join()  # before the floor snapshot: its queue sized for no table yet
        states = [{"table": f"t-{i:03d}", "kind": "snapshot", "hand": i, "phase": "bets", "online": i % 2 == 0}
                  for i in range(300)]
        apply_snapshot(hub, states)
        apply_snapshot(hub, states[1:])  # t-000 dropped by a reload
        got = [json.loads(early.queue.get_nowait()) for _ in range(early.queue.qsize())]
        late = hub.join()
        return got, [json.loads(late.queue.get_nowait()) for _ in range(late.queue.qsize())]

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (Playwright's may run in this thread)
        got, late = pool.submit(asyncio.run, run()).result()
    shown: dict[str, bool] = {}
    for message in got:  # what a page draws from the early screen's messages, in order
        if message["kind"] == "hello":
            shown = {t["name"]: shown.get(t["name"], False) for t in message["tables"] if t["name"] in shown}
        elif message["kind"] == "table":
            shown[message["name"]] = message["online"]
        elif message["kind"] == "removed":
            shown.pop(message["name"], None)
    want = {f"t-{i:03d}": i % 2 == 0 for i in range(1, 300)}
    assert shown == want
    assert late[0]["kind"] == "hello" and [t["name"] for t in late[0]["tables"]] == sorted(want)
    assert {m["name"]: m["online"] for m in late if m["kind"] == "table"} == want
