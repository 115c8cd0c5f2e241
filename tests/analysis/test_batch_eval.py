"""The numpy batch evaluator against engine.evaluate: random hands of 5, 6 and 7 cards, and every category."""

import numpy as np
import pytest

from engine.cards import parse_cards
from engine.evaluate import high, high_strength
from analysis.batch_eval import CATEGORIES, categories, evaluate

EVERY_CATEGORY = {
    "royal_flush": "As Ks Qs Js Ts 2c 2d",
    "straight_flush": "9h 8h 7h 6h 5h Ah Kd",
    "four_of_a_kind": "7c 7d 7h 7s Kd Kc 2h",
    "full_house": "5h 5d 5s 6c 6d 6h 2c",
    "flush": "Ad Jd 8d 4d 2d 3c 5h",
    "straight": "5c 4d 3h 2s Ac Kd Kh",
    "three_of_a_kind": "Qc Qd Qh 9s 7c 4d 2h",
    "two_pair": "Jc Jd 4h 4s 2c 2d Ah",
    "pair": "Tc Td 8h 6s 4c 3d 2h",
    "high_card": "Ac Qd Th 8s 6c 4d 3h",
}


@pytest.mark.parametrize("size", [5, 6, 7])
def test_random_hands_have_the_engines_strengths(size):
    rng = np.random.default_rng(2026 + size)
    hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :size]
    want = np.array([high_strength([int(c) for c in row]) for row in hands])
    assert np.array_equal(evaluate(hands), want)


def test_every_category_named_as_the_engine_names_it():
    for name, text in EVERY_CATEGORY.items():
        cards = parse_cards(text)
        for size in (7, 5):  # the seven cards, and the best five alone
            best = high(cards).cards if size == 5 else cards
            strength = evaluate(np.array([[c.index for c in best]]))
            assert CATEGORIES[int(categories(strength)[0])] == name == high(best).category
            assert int(strength[0]) == high(best).strength


def test_order_matches_the_engine_on_pairs_of_hands():
    rng = np.random.default_rng(7)
    hands = np.argsort(rng.random((4_000, 52)), axis=1)[:, :7]
    ours = evaluate(hands)
    engine = [high_strength([int(c) for c in row]) for row in hands]
    for i in range(0, len(hands) - 1, 2):
        assert (ours[i] > ours[i + 1]) == (engine[i] > engine[i + 1])
        assert (ours[i] == ours[i + 1]) == (engine[i] == engine[i + 1])


@pytest.mark.parametrize("bad", [np.zeros((3, 4), dtype=int), np.zeros((3, 8), dtype=int), np.zeros(7, dtype=int),
                                 np.full((1, 7), 52)])
def test_bad_arrays_refused(bad):
    with pytest.raises(ValueError):
        evaluate(bad)
