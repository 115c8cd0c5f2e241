"""Stud (bring-in, completion, who acts first, the open pair), razz, and the draw games."""

from __future__ import annotations

import pytest

from engine.errors import IllegalAction
from engine.poker import VARIANTS, CardSlot, Drew, Hand, HandSettings, Phase, Stakes
from tests.engine.poker.helpers import deal_all, stacked

NO_BURNS = HandSettings(burns=False)
STUD_STAKES = Stakes.fixed_limit(10, 20, blinds=(), ante=2, bring_in=3)


def third_street(code: str, downs: list[str], ups: list[str]) -> Hand:
    n = len(ups)
    hand = Hand(VARIANTS[code], STUD_STAKES, [500] * n, button=n - 1, settings=NO_BURNS)
    assert hand.total_pot == 2 * n
    d = [stacked(x) for x in downs]
    deck = [d[p][0] for p in range(n)] + [d[p][1] for p in range(n)] + stacked(" ".join(ups))
    slots = []
    for card in deck:
        slots.append(hand.expected_card())
        hand.deal(card)
    assert [s.up for s in slots] == [False] * (2 * n) + [True] * n
    return hand


def test_stud_lowest_upcard_brings_in_suit_breaks_ties():
    hand = third_street("stud", ["Ah Kh", "Ad Kd", "Ac Kc"], ["2d", "2c", "5s"])
    assert hand.phase is Phase.BRING_IN and hand.actor == 1
    legal = hand.view().legal
    assert legal.bring_in == 3 and legal.bet_or_raise.kind == "complete"
    assert legal.bet_or_raise.choices == (10,) and not legal.fold
    with pytest.raises(IllegalAction):
        hand.fold()
    hand.post_bring_in()
    assert hand.actor == 2
    legal = hand.view().legal
    assert legal.call == 3 and legal.bet_or_raise.kind == "complete" and legal.bet_or_raise.choices == (10,)
    rec = hand.bet_or_raise(10)
    assert rec.kind == "complete" and rec.full
    hand.bet_or_raise(20, seat=0)
    hand.bet_or_raise(30, seat=1)
    hand.bet_or_raise(40, seat=2)            # completion + three raises: capped
    assert hand.raise_range(0) is None
    hand.call(0)
    hand.call(1)
    assert hand.street_name == "fourth"


def test_stud_ace_is_high_for_the_bring_in():
    hand = third_street("stud", ["2h 3h", "2d 3d", "2s 3s"], ["Ad", "Kc", "Ks"])
    assert hand.actor == 1


def test_razz_highest_upcard_brings_in_king_high_ace_low_spades_highest():
    hand = third_street("razz", ["2h 3h", "2d 3d", "2s 3s", "4s 5s"], ["Kc", "Kd", "Qs", "As"])
    assert hand.actor == 1
    hand = third_street("razz", ["2h 3h", "2d 3d", "2s 3s"], ["Ac", "9d", "9s"])
    assert hand.actor == 2


def fourth_street(code: str, ups3: list[str], ups4: list[str]) -> Hand:
    downs = ["2h 3h", "2d 3d", "2s 3s"][: len(ups3)]
    hand = third_street(code, downs, ups3)
    hand.post_bring_in()
    while hand.phase is not Phase.DEALING:
        hand.call()
    for card in stacked(" ".join(ups4)):
        assert hand.expected_card().kind == "hole" and hand.expected_card().up
        hand.deal(card)
    return hand


def test_stud_best_showing_hand_acts_first_and_open_pair_may_bet_big():
    hand = fourth_street("stud", ["9c", "Kd", "4s"], ["9d", "Qc", "Ac"])
    # seat 0 shows a pair of nines: best, and may bet the small or the big bet
    assert hand.actor == 0
    assert hand.raise_range().choices == (10, 20)
    assert "bet to 10 or 20" in hand.view().prompt
    hand.bet_or_raise(20)
    assert hand.raise_range().choices == (40,)      # raises are big bets now
    hand.call()
    hand.call()
    assert hand.street_name == "fifth"


def test_stud_open_pair_option_is_for_the_pair_only():
    hand = fourth_street("stud", ["9c", "Kd", "4s"], ["9d", "Qc", "Ac"])
    hand.check()
    assert hand.actor == 1 and hand.raise_range().choices == (10,)


def test_stud_hilo_has_no_open_pair_option_and_razz_lowest_showing_acts_first():
    hand = fourth_street("stud_hilo8", ["9c", "Kd", "4s"], ["9d", "Qc", "Ac"])
    assert hand.actor == 0 and hand.raise_range().choices == (10,)
    # razz: bring-in by the king (seat 1); on 4th the lowest showing hand acts first
    hand = fourth_street("razz", ["9c", "Kd", "4s"], ["8d", "Qc", "Ac"])
    assert hand.actor == 2


def test_stud_seventh_street_down_and_showdown():
    hand = fourth_street("stud", ["9c", "Kd", "4s"], ["9d", "Qc", "Ac"])
    cards = stacked("5c 6c 7c 5d 6d 7d Tc Td Ts")
    while hand.phase is not Phase.SHOWDOWN:
        if hand.expected_card() is not None:
            slot = hand.expected_card()
            hand.deal(cards.pop(0))
            if slot.street == "seventh":
                assert not slot.up
        else:
            hand.check()
    assert all(len(hand.cards(s)) == 7 for s in hand.seats)
    assert hand.faces(0) == (False, False, True, True, True, True, False)
    hand.showdown()
    assert sum(hand.result.payoffs.values()) == 0


def test_five_card_draw_in_turn_stand_pat_and_replacements():
    hand = Hand(VARIANTS["five_card_draw"], Stakes.fixed_limit(10, 20), [500] * 3, button=2)
    deck = stacked("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ad 2d 3d")   # burn + 15
    deal_all(hand, deck)
    assert hand.actor == 2                        # left of the big blind
    hand.call()
    hand.call()
    hand.check()
    assert hand.phase is Phase.DRAWING and hand.actor == 0   # draws from the button's left
    assert hand.view().legal.draw
    with pytest.raises(IllegalAction, match="not in the hand"):
        hand.draw(["As"])
    rec = hand.draw(["2c", "5c"])
    assert rec == Drew(0, tuple(stacked("2c 5c")))
    assert hand.expected_card() == CardSlot("burn", None, False, "draw")
    hand.deal("4d")
    assert hand.expected_card() == CardSlot("draw", 0, False, "draw")
    hand.deal("5d")
    hand.deal("6d")
    assert len(hand.cards(0)) == 5 and hand.cards(0)[-2:] == tuple(stacked("5d 6d"))
    assert hand.actor == 1
    hand.draw([])                                  # stands pat
    assert hand.actor == 2 and hand.expected_card() is None
    hand.draw(["4c"])
    assert hand.expected_card() == CardSlot("draw", 2, False, "draw")   # one burn per draw round
    hand.deal("7d")
    assert hand.phase is Phase.BETTING and hand.actor == 0
    assert hand.raise_range().choices == (20,)    # big bet after the draw


def test_triple_draw_three_rounds_then_showdown_and_badugi():
    for code, size in (("deuce_seven_triple", 5), ("badugi", 4)):
        hand = Hand(VARIANTS[code], Stakes.fixed_limit(10, 20), [500] * 2, button=1, settings=NO_BURNS)
        deck = stacked("2c 3d 4h 5s 7c 8d 9h Ts Jc Qd Kh As 2d 3h 4s 5c 6d 7h")
        draws = 0
        while not hand.is_over:
            if hand.expected_card() is not None:
                hand.deal(deck.pop(0))
            elif hand.phase is Phase.DRAWING:
                draws += 1
                hand.draw([hand.cards(hand.actor)[0]])
            elif hand.phase is Phase.SHOWDOWN:
                hand.show()
            else:
                hand.check_or_call()
        assert draws == 6
        assert all(len(hand.cards(s)) == size for s in hand.seats)
        assert sum(hand.result.payoffs.values()) == 0


def test_stud_short_stub_seventh_street_is_one_common_card():
    from engine.cards import DECK
    hand = Hand(VARIANTS["stud"], STUD_STAKES, [500] * 8, button=7)   # burns on
    deck = list(DECK)
    while hand.street_name != "seventh" or hand.expected_card() is not None or hand.phase is Phase.DEALING:
        if hand.expected_card() is not None:
            slot = hand.expected_card()
            if slot.street == "seventh":
                break
            hand.deal(deck.pop())
        elif hand.phase is Phase.BRING_IN:
            hand.post_bring_in()
        else:
            hand.check_or_call()
    # 8 players: 5 burns would leave no card for 7th street; the stub (0 cards) gives one
    # common card from the burns reshuffled, with no burn first
    assert not deck or len(deck) < 8
    assert hand.expected_card() == CardSlot("board", None, True, "seventh")
    hand.deal(hand.burned[0])
    assert len(hand.board) == 1 and all(len(hand.cards(s)) == 6 for s in hand.seats)
    while hand.phase is Phase.BETTING:
        hand.check()
    hand.showdown()
    assert sum(hand.result.payoffs.values()) == 0
