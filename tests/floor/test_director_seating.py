"""The director on real tables (`director_floorman.py`): the seats drawn and the tables opened, a table broken
into the free seats, the player due the big blind moved to balance, hand-for-hand at the bubble holding every
table, and a restart that sends nothing twice. Each table is a real controller on its ipc sockets, dealt by a
bot (`live_tables.py`); the director serves in a thread on its own sockets."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.tournament import next_big_blind, worst_seat
from tests.firmware_host.processes import wait_for
from tests.floor.live_tables import LiveTable
from tests.floor.test_director import Running, write_director


def tournament(tables: int, seats: int, shares: str = "[60, 40]") -> str:
    use = ", ".join(f'"T{i}"' for i in range(1, tables + 1))
    return f"""
name = "Floor 100+10"
buy_in = 10000
fee = 1000
starting_stack = 5000
seats_per_table = {seats}
chips = [25, 100]
late_registration_until_level = 1
[tables]
use = [{use}]
[[levels]]
small_blind = 25
big_blind = 50
duration_s = 600
[[payouts]]
up_to = 30
shares = {shares}
"""


class Room:
    """The tables and the director of one test."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], tables: int, seats: int, shares: str = "[60, 40]",
                 shoe: bool = False) -> None:
        self.tmp, self.ctx = tmp, ctx
        self.tables = {f"T{i}": LiveTable(ctx, tmp, f"T{i}", seats, shoe) for i in range(1, tables + 1)}
        self.config = write_director(tmp, tables="".join(t.link() for t in self.tables.values()),
                                     tournament=tournament(tables, seats, shares))
        self.director: Running | None = None

    def start(self) -> Running:
        self.director = Running(self.config, self.tmp / "state", self.ctx)
        return self.director

    def stop_director(self) -> None:
        if self.director is not None:
            self.director.stop()
            self.director = None

    def enter(self, players: int) -> None:
        assert self.director is not None
        for k in range(1, players + 1):
            self.director.ok("enter", player=f"p{k:02d}")
        self.director.ok("close")

    def floor(self) -> dict[str, Any]:
        assert self.director is not None
        floor: dict[str, Any] = self.director.ok("state")["state"]["floor"]
        return floor

    def settled(self) -> dict[str, Any]:
        """The floor once every order is taken (the director's view)."""
        return wait_for(lambda: (lambda f: f if f["orders_waiting"] == 0 else None)(self.floor()), "every order taken")

    def drawn(self) -> dict[str, dict[int, str]]:
        self.director_ok("seat-draw")
        seats = self.settled()["seats"]
        return {t: {int(s): p for s, p in chart.items()} for t, chart in seats.items()}

    def director_ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        assert self.director is not None
        return self.director.ok(cmd, **args)

    def close(self) -> None:
        self.stop_director()
        for t in self.tables.values():
            t.stop()


@pytest.fixture
def room(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Callable[..., Room]]:
    made: list[Room] = []

    def make(tables: int, seats: int, shares: str = "[60, 40]", shoe: bool = False) -> Room:
        made.append(Room(tmp_path, ctx, tables, seats, shares, shoe))
        return made[-1]

    yield make
    for r in made:
        r.close()


def director_events(tmp: Path, kind: str) -> list[dict[str, Any]]:
    conn = sqlite3.connect(tmp / "state" / "director.sqlite")
    try:
        return [json.loads(b) for (b,) in conn.execute("SELECT body FROM events WHERE kind = ? ORDER BY id", (kind,))]
    finally:
        conn.close()


def opens(table: LiveTable) -> list[Any]:
    """The `open` events the director sent (with a request id: the configured table's own open has none)."""
    return [e for e in table.events("open") if e.req]


def wait_moves(r: Room, count: int) -> list[dict[str, Any]]:
    """The `moves` events once `count` are journaled and every order is taken."""
    moves = wait_for(lambda: (lambda m: m if len(m) >= count else None)(director_events(r.tmp, "moves")),
                     f"{count} moves events")
    r.settled()
    return moves


def test_the_seat_draw_opens_every_table_with_its_players_stacks_and_rules(room: Callable[..., Room],
                                                                           tmp_path: Path) -> None:
    r = room(3, 4)
    r.start()
    r.enter(10)
    seats = r.drawn()
    assert sorted(len(s) for s in seats.values()) == [3, 3, 4]
    assert sorted(p for s in seats.values() for p in s.values()) == [f"p{k:02d}" for k in range(1, 11)]
    draw = director_events(tmp_path, "seat-draw")[0]
    for name, table in r.tables.items():
        opens = [e for e in table.events("open") if e.req]          # the configured table's own open aside
        assert len(opens) == 1, opens
        body = opens[0].body
        assert body["stacks"] == {str(s): 5000 for s in seats[name]}
        assert body["button"] == draw["buttons"][name] and body["button"] in seats[name]
        assert body["rules"] == {"button": "dead", "all_in_reveal": True}
        assert body["stakes"] == {"blinds": [25, 50], "antes": 0}             # the level, sent just before
        assert table.seated() == {s: 5000 for s in seats[name]}
    again = r.director_ok("seat-draw")                              # drawn once: the same seats answered again
    assert again.get("duplicate") is True and again["state"]["floor"]["seats"] == draw["layout"]


def test_a_table_broken_moves_its_players_into_the_free_seats(room: Callable[..., Room]) -> None:
    r = room(2, 3)
    r.start()
    r.enter(4)
    seats = r.drawn()
    assert [len(seats["T1"]), len(seats["T2"])] == [2, 2]
    settled = r.tables["T2"].play(bust=True)                        # one of T2's two is out: three fit on T1
    winner = next(seats["T2"][s["seat"]] for s in settled["spots"] if s["stack"] > 0)
    stack = next(s["stack"] for s in settled["spots"] if s["stack"] > 0)
    moves = wait_moves(r, 1)
    assert moves[0]["close"] is True and [m["player"] for m in moves[0]["moves"]] == [winner]
    to_seat = moves[0]["moves"][0]["to_seat"]
    assert to_seat not in seats["T1"]                              # a free seat at T1
    assert r.tables["T1"].seated() == {**{s: 5000 for s in seats["T1"]}, to_seat: stack}
    assert r.tables["T2"].state()["phase"] == "closed"             # broken: closed
    assert r.floor()["in_play"] == ["T1"] and r.floor()["seats"]["T1"][str(to_seat)] == winner
    move_in = r.tables["T1"].events("seat")[-1].body
    assert move_in == {"seat": to_seat, "action": "move_in", "amount": stack}   # owing no blind
    assert r.tables["T1"].state()["hold"] is None                 # held for the move, released


def test_balancing_moves_the_player_due_the_big_blind_to_the_worst_seat(room: Callable[..., Room]) -> None:
    r = room(3, 4)
    r.start()
    r.enter(10)
    seats = r.drawn()
    full = next(t for t, s in seats.items() if len(s) == 4)
    short = next(t for t, s in seats.items() if len(s) == 3 and t != full)
    r.tables[short].play(bust=True)                                 # 4, 3, 2: the tables are two apart
    wait_for(lambda: len(director_events(r.tmp, "out")) == 1, "the player out placed")
    chart = {t: {int(s): p for s, p in c.items()} for t, c in r.settled()["seats"].items()}
    assert len(chart[short]) == 2 and not director_events(r.tmp, "moves")   # only a table that settled moves one
    settled = r.tables[full].play()                                # the fullest table's hand: it gives one
    due = next_big_blind(set(chart[full]), settled["button"])
    short_button = r.tables[short].state()["button"]
    free = [s for s in range(1, 5) if s not in chart[short]]
    moves = wait_moves(r, 1)[0]["moves"]
    assert [(m["player"], m["from_seat"], m["to_table"]) for m in moves] == [(chart[full][due], due, short)]
    assert moves[0]["to_seat"] == worst_seat(set(chart[short]), free, short_button)
    assert due not in r.tables[full].seated() and moves[0]["to_seat"] in r.tables[short].seated()
    assert r.tables[full].state()["hold"] is None and r.tables[short].state()["hold"] is None


def test_hand_for_hand_holds_every_table_and_places_a_rounds_players_out_together(room: Callable[..., Room]) -> None:
    r = room(2, 3, shares="[50, 30, 20]")                            # three paid: the bubble with four left
    r.start()
    r.enter(5)
    seats = r.drawn()
    two = next(t for t, s in seats.items() if len(s) == 2)
    three = next(t for t in seats if t != two)
    r.tables[two].play(bust=True)                                   # four left: 3 and 1, balanced ...
    wait_for(lambda: len(director_events(r.tmp, "out")) == 1, "the first out")
    r.tables[three].play()                                         # ... once the full table settles a hand
    wait_moves(r, 1)
    wait_for(lambda: r.floor()["hand_for_hand"] == {"phase": "round", "round": 1}, "the first round")
    r.settled()
    first, second = r.tables[three], r.tables[two]
    first.play()
    refused = first.cmd("deal")                                    # its hand of the round dealt: it waits
    assert refused["ok"] is False and refused["code"] == "held"
    assert first.state()["hold"]["reason"] == "hand-for-hand" and first.state()["hold"]["by"] == "tournament"
    second.play()
    wait_for(lambda: r.floor()["hand_for_hand"] == {"phase": "round", "round": 2}, "the second round")
    r.settled()
    first.play(bust=True)                                           # one out at each table in round 2 ...
    wait_for(lambda: [e for e in director_events(r.tmp, "hand-for-hand") if e["step"] == "hand" and e["out"]],
             "the first table's hand of the round taken")
    assert len(director_events(r.tmp, "out")) == 1                 # ... placed only once the round is over
    second.play(bust=True)
    outs = wait_for(lambda: (lambda o: o if len(o) == 2 else None)(director_events(r.tmp, "out")), "the round's out")
    assert len(outs[1]["players"]) == 2  # one elimination for the round
    wait_for(lambda: r.floor()["hand_for_hand"] is None, "hand-for-hand over")
    floor = r.settled()                                            # the bubble burst: two left, on one table ...
    assert len(floor["in_play"]) == 1 and len(floor["seats"][floor["in_play"][0]]) == 2
    assert first.state()["hold"] is None and second.state()["hold"] is None   # ... and no table is left held


def test_a_director_restarted_sends_nothing_twice(room: Callable[..., Room], tmp_path: Path) -> None:
    r = room(2, 3)
    d = r.start()
    r.enter(4)
    d.director.floorman.sender.stop()                              # the orders journaled, none sent yet
    d.director.floorman.sender.join(timeout=5)
    r.director_ok("seat-draw")
    pending = r.floor()["orders_waiting"]
    assert pending == 4 and all(not opens(t) for t in r.tables.values())   # a level, then the open
    for order in d.director.state.plan.orders["T1"]:                 # T1 takes both before the restart ...
        assert r.tables["T1"].client.request(order.cmd, req_id=order.id, **order.args)["ok"]
    r.stop_director()
    r.start()                                                      # ... the director sends both again
    seats = {t: {int(s): p for s, p in c.items()} for t, c in r.settled()["seats"].items()}
    assert [len(opens(t)) for t in r.tables.values()] == [1, 1]   # T1's applied once
    r.tables["T2"].play(bust=True)
    wait_moves(r, 1)
    counts = {name: len(list(t.events("seat"))) + len(t.events("hold")) for name, t in r.tables.items()}
    r.stop_director()
    r.start()
    assert r.settled()["seats"]["T1"] != {} and r.floor()["in_play"] == ["T1"]
    assert {name: len(list(t.events("seat"))) + len(t.events("hold")) for name, t in r.tables.items()} == counts
    assert [len(opens(t)) for t in r.tables.values()] == [1, 1] and len(seats) == 2
