"""Low evaluators and Badugi checked class by class: every five-card rank pattern against an independent reference."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement

from engine.cards import DECK, Card
from engine.evaluate import ace_five_low, badugi, deuce_seven_low, high, low8, omaha_low8

RANKS = range(2, 15)


def rank_patterns() -> list[tuple[int, ...]]:
    """Every multiset of five ranks (no rank more than four times): 6,175 of them."""
    return [p for p in combinations_with_replacement(RANKS, 5) if max(Counter(p).values()) <= 4]


def hand_of(ranks: tuple[int, ...], suited: bool = False) -> tuple[Card, ...]:
    """Cards with these ranks: all clubs when `suited` (ranks distinct), else never five of one suit."""
    if suited:
        return tuple(Card(r, 0) for r in ranks)
    if len(set(ranks)) == 5:
        return tuple(Card(r, 1 if n == 4 else 0) for n, r in enumerate(ranks))
    return tuple(Card(r, ranks[:n].count(r)) for n, r in enumerate(ranks))  # a repeated rank: two suits


def shape_key(ranks: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return tuple(n for _, n in groups), tuple(r for r, _ in groups)


SHAPE_ORDER = [(1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1)]


def test_every_ace_five_pattern_is_distinct_and_ordered() -> None:
    def reference(ranks: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:  # smaller is better
        shape, order = shape_key([1 if r == 14 else r for r in ranks])
        return SHAPE_ORDER.index(shape), order

    patterns = rank_patterns()
    values = {p: ace_five_low(hand_of(p)).strength for p in patterns}
    assert len(set(values.values())) == 6_175
    by_reference = sorted(patterns, key=reference)
    strengths = [values[p] for p in by_reference]
    assert strengths == sorted(strengths, reverse=True)
    assert ace_five_low(hand_of((14, 2, 3, 4, 5), suited=True)).strength == values[(2, 3, 4, 5, 14)]


def test_every_deuce_seven_class_is_distinct_and_ordered() -> None:
    def reference(ranks: tuple[int, ...], suited: bool) -> tuple[int, tuple[int, ...]]:  # larger is worse
        shape, order = shape_key(list(ranks))
        top = 0
        if shape == (1, 1, 1, 1, 1) and order[0] - order[4] == 4:
            top = order[0]
        if top and suited:
            return 8, (top,)
        if shape == (4, 1):
            return 7, order
        if shape == (3, 2):
            return 6, order
        if suited:
            return 5, order
        if top:
            return 4, (top,)
        return {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1, (1, 1, 1, 1, 1): 0}[shape], order

    hands = [(p, False) for p in rank_patterns()] + [(p, True) for p in rank_patterns() if len(set(p)) == 5]
    values = {h: deuce_seven_low(hand_of(*h)).strength for h in hands}
    assert len(hands) == len(set(values.values())) == 7_462
    ordered = sorted(hands, key=lambda h: reference(*h))
    strengths = [values[h] for h in ordered]
    assert strengths == sorted(strengths, reverse=True)
    assert deuce_seven_low(hand_of((2, 3, 4, 5, 7))).strength == max(values.values())


def test_deuce_seven_is_the_high_order_reversed_apart_from_the_wheel() -> None:
    rng = random.Random(27)
    for _ in range(3000):
        a, b = (tuple(DECK[i] for i in rng.sample(range(52), 5)) for _ in range(2))
        if any({c.rank for c in h} == {14, 2, 3, 4, 5} for h in (a, b)):
            continue
        assert (deuce_seven_low(a) > deuce_seven_low(b)) == (high(a) < high(b))


def test_every_low_card_hand_for_eight_or_better() -> None:
    low_cards = [c for c in DECK if c.rank <= 8 or c.rank == 14]
    values = [low8(h) for h in combinations(low_cards, 5)]
    qualifying = [v for v in values if v is not None]
    assert len(qualifying) == 56 * 4**5  # five distinct ranks of eight, any suits
    assert len({v.strength for v in qualifying}) == 56
    best = max(qualifying)
    assert best.name == "5-4-3-2-A low"
    assert min(qualifying).name == "8-7-6-5-4 low"

    def reference(ranks: list[int]) -> tuple[int, ...]:  # smaller is better
        return tuple(sorted(ranks, reverse=True))

    by_strength = sorted({v.strength: v for v in qualifying}.values())
    keys = [reference([1 if c.rank == 14 else c.rank for c in v.cards]) for v in by_strength]
    assert keys == sorted(keys, reverse=True)


def test_low8_of_seven_and_omaha_are_the_best_qualifying_five() -> None:
    def reference(cards: tuple[Card, ...]) -> tuple[int, ...] | None:
        best = None
        for five in combinations(cards, 5):
            ranks = sorted((1 if c.rank == 14 else c.rank for c in five), reverse=True)
            if len(set(ranks)) == 5 and ranks[0] <= 8 and (best is None or tuple(ranks) < best):
                best = tuple(ranks)
        return best

    rng = random.Random(8)
    low_heavy = [c for c in DECK if c.rank <= 9 or c.rank == 14]
    for _ in range(1500):
        seven = tuple(rng.sample(low_heavy, 7))
        value, ref = low8(seven), reference(seven)
        assert (value is None) == (ref is None)
        if value is not None and ref is not None:
            assert tuple(sorted((1 if c.rank == 14 else c.rank for c in value.cards), reverse=True)) == ref
        hole, board = seven[:4], seven[4:] + tuple(rng.sample([c for c in DECK if c not in seven], 2))
        omaha = omaha_low8(hole, board)
        refs = [reference(two + three) for two in combinations(hole, 2) for three in combinations(board, 3)]
        found = [r for r in refs if r is not None]
        assert (omaha is None) == (not found)
        if omaha is not None:
            assert tuple(sorted((1 if c.rank == 14 else c.rank for c in omaha.cards), reverse=True)) == min(found)


def test_badugi_sizes_on_a_short_deck_and_order() -> None:
    short = [c for c in DECK if c.rank <= 6 or c.rank == 14]  # 24 cards
    counts = Counter(badugi(h).category for h in combinations(short, 4))
    assert counts["badugi_4"] == 15 * 24  # four distinct ranks of six, four distinct suits in some order
    assert counts["badugi_1"] == 6 * 1 + 4 * 15  # four of a rank, or four of a suit
    assert sum(counts.values()) == 10_626
    values = {badugi(h).strength for h in combinations(DECK, 4) if len({c.suit for c in h}) == 4
              and len({c.rank for c in h}) == 4}
    assert len(values) == 715  # one per set of four ranks
