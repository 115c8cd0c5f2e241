"""Short all-ins, worked from docs/rules.md "Poker room": in no limit and pot limit, all-ins short of a
full raise that together make one reopen the betting (TDA), one alone does not; in fixed limit an
all-in of half a bet or more counts as a raise, less as a call. The simple reading is a setting."""

from __future__ import annotations

import pytest

from engine.cards import DECK
from engine.errors import IllegalAction
from engine.poker import VARIANTS, Hand, HandSettings, Stakes
from tests.engine.poker.helpers import deal_all

SIMPLE = HandSettings(burns=False, short_allin_rule="simple", fixed_limit_half_bet_reopens=False)
TDA = HandSettings(burns=False)


def flop_with_bet(stakes: Stakes, short: dict[int, int], settings: HandSettings = TDA) -> Hand:
    """Blinds 50/100, seats 1-4 (button 4: small blind 1, big blind 2); everyone calls 100 before the
    flop; on the flop seat 1 bets 100 and seat 2 calls. `short`: the stacks of seats 3 and 4."""
    hand = Hand(VARIANTS["holdem"], stakes, {1: 1000, 2: 1000, 3: short[3], 4: short[4]}, button=4,
                settings=settings)
    deck = list(DECK)
    deal_all(hand, deck)
    hand.call(3), hand.call(4), hand.call(1), hand.check(2)
    deal_all(hand, deck)
    assert hand.street_name == "flop" and hand.actor == 1
    hand.bet_or_raise(100, 1)
    hand.call(2)
    return hand


@pytest.mark.parametrize("stakes", [Stakes.no_limit(50, 100), Stakes.pot_limit(50, 100)], ids=["NL", "PL"])
def test_two_short_all_ins_that_make_a_full_raise_reopen_the_betting(stakes: Stakes) -> None:
    # Seat 1 bets 100. Seat 3 is all in for 160 (a raise of 60: short of the 100 a raise needs),
    # seat 4 all in for 250 (90 more: short too). Together they raise seat 1's bet by 150, at least
    # a full raise of 100: the betting is reopened to seats 1 and 2, who may re-raise (to at least 350).
    hand = flop_with_bet(stakes, {3: 260, 4: 350})
    assert not hand.bet_or_raise(160, 3).full
    assert not hand.bet_or_raise(250, 4).full
    assert hand.actor == 1
    rng = hand.raise_range()
    assert rng is not None and rng.min_to == 350
    hand.call(1)
    rng = hand.raise_range()
    assert hand.actor == 2 and rng is not None and rng.min_to == 350
    hand.bet_or_raise(350, 2)
    assert hand.actor == 1 and hand.view().legal.call == 100


@pytest.mark.parametrize("stakes", [Stakes.no_limit(50, 100), Stakes.pot_limit(50, 100)], ids=["NL", "PL"])
def test_short_all_ins_short_of_a_full_raise_together_do_not_reopen(stakes: Stakes) -> None:
    # Seat 3 all in for 160, seat 4 all in for 190: 90 over seat 1's bet, less than a full raise:
    # seats 1 and 2 may call 90 or fold, not raise.
    hand = flop_with_bet(stakes, {3: 260, 4: 290})
    hand.bet_or_raise(160, 3)
    hand.bet_or_raise(190, 4)
    assert hand.actor == 1 and hand.raise_range() is None
    legal = hand.view().legal
    assert legal.call == 90 and legal.fold and legal.bet_or_raise is None
    with pytest.raises(IllegalAction, match="does not reopen"):
        hand.bet_or_raise(400, 1)


def test_one_short_all_in_alone_does_not_reopen() -> None:
    # Seat 3 all in for 160, seat 4 calls 160: one short all-in; seat 1 may only call 60 or fold.
    hand = flop_with_bet(Stakes.no_limit(50, 100), {3: 260, 4: 1000})
    hand.bet_or_raise(160, 3)
    hand.call(4)
    assert hand.actor == 1 and hand.raise_range() is None and hand.view().legal.call == 60


def test_the_simple_reading_never_reopens_on_short_all_ins() -> None:
    # The first example under the simple rule (pokerkit's reading, the PHH replay's): seat 1 may only call.
    hand = flop_with_bet(Stakes.no_limit(50, 100), {3: 260, 4: 350}, SIMPLE)
    hand.bet_or_raise(160, 3)
    hand.bet_or_raise(250, 4)
    assert hand.actor == 1 and hand.raise_range() is None and hand.view().legal.call == 150


def test_a_player_not_yet_acted_may_raise_a_short_all_in_by_a_full_raise() -> None:
    # Not a reopening: seat 4 had not acted; facing seat 3's short all-in to 160 he may raise to
    # 160 + 100 (the last full bet's size) = 260 at least.
    hand = flop_with_bet(Stakes.no_limit(50, 100), {3: 260, 4: 1000})
    hand.bet_or_raise(160, 3)
    rng = hand.raise_range()
    assert hand.actor == 4 and rng is not None and rng.min_to == 260


def fixed_limit_preflop(short: int, settings: HandSettings = TDA) -> Hand:
    """$10/$20 fixed limit (blinds 5/10), seats 1-4, button 4: seat 3 calls 10, then seat 4 (stack
    `short`) goes all in."""
    hand = Hand(VARIANTS["holdem"], Stakes.fixed_limit(10, 20), {1: 200, 2: 200, 3: 200, 4: short}, button=4,
                settings=settings)
    deal_all(hand, list(DECK))
    hand.call(3)
    assert hand.actor == 4
    return hand


def test_fixed_limit_an_all_in_of_half_a_bet_counts_as_a_raise_and_reopens() -> None:
    # Seat 4 all in for 15: 5 over the 10 to call is half a bet: a full raise. Seats 1 and 2 call
    # 15; seat 3, who had called, may now re-raise, to 15 + 10 = 25.
    hand = fixed_limit_preflop(15)
    assert hand.bet_or_raise(15, 4).full
    hand.call(1), hand.call(2)
    assert hand.actor == 3
    rng = hand.raise_range()
    assert rng is not None and rng.choices == (25,)


def test_fixed_limit_an_all_in_of_less_than_half_a_bet_is_a_call() -> None:
    # Seat 4 all in for 14: 4 over the 10, less than half a bet: seat 3 may only call 4 more.
    hand = fixed_limit_preflop(14)
    assert not hand.bet_or_raise(14, 4).full
    hand.call(1), hand.call(2)
    assert hand.actor == 3 and hand.raise_range() is None and hand.view().legal.call == 4


def test_fixed_limit_half_bet_rule_off_a_half_bet_all_in_does_not_reopen() -> None:
    hand = fixed_limit_preflop(15, HandSettings(burns=False, fixed_limit_half_bet_reopens=False))
    assert not hand.bet_or_raise(15, 4).full
    hand.call(1), hand.call(2)
    assert hand.actor == 3 and hand.raise_range() is None


def test_an_unknown_short_all_in_rule_is_refused() -> None:
    with pytest.raises(IllegalAction, match="short_allin_rule"):
        HandSettings(short_allin_rule="loose")
