"""The director reading eliminations from the tables' public feeds: real `service.feed.Feed`s on ipc
publishing settled poker hands, the pit's `seated` request, the players left with no chips placed by the
director itself (together when out in one hand), audited, and each hand taken once across restarts."""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from floor.director.service import Director
from floor.director.config import DirectorConfig
from floor.director.feeds import Seating, out_of, settled_hand
from protocol.audit import AuditLog
from protocol.commands import CommandClient
from protocol.config import ConfigError
from protocol.feed import Feed
from tests.firmware_host.processes import wait_for
from tests.floor.test_director import TOURNAMENT, write_director

PLAYERS = ("ann", "bob", "cy", "dee", "eve")


class TableFeed:
    """A table's public feed in a thread of its own (a real `Feed` on ipc): `show(state)` publishes it;
    its command channel takes the director's `level` requests."""

    def __init__(self, ctx: zmq.Context[Any], tmp: Path, name: str) -> None:
        self.public, self.snapshot = f"ipc://{tmp}/{name}-pub", f"ipc://{tmp}/{name}-snap"
        self.feed = Feed(ctx, name, public=self.public, snapshot=self.snapshot, heartbeat_s=0.2)
        self.commands = ctx.socket(zmq.ROUTER)
        self.commands.bind(f"ipc://{tmp}/{name}-cmd")
        self.pending: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            if self.feed.snap.poll(20):
                self.feed.serve_snapshots(self.feed.snap)
            while self.commands.poll(0):
                *envelope, frame = self.commands.recv_multipart()
                self.commands.send_multipart([*envelope, msgpack.packb({"id": msgpack.unpackb(frame)["id"], "ok": True})])
            while not self.pending.empty():
                self.feed.publish(self.pending.get())
            self.feed.tick()

    def show(self, state: dict[str, Any]) -> None:
        self.pending.put(state)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.feed.close()
        self.commands.close(0)


def settled(hand: int, seats: dict[int, tuple[int, int]]) -> dict[str, Any]:
    """A poker table's public state with hand `hand` settled: seat -> (stack after it, net)."""
    return {"game": "holdem", "hand": hand, "phase": "settled", "board": [], "fault": None,
            "results": {"pots": [], "net": [{"seat": s, "net": n} for s, (_, n) in sorted(seats.items())]},
            "spots": [{"seat": s, "stack": st, "net": n, "in_hand": True, "cards": ["??", "??"]}
                      for s, (st, n) in sorted(seats.items())]}


class Running:
    """A director serving in a thread on its real sockets, and a pit client on its requests."""

    def __init__(self, config: Path, state: Path, ctx: zmq.Context[Any]) -> None:
        cfg = DirectorConfig.load(config)
        self.director = Director(cfg, str(state), ctx)
        self.thread = threading.Thread(target=self.director.run)
        self.thread.start()
        self.client = CommandClient(ctx, cfg.commands, timeout_s=5.0, name="pit")

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        return self.client.request(cmd, **args)

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.ask(cmd, **args)
        assert reply["ok"], reply
        return reply

    def finishes(self) -> dict[str, tuple[int, int]]:
        return {f["player"]: (f["place"], f["shared"]) for f in self.ok("state")["state"].get("finishes", [])}

    def stop(self) -> None:
        self.client.close()
        self.director.stopping.set()
        self.thread.join(timeout=10)


@pytest.fixture
def room(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[tuple[TableFeed, TableFeed, Callable[[], Running]]]:
    """Two tables' feeds, and a director reading both (`start()` starts one on the same state directory)."""
    t1, t2 = TableFeed(ctx, tmp_path, "T1"), TableFeed(ctx, tmp_path, "T2")
    tables = "".join(f"""
[[director.tables]]
name = "{t.feed.table}"
commands = "ipc://{tmp_path}/{t.feed.table}-cmd"
public = "{t.public}"
snapshot = "{t.snapshot}"
""" for t in (t1, t2))
    config = write_director(tmp_path, tables, TOURNAMENT.replace("fee = 1000", "fee = 1000\nre_entries = 1"))
    started: list[Running] = []

    def start() -> Running:
        running = Running(config, tmp_path / "state", ctx)
        started.append(running)
        return running

    yield t1, t2, start
    for running in started:
        running.stop()
    t1.stop()
    t2.stop()


def outs(state: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(state / "director.sqlite")
    try:
        return [json.loads(b) for (b,) in conn.execute("SELECT body FROM events WHERE kind = 'out' ORDER BY id")]
    finally:
        conn.close()


def field(d: Running, close: bool = True) -> None:
    for player in PLAYERS:
        d.ok("enter", player=player)
    if close:
        d.ok("close")
    d.ok("start", auth={"user": "ana", "pin": "4321"})
    d.ok("seated", table="T1", seats={1: "ann", 2: "bob", 3: "cy"})
    d.ok("seated", table="T2", seats={"1": "dee", "2": "eve"})


def test_players_busted_in_a_settled_hand_are_placed_by_the_director(room: Any, tmp_path: Path) -> None:
    t1, t2, start = room
    d = start()
    field(d)
    t2.show(settled(4, {1: (5000, 0), 2: (5000, 0)}))  # a hand nobody lost
    t1.show(settled(7, {1: (9500, 4500), 2: (0, -3000), 3: (0, -1500)}))  # bob and cy out in one hand
    wait_for(lambda: len(d.finishes()) == 2, "bob and cy placed")
    assert d.finishes() == {"bob": (4, 1), "cy": (5, 1)}  # the larger stack at the hand's start finishes higher
    assert outs(tmp_path / "state") == [{"players": {"bob": 3000, "cy": 1500}, "table": "T1", "hand": 7}]
    t2.show(settled(5, {1: (10000, 5000), 2: (0, -5000)}))  # eve out at T2
    wait_for(lambda: "eve" in d.finishes(), "eve placed")
    assert d.finishes()["eve"] == (3, 1) and d.ok("state")["state"]["players_left"] == 2
    d.stop()
    audit = AuditLog.open(tmp_path / "state", readonly=True)
    try:
        taken = [e.details for e in audit.entries() if e.kind == "director_request" and e.details["command"] == "out"]
    finally:
        audit.close()
    assert [(e["outcome"], e["role"], e["address"], e["args"]["table"], e["args"]["hand"]) for e in taken] == [
        ("taken", "pit", "feed:T1", "T1", 7), ("taken", "pit", "feed:T2", "T2", 5)]


def test_equal_stacks_out_in_one_hand_share_the_places(room: Any) -> None:
    t1, _, start = room
    d = start()
    field(d)
    t1.show(settled(2, {1: (8000, 3000), 2: (0, -1500), 3: (0, -1500)}))
    wait_for(lambda: len(d.finishes()) == 2, "bob and cy placed")
    assert d.finishes() == {"bob": (4, 2), "cy": (4, 2)}


def test_a_restart_does_not_place_a_hand_twice(room: Any, tmp_path: Path) -> None:
    t1, t2, start = room
    d = start()
    field(d, close=False)
    t1.show(settled(3, {1: (8000, 3000), 2: (0, -3000), 3: (5000, 0)}))
    wait_for(lambda: d.ok("state")["state"]["players_left"] == 4, "bob out")
    d.ok("enter", player="bob")  # his re-entry, in his seat again
    d.ok("close")
    d.ok("seated", table="T1", seats={1: "ann", 2: "bob", 3: "cy"})
    d.stop()
    d = start()  # T1's snapshot shows hand 3 settled, seat 2 with no chips: taken before the restart, not again
    d.ok("seated", table="T1", seats={1: "ann", 2: "bob", 3: "cy", 4: "dee"})  # dee moved from T2
    t2.show(settled(9, {1: (10000, 5000), 2: (0, -5000)}))  # eve out at T2 (its seats replayed)
    wait_for(lambda: "eve" in d.finishes(), "eve placed after the restart")
    t1.show(settled(4, {1: (13000, 5000), 2: (5000, 0), 3: (0, -5000), 4: (5000, 0)}))  # cy out
    wait_for(lambda: "cy" in d.finishes(), "cy placed")
    assert [(o["table"], o["hand"], o["players"]) for o in outs(tmp_path / "state")] == [
        ("T1", 3, {"bob": 3000}), ("T2", 9, {"eve": 5000}), ("T1", 4, {"cy": 5000})]
    assert d.finishes() == {"bob": (6, 1), "eve": (5, 1), "cy": (4, 1)}  # bob #2 still in
    assert d.ok("state")["state"]["players_left"] == 3


def test_the_seat_map_is_checked(room: Any) -> None:
    _, _, start = room
    d = start()
    d.ok("enter", player="ann")
    assert d.ask("seated", table="T9", seats={1: "ann"})["code"] == "illegal"
    assert "zed is not in the tournament" in d.ask("seated", table="T1", seats={1: "zed"})["error"]
    assert "two seats" in d.ask("seated", table="T1", seats={1: "ann", 2: "ann"})["error"]
    assert d.ask("seated", table="T1", seats={11: "ann"})["code"] == "malformed"
    assert d.ask("seated", table="T1", seats=[1])["code"] == "malformed"
    assert d.ask("seated", table="T1")["error"] == "seated: missing seats"
    d.ok("seated", table="T1", seats={})  # nobody seated: a table broken


def test_the_settled_hand_read_from_a_public_state() -> None:
    seating = Seating(("T1", "T2"), 9)
    seating.seat("T1", {"1": "ann", "2": "bob"}, {"ann", "bob"})
    hand = settled_hand("T1", settled(6, {1: (0, -200), 2: (400, 200), 3: (0, -50)}))
    assert hand is not None and out_of(hand, seating, {"ann", "bob"}) == {"ann": 200}  # seat 3: nobody seated
    assert out_of(hand, seating, {"bob"}) == {}  # ann already out (the pit's `out`)
    seating.leave({"ann": 200}, "T1", 6)
    assert seating.tables == {"T1": {2: "bob"}} and out_of(hand, seating, {"ann", "bob"}) == {}  # hand 6 taken
    assert settled_hand("T1", {**settled(6, {1: (0, -200)}), "phase": "preflop"}) is None
    seating.seat("T2", {"1": "cy"}, {"bob", "cy"})
    seating.seat("T1", {"2": "bob", "5": "cy"}, {"bob", "cy"})  # cy moved: he leaves T2
    assert seating.tables == {"T1": {2: "bob", 5: "cy"}, "T2": {}}


def test_a_table_feed_needs_both_sockets(tmp_path: Path) -> None:
    config = write_director(tmp_path, '[[director.tables]]\nname = "T1"\ncommands = "ipc://x"\npublic = "ipc://p"\n')
    with pytest.raises(ConfigError, match=r"\[\[director.tables\]\] #1 public, snapshot: give both or neither"):
        DirectorConfig.load(config)
    config = write_director(tmp_path, '[[director.tables]]\nname = "T1"\ncommands = "ipc://x"\n'
                                      'public = "ipc://p"\nsnapshot = "udp://s"\n')
    with pytest.raises(ConfigError, match=r"\[\[director.tables\]\] #1 snapshot: must be a ZeroMQ endpoint"):
        DirectorConfig.load(config)
