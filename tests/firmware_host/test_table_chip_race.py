"""The chip-race step at a poker table (`tables/chip_race_step.py`): the `race` request opens it, the shoe's cards
are the race cards, face up, one per odd chip from seat 1 clockwise; with the last card the stacks are coloured up
and raced (000's worked example), journaled, kept over a restart; no hand and no seat change while it is dealt; a
card dealt twice, and a card once the race is run, refused as a fault, never taken as a race card."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.access import Caller
from protocol.commands import Command
from tests.firmware_host.test_poker_table import Rig

EXAMPLE = {"game": "holdem", "structure": "no-limit", "stakes": {"blinds": [25, 50]}, "seats": 6,
           "stacks": {"1": 125, "2": 575, "3": 1050, "4": 2050}}
"""000's example: after the colour-up of the 25s into 100s, eight odd chips of 25 left (1, 3, 2 and 2)."""

CARDS = "4c Kd 2s 9h Ah Qs 3d Kh"
"""The race cards in dealt order: seat 1 4c; seat 2 Kd 2s 9h; seat 3 Ah Qs; seat 4 3d Kh."""

RACE = {"colour": 25, "into": 100, "by": "tournament", "ref": "break-3-T1"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def stacks(rig: Rig) -> dict[int, int]:
    return {s["seat"]: s["stack"] for s in rig.state()["spots"]}


def test_the_race_of_000s_example_dealt_by_the_shoe_colours_up_the_stacks(rig: Rig) -> None:
    rig.ok("open", **EXAMPLE)
    rig.ok("hold", reason="break", by="tournament")
    rig.ok("race", **RACE)
    race = rig.state()["race"]
    assert race["done"] is False and race["next"] == 1 and race["ref"] == "break-3-T1"
    assert [(s["seat"], s["odd_chips"]) for s in race["seats"]] == [(1, 1), (2, 3), (3, 2), (4, 2)]
    for k, card in enumerate(CARDS.split()):
        rig.shoe(card)
        if k == 3:   # the public sees the race cards face up as they come
            assert [s["cards"] for s in rig.state()["race"]["seats"]] == [["4c"], ["Kd", "2s", "9h"], [], []]
            assert rig.state()["race"]["next"] == 3 and stacks(rig) == {1: 125, 2: 575, 3: 1050, 4: 2050}
    race = rig.state()["race"]
    assert race["done"] is True and race["value"] == 200 and race["chips_won"] == 2
    assert race["winners"] == [3, 4] and race["kept_in"] == [] and race["change"] == 0   # Ah, then Kh over Kd
    assert stacks(rig) == {1: 100, 2: 500, 3: 1100, 4: 2100}
    assert [s["after"] for s in race["seats"]] == [100, 500, 1100, 2100]
    assert [e.kind for e in list(rig.c.journal.events())][-9:] == ["race", *["card"] * 8]
    rig.restart()                                     # the journal runs the same race again
    assert stacks(rig) == {1: 100, 2: 500, 3: 1100, 4: 2100} and rig.state()["race"]["winners"] == [3, 4]
    rig.ok("hold", release=True)
    rig.ok("deal")                                    # the next hand begins with the raced stacks
    assert rig.state()["race"] is None
    assert sum(s["stack"] + s["bets"].get("in_pot", 0) for s in rig.state()["spots"]) == 3800


def test_a_player_whose_chips_were_all_odd_is_not_raced_out_and_an_odd_unit_goes(rig: Rig) -> None:
    rig.ok("open", **{**EXAMPLE, "stacks": {"1": 50, "2": 1000, "5": 1037}})
    rig.ok("race", colour=25, into=100)
    rig.shoe("2c 3c 4c")                               # seat 1's two (a 2c, a 3c), seat 5's one (4c): 75, one chip
    race = rig.state()["race"]
    assert race["done"] and race["winners"] == [5] and race["kept_in"] == [1]
    assert stacks(rig) == {1: 100, 2: 1000, 5: 1100}
    assert race["change"] == 100 + 1000 + 1100 - (50 + 1000 + 1037)   # the kept-in chip, the race's, the odd 12 gone
    nothing = rig.ok("race", colour=25, into=100)                       # no odd 25 left: run at once
    assert nothing["ok"] and rig.state()["race"]["done"] and rig.state()["race"]["chips_won"] == 0


def test_no_hand_or_seat_change_while_the_race_is_dealt_and_a_card_twice_is_a_fault(rig: Rig) -> None:
    rig.ok("open", **EXAMPLE)
    rig.ok("race", **RACE)
    rig.shoe("4c Kd")
    for cmd, args in (("deal", {}), ("seat", {"seat": 6, "action": "join", "amount": 500}), ("open", EXAMPLE),
                      ("race", RACE)):
        refused = rig.cmd(cmd, **args)
        assert refused["ok"] is False and refused["code"] == "racing", (cmd, refused)
    rig.shoe("Kd")                                     # dealt already in this race: refused, a fault, not taken
    state = rig.state()
    assert state["fault"]["kind"] == "refused_reading" and state["race"]["seats"][1]["cards"] == ["Kd"]
    assert list(rig.c.journal.events())[-1].kind == "refused"
    rig.ok("clear", reason="the dealer took the card back")
    rig.shoe("2s 9h Ah Qs 3d Kh")                      # the race goes on from the card due
    assert rig.state()["race"]["done"] and stacks(rig) == {1: 100, 2: 500, 3: 1100, 4: 2100}


def test_a_card_once_the_race_is_run_is_no_race_card_and_the_race_is_the_pits(rig: Rig) -> None:
    rig.ok("open", **EXAMPLE)
    rig.ok("hold", reason="break", by="tournament")
    as_dealer = rig.c.handle_command(Command.from_mapping({"cmd": "race", **RACE}), Caller("dealer"))
    assert as_dealer["ok"] is False and as_dealer["code"] == "forbidden"
    assert rig.c.handle_command(Command.from_mapping({"cmd": "race", **RACE}), Caller("pit"))["ok"]
    rig.shoe(CARDS)
    rig.shoe("Ks")                                     # a ninth card: no race card, and no hand while held
    state = rig.state()
    assert state["fault"]["kind"] == "refused_reading" and "held" in list(rig.c.journal.events())[-1].body["error"]
    assert stacks(rig) == {1: 100, 2: 500, 3: 1100, 4: 2100} and state["race"]["done"]
    rig.ok("clear", reason="a card too many: set aside")
    bad = rig.cmd("race", colour=25, into=110)
    assert bad["ok"] is False and "whole multiple" in bad["error"]


def test_a_race_is_between_hands_only(rig: Rig) -> None:
    rig.ok("open", **EXAMPLE)
    rig.ok("deal")
    refused = rig.cmd("race", **RACE)
    assert refused["ok"] is False and "between hands" in refused["error"]
