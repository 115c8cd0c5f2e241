"""The director's draw for the button on real tables (`floor/director/button.py`): each table the seat draw opens is
held (reason `button-draw`), opened with no button and sent the `button-draw`; its shoe deals the high cards from
seat 1; the director journals the cards and the button its feed shows, its view shows them, and the table, released,
deals its first hand with that button. A restart of the director while the cards are dealt takes the draw once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import TournamentError
from engine.tournament import parse_tournament
from floor.director.config import DirectorConfig
from floor.director.entries import seat_entry
from floor.director.feeds import Seating
from floor.director.seating import FloorPlan, draw_body, stakes_of
from protocol.config import ConfigError
from tests.firmware_host.processes import wait_for
from tests.floor.live_tables import LiveTable
from tests.floor.test_director import write_director
from tests.floor.test_director_breaks import tournament
from tests.floor.test_director_seating import Room, director_events, opens, room  # noqa: F401 (the fixtures)


TWO = parse_tournament(tournament(3, 3, (100, 200)), "two.toml")
"""Three tables of three: four players are drawn on two of them."""


def draw_open(table: LiveTable) -> dict[str, Any]:
    """The table's draw for the button once its cards are due (the director's orders taken)."""
    return wait_for(lambda: (lambda d: d if d and not d["done"] else None)(table.state().get("button_draw")),
                    f"{table.name}'s draw for the button open")


def test_each_tables_shoe_draws_its_button_and_its_first_hand_is_dealt_with_it(room: Callable[..., Room]) -> None:
    r = room(2, 4, shoe=True)
    r.start()
    r.enter(6)
    r.director_ok("seat-draw")
    seats = {t: {int(s): p for s, p in chart.items()} for t, chart in r.floor()["seats"].items()}
    assert sorted(len(chart) for chart in seats.values()) == [3, 3]
    deals = {"T1": ["Kh", "Ks", "Kd"], "T2": ["2c", "Ah", "7d"]}   # T1: three kings, the spade's seat has it
    expected: dict[str, int] = {}
    for name, table in r.tables.items():
        draw = draw_open(table)
        state = table.state()
        assert state["hold"]["reason"] == "button-draw" and state["hold"]["by"] == "tournament"
        assert [s["seat"] for s in draw["seats"]] == sorted(seats[name]) and draw["next"] == min(seats[name])
        assert "button" not in opens(table)[0].body                 # opened with no button: the shoe draws it
        refused = table.cmd("deal")
        assert refused["ok"] is False and refused["code"] == "drawing"
        expected[name] = sorted(seats[name])[deals[name].index(max(deals[name], key=_rank))]
        if name == "T1":                                            # restarted while the cards are dealt
            r.stop_director()
            r.start()
        for card in deals[name]:
            table.card(card)
    for name, table in r.tables.items():
        wait_for(lambda t=table: t.state()["hold"] is None, f"{name} released once its button is drawn")
        settled = table.play()
        assert settled["button"] == expected[name], (name, settled["button"], expected)
    events = director_events(r.tmp, "button")
    assert sorted(e["table"] for e in events) == ["T1", "T2"]           # each draw journaled once
    t1 = next(e for e in events if e["table"] == "T1")
    assert t1["button"] == expected["T1"] and t1["player"] == seats["T1"][expected["T1"]]
    assert t1["cards"] == {str(s): c for s, c in zip(sorted(seats["T1"]), deals["T1"])}
    view = {d["table"]: d for d in r.settled()["button_draws"]}
    assert view["T2"]["button"] == expected["T2"] and view["T2"]["cards"] == {
        seats["T2"][s]: c for s, c in zip(sorted(seats["T2"]), deals["T2"])}
    assert r.floor()["drawing"] == []


def test_a_table_without_a_shoe_has_its_button_drawn_by_the_director(room: Callable[..., Room]) -> None:
    r = room(1, 4)                                                  # `shoe = false`: today's way, in its open
    assert DirectorConfig.load(r.config).tables[0].shoe is False
    r.start()
    r.enter(3)
    r.drawn()
    draw = director_events(r.tmp, "seat-draw")[0]
    assert draw["button_draw"] == [] and opens(r.tables["T1"])[0].body["button"] == draw["buttons"]["T1"]
    assert r.tables["T1"].state().get("button_draw") is None and director_events(r.tmp, "button") == []


def _rank(card: str) -> tuple[int, int]:
    return "23456789TJQKA".index(card[0]), "cdhs".index(card[1])


def test_a_tables_shoe_key_is_true_or_false(tmp_path: Path) -> None:
    link = '[[director.tables]]\nname = "T1"\ncommands = "ipc://{0}/t1"\npublic = "ipc://{0}/p"\nsnapshot = "ipc://{0}/s"\n'
    assert DirectorConfig.load(write_director(tmp_path, link.format(tmp_path))).tables[0].shoe is True   # the default
    with pytest.raises(ConfigError, match=r"\[\[director.tables\]\] #1 shoe: must be true or false, not 'yes'"):
        DirectorConfig.load(write_director(tmp_path, link.format(tmp_path) + 'shoe = "yes"\n'))


def test_the_floor_plans_orders_for_a_table_whose_shoe_draws_its_button() -> None:
    plan = FloorPlan(TWO, Seating(TWO.tables, TWO.seats_per_table))
    alive = {"a", "b", "c", "d"}
    body = draw_body(TWO, sorted(alive), {t: stakes_of(25, 50, 0) for t in TWO.tables}, "s", shoe=TWO.tables)
    plan.apply("seat-draw", body, alive)
    table = plan.in_play[0]
    assert body["button_draw"] == plan.in_play and table not in body["buttons"]
    assert [o.cmd for o in plan.orders[table]] == ["level", "hold", "open", "button-draw"]
    assert "button" not in plan.orders[table][2].args and plan.orders[table][1].args["reason"] == "button-draw"
    seat = next(s for s in range(1, 4) if s not in plan.seating.tables[table])
    seat_entry(plan, {"table": table, "seat": seat, "stack": 5000}, "e", 5)   # an entry while the cards are dealt:
    assert [o.cmd for o in plan.orders[table]][-1] == "seat"                   # no hold of its own to release it
    for order in list(plan.orders[table]):
        plan.apply("acked", {"id": order.id}, alive)
    seats = sorted(s for s in plan.seating.tables[table] if s != seat)
    with pytest.raises(TournamentError, match="no draw"):
        plan.apply("button", {"table": table, "ref": "other", "cards": {}, "button": seats[0]}, alive)
    plan.apply("button", {"table": table, "ref": f"{TWO.name}-button-draw-{table}", "button": seats[1],
                          "cards": {str(s): c for s, c in zip(seats, ("2c", "Ad"))}, "players": {}, "player": "x"}, alive)
    assert [o.args for o in plan.orders[table]] == [{"release": True}] and plan.first_buttons[table] == seats[1]
    assert plan.view()["drawing"] == [t for t in plan.in_play if t != table]
