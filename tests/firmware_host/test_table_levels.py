"""The `level` request at a poker table (`tables/levels.py`): a tournament level's blinds and ante, the
pit's, in force from the table's next hand; journaled, so a restart keeps it; refused where it cannot be."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.access import Caller
from protocol.commands import Command
from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_BOARD, Rig, holdem_preflop

LEVEL_2 = {"stakes": {"blinds": [2, 4], "antes": 1}, "level": 2, "tournament": "Sunday"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def test_a_hand_begun_keeps_its_blinds_the_next_hand_has_the_levels(rig: Rig) -> None:
    holdem_preflop(rig)                         # 1/2, a hand in progress
    rig.ok("level", **LEVEL_2)
    assert rig.full()["stakes"] == {"blinds": [1, 2]}
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    for seat in (1, 3, 5):
        rig.act(seat, "show")
    rig.ok("confirm")
    rig.restart()                               # the level is journaled: the rebuilt table has it
    rig.ok("deal")
    state = rig.full()
    assert state["stakes"] == {"blinds": [2, 4], "antes": 1}
    # the players' screen reads the tournament's level off the public state, after the restart too
    assert rig.state()["tournament"] == {"name": "Sunday", "level": 2, "blinds": [2, 4], "antes": 1}
    in_hand = [s for s in state["spots"] if s["in_hand"]]
    assert sorted(s["bets"]["bet"] for s in in_hand)[-2:] == [2, 4]     # the new blinds posted ...
    assert sum(s["bets"]["in_pot"] for s in in_hand) == 2 + 4 + len(in_hand)   # ... and an ante of 1 each


def test_between_hands_the_level_is_in_force_at_once_and_an_open_forgets_it(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("level", **LEVEL_2)
    assert rig.full()["stakes"] == {"blinds": [2, 4], "antes": 1}
    assert rig.state()["tournament"]["level"] == 2
    rig.ok("open", **HOLDEM)
    assert rig.full()["stakes"] == {"blinds": [1, 2]}
    assert rig.state()["tournament"] is None


def test_a_level_is_refused_where_it_cannot_be_and_is_the_pits(rig: Rig) -> None:
    assert rig.cmd("level", **LEVEL_2)["ok"] is False                  # no table open
    rig.ok("open", game="uth", profile="default", limits={"minimum": 5, "maximum": 100, "side_minimum": 1,
                                                       "side_maximum": 25, "chip": 1})
    refused = rig.cmd("level", **LEVEL_2)
    assert refused["ok"] is False and "only a poker table" in refused["error"]
    rig.ok("close")
    rig.ok("open", **HOLDEM)
    bad = rig.cmd("level", stakes={"blinds": [4, 2]})
    assert bad["ok"] is False and "small at most the big" in bad["error"] and rig.full()["stakes"] == {"blinds": [1, 2]}
    as_dealer = rig.c.handle_command(Command.from_mapping({"cmd": "level", **LEVEL_2}), Caller("dealer"))
    assert as_dealer["code"] == "forbidden"
    assert rig.c.handle_command(Command.from_mapping({"cmd": "level", **LEVEL_2}), Caller("pit"))["ok"]


def test_a_level_taken_while_the_settled_hand_is_on_show_is_the_next_hands(rig: Rig) -> None:
    holdem_preflop(rig)
    rig.act(3, "call")
    rig.shoe(HOLDEM_BOARD)
    for seat in (1, 3, 5):
        rig.act(seat, "show")
    rig.ok("confirm")                           # settled: the hand stays on show until the next one
    rig.ok("level", **LEVEL_2)
    assert rig.state()["phase"] == "settled" and rig.full()["stakes"] == {"blinds": [1, 2]}
    rig.ok("deal")
    assert rig.full()["stakes"] == {"blinds": [2, 4], "antes": 1}
