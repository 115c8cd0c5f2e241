"""Players entered after the seat draw, seated by the director on real tables (`director_entries.py`): a late
entry at the shortest table with the starting stack, dealt in at its next hand; one entered during a hand seated
before the table's next; an entry refused when every seat is taken, or the reserve table opened for it; a re-entry
seated as a new entry; a restart after the entry's orders were journaled sending them once; and the clock's level
reaching a table between the director's `level` and its `open` (`director_orders.py`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.tournament.config import BlindLevel
from floor.director.service import level_request
from tests.firmware_host.processes import wait_for
from tests.floor.test_director import SUPERVISOR, Running, write_director
from tests.floor.test_director_seating import Room, director_events, opens, room  # noqa: F401 (the fixtures)

NAME = "Late 100+10"
STACK = 5000


def late_tournament(tables: int, seats: int) -> str:
    use = ", ".join(f'"T{i}"' for i in range(1, tables + 1))
    return f"""
name = "{NAME}"
buy_in = 10000
fee = 1000
starting_stack = {STACK}
seats_per_table = {seats}
chips = [25, 100]
late_registration_until_level = 2
re_entries = 1
[tables]
use = [{use}]
[[levels]]
small_blind = 25
big_blind = 50
duration_s = 600
[[levels]]
small_blind = 50
big_blind = 100
duration_s = 600
[[payouts]]
up_to = 30
shares = [60, 40]
"""


def late_room(room: Callable[..., Room], tables: int, seats: int) -> Room:
    """A room whose tournament takes late entries until level 2 and one re-entry a player."""
    r = room(tables, seats)
    r.config = write_director(r.tmp, tables="".join(t.link() for t in r.tables.values()),
                              tournament=late_tournament(tables, seats))
    return r


def enter(r: Room, players: int) -> None:
    for k in range(1, players + 1):
        r.director_ok("enter", player=f"p{k:02d}")


def test_a_late_entry_sits_at_the_shortest_table_with_the_starting_stack_and_plays_its_next_hand(
        room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    r.start()
    enter(r, 5)
    seats = r.drawn()
    short = next(t for t, s in seats.items() if len(s) == 2)
    r.director_ok("enter", player="late")
    body = director_events(r.tmp, "enter")[-1]
    assert body["player"] == "late" and body["table"] == short and body["stack"] == STACK and body["seed"]
    seat = body["seat"]
    assert seat not in seats[short]                                  # a free seat of the shortest table
    floor = r.settled()
    assert floor["seats"][short][str(seat)] == "late"
    table = r.tables[short]
    assert table.seated() == {**{s: STACK for s in seats[short]}, seat: STACK}
    assert [e.body for e in table.events("seat")] == [{"seat": seat, "action": "move_in", "amount": STACK}]
    assert table.state()["hold"] is None                             # held while he sat down, released
    settled = table.play()
    assert seat in {row["seat"] for row in settled["results"]["net"]}   # dealt in at once
    assert r.director is not None
    refused = r.director.ask("enter", player="later")                # 3 and 3: every seat taken
    assert refused["ok"] is False and refused["code"] == "illegal" and "cannot be seated" in refused["error"]
    assert r.director_ok("state")["state"]["entries"] == 6 and len(director_events(r.tmp, "enter")) == 6


def test_an_entry_during_a_hand_sits_down_before_the_tables_next_hand(room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    d = r.start()
    enter(r, 5)
    seats = r.drawn()
    short = next(t for t, s in seats.items() if len(s) == 2)
    table = r.tables[short]
    table.ok("deal")                                                 # a hand begun at the shortest table
    r.director_ok("enter", player="late")
    seat = director_events(r.tmp, "enter")[-1]["seat"]
    hand = table.state()["hand"]
    wait_for(lambda: (table.state().get("hold") or {}).get("from_hand") == hand + 1, "held from the next hand")
    wait_for(lambda: d.director.floorman.sender.refusals.get(short, "").startswith(f"{NAME}-entry-6-{short}-move-in"),
             "his seat refused while the hand is played")
    assert seat not in table.seated()
    table.finish()                                                   # the hand ends: he sits down, released
    r.settled()
    assert table.state()["hold"] is None and table.seated()[seat] == STACK
    dealt = [{x["seat"] for x in table.play()["results"]["net"]}]   # dealt in at the next hand, or (his seat
    if seat not in dealt[0]:                                            # between the button and the blinds: the
        dealt.append({x["seat"] for x in table.play()["results"]["net"]})   # dead button) at the one after
    assert seat in dealt[-1]


def test_an_entry_with_every_seat_taken_opens_the_reserve_table_which_deals_once_balanced(
        room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    r.start()
    enter(r, 3)
    seats = r.drawn()
    (used,) = seats                                                  # three fit on one table: the other is kept
    spare = next(t for t in r.tables if t != used)
    r.director_ok("enter", player="late")
    body = director_events(r.tmp, "enter")[-1]
    assert body["table"] == spare and body["open"] == {"stakes": {"blinds": [25, 50], "antes": 0}, "level": 1}
    floor = r.settled()
    assert floor["in_play"] == ["T1", "T2"] and floor["seats"][spare] == {str(body["seat"]): "late"}
    (opened,) = opens(r.tables[spare])
    assert opened.body["stacks"] == {str(body["seat"]): STACK} and opened.body["button"] == body["seat"]
    r.tables[used].play()                                            # 3 and 1: the fullest gives one ...
    moves = wait_for(lambda: director_events(r.tmp, "moves"), "the tables balanced")
    assert [(m["from_table"], m["to_table"]) for m in moves[0]["moves"]] == [(used, spare)]
    r.settled()
    settled = r.tables[spare].play()                                 # ... and the new table deals
    assert len(settled["results"]["net"]) == 2 and body["seat"] in {x["seat"] for x in settled["results"]["net"]}


def test_a_re_entry_is_seated_as_a_new_entry(room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    r.start()
    enter(r, 5)
    seats = r.drawn()
    full = next(t for t, s in seats.items() if len(s) == 3)
    r.tables[full].play(bust=True)                                   # one out: 2 and 2, no table breaks
    out = wait_for(lambda: director_events(r.tmp, "out"), "the player out placed")
    (busted,) = out[0]["players"]
    chart = r.settled()["seats"]
    assert busted not in [p for c in chart.values() for p in c.values()]
    r.director_ok("enter", player=busted)                           # his re-entry
    body = director_events(r.tmp, "enter")[-1]
    assert body["player"] == busted and str(body["seat"]) not in chart[body["table"]]
    floor = r.settled()
    assert floor["seats"][body["table"]][str(body["seat"])] == busted
    assert r.tables[body["table"]].seated()[body["seat"]] == STACK    # a new starting stack
    assert r.director is not None and r.director.ask("enter", player=busted)["code"] == "illegal"   # still in
    r.director_ok("start", auth=SUPERVISOR)                         # the places known: the clock runs, the field closed
    state = r.director_ok("close")["state"]
    assert state["entries"] == 6 and state["players_left"] == 5
    assert [f["player"] for f in state["finishes"]] == [busted]      # his first entry finished sixth
    assert state["finishes"][0]["place"] == 6


def test_a_director_restarted_after_an_entry_was_journaled_seats_him_once(room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    d = r.start()
    enter(r, 5)
    r.drawn()
    d.director.floorman.sender.stop()                                # the entry's orders journaled, none sent
    d.director.floorman.sender.join(timeout=5)
    r.director_ok("enter", player="late")
    body = director_events(r.tmp, "enter")[-1]
    table = r.tables[body["table"]]
    orders = d.director.state.plan.orders[body["table"]]
    assert [(o.cmd, o.args.get("action")) for o in orders] == [("hold", None), ("seat", "move_in"), ("hold", None)]
    for order in orders[:2]:                                         # the hold and the seat taken before the stop
        assert table.client.request(order.cmd, req_id=order.id, **order.args)["ok"]
    r.stop_director()
    r.start()
    floor = r.settled()
    assert floor["seats"][body["table"]][str(body["seat"])] == "late"
    assert [e.body for e in table.events("seat")] == [{"seat": body["seat"], "action": "move_in", "amount": STACK}]
    assert len(table.events("hold")) == 2 and table.state()["hold"] is None   # held once, released once
    assert len(director_events(r.tmp, "enter")) == 6


def test_the_clocks_level_between_the_directors_level_and_its_open_needs_no_sign_off(
        room: Callable[..., Room]) -> None:
    r = late_room(room, 2, 3)
    now = [time.time()]

    def start() -> Running:
        r.director = Running(r.config, r.tmp / "state", r.ctx, clock=lambda: now[0])
        return r.director

    d = start()
    d.ok("start", auth=SUPERVISOR)
    enter(r, 4)
    wait_for(lambda: [t["level"] for t in d.ok("state")["state"]["tables"]] == [1, 1], "level 1 at each table")
    d.director.floorman.sender.stop()                                # the draw's orders journaled, none sent
    d.director.floorman.sender.join(timeout=5)
    d.ok("seat-draw")
    t1 = r.tables["T1"]
    level, _ = d.director.state.plan.orders["T1"]
    assert level.cmd == "level" and t1.client.request(level.cmd, req_id=level.id, **level.args)["ok"]
    now[0] += 601                                                    # level 2 now; and as the clock's request
    second = level_request(NAME, 2, BlindLevel(50, 100, 0, 600))    # reaches T1 before the director's open:
    assert t1.client.request("level", req_id=f"{NAME}-level-2", **second)["ok"]
    r.stop_director()
    start()
    r.settled()                                                      # every open taken (none asked again for ever)
    (opened,) = opens(t1)
    assert opened.body["stakes"] == {"blinds": [25, 50], "antes": 0} and "signed_off" not in opened.body
    wait_for(lambda: t1.events("level")[-1].body["stakes"] == {"blinds": [50, 100], "antes": 0},
             "level 2 at T1 after its open")
    assert [len(opens(t)) for t in r.tables.values()] == [1, 1]
