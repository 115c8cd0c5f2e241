"""Seats drawn at random, the button by high card, tables broken and balanced, and heads-up play."""

from __future__ import annotations

import random

import pytest

from engine.cards import DECK
from engine.errors import TournamentError
from engine.poker import VARIANTS, Hand, Stakes
from engine.tournament import (Move, apply_moves, balance, break_table, button_by_high_card, draw_seats,
                               next_big_blind, tables_needed, worst_seat)

PLAYERS = [f"p{i:02d}" for i in range(1, 25)]


def test_the_draw_seats_everyone_once_evenly_and_replays_from_its_seed() -> None:
    layout = draw_seats(PLAYERS[:22], ["T1", "T2", "T3"], 9, random.Random(7))
    assert [len(s) for s in layout.values()] == [8, 7, 7]
    seated = [p for seats in layout.values() for p in seats.values()]
    assert sorted(seated) == PLAYERS[:22]
    assert all(1 <= s <= 9 for seats in layout.values() for s in seats)
    assert draw_seats(PLAYERS[:22], ["T1", "T2", "T3"], 9, random.Random(7)) == layout
    assert draw_seats(PLAYERS[:22], ["T1", "T2", "T3"], 9, random.Random(8)) != layout
    assert list(draw_seats(PLAYERS[:9], ["T1", "T2", "T3"], 9, random.Random(1))) == ["T1"]   # one table holds 9
    with pytest.raises(TournamentError, match="28 players do not fit on 3 tables of 9"):
        draw_seats([f"x{i}" for i in range(28)], ["T1", "T2", "T3"], 9, random.Random(1))


def test_the_highest_card_takes_the_button_suits_break_ties_clubs_lowest() -> None:
    assert button_by_high_card({1: "Ah", 2: "As", 3: "Kd"}) == 2
    assert button_by_high_card({1: "Tc", 2: "Td", 3: "9s"}) == 2
    assert button_by_high_card({5: "2c", 9: "2d"}) == 9
    with pytest.raises(TournamentError, match="dealt twice"):
        button_by_high_card({1: "Ah", 2: "Ah"})


def test_the_next_big_blind_follows_the_moving_button_heads_up_the_button_is_the_small_blind() -> None:
    assert next_big_blind({2, 4, 6, 9}, last_button=9) == 6      # button 2, small blind 4, big blind 6
    assert next_big_blind({2, 4, 6, 9}, last_button=4) == 2      # button 6, small blind 9, big blind 2
    assert next_big_blind({3, 7}, last_button=3) == 3            # heads-up: button 7 posts the small blind


def test_the_worst_seat_posts_the_big_blind_soonest() -> None:
    # Seats 1, 3, 5, 8 taken, last button 3: next hand button 5, small blind 8, big blind 1.
    # Free seat 9 lies between the small and the big blind: a player there posts the big blind next hand.
    assert worst_seat({1, 3, 5, 8}, free=(2, 6, 9), last_button=3) == 9
    # Without seat 9: seat 2 posts it the hand after (button 8, small blind 1, big blind 2); seat 6 would
    # wait four hands (he would be the small blind next hand).
    assert worst_seat({1, 3, 5, 8}, free=(2, 6), last_button=3) == 2


def test_breaking_a_table_draws_its_players_into_the_free_seats_keeping_the_tables_even() -> None:
    layout = {"T1": {s: f"a{s}" for s in range(1, 7)}, "T2": {s: f"b{s}" for s in (1, 2, 3, 5, 7)},
              "T3": {2: "c2", 4: "c4", 6: "c6", 8: "c8"}}
    assert tables_needed(15, 9) == 2
    moves = break_table(layout, "T3", 9, random.Random(3))
    assert sorted(m.player for m in moves) == ["c2", "c4", "c6", "c8"]
    after = apply_moves(layout, moves)
    assert list(after) == ["T1", "T2"] and sorted(len(s) for s in after.values()) == [7, 8]
    assert break_table(layout, "T3", 9, random.Random(3)) == moves
    with pytest.raises(TournamentError, match="do not fit in 0 free seats"):
        break_table({"T1": {s: f"a{s}" for s in range(1, 10)}, "T2": {1: "z"}}, "T2", 9, random.Random(1))


def test_balancing_moves_the_player_due_the_big_blind_to_the_worst_seat_of_the_shorter_table() -> None:
    # T1 has 8 (seats 1-8, last button 2: next button 3, small blind 4, big blind 5: a5 moves).
    # T2 has 6 in seats 1, 2, 3, 5, 6, 7 (last button 5: next button 6, small blind 7, big blind 1).
    # The free seats 8 and 9 of T2 lie between its small blind (7) and its big blind (1): seat 8 comes
    # first and posts the big blind next hand.
    layout = {"T1": {s: f"a{s}" for s in range(1, 9)}, "T2": {s: f"b{s}" for s in (1, 2, 3, 5, 6, 7)}}
    moves = balance(layout, {"T1": 2, "T2": 5}, 9)
    assert moves == [Move("a5", "T1", 5, "T2", 8)]
    after = apply_moves(layout, moves)
    assert [len(s) for s in after.values()] == [7, 7]
    assert next_big_blind(set(after["T2"]), 5) == 8              # he posts it at once: no big blind skipped
    assert balance(after, {"T1": 2, "T2": 5}, 9) == []


def test_balancing_several_players_keeps_moving_until_within_one() -> None:
    layout = {"T1": {s: f"a{s}" for s in range(1, 10)}, "T2": {1: "b1", 5: "b5", 9: "b9"}}
    moves = balance(layout, {"T1": 9, "T2": 1}, 9)
    after = apply_moves(layout, moves)
    assert len(moves) == 3 and [len(s) for s in after.values()] == [6, 6]
    with pytest.raises(TournamentError, match="needs the last button"):
        balance(layout, {"T1": 9}, 9)


def test_heads_up_the_button_posts_the_small_blind_acts_first_pre_flop_and_last_after() -> None:
    # engine/poker already plays heads-up this way (000): checked here for the tournament's final two.
    hand = Hand(VARIANTS["holdem"], Stakes.no_limit(100, 200), {2: 5000, 7: 5000}, button=7)
    assert hand.blind_order == (7, 2)            # the button posts the small blind
    assert (hand.bet(7), hand.bet(2)) == (100, 200)
    deck = list(DECK)
    while hand.expected_card() is not None:
        hand.deal(deck.pop())
    assert hand.actor == 7                        # the button acts first pre-flop
    hand.call()
    hand.check()
    while hand.expected_card() is not None:
        hand.deal(deck.pop())
    assert hand.actor == 2                        # and last after the flop


def test_a_move_from_a_seat_the_player_is_not_in_or_to_a_taken_seat_is_refused() -> None:
    layout = {"T1": {1: "a", 2: "b"}, "T2": {1: "c"}}
    with pytest.raises(TournamentError, match="b is not in seat 1 of T1"):
        apply_moves(layout, [Move("b", "T1", 1, "T2", 5)])
    with pytest.raises(TournamentError, match="seat 1 of T2 is taken"):
        apply_moves(layout, [Move("a", "T1", 1, "T2", 1)])
    assert apply_moves(layout, [Move("c", "T2", 1, "T1", 9)]) == {"T1": {1: "a", 2: "b", 9: "c"}}
