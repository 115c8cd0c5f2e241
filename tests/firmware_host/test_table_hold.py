"""The `hold` request at a poker table (`tables/hold.py`): the pit stops the table from beginning a new hand
(refused `held`, nothing applied), the hand in progress plays on, the seats may change; journaled, so a
restart keeps it; `from_hand` moved on lets one more hand be dealt; a release lets it go."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cards import DECK
from protocol.access import Caller
from protocol.commands import Command
from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_HOLE, Rig

HFH = {"reason": "hand-for-hand", "by": "tournament"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.c.journal.close()


def fold_to_the_big_blind(rig: Rig) -> None:
    """The hand dealt, everybody folding to the big blind: settled."""
    rig.ok("deal")
    deck = iter(DECK)
    while rig.state()["to_act"] is None:
        rig.shoe(str(next(deck)))
    while rig.state()["to_act"] is not None:
        rig.act(rig.state()["to_act"], "fold")
    rig.ok("confirm")


def test_a_held_table_refuses_a_new_hand_until_it_is_released(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("hold", **HFH)
    assert rig.state()["hold"] == {"by": "tournament", "reason": "hand-for-hand", "from_hand": 1}
    events = rig.c.journal.resume()
    refused = rig.cmd("deal")
    assert refused["ok"] is False and refused["code"] == "held" and "hand-for-hand" in refused["error"]
    assert rig.state()["phase"] != "betting" and rig.c.journal.resume() == events      # nothing applied
    assert rig.ok("seat", seat=2, action="move_in", amount=150)["ok"]                    # the seats still change
    rig.restart()                                                                        # journaled: still held
    assert rig.state()["hold"]["from_hand"] == 1 and rig.cmd("deal")["code"] == "held"
    rig.ok("hold", release=True)
    assert rig.state()["hold"] is None
    fold_to_the_big_blind(rig)
    assert rig.state()["phase"] == "settled"


def test_a_hold_during_a_hand_lets_it_finish_and_holds_the_next(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("deal")
    rig.ok("hold", **HFH)                              # hand 1 in progress: held from hand 2
    assert rig.state()["hold"]["from_hand"] == 2
    rig.shoe(HOLDEM_HOLE)
    while rig.state()["to_act"] is not None:
        rig.act(rig.state()["to_act"], "fold")
    rig.ok("confirm")
    rig.restart()                                     # the hold came before hand 1 closed: a restart keeps it
    assert rig.state()["hold"]["from_hand"] == 2 and rig.cmd("deal")["code"] == "held"
    rig.ok("hold", **HFH, from_hand=3)                # hand-for-hand: one more hand, then held again
    fold_to_the_big_blind(rig)
    assert rig.cmd("deal")["code"] == "held"
    assert rig.state()["hand"] == 2 and rig.state()["phase"] == "settled"


def test_a_card_read_while_held_is_refused_and_the_hold_is_the_pits(rig: Rig) -> None:
    rig.ok("open", **HOLDEM)
    rig.ok("hold", **HFH)
    rig.shoe("As")                                    # the first card would begin the hand: refused, a fault
    assert rig.state()["fault"]["kind"] == "refused_reading" and rig.state()["phase"] != "betting"
    as_dealer = rig.c.handle_command(Command.from_mapping({"cmd": "hold", **HFH}), Caller("dealer"))
    assert as_dealer["code"] == "forbidden"
    assert rig.c.handle_command(Command.from_mapping({"cmd": "hold", "release": True}), Caller("pit"))["ok"]


def test_a_held_house_table_takes_no_first_bet(rig: Rig) -> None:
    rig.ok("open", game="uth", profile="default", limits={"minimum": 5, "maximum": 100, "side_minimum": 1,
                                                       "side_maximum": 25, "chip": 1})
    rig.ok("hold", reason="the pit's count")
    before = rig.state()
    refused = rig.cmd("bet", seat=1, bets={"ante": 5, "blind": 5})
    assert refused["code"] == "held" and rig.state() == before      # the hand not begun, nothing applied
    rig.ok("hold", release=True)
    assert rig.ok("bet", seat=1, bets={"ante": 5, "blind": 5})["ok"]
