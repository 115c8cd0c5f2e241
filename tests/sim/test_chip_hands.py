"""The chip moves of the simulated hands (sim/chips/hands.py): every circle made its due to the cent, no chip invented or lost, a foreign chip never paid or staked as money."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine.chips import ChipSet, ChipStatus
from sim.bots.errors import BotError
from sim.chips.bots import DEMO_SET
from sim.chips.hands import Rack, by_value, make_change, pay_circles, tray_float

CHIPS = ChipSet.from_csv(DEMO_SET.read_text(encoding="utf-8"))
RETIRED_500 = next(c.uid for c in CHIPS if c.status is not ChipStatus.ACTIVE and c.value == 500)


class Board:
    """The board's chips by antenna, moved as the emulated board's control port moves them."""

    def __init__(self, stacks: dict[str, list[str]]) -> None:
        self.stacks = {a: list(u) for a, u in stacks.items()}

    def show(self) -> dict[str, list[str]]:
        return {a: list(u) for a, u in self.stacks.items() if u}

    def move(self, source: str, target: str, *uids: str) -> None:
        for uid in uids:
            self.stacks[source].remove(uid)  # ValueError: a chip moved that is not there
        self.stacks.setdefault(target, []).extend(uids)

    def every_chip(self) -> Counter[str]:
        return Counter(uid for uids in self.stacks.values() for uid in uids)


def test_a_retired_chip_in_the_tray_is_never_made_change_with() -> None:
    # it reads 0 (ChipSet.value): paid out as 500, the circle reads 500 short and the chip is a foreign chip
    tray = [RETIRED_500, *[c.uid for c in CHIPS if c.status is ChipStatus.ACTIVE and c.value == 500][:2]]
    paid = make_change(1000, by_value(CHIPS, tray))
    assert RETIRED_500 not in paid and CHIPS.value(paid) == 1000


def test_a_retired_chip_taken_back_to_a_rack_is_never_staked() -> None:
    active = [c.uid for c in CHIPS if c.status is ChipStatus.ACTIVE and c.value == 500][:1]
    rack = Rack(CHIPS, [RETIRED_500, *active])
    assert rack.take(500) == active
    with pytest.raises(BotError):
        rack.take(500)


def test_paying_many_hands_makes_every_circle_its_due_and_keeps_every_chip() -> None:
    rng = random.Random(11)
    float_ = tray_float(CHIPS)
    kept = set(float_)
    rack = Rack(CHIPS, [c.uid for c in CHIPS if c.status is ChipStatus.ACTIVE and c.uid not in kept])
    foreign = [c.uid for c in CHIPS if c.status is not ChipStatus.ACTIVE]
    board = Board({"tray": float_})
    for hand in range(60):
        circles: list[dict[str, Any]] = []
        for seat in range(1, 4):
            for circle in ("ante", "blind", "play"):
                bet = rng.choice([1000, 2000, 3000, 5000])  # 3 to 2 of each made in 100s
                antenna = f"spot{seat}.{circle}"
                board.stacks[antenna] = rack.take(bet)
                if hand % 7 == 0 and seat == 1 and circle == "ante":
                    board.stacks[antenna].append(foreign[hand % len(foreign)])  # a foreign chip, left there
                due = rng.choice([0, 0, 0, bet, 2 * bet, bet + bet * 3 // 2])  # lost, push, even money, 3 to 2
                circles.append({"seat": seat, "circle": circle, "due": due})
        before = board.every_chip()
        tray_before = CHIPS.value(board.stacks["tray"])
        staked = sum(CHIPS.value(u) for a, u in board.stacks.items() if a != "tray")
        pay_circles(board, CHIPS, circles)
        assert board.every_chip() == before  # no chip invented or lost
        for c in circles:
            assert CHIPS.value(board.stacks[f"spot{c['seat']}.{c['circle']}"]) == c["due"], (hand, c)
        # the tray's change is the hand's house net to the cent: collected minus paid
        assert CHIPS.value(board.stacks["tray"]) - tray_before == staked - sum(c["due"] for c in circles)
        for antenna in [a for a in board.stacks if a != "tray"]:
            rack.give(board.stacks.pop(antenna))  # the players take their chips


def test_a_mispay_with_no_chip_in_the_tray_is_a_bot_error_not_a_crash() -> None:
    board = Board({"tray": [RETIRED_500], "spot1.ante": []})
    with pytest.raises(BotError):
        pay_circles(board, CHIPS, [], more={"seat": 1, "circle": "ante"})
