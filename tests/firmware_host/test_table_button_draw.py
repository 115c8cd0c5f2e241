"""The draw for the button at a poker table (`tables/button_draw_step.py`): the `button-draw` request opens it, the
shoe's cards are the draw cards, face up, one a seat from seat 1 clockwise; with the last the highest card (a suit
breaking a tie of ranks, in the order of docs/rules.md) takes the button and the next hand is dealt with it;
journaled, kept over a restart; no hand and no seat change while it is dealt; a card dealt twice is a fault."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.access import Caller
from protocol.commands import Command
from tests.firmware_host.test_poker_table import Rig

TABLE = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [25, 50]}, "seats": 6,
         "rules": {"button": "dead"}, "stacks": {"1": 1000, "3": 1000, "4": 1000, "6": 1000}}
"""A tournament table just opened: four players, no button given."""

DRAW = {"by": "tournament", "ref": "T1-draw"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def test_the_highest_card_dealt_by_the_shoe_takes_the_button_and_the_first_hand_is_dealt_with_it(rig: Rig) -> None:
    rig.ok("open", **TABLE)
    rig.ok("hold", reason="button-draw", by="tournament")
    rig.ok("button-draw", **DRAW)
    draw = rig.state()["button_draw"]
    assert draw["done"] is False and draw["next"] == 1 and [s["seat"] for s in draw["seats"]] == [1, 3, 4, 6]
    rig.shoe("9c Jd")                                  # seats 1 and 3: the public sees them face up as they come
    assert [s["cards"] for s in rig.state()["button_draw"]["seats"]] == [["9c"], ["Jd"], [], []]
    rig.shoe("4s 2h")                                  # seat 4, seat 6: the jack of seat 3 is the highest
    draw = rig.state()["button_draw"]
    assert draw["done"] is True and draw["button"] == 3 and draw["next"] is None
    assert [e.kind for e in list(rig.c.journal.events())][-5:] == ["button-draw", *["card"] * 4]
    rig.restart()                                      # the journal draws the same button again
    assert rig.state()["button_draw"]["button"] == 3
    rig.ok("hold", release=True)
    rig.ok("deal")
    state = rig.state()
    assert state["button"] == 3 and state["button_draw"] is None   # the blinds after it: seats 4 and 6
    assert {s["seat"]: s["bets"]["bet"] for s in state["spots"]} == {1: 0, 3: 0, 4: 25, 6: 50}


def test_between_equal_ranks_the_suit_decides_in_the_order_of_the_rules(rig: Rig) -> None:
    rig.ok("open", **{**TABLE, "button": 1})           # a provisional button: the draw's replaces it
    rig.ok("button-draw")
    rig.shoe("Kh 7c Ks Kd")                            # three kings: spades over hearts over diamonds
    assert rig.state()["button_draw"]["button"] == 4
    rig.ok("deal")
    assert rig.state()["button"] == 4


def test_no_hand_or_seat_change_while_the_draw_is_dealt_and_a_card_twice_is_a_fault(rig: Rig) -> None:
    rig.ok("open", **TABLE)
    rig.ok("button-draw", **DRAW)
    rig.shoe("Ac")
    for cmd, args in (("deal", {}), ("seat", {"seat": 2, "action": "join", "amount": 500}), ("open", TABLE),
                      ("close", {}), ("race", {"colour": 25, "into": 100}), ("button-draw", DRAW)):
        refused = rig.cmd(cmd, **args)
        assert refused["ok"] is False and refused["code"] == "drawing", (cmd, refused)
    rig.shoe("Ac")                                     # dealt already in this draw: refused, a fault, not taken
    state = rig.state()
    assert state["fault"]["kind"] == "refused_reading" and state["button_draw"]["seats"][1]["cards"] == []
    assert list(rig.c.journal.events())[-1].kind == "refused"
    rig.ok("clear", reason="the dealer took the card back")
    rig.shoe("2d 3h 4s")                               # the draw goes on from the card due: the ace of seat 1
    assert rig.state()["button_draw"]["button"] == 1
    rig.restart()                                      # the refused card replayed as refused, the draw the same
    assert rig.state()["button_draw"]["button"] == 1 and rig.state()["fault"] is None


def test_the_draw_is_the_pits_between_hands_at_a_table_with_players(rig: Rig) -> None:
    as_dealer = rig.c.handle_command(Command.from_mapping({"cmd": "button-draw", **DRAW}), Caller("dealer"))
    assert as_dealer["ok"] is False and as_dealer["code"] == "forbidden"
    none_open = rig.c.handle_command(Command.from_mapping({"cmd": "button-draw", **DRAW}), Caller("pit"))
    assert none_open["ok"] is False and "no table is open" in none_open["error"]
    rig.ok("open", **{**TABLE, "stacks": {"2": 1000}})
    alone = rig.cmd("button-draw")
    assert alone["ok"] is False and "two players" in alone["error"]
    rig.ok("seat", seat=5, action="join", amount=1000)
    rig.ok("seat", seat=1, action="join", amount=1000)
    rig.ok("deal")
    during = rig.cmd("button-draw")
    assert during["ok"] is False and "between hands" in during["error"]
