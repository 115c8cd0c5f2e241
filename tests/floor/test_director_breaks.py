"""The director's breaks on real tables (`floor/director/breaks.py`): the clock's break holds every table and
its end releases them (a pause in it holding them on until the clock, resumed, has run the break out); a
colour-up's chip race run at a real table from its shoe's readings (000's worked example), journaled by the
director with each table's race, once across a restart; and the holds of a break and of hand-for-hand not
fighting (`FloorPlan`'s orders: a table is released only when no reason holds it). The director's clock is
the test's."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.tournament import parse_tournament
from floor.director.feeds import Seating
from floor.director.seating import FloorPlan, draw_body, stakes_of
from tests.firmware_host.processes import wait_for
from tests.floor.test_director import write_director
from tests.floor.test_director_seating import Room, director_events, room  # noqa: F401 (the fixtures)

SUPERVISOR = {"user": "ana", "pin": "4321"}


def tournament(tables: int, seats: int, after_break: tuple[int, int]) -> str:
    """Level 1 (25/50, ten minutes), a five-minute break, then `after_break`'s blinds: 100/200 colours up the 25s."""
    use = ", ".join(f'"T{i}"' for i in range(1, tables + 1))
    return f"""
name = "Break 100+10"
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
[[levels]]
break_s = 300
[[levels]]
small_blind = {after_break[0]}
big_blind = {after_break[1]}
duration_s = 600
[[payouts]]
up_to = 30
shares = [60, 40]
"""


class Clock:
    """The director's clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def started(make: Callable[..., Room], tables: int, seats: int, players: int,
            after_break: tuple[int, int]) -> tuple[Room, Clock, dict[str, dict[int, str]]]:
    """The room with the test's tournament, the director on the test's clock, the players in, the clock
    started (signed off) and the seats drawn."""
    r = make(tables, seats)
    write_director(r.tmp, tables="".join(t.link() for t in r.tables.values()),
                   tournament=tournament(tables, seats, after_break))
    clock = Clock()
    r.start().director.clock = clock
    r.enter(players)
    r.director_ok("start", auth=SUPERVISOR)
    return r, clock, r.drawn()


def hold_of(r: Room, table: str) -> Any:
    return r.tables[table].state()["hold"]


def at_level(r: Room, table: str, level: int) -> None:
    """Wait until `table` has taken the director's `level`."""
    assert r.director is not None
    wait_for(lambda: {t["name"]: t["level"] for t in r.director.ok("state")["state"]["tables"]}[table] == level,
             f"{table} at level {level}")


def test_a_break_holds_every_table_and_its_end_releases_them(room: Callable[..., Room]) -> None:  # noqa: F811
    r, clock, seats = started(room, 2, 3, 4, (75, 150))            # 150 is no multiple of 100: no colour-up
    r.tables["T1"].play()                                           # a hand of level 1
    clock.now += 601                                                # the break
    for name in r.tables:
        wait_for(lambda n=name: (hold_of(r, n) or {}).get("reason") == "break", f"{name} held for the break")
        refused = r.tables[name].cmd("deal")
        assert refused["ok"] is False and refused["code"] == "held"
        assert hold_of(r, name)["by"] == "tournament"
    assert r.settled()["break"] == {"stage": 1, "colour": None, "into": None, "racing": [], "raced": []}
    r.director_ok("pause", auth=SUPERVISOR)                         # paused in the break: the room's time runs on,
    clock.now += 400                                                # the break's does not
    r.director_ok("state")
    view = r.director_ok("state")["state"]                          # (a pass of the director between the two)
    assert view["on_break"] and view["floor"]["break"]["stage"] == 1
    assert all(hold_of(r, name)["reason"] == "break" for name in r.tables)
    r.director_ok("resume", auth=SUPERVISOR)
    clock.now += 300                                                # the break run out: both released
    for name in r.tables:
        wait_for(lambda n=name: hold_of(r, n) is None, f"{name} released")
    assert r.settled()["break"] is None and r.floor()["chip_races"] == []
    at_level(r, "T2", 2)
    assert r.tables["T2"].play()["stakes"]["blinds"] == [75, 150]   # the level after the break, dealt
    assert [e["step"] for e in director_events(r.tmp, "break")] == ["hold", "release"]


def test_the_colour_up_races_000s_example_with_the_tables_shoe(room: Callable[..., Room]) -> None:  # noqa: F811
    r, clock, seats = started(room, 1, 4, 4, (100, 200))
    table = r.tables["T1"]
    button = director_events(r.tmp, "seat-draw")[0]["buttons"]["T1"]
    table.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [25, 50], "antes": 0}, seats=4,
             button=button, rules={"button": "dead", "all_in_reveal": True},
             stacks={"1": 125, "2": 575, "3": 1050, "4": 2050})  # the stacks of 000's example
    clock.now += 601
    race = wait_for(lambda: (lambda x: x if x and not x["done"] else None)(table.state().get("race")),
                    "the race step open")
    assert race["colour"] == 25 and race["into"] == 100 and race["next"] == 1
    assert table.state()["hold"]["reason"] == "break"
    r.stop_director()                                               # restarted while the race is dealt:
    r.start().director.clock = clock                                # it takes the race run once, below
    for card in "4c Kd 2s 9h Ah Qs 3d Kh".split():                 # dealt by the shoe from seat 1 clockwise
        table.card(card)
    wait_for(lambda: (table.state().get("race") or {}).get("done"), "the race run")
    assert table.seated() == {1: 100, 2: 500, 3: 1100, 4: 2100}
    raced = wait_for(lambda: [e for e in director_events(r.tmp, "break") if e["step"] == "raced"], "the race journaled")
    assert [s["odd_chips"] for s in raced[0]["seats"]] == [1, 3, 2, 2] and raced[0]["chips_won"] == 2
    assert raced[0]["winners"] == [seats["T1"][3], seats["T1"][4]] and raced[0]["change"] == 0
    assert [s["cards"] for s in raced[0]["seats"]] == [["4c"], ["Kd", "2s", "9h"], ["Ah", "Qs"], ["3d", "Kh"]]
    view = r.settled()["chip_races"]
    assert [(v["table"], v["odd_chips"], v["chips_won"], v["change"]) for v in view] == [("T1", 8, 2, 0)]
    assert r.floor()["break"]["raced"] == ["T1"] and hold_of(r, "T1")["reason"] == "break"   # held till its end
    clock.now += 300
    wait_for(lambda: hold_of(r, "T1") is None, "T1 released")
    at_level(r, "T1", 2)
    settled = table.play()
    assert settled["stakes"]["blinds"] == [100, 200]
    assert sum(s["stack"] for s in settled["spots"]) == 3800        # the raced chips, nothing more
    assert [e["step"] for e in director_events(r.tmp, "break")] == ["hold", "race", "raced", "release"]


TWO = parse_tournament(tournament(3, 3, (100, 200)), "two.toml")
"""Three tables of three: four players are drawn on two of them."""


def plan_of() -> tuple[FloorPlan, set[str]]:
    """A floor plan with four players drawn on two tables, its orders taken."""
    plan = FloorPlan(TWO, Seating(TWO.tables, TWO.seats_per_table))
    alive = {"a", "b", "c", "d"}
    plan.apply("seat-draw", draw_body(TWO, sorted(alive), {t: stakes_of(25, 50, 0) for t in TWO.tables}, "s"), alive)
    for orders in list(plan.orders.values()):
        for order in list(orders):
            plan.apply("acked", {"id": order.id}, alive)
    return plan, alive


def holds(plan: FloorPlan) -> dict[str, list[dict[str, Any]]]:
    return {t: [o.args for o in orders if o.cmd == "hold"] for t, orders in plan.orders.items() if t in plan.in_play}


def test_a_break_and_hand_for_hand_hold_the_tables_without_fighting() -> None:
    plan, alive = plan_of()
    plan.apply("hand-for-hand", {"step": "hold"}, alive)
    plan.apply("break", {"step": "hold", "stage": 1, "colour": 25, "into": 100}, alive)
    plan.apply("break", {"step": "release", "stage": 1}, alive)     # the break over: hand-for-hand's hold again
    assert all([h.get("reason") for h in hs] == ["hand-for-hand", "break", "hand-for-hand"]
               for hs in holds(plan).values())
    assert plan.breaks.chips == [100]                               # the 25s coloured up

    plan, alive = plan_of()
    plan.apply("hand-for-hand", {"step": "hold"}, alive)
    plan.apply("hand-for-hand", {"step": "round", "hands": {"T1": 4, "T2": 7}}, alive)
    plan.apply("break", {"step": "hold", "stage": 1, "colour": None, "into": None}, alive)
    plan.apply("break", {"step": "release", "stage": 1}, alive)     # the round's hand still to deal: held after it
    assert {t: hs[-1].get("from_hand") for t, hs in holds(plan).items()} == {"T1": 5, "T2": 8}

    plan, alive = plan_of()
    plan.apply("break", {"step": "hold", "stage": 1, "colour": None, "into": None}, alive)
    plan.apply("hand-for-hand", {"step": "hold"}, alive)             # held for the break: nothing more to hold
    plan.apply("hand-for-hand", {"step": "end"}, alive)              # nor released while the break holds
    assert all([h.get("reason", "release") for h in hs] == ["break"] for hs in holds(plan).values())
    plan.in_play.append("T3")                                        # a table opened during the break (an entry's)
    plan.apply("break", {"step": "join", "table": "T3"}, alive)      # is held for it too, and released with the rest
    plan.apply("break", {"step": "release", "stage": 1}, alive)
    assert all(hs[-1] == {"release": True} for hs in holds(plan).values())
    assert [h.get("reason", "release") for h in holds(plan)["T3"]] == ["break", "release"]
