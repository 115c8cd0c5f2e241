"""Hold'em betting through the hand state machine: worked examples of docs/rules.md and 000/002."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.errors import CardError, IllegalAction
from engine.poker import (
    VARIANTS, BetOrRaised, CardSlot, Hand, HandSettings, Phase, Returned, Stakes, Structure,
    pot_limit_max_to,
)
from tests.engine.poker.helpers import deal_all, stacked

HOLDEM = VARIANTS["holdem"]
NO_BURNS = HandSettings(burns=False)


def preflop(stakes: Stakes, stacks: dict[int, int] | list[int], button: int | None = None,
            cards: str | None = None) -> Hand:
    hand = Hand(HOLDEM, stakes, stacks, button=button, settings=NO_BURNS)
    n = len(hand.seats)
    text = cards or "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d 5d 6d 7d 8d"
    deal_all(hand, stacked(text)[: 2 * n] + stacked("2h 3h 4h 5h 6h 7h 8h"))
    assert hand.phase is Phase.BETTING
    return hand


def test_pot_limit_worked_maximums_as_pure_function():
    assert pot_limit_max_to(level=10, pot_with_bets=15 + 10, own_bet=0) == 45     # 000
    assert pot_limit_max_to(level=2, pot_with_bets=3, own_bet=0) == 7             # 000, 1/2 blinds
    assert pot_limit_max_to(level=7, pot_with_bets=10, own_bet=0) == 24           # 000, re-raise
    assert pot_limit_max_to(level=0, pot_with_bets=200, own_bet=0) == 200         # 002 bet
    assert pot_limit_max_to(level=100, pot_with_bets=300, own_bet=0) == 500       # 002 facing 100
    assert pot_limit_max_to(level=100, pot_with_bets=400, own_bet=0) == 600       # 002 and a call


def test_pot_limit_blinds_one_two_first_raise_7_reraise_24():
    hand = preflop(Stakes.pot_limit(1, 2), [500] * 4, button=3)
    assert hand.actor == 2          # left of the big blind (seat 1)
    rng = hand.raise_range()
    assert (rng.kind, rng.min_to, rng.max_to) == ("raise", 4, 7)
    with pytest.raises(IllegalAction, match="4..7, not 8"):
        hand.bet_or_raise(8)
    hand.bet_or_raise(7)
    assert hand.raise_range().max_to == 24
    assert hand.raise_range().min_to == 12          # at least the previous raise (5) again
    hand.bet_or_raise(24)
    assert hand.level == 24


def test_pot_limit_flop_pot_15_facing_10_raise_20_to_45():
    # three players limp for 5 each: pot 15 on the flop
    hand = preflop(Stakes.pot_limit(1, 2, straddles=()), {0: 500, 1: 500, 2: 500}, button=2)
    # seat 0 small blind, seat 1 big blind, seat 2 button acts first pre-flop
    hand.bet_or_raise(5)
    hand.call()
    hand.call()
    assert hand.total_pot == 15 and hand.street_name == "flop"
    assert hand.expected_card() == CardSlot("board", None, True, "flop")
    deal_all(hand, stacked("Qh Qd Qs"))
    assert hand.actor == 0
    assert (hand.raise_range().min_to, hand.raise_range().max_to) == (2, 15)   # bet BB..pot
    hand.bet_or_raise(10)
    rng = hand.raise_range()
    assert (rng.kind, rng.min_to, rng.max_to) == ("raise", 20, 45)
    view = hand.view()
    assert view.legal.call == 10 and view.legal.fold and not view.legal.check
    assert "raise to 20..45" in view.prompt


def test_pot_limit_pot_200_bet_200_raise_500_then_600():
    # four limpers at 25/50: 200 in the pot on the flop (002)
    hand2 = Hand(HOLDEM, Stakes.pot_limit(25, 50), [5000] * 5, button=4, settings=NO_BURNS)
    deal_all(hand2, stacked("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac"))
    hand2.call(2)
    hand2.call(3)
    hand2.fold(4)
    hand2.call(0)
    hand2.check(1)        # 4 x 50 = 200
    deal_all(hand2, stacked("Qh Qd Qs"))
    assert hand2.total_pot == 200 and hand2.actor == 0
    assert hand2.raise_range().max_to == 200
    hand2.bet_or_raise(100)
    assert hand2.raise_range().max_to == 500
    hand2.call(1)
    assert hand2.raise_range().max_to == 600


def test_no_limit_minimum_raise_is_the_last_raise():
    hand = preflop(Stakes.no_limit(1, 2), [1000] * 4, button=3)
    assert hand.raise_range().min_to == 4
    hand.bet_or_raise(10)     # raise by 8
    assert hand.raise_range().min_to == 18
    with pytest.raises(IllegalAction):
        hand.bet_or_raise(17)
    hand.bet_or_raise(30)     # raise by 20
    assert hand.raise_range().min_to == 50
    assert hand.raise_range().max_to == 1000


def test_short_all_in_does_not_reopen_to_players_who_acted():
    # seat 0 SB, 1 BB, 2 and 3; seat 3 is short
    hand = preflop(Stakes.no_limit(5, 10), {0: 1000, 1: 1000, 2: 1000, 3: 150}, button=3)
    hand.bet_or_raise(100, seat=2)          # raise by 90
    rec = hand.bet_or_raise(150, seat=3)    # all in: raise by 50 < 90, not full
    assert isinstance(rec, BetOrRaised) and rec.all_in and not rec.full
    hand.fold(0)
    # big blind has not acted on the 100 yet: may re-raise, minimum 150 + 90
    assert hand.raise_range(1).min_to == 240
    hand.call(1)
    # seat 2 already acted on the last full raise: call or fold only
    assert hand.actor == 2
    assert hand.raise_range() is None
    assert not hand.can_bet_or_raise(400)
    with pytest.raises(IllegalAction, match="does not reopen"):
        hand.verify_bet_or_raise(400)
    view = hand.view()
    assert view.legal.call == 50 and view.legal.bet_or_raise is None
    hand.call()
    assert hand.street_name == "flop"


def test_full_all_in_raise_reopens():
    hand = preflop(Stakes.no_limit(5, 10), {0: 1000, 1: 1000, 2: 1000, 3: 200}, button=3)
    hand.bet_or_raise(100, seat=2)
    hand.bet_or_raise(200, seat=3)          # raise by 100 >= 90: full
    hand.fold(0)
    hand.call(1)
    assert hand.raise_range(2) is not None


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), {3: 100, 7: 100}, button=7)
    assert hand.blind_order == (7, 3)
    assert (hand.bet(7), hand.bet(3)) == (1, 2)
    # docs/rules.md: "cards dealt one at a time clockwise from the small blind ... Heads-up: the
    # button posts the small blind": burn, then one at a time from the button
    slots = []
    while hand.expected_card() is not None:
        slots.append(hand.expected_card())
        hand.deal(None)
    assert [s.kind for s in slots] == ["burn", "hole", "hole", "hole", "hole"]
    assert [s.seat for s in slots[1:]] == [7, 3, 7, 3]     # from the small blind: the button
    assert hand.actor == 7
    hand.call()
    assert hand.actor == 3          # big blind option
    hand.check()
    assert hand.expected_card() == CardSlot("burn", None, False, "flop")
    for _ in range(4):
        hand.deal(None)
    assert hand.actor == 3          # first after the flop: big blind, the button acts last


def test_cards_dealt_from_the_small_blind_multi_way_and_heads_up_rules_md():
    # docs/rules.md: "cards dealt one at a time clockwise from the small blind"; heads-up the
    # button posts the small blind, so the button gets the first card
    def hole_seats(stacks: dict[int, int], button: int) -> list[int]:
        hand = Hand(HOLDEM, Stakes.no_limit(1, 2), stacks, button=button, settings=NO_BURNS)
        seats = []
        while hand.expected_card() is not None:
            seats.append(hand.expected_card().seat)
            hand.deal(None)
        return seats

    assert hole_seats({1: 50, 4: 50, 6: 50}, button=4) == [6, 1, 4, 6, 1, 4]   # small blind seat 6
    assert hole_seats({1: 50, 4: 50}, button=4) == [4, 1, 4, 1]                 # heads-up: the button
    assert hole_seats({1: 50, 4: 50}, button=1) == [1, 4, 1, 4]


def test_ten_dollar_twenty_capped_preflop_round_000():
    # 10 players, seat 0 SB ($5), seat 1 BB ($10), seat 2 UTG, ..., seat 9 button
    stakes = Stakes.fixed_limit(10, 20)
    assert stakes.blinds == (5, 10) and stakes.structure is Structure.FIXED_LIMIT
    hand = Hand(HOLDEM, stakes, [1000] * 10, button=9, settings=NO_BURNS)
    deal_all(hand, list(__import__("engine.cards", fromlist=["DECK"]).DECK[:20]))
    assert hand.actor == 2
    assert hand.raise_range().choices == (20,)
    hand.bet_or_raise(20)                  # UTG raises: $20 (two small bets)
    for seat in (3, 4, 5, 6):
        hand.fold(seat)
    hand.bet_or_raise(30, seat=7)          # position 8 re-raises to $30
    hand.call(8)                           # position 9 calls $30
    hand.fold(9)                           # button folds
    rec = hand.call(0)                     # small blind adds $25
    assert rec.amount == 25
    rec = hand.bet_or_raise(40, seat=1)    # big blind adds $30: $40, the cap
    assert rec.amount == 30
    # capped: the others may only call or fold
    assert hand.actor == 2
    assert hand.raise_range() is None
    with pytest.raises(IllegalAction, match="capped"):
        hand.verify_bet_or_raise(50)
    for seat in (2, 7, 8, 0):
        hand.call(seat)
    assert hand.street_name == "flop"
    assert hand.total_pot == 5 * 40


def test_fixed_limit_cap_is_a_setting_and_uncapped_heads_up():
    stakes = Stakes.fixed_limit(10, 20, raise_cap=1)
    hand = preflop(stakes, [1000] * 3, button=2)
    hand.bet_or_raise(20)
    assert hand.raise_range() is None
    heads_up = Stakes.fixed_limit(10, 20, uncapped_heads_up=True)
    hand = preflop(heads_up, [1000] * 2, button=1)
    for to in (20, 30, 40, 50, 60):
        hand.bet_or_raise(to)
    assert hand.level == 60


def test_side_pots_000_three_stacks_300_200_100():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), {1: 300, 2: 200, 3: 100}, button=3, settings=NO_BURNS)
    # A (seat 1, SB), B (seat 2, BB), C (seat 3, button) : C all in, B calls, A all in, B calls
    deal_all(hand, stacked("As Ks 2c 7d 3h 8h"))
    hand.bet_or_raise(100, seat=3)
    hand.bet_or_raise(300, seat=1)
    hand.call(2)
    returned = [r for r in hand.records if isinstance(r, Returned)]
    assert returned == [Returned(1, 100)]
    deal_all(hand, stacked("Ac Kd 9s 4d 5s"))
    hand.showdown()
    pots = hand.result.pots
    assert [(p.amount, sorted(p.eligible)) for p in pots] == [(300, [1, 2, 3]), (200, [1, 2])]
    assert hand.result.final_stacks == {1: 600, 2: 0, 3: 0}


def test_short_blind_all_in_and_table_stakes():
    hand = Hand(HOLDEM, Stakes.no_limit(5, 10), {0: 500, 1: 4, 2: 500}, button=2, settings=NO_BURNS)
    assert hand.bet(1) == 4 and hand.all_in(1)
    deal_all(hand, stacked("2c 3c 4c 5c 6c 7c"))
    assert hand.call_amount() == 10 and hand.actor == 2
    hand.call()
    hand.call()                    # small blind completes to 10
    assert hand.street_name == "flop"
    assert hand.pots()[0].amount == 12 and hand.pots()[1].amount == 12


def test_illegal_actions_leave_the_state_unchanged():
    hand = preflop(Stakes.no_limit(1, 2), [100] * 3, button=2)
    before = (hand.actor, hand.stacks, len(hand.records), hand.level)
    for bad in (lambda: hand.check(), lambda: hand.bet_or_raise(3), lambda: hand.fold(seat=1),
                lambda: hand.deal("As"), lambda: hand.draw(), lambda: hand.show()):
        with pytest.raises(IllegalAction):
            bad()
    assert (hand.actor, hand.stacks, len(hand.records), hand.level) == before
    assert not hand.can_check() and hand.can_call() and hand.can_fold()


def test_duplicate_card_refused():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), [100] * 2)
    hand.deal("As")        # burn
    with pytest.raises(CardError, match="As"):
        hand.deal("As")
    hand.deal("Ks")
    with pytest.raises(CardError, match="Ks"):
        hand.deal("Ks")


def test_everyone_folds_uncalled_bet_returned_no_showdown():
    hand = preflop(Stakes.no_limit(1, 2), [100] * 3, button=2)
    hand.bet_or_raise(10)
    hand.fold()
    hand.fold()
    assert hand.is_over and not hand.result.showdown
    assert hand.result.final_stacks == {0: 99, 1: 98, 2: 103}
    assert hand.result.payoffs == {0: -1, 1: -2, 2: 3}


def test_unknown_hole_cards_shown_at_showdown():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), [100] * 2, settings=NO_BURNS)
    for _ in range(4):
        hand.deal("??")
    hand.call()
    hand.check()
    board = stacked("2h 7d 9s Jc 4c")
    while hand.phase is not Phase.SHOWDOWN:
        if hand.expected_card() is not None:
            hand.deal(board.pop(0))
        else:
            hand.check()
    with pytest.raises(IllegalAction, match="not all known"):
        hand.show()
    first = hand.actor
    hand.show(["As", "Ad"])
    hand.show(["Ks", "Kd"])
    assert hand.result.final_stacks[first] == 102
    assert list(parse_cards("As Ad")) == list(hand.cards(first))


def test_chop_by_agreement_equal_or_by_shares():
    hand = preflop(Stakes.no_limit(1, 2), [100] * 3, button=2)
    hand.call()
    hand.call()
    hand.bet_or_raise(10)          # big blind raises; the others agree to chop instead
    with pytest.raises(IllegalAction, match="add up to 8, the pot to share is 6"):
        hand.chop({0: 3, 1: 3, 2: 2})
    assert hand.chop_amount() == 6
    rec = hand.chop()
    assert rec.shares == {0: 2, 1: 2, 2: 2}
    assert hand.result.final_stacks == {0: 100, 1: 100, 2: 100}
    hand = preflop(Stakes.no_limit(1, 2), [100] * 3, button=2)
    hand.call()
    hand.call()
    hand.check()
    hand.chop({1: 4, 2: 2})
    assert hand.result.final_stacks == {0: 98, 1: 102, 2: 100}


def test_spread_limit_any_bet_between_minimum_and_maximum():
    stakes = Stakes.spread_limit(2, 6, blinds=(1, 2))
    hand = preflop(stakes, [100] * 3, button=2)
    rng = hand.raise_range()
    assert (rng.min_to, rng.max_to) == (4, 8)          # raise by 2..6 over the big blind
    hand.bet_or_raise(7)                               # raise by 5
    rng = hand.raise_range()
    assert (rng.min_to, rng.max_to) == (12, 13)        # at least the last raise (5), at most 6
    with pytest.raises(IllegalAction):
        hand.bet_or_raise(14)


def test_no_raise_when_no_opponent_could_call_more():
    hand = preflop(Stakes.no_limit(5, 10), {0: 1000, 1: 1000, 2: 300}, button=2)
    hand.bet_or_raise(300, seat=2)          # the button all in
    hand.fold(0)
    # the big blind can only call or fold: nobody left could call a raise
    assert hand.raise_range(1) is None
    with pytest.raises(IllegalAction, match="no opponent can call a raise"):
        hand.verify_bet_or_raise(1000)
    assert hand.view().legal.call == 290


def test_deal_from_buffers_deals_in_the_engine_order_and_stops_where_a_buffer_is_empty():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), {0: 50, 1: 50, 2: 50}, button=2, settings=NO_BURNS)
    holes = {0: stacked("As Ks"), 1: stacked("Qs Js"), 2: stacked("Ts")}
    board = stacked("2c 3c 4c")
    assert hand.deal_from(holes, board) == 5          # seat 2's second card is missing
    assert hand.expected_card() == CardSlot("hole", 2, False, "preflop")
    assert holes == {0: [], 1: [], 2: []} and len(board) == 3
    holes[2] = stacked("As 9s")                        # a duplicate: refused, left in its buffer
    with pytest.raises(CardError, match="duplicate"):
        hand.deal_from(holes, board)
    assert holes[2] == stacked("As 9s") and hand.expected_card().seat == 2
    del holes[2][0]
    assert hand.deal_from(holes, board) == 1 and hand.phase is Phase.BETTING and len(board) == 3


def test_a_hand_of_unknown_cards_is_shown_with_cards_that_are_not_in_play_elsewhere():
    hand = Hand(HOLDEM, Stakes.no_limit(1, 2), {0: 50, 1: 50}, button=1)
    # burn, then from the button (seat 1): seat 1 As, seat 0 ??, seat 1 Ad, seat 0 Kh
    for card in ["2c", "As", None, "Ad", "Kh"]:
        hand.deal(card)
    hand.call()
    hand.check()
    for card in ["3c", "7d", "8d", "9d", "4c", "Td", "5c", "Jd"]:   # burns and the board
        while hand.expected_card() is None:
            hand.check()
        hand.deal(card)
    while hand.phase is Phase.BETTING:
        hand.check()
    assert hand.phase is Phase.SHOWDOWN and hand.actor == 0
    with pytest.raises(IllegalAction, match="cards are not all known"):
        hand.show()
    with pytest.raises(IllegalAction, match="must show all 2 cards"):
        hand.show(["Kh"])
    with pytest.raises(IllegalAction, match="differ from the ones dealt"):
        hand.show(["Qh", "Qs"])
    with pytest.raises(CardError, match="duplicate card: As"):
        hand.show(["Kh", "As"])                     # seat 1's card
    with pytest.raises(CardError, match="duplicate card: Jd"):
        hand.show(["Jd", "Kh"])                     # on the board
    with pytest.raises(CardError, match="duplicate card: 3c"):
        hand.show(["Kh", "3c"])                     # burnt
    assert hand.actor == 0 and hand.cards(0) == (None, parse_cards("Kh")[0])   # unchanged
    shown = hand.show(["Kh", "Qc"])
    assert set(shown.cards) == set(parse_cards("Kh Qc"))


def test_a_dead_hand_is_folded_even_when_it_could_check():
    # 000: the clock called on a player runs out, "sa main est alors automatiquement couchée"
    hand = preflop(Stakes.no_limit(1, 2), {1: 50, 2: 50, 3: 50}, button=3)
    hand.call(3)
    hand.call(1)
    assert hand.actor == 2 and not hand.can_fold(2)  # the big blind, with nothing to call
    with pytest.raises(IllegalAction, match="check instead"):
        hand.fold(2)
    hand.fold(2, dead=True)
    assert hand.folded(2) and hand.phase is Phase.DEALING  # the betting round is over: the flop is due


@pytest.mark.parametrize("texts", [
    "As Ks Qs Js Ts 9s",            # the whole street in the buffers: dealt as one step
    "As Ks Qs Js Ts As",            # a duplicate: dealt one by one up to it, refused by name
    "As Ks Qs ?? Ts 9s",            # an unknown card
    "As Ks Qs Js Ts Ks",            # a duplicate within the street's last round
])
def test_a_street_of_hole_cards_from_buffers_is_dealt_as_card_by_card(texts):
    """deal_from's one step for a whole street of hole cards gives the hand, records and errors
    that dealing each card with deal gives."""
    cards = texts.split()
    by_step = Hand(HOLDEM, Stakes.no_limit(1, 2), {0: 50, 1: 50, 2: 50}, button=2, settings=NO_BURNS)
    error = None
    for card in cards:   # seats 0, 1, 2, 0, 1, 2
        try:
            by_step.deal(None if card == "??" else card)
        except CardError as exc:
            error = str(exc)
            break
    buffered = Hand(HOLDEM, Stakes.no_limit(1, 2), {0: 50, 1: 50, 2: 50}, button=2, settings=NO_BURNS)
    holes = [[c for c in cards[s::3]] for s in range(3)]
    if error is None:
        assert buffered.deal_from(holes, []) == 6 and holes == [[], [], []]
    else:
        with pytest.raises(CardError) as refused:
            buffered.deal_from(holes, [])
        assert str(refused.value) == error
    assert buffered.records == by_step.records and buffered.phase is by_step.phase
    assert [buffered.cards(s) for s in range(3)] == [by_step.cards(s) for s in range(3)]
    assert buffered.expected_card() == by_step.expected_card() and buffered.actor == by_step.actor
