"""Evaluators proven exact: every 5-card and 3-card hand against the published counts, 6 and 7 cards against a reference."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from pokerkit import StandardHighHand

from engine.cards import DECK
from engine.evaluate import (
    high,
    high_category,
    high_strength,
    high_strength7,
    three_card,
    three_card_strength,
)

FIVE_CARD_COUNTS = {
    "royal_flush": 4,
    "straight_flush": 36,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "pair": 1_098_240,
    "high_card": 1_302_540,
}
THREE_CARD_COUNTS = {
    "straight_flush": 48,
    "three_of_a_kind": 52,
    "straight": 720,
    "flush": 1_096,
    "pair": 3_744,
    "high_card": 16_440,
}


def test_every_five_card_hand_matches_the_published_counts() -> None:
    by_strength = Counter(map(high_strength, combinations(range(52), 5)))
    counts: Counter[str] = Counter()
    for strength, n in by_strength.items():
        counts[high_category(strength)] += n
    assert dict(counts) == FIVE_CARD_COUNTS
    assert sum(counts.values()) == 2_598_960
    assert len(by_strength) == 7_462  # the distinct five-card hand values


def test_every_three_card_hand_matches_the_published_counts() -> None:
    counts = Counter(three_card(hand).category for hand in combinations(DECK, 3))
    assert dict(counts) == THREE_CARD_COUNTS
    assert len({three_card_strength(h) for h in combinations(range(52), 3)}) == 741  # 12 + 13 + 12 + 274 + 156 + 274 distinct values


def _reference(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Obviously-right five-card high value, written apart from the engine: (category, ranks...)."""
    ranks = sorted(((i >> 2) + 2 for i in cards), reverse=True)
    flush = len({i & 3 for i in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    top = 0
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = distinct[0]
    elif distinct == [14, 5, 4, 3, 2]:
        top = 5
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    order = tuple(r for r, _ in groups)
    if top and flush:
        return (8, top)
    if shape == (4, 1):
        return (7, *order)
    if shape == (3, 2):
        return (6, *order)
    if flush:
        return (5, *ranks)
    if top:
        return (4, top)
    return ({(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1, (1, 1, 1, 1, 1): 0}[shape], *order)


def _best_reference(cards: tuple[int, ...]) -> tuple[int, ...]:
    return max(_reference(five) for five in combinations(cards, 5))


def test_six_and_seven_cards_match_the_best_five_of_a_reference() -> None:
    rng = random.Random(20261129)
    samples = [tuple(rng.sample(range(52), n)) for n in (5, 6, 7) for _ in range(4000)]
    # Add hands rich in the rare classes: flushes with pairs, straight flushes, quads, two trips.
    suited = [i for i in range(52) if i & 3 == 2]
    for _ in range(2000):
        picked = rng.sample(suited, rng.choice((5, 6)))
        others = [i for i in range(52) if i not in picked]
        samples.append(tuple(picked + rng.sample(others, 7 - len(picked))))
    for _ in range(2000):
        rank = rng.randrange(13)
        base = [rank * 4 + s for s in range(4)]
        rank2 = (rank + 1 + rng.randrange(12)) % 13
        rest = [i for i in range(52) if i >> 2 not in (rank, rank2)]
        samples.append(tuple(base[:3] + [rank2 * 4 + s for s in range(3)] + rng.sample(rest, 1)))
        samples.append(tuple(base + rng.sample(rest, 3)))
    for top in range(5, 15):
        ranks = [14 if r == 1 else r for r in range(top - 4, top + 1)]
        samples.append(tuple((r - 2) * 4 + 1 for r in ranks) + (0, 3))
    pairs = sorted((_best_reference(h), high_strength(h)) for h in samples)
    for (ref_a, ours_a), (ref_b, ours_b) in zip(pairs, pairs[1:]):
        assert (ours_a < ours_b) == (ref_a < ref_b), (ref_a, ref_b)
        assert (ours_a == ours_b) == (ref_a == ref_b)
    for h in samples:
        if len(h) == 7:
            assert high_strength7(*h) == high_strength(h)


def test_seven_card_order_agrees_with_pokerkit() -> None:
    rng = random.Random(7)
    for _ in range(300):
        a, b = rng.sample(range(52), 7), rng.sample(range(52), 7)
        ours_a, ours_b = high(tuple(DECK[i] for i in a)), high(tuple(DECK[i] for i in b))
        kit_a = StandardHighHand.from_game("".join(str(DECK[i]) for i in a))
        kit_b = StandardHighHand.from_game("".join(str(DECK[i]) for i in b))
        assert (ours_a < ours_b) == (kit_a < kit_b)
        assert (ours_a == ours_b) == (kit_a == kit_b)
        assert {str(c) for c in ours_a.cards} <= {str(DECK[i]) for i in a}
        assert high(ours_a.cards).strength == ours_a.strength  # the five shown make the hand
