"""Seven-card high evaluation: speed against treys and pokerkit, and all 133,784,560 hands against the published counts."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations

from bench import Figure
from engine.cards import DECK
from engine.evaluate import _KEY, _RANK_SHIFT, HIGH_CATEGORIES, high, high_category, high_strength, high_strength7, tables

SEVEN_CARD_COUNTS = {
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "pair": 58_627_800,
    "high_card": 23_294_460,
}
ALL_SEVEN = 133_784_560
AIM_VS_TREYS = 2.0
AIM_VS_POKERKIT = 40.0
CATEGORIES = (*HIGH_CATEGORIES, "royal_flush")


def _best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def speed(hands: int = 20_000, kit_hands: int = 1_000, seed: int = 2026) -> tuple[float, float]:
    """Per-hand times on the same seeded random 7-card hands; returns (x treys, x pokerkit)."""
    import treys
    from pokerkit import Card as KitCard
    from pokerkit import StandardHighHand

    rng = random.Random(seed)
    deals: list[tuple[int, ...]] = [tuple(rng.sample(range(52), 7)) for _ in range(hands)]
    texts = [[str(DECK[i]) for i in deal] for deal in deals]
    treys_cards = [[treys.Card.new(t) for t in deal] for deal in texts]
    kit_cards = [tuple(KitCard.parse("".join(deal))) for deal in texts[:kit_hands]]
    card_deals = [tuple(DECK[i] for i in deal) for deal in deals]
    evaluator = treys.Evaluator()

    def ours(sample: Sequence[tuple[int, ...]]) -> Callable[[], object]:
        return lambda: [high_strength(d) for d in sample]

    def ours7() -> object:
        return [high_strength7(*d) for d in deals]

    def peer_treys() -> object:
        return [evaluator.evaluate(c[:2], c[2:]) for c in treys_cards]

    def peer_kit() -> object:
        return [StandardHighHand.from_game(c[:2], c[2:]) for c in kit_cards]

    def public() -> object:
        return [high(c) for c in card_deals]

    # Sanity: same order as treys on this sample (treys: lower is better).
    strengths = [high_strength(d) for d in deals]
    ranks = [evaluator.evaluate(c[:2], c[2:]) for c in treys_cards]
    for i in range(0, hands - 1, 2):
        a, b = strengths[i], strengths[i + 1]
        if (a > b) != (ranks[i] < ranks[i + 1]) or (a == b) != (ranks[i] == ranks[i + 1]):
            raise AssertionError(f"order differs from treys on {texts[i]} vs {texts[i + 1]}")

    t_ours = _best_time(ours(deals)) / hands
    t_ours7 = _best_time(ours7) / hands
    t_public = _best_time(public) / hands
    t_treys = _best_time(peer_treys) / hands
    t_ours_kit = _best_time(ours(deals[:kit_hands])) / kit_hands
    t_kit = _best_time(peer_kit) / kit_hands
    vs_treys = t_treys / t_ours
    vs_kit = t_kit / t_ours_kit
    print(f"   speed on {hands:,} random 7-card hands (pokerkit on the first {kit_hands:,}), best of 3:")
    print(f"     high_strength(indices) {t_ours * 1e6:7.2f} us/hand")
    print(f"     high_strength7(*cards) {t_ours7 * 1e6:7.2f} us/hand")
    print(f"     high(cards) -> HandValue {t_public * 1e6:5.2f} us/hand (checks, best five, name)")
    print(f"     treys Evaluator.evaluate {t_treys * 1e6:5.2f} us/hand   -> ours is {vs_treys:5.1f}x (aim {AIM_VS_TREYS:g}x)")
    print(f"     pokerkit StandardHighHand {t_kit * 1e6:5.1f} us/hand   -> ours is {vs_kit:5.0f}x (aim {AIM_VS_POKERKIT:g}x)")
    return vs_treys, vs_kit


def enumerate_seven() -> Counter[str]:
    """Category counts of all 133,784,560 seven-card hands, from the evaluator's own tables.

    Pass 1 values every hand by its rank multiset alone (the evaluator's non-flush table): five
    nested loops carry partial rank keys, and the last two cards come from a precomputed list of
    pair keys, so the inner work (add, table lookup, count) runs in C via map. Pass 2 walks every
    hand holding five or more cards of one suit (the only hands whose value is not the non-flush
    one), values it with `high_strength7` (the evaluator's flush path), and moves it from its
    non-flush category to that one.
    """
    from collections import _count_elements  # type: ignore[attr-defined]  # C counter behind Counter.update

    rank_key = [_KEY[i] >> _RANK_SHIFT for i in range(52)]
    index = {name: n for n, name in enumerate(CATEGORIES)}
    category_of_key = {key: index[high_category(s)] for key, s in tables()[0].items()}
    lookup = category_of_key.__getitem__
    pair_keys = [[rank_key[g] + rank_key[h] for g in range(e + 1, 52) for h in range(g + 1, 52)] for e in range(52)]

    tally: dict[int, int] = {}
    for a in range(46):
        ka = rank_key[a]
        for b in range(a + 1, 47):
            kb = ka + rank_key[b]
            for c in range(b + 1, 48):
                kc = kb + rank_key[c]
                for d in range(c + 1, 49):
                    kd = kc + rank_key[d]
                    for e in range(d + 1, 50):
                        _count_elements(tally, map(lookup, map((kd + rank_key[e]).__add__, pair_keys[e])))

    for suit in range(4):
        suited = [r * 4 + suit for r in range(13)]
        others = [i for i in range(52) if i & 3 != suit]
        for k in (5, 6, 7):
            for flush_cards in combinations(suited, k):
                for rest in combinations(others, 7 - k):
                    hand = flush_cards + rest
                    real = index[high_category(high_strength7(*hand))]
                    plain = lookup(sum(rank_key[i] for i in hand))
                    tally[real] = tally.get(real, 0) + 1
                    tally[plain] -= 1
    return Counter({CATEGORIES[n]: count for n, count in tally.items() if count})


def run() -> list[Figure]:
    vs_treys, vs_kit = speed()
    started = time.perf_counter()
    counts = enumerate_seven()
    elapsed = time.perf_counter() - started
    total = sum(counts.values())
    print(f"   all seven-card hands: {total:,} in {elapsed:.1f} s")
    exact = True
    for name, want in SEVEN_CARD_COUNTS.items():
        ok = counts.get(name, 0) == want
        exact &= ok
        print(f"     {name:16} {counts.get(name, 0):>12,}  published {want:>12,}  {'ok' if ok else 'DIFFERS'}")
    exact &= total == ALL_SEVEN and set(counts) <= set(SEVEN_CARD_COUNTS)
    return [Figure.at_least("7-card high evaluation, pure Python, vs treys", vs_treys, AIM_VS_TREYS),
            Figure.at_least("7-card high evaluation, pure Python, vs pokerkit 0.7.7", vs_kit, AIM_VS_POKERKIT, digits=0),
            Figure("all 133,784,560 seven-card hands, pure Python, vs the published counts",
                   f"{'every class matches' if exact else 'DIFFERS'} ({elapsed:.0f} s)", "exact", exact)]
