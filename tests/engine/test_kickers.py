"""engine.kickers: the kickers that decide between two hands named alike, from the evaluator's ranking, and in a
house game's settlement (each spot that met the dealer's hand, and the dealer's)."""

from __future__ import annotations

import doctest
import random
from types import MappingProxyType

from engine import kickers as kickers_module
from engine.cards import DECK, parse_cards
from engine.evaluate import high, named_ranks, three_card
from engine.kickers import deciding_kickers, kickers
from engine.paytables import load_profile
from engine.three_card_poker import ThreeCardHand, ThreeCardSpot, settle_3cp
from engine.ultimate_holdem import UthHand, UthPlay, UthSpot, settle_uth

DEFAULT = load_profile("default")
BETS = MappingProxyType({"ante": 500, "blind": 500})


def test_the_modules_examples() -> None:
    assert doctest.testmod(kickers_module).failed == 0


def test_only_hands_named_alike_of_different_strength_name_their_kickers() -> None:
    kk_a, kk_q = high(parse_cards("Kh Kd As 7c 4d 3s 2h")), high(parse_cards("Ks Kc Qd 7h 4c 3d 2c"))
    assert kickers(kk_a, kk_q) == ("A",) and kickers(kk_q, kk_a) == ("Q",)
    assert kickers(kk_a, high(parse_cards("Qh Qd As 7c 4d 3s 2h"))) == ()  # the names differ: the name says why
    assert kickers(kk_a, high(parse_cards("Ks Kc Ad 7h 4c 3d 2c"))) == ()  # a tie: nothing decides
    flush = high(parse_cards("Ah Jh 9h 6h 3h Kc 2d"))
    assert kickers(flush, high(parse_cards("Ad Jd 8d 6d 3d Kc 2c"))) == ("J", "9")  # "Flush, ace high" both
    two_pair = high(parse_cards("Kh Kd 4s 4c Ad 3s 2h"))
    assert kickers(two_pair, high(parse_cards("Ks Kc 4h 4d Qd 3c 2c"))) == ("A",)
    assert kickers(three_card(parse_cards("Kh Kd Qs")), three_card(parse_cards("Ks Kc Jd"))) == ("Q",)
    assert kickers(three_card(parse_cards("Ah 9d 5s")), three_card(parse_cards("As 9c 4d"))) == ("9", "5")


def test_the_kickers_agree_with_the_strength_on_random_hands() -> None:
    """Whenever two seven-card hands are named alike and differ in strength, the winner's last kicker named outranks
    the loser's at the same place and every kicker before it is the same rank on both sides."""
    rng = random.Random(11)
    seen = 0
    while seen < 400:
        cards = rng.sample(DECK, 9)
        board = cards[4:]
        a, b = high(cards[0:2] + board), high(cards[2:4] + board)
        if a.category != b.category or named_ranks(a) != named_ranks(b) or a.strength == b.strength:
            continue
        seen += 1
        win, lose = (a, b) if a.strength > b.strength else (b, a)
        mine, theirs = kickers(win, lose), kickers(lose, win)
        assert mine and len(mine) == len(theirs), (win, lose)
        assert mine[:-1] == theirs[:-1]
        assert "23456789TJQKA".index(mine[-1]) > "23456789TJQKA".index(theirs[-1]), (win, lose)


def test_a_uth_settlement_names_the_kickers_of_the_spots_that_met_the_dealer() -> None:
    board = parse_cards("Kd 9c 6h 4s 2d")
    hand = UthHand(parse_cards("Kh Qc"), board, (
        UthSpot(1, parse_cards("Ks Ad"), BETS, UthPlay("river", 1)),  # pair of kings, ace kicker: beats the queen
        UthSpot(2, parse_cards("Kc Jh"), BETS, UthPlay("river", 1)),  # pair of kings, jack kicker: loses to it
        UthSpot(3, parse_cards("Ac Ah"), BETS, UthPlay("river", 1)),  # aces: its name says why
        UthSpot(4, parse_cards("3c 3d"), BETS, None),  # folded: never met the dealer's hand
    ))
    settled = settle_uth(hand, DEFAULT.uth)
    assert {s.seat: s.kickers for s in settled.spots} == {1: ("A",), 2: ("J",), 3: (), 4: ()}
    assert settled.dealer_kickers == ("Q",)
    assert settled.spot(1).results["play"] > 0 and settled.spot(2).results["play"] < 0


def test_the_dealers_kickers_go_as_far_as_the_closest_spot_needs() -> None:
    dealer = high(parse_cards("Kh Ac Kd 9c 6h 4s 2d"))
    first = high(parse_cards("Ks Qd Kd 9c 6h 4s 2d"))  # decided on the first kicker
    board = parse_cards("Kd Ac 6h 4s 2d")
    second = high(parse_cards("Kc 8h") + board)  # the ace on the board: decided on the second
    assert deciding_kickers(high(parse_cards("Kh 9c") + board), [second]) == ("A", "9")
    assert deciding_kickers(dealer, [first]) == ("A",) and deciding_kickers(dealer, []) == ()


def test_a_3cp_settlement_names_the_kickers_of_a_spot_that_played() -> None:
    bets = MappingProxyType({"ante": 500})
    spots = (ThreeCardSpot(1, parse_cards("Kd Kc Ad"), bets, True), ThreeCardSpot(2, parse_cards("Qh Jh 2c"), bets, False))
    settled = settle_3cp(ThreeCardHand(parse_cards("Kh Ks 9c"), spots), DEFAULT.three_card_poker)
    assert [s.kickers for s in settled.spots] == [("A",), ()]  # pair of kings, ace kicker; the fold met nothing
    assert settled.dealer_kickers == ("9",) and settled.spot(1).results["play"] > 0
