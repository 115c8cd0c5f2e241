"""A session of hands: button movement, sitting in and out, rebuys between hands, rake, tournament levels."""

from __future__ import annotations

import random

import pytest

from engine.errors import IllegalAction
from engine.poker import VARIANTS, HandSettings, Level, Rake, Schedule, Session, Stakes
from tests.engine.poker.helpers import deal_all, play_random
from engine.cards import DECK, parse_cards


def fold_around(session: Session) -> None:
    """Deal and let everyone fold to the big blind."""
    hand = session.hand
    deal_all(hand, list(DECK))
    while not hand.is_over:
        hand.fold()


def test_button_moves_one_seat_clockwise_skipping_empty_and_sitting_out():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6)
    for seat in (0, 2, 3, 5):
        table.sit(seat, f"p{seat}", 100)
    buttons = []
    for _ in range(5):
        buttons.append(table.start_hand().button)
        fold_around(table)
        table.end_hand()
    assert buttons == [5, 0, 2, 3, 5]
    table.sit_out(0)
    hand = table.start_hand()
    assert 0 not in hand.seats and hand.button == 2
    fold_around(table)
    table.end_hand()
    assert table.button == 3


def test_between_hands_only():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4, max_buy_in=300)
    table.sit(0, "a", 100)
    table.sit(1, "b", 100)
    with pytest.raises(IllegalAction, match="taken"):
        table.sit(1, "c", 100)
    with pytest.raises(IllegalAction, match="maximum"):
        table.buy_in(0, 250)
    table.start_hand()
    for attempt in (lambda: table.buy_in(0, 50), lambda: table.sit(2, "c", 100), lambda: table.leave(0),
                    lambda: table.sit_out(1), lambda: table.start_hand()):
        with pytest.raises(IllegalAction, match="between hands"):
            attempt()
    with pytest.raises(IllegalAction, match="not over"):
        table.end_hand()
    fold_around(table)
    table.end_hand()
    table.buy_in(0, 50)
    assert table.players[0].stack in (149, 151)
    assert table.leave(1) in (99, 101)


def test_rake_taken_after_the_flop_only():
    settings = HandSettings(burns=False, rake=Rake(rate_bp=1000, cap=5))
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=3, settings=settings)
    for seat in range(3):
        table.sit(seat, f"p{seat}", 100)
    hand = table.start_hand()
    deal_all(hand, list(DECK))
    hand.bet_or_raise(10)
    hand.fold()
    hand.fold()
    table.end_hand()
    assert table.rake_total == 0                      # no flop, no drop
    hand = table.start_hand()
    deck = list(DECK[10:])
    deal_all(hand, deck)
    hand.call()
    hand.call()
    hand.check()                                      # pot 6 on the flop
    deal_all(hand, deck)
    hand.bet_or_raise(20)
    hand.fold()
    hand.fold()
    assert hand.result.rake == 0                      # 10 % of 6 is 0.6: rounds down
    table.end_hand()
    hand = table.start_hand()
    deck = list(DECK[20:])
    deal_all(hand, deck)
    hand.bet_or_raise(30)
    hand.call()
    hand.call()
    deal_all(hand, deck)
    hand.bet_or_raise(40)
    hand.fold()
    hand.fold()
    assert hand.result.rake == 5                      # 10 % of 90 is 9: capped at 5
    assert sum(hand.result.payoffs.values()) == -5
    table.end_hand()
    assert table.rake_total == 5
    assert sum(p.stack for p in table.players.values()) == 300 - 5


def test_tournament_levels_take_effect_at_the_next_hand_and_finishes():
    schedule = Schedule((Level(5, 10, 0, minutes=10), Level(10, 20, 2, minutes=10), Level(25, 50, 5)))
    table = Session(VARIANTS["holdem"], Stakes.no_limit(5, 10), seats=4, schedule=schedule)
    assert schedule.index_at(0) == 0 and schedule.index_at(600) == 1 and schedule.index_at(10**6) == 2
    table.sit(0, "a", 500)
    table.sit(1, "b", 300)
    table.sit(2, "c", 200)
    hand = table.start_hand(elapsed_s=599)
    assert hand.stakes.blinds == (5, 10)
    # the clock passes 10 minutes during the hand: this hand keeps its level
    fold_around(table)
    table.end_hand()
    hand = table.start_hand(elapsed_s=700)
    assert hand.stakes.blinds == (10, 20) and hand.stakes.antes == 2
    fold_around(table)
    table.end_hand()


def test_players_out_in_the_same_hand_place_by_starting_stack():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4, settings=HandSettings(burns=False),
                    schedule=Schedule((Level(1, 2),)))
    table.sit(0, "small", 50)
    table.sit(1, "big", 80)
    table.sit(2, "chip leader", 500)
    hand = table.start_hand()
    assert hand.button == 2 and hand.blind_order == (0, 1, 2)
    # seat 2 gets aces and wins against both all-ins
    deal_all(hand, list(parse_cards("2c 3d As 2d 3h Ah")))
    hand.bet_or_raise(500, seat=2)
    hand.call(0)
    hand.call(1)
    deal_all(hand, list(parse_cards("7c 8d 9h Ts Kd")))
    hand.showdown()
    finished = table.end_hand()
    assert [(f.name, f.place) for f in finished] == [("big", 2), ("small", 3), ("chip leader", 1)]


def test_random_session_conserves_chips():
    rng = random.Random(3)
    table = Session(VARIANTS["omaha_hilo8"], Stakes.pot_limit(1, 2), seats=6,
                    settings=HandSettings(rake=Rake(500, 4)))
    for seat in range(5):
        table.sit(seat, f"p{seat}", 60)
    for _ in range(60):
        if len(table.active_seats()) < 2:
            break
        hand = table.start_hand()
        play_random(hand, rng)
        table.end_hand()
        assert sum(p.stack for p in table.players.values()) + table.rake_total == 300
