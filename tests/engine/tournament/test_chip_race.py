"""Colour-up and the chip race as 000 describes it, with its worked example; nobody raced out."""

from __future__ import annotations

import pytest

from engine.cards import Card
from engine.errors import TournamentError
from engine.tournament import chip_race, colour_up_due, parse_tournament
from tests.engine.tournament.helpers import SUNDAY


def test_five_25s_give_one_100_and_one_odd_chip() -> None:
    # 000: "if you have 5 chips of $25 you get 1 chip of $100 back, with one odd chip left".
    race = chip_race({1: 125, 2: 10000}, 25, 100, ["7d"])
    assert race.odd_chips == {1: 1} and race.cards == {1: (Card.parse("7d"),)}
    assert race.odd_value == 25 and race.chips_won == 0   # $25 is less than half of $100: removed
    assert race.stacks == {1: 100, 2: 10000} and race.change == -25


def test_000s_example_eight_odd_25s_make_two_100s_to_the_two_highest_cards() -> None:
    # 000: eight $25 chips still in play after the colour-up, replaced by $100 chips: $200, two chips.
    # Cards from seat 1 clockwise, one per odd chip: seat 1 (one odd chip) 4c; seat 2 (three) Kd 2s 9h;
    # seat 3 (two) Ah Qs; seat 4 (two) 3d Kh. Highest: seat 3's Ah, then seat 4's Kh over seat 2's Kd.
    race = chip_race({1: 125, 2: 575, 3: 1050, 4: 2050}, 25, 100,
                     ["4c", "Kd", "2s", "9h", "Ah", "Qs", "3d", "Kh"])
    assert race.odd_chips == {1: 1, 2: 3, 3: 2, 4: 2}
    assert race.cards[2] == tuple(map(Card.parse, ("Kd", "2s", "9h")))
    assert (race.odd_value, race.chips_won, race.winners) == (200, 2, (3, 4))
    assert race.stacks == {1: 100, 2: 500, 3: 1100, 4: 2100}
    assert race.change == 0 and race.kept_in == ()


def test_half_a_chip_or_more_rounds_up_to_one_more_chip() -> None:
    # Six odd 25s: $150 = one $100 and $50 over, half of $100: two chips, so the total grows by $50.
    race = chip_race({1: 175, 3: 1075, 5: 2000}, 25, 100, ["2c", "3c", "4c", "5c", "6c", "7c"])
    assert race.odd_chips == {1: 3, 3: 3} and race.chips_won == 2 and set(race.winners) == {1, 3}
    assert race.stacks == {1: 200, 3: 1100, 5: 2000} and race.change == 50
    # Five odd 25s: $125 = one chip, $25 under half: removed.
    race = chip_race({1: 150, 3: 1075}, 25, 100, ["Ac", "2c", "3c", "4c", "5c"])
    assert race.winners == (1,) and race.stacks == {1: 200, 3: 1000} and race.change == -25


def test_nobody_is_raced_out_of_the_tournament() -> None:
    # Seat 2 has one $25 chip and nothing else; he draws the lowest card and wins no chip: he gets one $100.
    race = chip_race({1: 1075, 2: 25, 3: 550}, 25, 100, ["As", "Ks", "Qs", "2c", "Ts", "Jd"])
    assert race.odd_chips == {1: 3, 2: 1, 3: 2} and race.chips_won == 2
    assert race.winners == (1, 3) and race.kept_in == (2,)
    assert race.stacks == {1: 1100, 2: 100, 3: 600} and race.change == 150


def test_a_race_refuses_too_few_cards_a_card_twice_and_chips_that_do_not_divide() -> None:
    with pytest.raises(TournamentError, match="needs 3 cards"):
        chip_race({1: 75}, 25, 100, ["As"])
    with pytest.raises(TournamentError, match="dealt twice"):
        chip_race({1: 50}, 25, 100, ["As", "As"])
    with pytest.raises(TournamentError, match="whole multiple"):
        chip_race({1: 50}, 25, 110, [])
    with pytest.raises(TournamentError, match="not made of chips of 25"):
        chip_race({1: 60}, 25, 100, [])


def test_the_smallest_chip_is_coloured_up_at_the_first_break_after_which_no_level_needs_it() -> None:
    t = parse_tournament(SUNDAY)     # levels 25/50, 50/100 ante 25, break, 100/200 ante 100
    assert colour_up_due(t.stages, 2, t.chips) == 25
    assert colour_up_due(t.stages, 2, t.chips[1:]) is None     # 100s are still needed after it
    with_ante_25 = parse_tournament(SUNDAY.replace("ante = 100", "ante = 25"))
    assert colour_up_due(with_ante_25.stages, 2, with_ante_25.chips) is None
