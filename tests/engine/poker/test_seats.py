"""Seats between hands, worked from docs/rules.md "Poker room": the dead button when a seat empties,
missed blinds posted (the small blind dead, the big blind live) or waited for, a new player's big blind."""

from __future__ import annotations

import pytest

from engine.cards import DECK
from engine.errors import IllegalAction
from engine.poker import VARIANTS, Hand, Posted, Session, Stakes
from tests.engine.poker.helpers import deal_all


def table(*seats: int, dead_button: bool = True) -> Session:
    session = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6, dead_button=dead_button)
    for seat in seats:
        session.sit(seat, 100, f"p{seat}")
    return session


def blinds(hand: Hand) -> list[tuple[int, str, int]]:
    return [(r.seat, r.kind, r.amount) for r in hand.records if isinstance(r, Posted)]


def play_out(session: Session) -> Hand:
    """Deal the hand in progress and fold round to the last player; the session takes its end."""
    hand = session.hand
    assert hand is not None
    deal_all(hand, list(DECK))
    while not hand.is_over:
        hand.fold()
    session.end_hand()
    return hand


def test_the_dead_button_over_several_hands_with_a_seat_emptying() -> None:
    # Five players in seats 1-5. Hand 1: button 5, small blind 1, big blind 2. Hand 2: button 1,
    # blinds 2 and 3. Seat 3 (the last big blind) leaves. The big blind moves on to seat 4; the
    # small blind falls on seat 3, empty: nobody posts it (a dead small blind); the button goes to
    # seat 2, the last small blind. Hand 4: the button lies on seat 3, empty (a dead button), the
    # blinds are 4 and 5. Hand 5: button 4, blinds 5 and 1. Nobody skipped the big blind or paid it twice.
    session = table(1, 2, 3, 4, 5)
    seen = []
    for _ in range(2):
        hand = session.start_hand()
        seen.append((hand.button, blinds(hand)))
        play_out(session)
    assert seen == [(5, [(1, "small_blind", 1), (2, "big_blind", 2)]),
                    (1, [(2, "small_blind", 1), (3, "big_blind", 2)])]
    session.leave(3)
    hand = session.start_hand()
    assert hand.button == 2 and hand.no_small_blind and blinds(hand) == [(4, "big_blind", 2)]
    assert hand.seats == (4, 5, 1, 2) and hand.actor is None
    deal_all(hand, list(DECK))
    assert hand.actor == 5                      # first to act: left of the big blind
    hand.fold(), hand.fold(), hand.fold()
    session.end_hand()
    assert session.players[4].stack == 100      # no small blind was posted: the big blind wins nothing
    hand = session.start_hand()
    assert hand.button == 3 and 3 not in hand.seats                   # the dead button
    assert blinds(hand) == [(4, "small_blind", 1), (5, "big_blind", 2)]
    play_out(session)
    hand = session.start_hand()
    assert hand.button == 4 and blinds(hand) == [(5, "small_blind", 1), (1, "big_blind", 2)]
    assert session.to_dict()["small_blind"] == 5 and session.to_dict()["big_blind"] == 1


def test_the_moving_button_as_a_setting_lets_a_player_skip_the_big_blind() -> None:
    # The same table with the moving button: after seat 3 leaves, the button moves to seat 2 and
    # the blinds follow it: seat 4 posts the small blind, seat 5 the big (seat 4 skips the big blind).
    session = table(1, 2, 3, 4, 5, dead_button=False)
    for _ in range(2):
        session.start_hand()
        play_out(session)
    session.leave(3)
    hand = session.start_hand()
    assert hand.button == 2 and not hand.no_small_blind
    assert blinds(hand) == [(4, "small_blind", 1), (5, "big_blind", 2)]


def test_a_player_who_missed_the_blinds_posts_both_the_small_dead_the_big_live() -> None:
    # Seats 1-4. Hand 1: button 4, blinds 1 and 2. Seat 3 sits out: hand 2 (button 1, blinds 2
    # and 4) passes his big blind: he owes both. He sits in before hand 3 (button 2, blinds 4 and
    # 1), but sits between the button and the small blind: not dealt in until the button has
    # passed him. Hand 4 (button 4, blinds 1 and 2): he posts 2 live and 1 dead; the pot is
    # 1 + 2 + 2 + 1 = 6, his bet is 2, and he acts first with the option to check.
    session = table(1, 2, 3, 4)
    session.start_hand()
    play_out(session)
    session.sit_out(3)
    hand = session.start_hand()
    assert hand.button == 1 and blinds(hand) == [(2, "small_blind", 1), (4, "big_blind", 2)]
    assert session.players[3].owes == "both"
    assert session.to_dict()["seats"]["3"] == {"stack": 100, "out": True, "name": "p3", "owes": "both"}
    play_out(session)
    session.sit_in(3)
    hand = session.start_hand()
    assert hand.button == 2 and 3 not in hand.seats and session.players[3].owes == "both"
    play_out(session)
    hand = session.start_hand()
    assert hand.button == 4 and 3 in hand.seats
    assert blinds(hand) == [(1, "small_blind", 1), (2, "big_blind", 2), (3, "big_blind", 2),
                            (3, "dead_small_blind", 1)]
    assert hand.total_pot == 6 and hand.bet(3) == 2 and hand.contributed(3) == 3
    assert sum(p.amount for p in hand.pots()) == 1    # the dead small blind is in the pot, not a bet
    # dead money of the main pot, every player in the hand may win it (not "a pot of seat 3's")
    assert [(p.amount, sorted(p.eligible)) for p in hand.pots()] == [(1, [1, 2, 3, 4])]
    deal_all(hand, list(DECK))
    view = hand.view()
    assert hand.actor == 3 and view.legal.check and not view.legal.fold
    assert session.players[3].owes is None
    hand.check()
    hand.call(), hand.call()
    assert hand.actor == 2 and hand.view().legal.check     # the big blind keeps his option
    hand.check()
    assert hand.street_name == "flop" and hand.total_pot == 9   # 4 x 2 live + 1 dead
    # one main pot of all nine, as the showdown would pay it: no side pot of seat 3's dead chip
    assert [(p.amount, sorted(p.eligible)) for p in hand.pots()] == [(9, [1, 2, 3, 4])]


def test_a_player_who_missed_the_blinds_may_wait_for_the_big_blind() -> None:
    # As above, but seat 3 waits for the big blind: hands 3 and 4 are dealt without him; hand 5
    # (button 1, small blind 2) brings the big blind to his seat: he posts it and owes nothing.
    session = table(1, 2, 3, 4)
    session.start_hand()
    play_out(session)
    session.sit_out(3)
    session.start_hand()
    play_out(session)
    session.wait(3)
    assert session.to_dict()["seats"]["3"]["waiting"] is True
    for button in (2, 4):
        hand = session.start_hand()
        assert hand.button == button and 3 not in hand.seats and session.players[3].waiting
        play_out(session)
    hand = session.start_hand()
    assert hand.button == 1 and blinds(hand) == [(2, "small_blind", 1), (3, "big_blind", 2)]
    assert session.players[3].owes is None and not session.players[3].waiting


def test_a_player_who_misses_only_the_small_blind_owes_it_dead() -> None:
    # Seats 1-4, hand 1: blinds 1 and 2. Seat 2 (the big blind) sits out: hand 2 puts the small
    # blind on his seat (dead: nobody posts it) and the big blind on seat 3; seat 2 owes the small blind.
    session = table(1, 2, 3, 4)
    session.start_hand()
    play_out(session)
    session.sit_out(2)
    hand = session.start_hand()
    assert hand.button == 1 and hand.no_small_blind and blinds(hand) == [(3, "big_blind", 2)]
    assert session.players[2].owes == "small"
    play_out(session)
    session.sit_in(2)   # hand 3: button 2 (his own seat), blinds 3 and 4: he posts the small blind dead
    hand = session.start_hand()
    assert hand.button == 2 and blinds(hand) == [(3, "small_blind", 1), (4, "big_blind", 2),
                                                 (2, "dead_small_blind", 1)]
    assert hand.bet(2) == 0 and hand.contributed(2) == 1


def test_a_new_player_posts_a_big_blind_or_waits_for_it() -> None:
    # Seats 1, 2, 4. Hand 1: button 4, blinds 1 and 2. A new player sits in seat 5: he owes a big
    # blind. Hand 2 (button 1, blinds 2 and 4): he posts 2, live, and acts first with the option.
    session = table(1, 2, 4)
    session.start_hand()
    play_out(session)
    session.sit(5, 100, "new")
    assert session.players[5].owes == "big"
    hand = session.start_hand()
    assert hand.button == 1 and blinds(hand) == [(2, "small_blind", 1), (4, "big_blind", 2), (5, "big_blind", 2)]
    deal_all(hand, list(DECK))
    assert hand.actor == 5 and hand.view().legal.check
    # Or he waits: not dealt in until the big blind comes to seat 5 (hand 3: button 2, blinds 4 and 5).
    session = table(1, 2, 4)
    session.start_hand()
    play_out(session)
    session.sit(5, 100, "new")
    session.wait(5)
    hand = session.start_hand()
    assert 5 not in hand.seats
    play_out(session)
    hand = session.start_hand()
    assert hand.button == 2 and blinds(hand) == [(4, "small_blind", 1), (5, "big_blind", 2)]
    assert session.players[5].owes is None


def test_the_first_hand_asks_nothing_of_anybody_and_a_voided_hand_owes_as_before() -> None:
    session = table(1, 2, 3)
    assert all(p.owes is None for p in session.players.values())
    session.start_hand()
    play_out(session)
    session.sit_out(3)
    session.start_hand()          # heads-up, button 2, big blind 1: the big blind passed seat 3
    assert session.players[3].owes == "both"
    session.void_hand()
    assert session.players[3].owes is None and session.to_dict()["big_blind"] == 2
    with pytest.raises(IllegalAction, match="owes no blinds"):
        session.wait(1)
    with pytest.raises(IllegalAction, match="owes"):
        session.restore({"seats": {"1": {"stack": 5, "owes": "ante"}}})


def test_the_seat_actions_post_and_wait_in_the_dealers_words() -> None:
    session = table(1, 2, 3)
    session.start_hand()
    play_out(session)
    session.seat_change(3, "sit_out")
    session.start_hand()
    play_out(session)
    session.seat_change(3, "wait")
    assert session.players[3].waiting and not session.players[3].sitting_out
    session.seat_change(3, "post")
    assert not session.players[3].waiting and session.players[3].owes == "both"


def test_a_tournament_player_moved_in_owes_no_blind_where_a_new_cash_player_owes_the_big_blind() -> None:
    session = table(1, 2, 3)
    session.start_hand()
    play_out(session)
    session.seat_change(4, "join", 100)
    session.seat_change(5, "move_in", 150)
    assert (session.players[4].owes, session.players[5].owes, session.players[5].stack) == ("big", None, 150)
    with pytest.raises(IllegalAction, match="move_in needs the player's stack"):
        session.seat_change(6, "move_in")
