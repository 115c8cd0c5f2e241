"""A session of hands: button movement, sitting in and out, rebuys between hands, rake, tournament levels,
the seating as plain values."""

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


def test_the_moving_button_moves_one_seat_clockwise_skipping_empty_and_sitting_out():
    # the moving button is a setting (the dead button is the default: tests/engine/poker/test_seats.py)
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6, dead_button=False)
    for seat in (1, 3, 4, 6):
        table.sit(seat, 100, f"p{seat}")
    buttons = []
    for _ in range(5):
        buttons.append(table.start_hand().button)
        fold_around(table)
        table.end_hand()
    assert buttons == [6, 1, 3, 4, 6]
    table.sit_out(1)
    hand = table.start_hand()
    assert 1 not in hand.seats and hand.button == 3
    fold_around(table)
    table.end_hand()
    assert table.button == 3 and table.next_button() == 4


def test_the_first_button_is_the_one_asked_for_when_that_seat_is_dealt_in():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6, first_button=3)
    for seat in (1, 3, 4):
        table.sit(seat, 100)
    assert table.next_button() == 3
    table.sit_out(3)
    assert table.next_button() == 4  # not dealt in: the highest seat dealt in


def test_a_voided_hand_is_dealt_again_with_the_same_button_and_stacks():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.start_hand()
    fold_around(table)
    table.end_hand()
    stacks = {s: p.stack for s, p in table.players.items()}
    hand = table.start_hand()
    assert hand.button == 1
    deal_all(hand, list(DECK))
    hand.bet_or_raise(10)
    table.void_hand()
    assert {s: p.stack for s, p in table.players.items()} == stacks and table.button == 3
    assert table.start_hand().button == 1


def test_seats_are_the_tables_seat_numbers():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4)
    for seat in (0, 5):
        with pytest.raises(IllegalAction, match=r"not a seat of this table \(1\.\.4\)"):
            table.sit(seat, 100)
    table.sit(4, 100)
    with pytest.raises(IllegalAction, match="seat 2 is empty"):
        table.sit_out(2)


def test_the_dealers_seat_actions():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4)
    table.seat_change(1, "join", 100)
    table.seat_change(2, "join", 50)
    table.seat_change(2, "rebuy", 25)
    table.seat_change(1, "sit_out")
    assert [(s, p.stack, p.sitting_out) for s, p in table.players.items()] == [(1, 100, True), (2, 75, False)]
    table.seat_change(1, "sit_in")
    with pytest.raises(IllegalAction, match="owes no blinds") as refused:  # nothing to wait for: said as the seat's
        table.seat_change(1, "wait")
    assert refused.value.say == {"key": "refusal.poker_owes_no_blinds", "args": {"seat": 1}}
    table.seat_change(2, "leave")
    assert list(table.players) == [1]
    for action, amount, words in [("join", None, "needs a buy-in"), ("rebuy", None, "needs an amount"),
                                  ("join", 100, "taken"), ("stand_up", None, "known: join, rebuy, leave")]:
        with pytest.raises(IllegalAction, match=words):
            table.seat_change(1, action, amount)


def test_the_seating_round_trips_through_plain_values():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6)
    table.sit(2, 100, "Ann")
    table.sit(4, 90)
    table.sit(5, 80)
    table.start_hand()
    fold_around(table)
    table.end_hand()
    table.sit_out(4)
    data = table.to_dict()
    stacks = {s: p.stack for s, p in table.players.items()}
    assert data == {"seats": {"2": {"stack": stacks[2], "out": False, "name": "Ann"},
                              "4": {"stack": stacks[4], "out": True}, "5": {"stack": stacks[5], "out": False}},
                    "button": 5, "small_blind": 2, "big_blind": 4}
    again = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6)
    again.restore(data)
    assert again.to_dict() == data and again.next_button() == table.next_button() == 2
    for bad, words in [({"seats": {"7": {"stack": 5}}}, "not a seat of this table"),
                       ({"seats": {"1": {"stack": -1}}}, "non-negative integer")]:
        with pytest.raises(IllegalAction, match=words):
            again.restore(bad)
    assert again.to_dict() == data  # a refused seating changed nothing


def test_between_hands_only():
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=4, max_buy_in=300)
    table.sit(1, 100, "a")
    table.sit(2, 100, "b")
    with pytest.raises(IllegalAction, match="taken by b"):
        table.sit(2, 100, "c")
    with pytest.raises(IllegalAction, match="maximum"):
        table.buy_in(1, 250)
    table.start_hand()
    for attempt, seat in ((lambda: table.buy_in(1, 50), 1), (lambda: table.sit(3, 100, "c"), 3),
                          (lambda: table.leave(1), 1), (lambda: table.start_hand(), None)):
        with pytest.raises(IllegalAction, match="between hands") as refused:
            attempt()
        # a seat's own change is said as the seat's (the console's words), the next hand as the table's
        assert refused.value.say == ({"key": "refusal.hand_in_progress", "args": {}} if seat is None else
                                     {"key": "refusal.poker_seat_between_hands", "args": {"seat": seat}})
    table.sit_out(2)  # any time: from the next hand
    assert 2 in table.hand.seats
    with pytest.raises(IllegalAction, match="not over"):
        table.end_hand()
    fold_around(table)
    table.end_hand()
    table.buy_in(1, 50)
    assert table.players[1].stack in (149, 151)
    assert table.active_seats() == [1]
    assert table.leave(2) in (99, 101)


def test_rake_taken_after_the_flop_only():
    settings = HandSettings(burns=False, rake=Rake(rate_bp=1000, cap=5))
    table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=3, settings=settings)
    for seat in range(1, 4):
        table.sit(seat, 100, f"p{seat}")
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
    table.sit(1, 500, "a")
    table.sit(2, 300, "b")
    table.sit(3, 200, "c")
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
    table.sit(1, 50, "small")
    table.sit(2, 80, "big")
    table.sit(3, 500, "chip leader")
    hand = table.start_hand()
    assert hand.button == 3 and hand.blind_order == (1, 2, 3)
    # seat 3 gets aces and wins against both all-ins
    deal_all(hand, list(parse_cards("2c 3d As 2d 3h Ah")))
    hand.bet_or_raise(500, seat=3)
    hand.call(1)
    hand.call(2)
    deal_all(hand, list(parse_cards("7c 8d 9h Ts Kd")))
    hand.showdown()
    finished = table.end_hand()
    assert [(f.name, f.place) for f in finished] == [("big", 2), ("small", 3), ("chip leader", 1)]


def test_random_session_conserves_chips():
    rng = random.Random(3)
    table = Session(VARIANTS["omaha_hilo8"], Stakes.pot_limit(1, 2), seats=6,
                    settings=HandSettings(rake=Rake(500, 4)))
    for seat in range(1, 6):
        table.sit(seat, 60, f"p{seat}")
    for _ in range(60):
        if len(table.active_seats()) < 2:
            break
        hand = table.start_hand()
        play_random(hand, rng)
        table.end_hand()
        assert sum(p.stack for p in table.players.values()) + table.rake_total == 300
