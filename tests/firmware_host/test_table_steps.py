"""The public state's `steps`: which dealer steps the table allows now, decided once in Python for every screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivers.readings import CardRead
from firmware_host.tables.house.table import HouseSetup
from firmware_host.tables.steps import STEPS
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
TCP = HouseSetup("3cp", "default", {"minimum": 100}, 7)


class Rig(JournalRig):
    def __init__(self, path: Path, setup: HouseSetup = UTH) -> None:
        self.setup = setup
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": self.setup}

    def steps(self) -> dict[str, bool]:
        steps = self.c.public_state()["steps"]
        assert set(steps) == set(STEPS) and all(isinstance(v, bool) for v in steps.values())
        assert self.c.full_state()["steps"] == steps
        return dict(steps)

    def allowed(self) -> set[str]:
        return {k for k, v in self.steps().items() if v}


def test_a_uth_hand_step_by_step_and_the_next_hands_bets_after_confirm(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert rig.allowed() == {"bet", "between_hands", "board"}
    rig.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    assert rig.allowed() == {"bet", "deal", "void", "board"}
    rig.ok("deal")
    assert rig.allowed() == {"void", "board"}
    for card in "As Kd Qh Ac".split():  # seat 1 and the dealer: seat 1 decides
        rig.ok("card", card=card)
    assert rig.allowed() == {"void", "board"}
    assert rig.c.public_state()["corrections"] == []
    rig.ok("decide", seat=1, decision="check")
    assert rig.allowed() == {"void", "correct", "board"}  # no card since the check
    assert rig.c.public_state()["corrections"] == [  # what the check may become, as the engine takes it
        {"seat": 1, "was": {"decision": "check"}, "choices": [{"decision": "play", "multiple": m} for m in (4, 3)]}]
    rig.ok("card", card="2c")
    assert rig.allowed() == {"void", "board"} and rig.c.public_state()["corrections"] == []
    for card in "7d 9h".split():
        rig.ok("card", card=card)
    rig.ok("decide", seat=1, decision="check")
    for card in "4s 3c".split():
        rig.ok("card", card=card)
    rig.ok("decide", seat=1, decision="play")
    assert rig.allowed() == {"confirm", "void", "correct", "board"}  # the river's play may still be corrected
    assert rig.c.public_state()["corrections"] == [{"seat": 1, "was": {"decision": "play"},
                                                     "choices": [{"decision": "fold"}]}]
    rig.ok("confirm")
    assert rig.allowed() == {"bet", "between_hands", "board"}  # the next hand's bets are taken at once
    rig.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
    assert rig.c.public_state()["hand"] == 2 and rig.allowed() == {"bet", "deal", "void", "board"}
    rig.c.journal.close()


def test_a_fault_and_a_hold_stop_the_steps_forward(tmp_path: Path) -> None:
    rig = Rig(tmp_path, TCP)
    assert rig.steps()["board"] is False  # 3CP deals no board
    rig.ok("bet", seat=1, bets={"ante": 100})
    assert rig.steps()["deal"] is False  # the default profile needs five spots
    for seat in range(2, 6):
        rig.ok("bet", seat=seat, bets={"ante": 100})
    assert rig.steps()["deal"] is True
    rig.ok("deal")
    rig.c.handle_reading(CardRead("As", "shoe", 1))
    rig.c.handle_reading(CardRead("As", "shoe", 2))  # read twice: a fault
    assert rig.allowed() == {"void"}
    rig.ok("void", reason="card read twice")
    assert rig.allowed() == {"bet", "between_hands"}
    rig.ok("hold", reason="hand-for-hand", by="tournament")
    assert rig.allowed() == {"between_hands"}
    rig.c.journal.close()


def test_a_poker_table_deals_confirms_and_has_a_board_by_its_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.ok("open", game="holdem", structure="no-limit", stakes={"blinds": [1, 2]}, seats=6,
           stacks={"1": 100, "2": 100})
    assert rig.allowed() == {"deal", "between_hands", "board"}
    rig.ok("deal")
    assert rig.allowed() == {"void", "chop", "board"}  # two players in: they may share the pot
    deck = iter("As Kd Qh Ac Tc 9d".split())
    while not rig.steps()["confirm"]:
        state = rig.c.public_state()
        if state["to_act"] is None:
            rig.ok("card", card=next(deck))
        else:
            rig.ok("act", seat=state["to_act"], action="fold")
    assert rig.allowed() == {"confirm", "void", "board"}
    rig.ok("confirm")
    assert rig.allowed() == {"deal", "between_hands", "board"}
    rig.ok("open", game="stud", structure="fixed-limit", stakes={"antes": 1, "bring_in": 1, "small_bet": 2,
                                                                   "big_bet": 4}, seats=6, stacks={"1": 100, "2": 100})
    assert rig.steps()["board"] is False
    rig.c.journal.close()


def test_no_table_open_allows_nothing(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.ok("close")
    assert rig.allowed() == set()
    rig.c.journal.close()
