"""The numpy batch evaluator: per-hand rate against eval7 (C), and all 133,784,560 seven-card hands against the published counts."""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import chain, combinations

import numpy as np

from bench import Figure
from bench.eval7 import ALL_SEVEN, SEVEN_CARD_COUNTS
from engine.cards import RANKS, SUITS
from analysis.batch_eval import CATEGORIES, KEY, MASK_KEY, categories, evaluate, from_keys

SPEED_HANDS = 1_000_000
PEER_HANDS = 100_000


def _best(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def speed(seed: int = 2026) -> float:
    """Per-hand times on the same seeded random 7-card hands; returns how many times faster than the peer."""
    rng = np.random.default_rng(seed)
    hands = np.argsort(rng.random((SPEED_HANDS, 52)), axis=1)[:, :7].astype(np.int8)
    texts = [[RANKS[c >> 2] + SUITS[c & 3] for c in row] for row in hands[:PEER_HANDS].tolist()]
    peer_cards: list[list[object]]  # eval7's cards, or treys' ints
    peer: Callable[[list[object]], int]
    try:
        import eval7
        peer_name = "eval7 (C) evaluate"
        peer_cards = [[eval7.Card(t) for t in row] for row in texts]
        peer = eval7.evaluate
        check = [peer(c) for c in peer_cards]
    except ImportError:  # then treys, and said so
        import treys
        peer_name = "treys (eval7 not installed) Evaluator.evaluate"
        peer_cards = [[treys.Card.new(t) for t in row] for row in texts]
        ev = treys.Evaluator()
        check = [-ev.evaluate(c[:2], c[2:]) for c in peer_cards]
        peer = lambda c: ev.evaluate(c[:2], c[2:])
    ours = evaluate(hands)
    for i in range(0, PEER_HANDS - 1, 2):  # same order as the peer on this sample
        if (ours[i] > ours[i + 1]) != (check[i] > check[i + 1]) or (ours[i] == ours[i + 1]) != (check[i] == check[i + 1]):
            raise AssertionError(f"order differs from {peer_name} on {texts[i]} vs {texts[i + 1]}")
    t_ours = _best(lambda: evaluate(hands)) / SPEED_HANDS
    t_peer = _best(lambda: [peer(c) for c in peer_cards], repeat=2) / PEER_HANDS
    print(f"   speed on {SPEED_HANDS:,} random 7-card hands ({peer_name} on the first {PEER_HANDS:,}), best of 3:")
    print(f"     batch_eval.evaluate (numpy, one call) {t_ours * 1e9:7.1f} ns/hand")
    print(f"     {peer_name:36} {t_peer * 1e9:7.1f} ns/hand  -> ours is {t_peer / t_ours:5.1f}x (aim > 1x)")
    return t_peer / t_ours


def all_seven() -> dict[str, int]:
    """Category counts of all 133,784,560 hands: the two lowest cards, then every five above them."""
    fives = np.fromiter(chain.from_iterable(combinations(range(52), 5)), dtype=np.int64,
                        count=5 * 2_598_960).reshape(-1, 5)
    key5, mask5 = KEY[fives].sum(axis=1), MASK_KEY[fives].sum(axis=1)
    first_above = np.searchsorted(fives[:, 0], np.arange(53))  # where the fives above card b start
    tally = np.zeros(len(CATEGORIES), dtype=np.int64)
    for b in range(1, 47):
        start = first_above[b + 1]
        k, m = key5[start:], mask5[start:]
        for a in range(b):
            strength = from_keys(k + (KEY[a] + KEY[b]), m + (MASK_KEY[a] + MASK_KEY[b]))
            tally += np.bincount(categories(strength), minlength=len(CATEGORIES))
    return dict(zip(CATEGORIES, tally.tolist()))


def run() -> list[Figure]:
    ratio = speed()
    started = time.perf_counter()
    counts = all_seven()
    elapsed = time.perf_counter() - started
    total = sum(counts.values())
    print(f"   all seven-card hands: {total:,} in {elapsed:.1f} s ({elapsed / total * 1e9:.1f} ns/hand)")
    exact = total == ALL_SEVEN
    for name, want in SEVEN_CARD_COUNTS.items():
        ok = counts.get(name, 0) == want
        exact &= ok
        print(f"     {name:16} {counts.get(name, 0):>12,}  published {want:>12,}  {'ok' if ok else 'DIFFERS'}")
    return [Figure("numpy batch 7-card evaluator vs eval7 (C, a call a hand)", f"{ratio:.1f}x", "> 1x", ratio > 1),
            Figure("all 133,784,560 seven-card hands, numpy batch, vs the published counts",
                   f"{'every class matches' if exact else 'DIFFERS'} ({elapsed:.0f} s)", "exact", exact)]
