"""The suit symmetry of Ultimate Texas Hold'em: the 169 starting hands, the boards and (hole cards, flop) classes.

Renaming the four suits (24 ways) changes no hand's value, so a deal and its 23 renamings are worth
the same. Three tables follow:

- hole classes: the 1,326 two-card holdings fall into 169 classes (13 pairs of 6 holdings, 78
  suited hands of 4, 78 offsuit of 12); each class has a representative, and each holding a suit
  renaming `sigma` that takes it to its representative;
- boards: the 2,598,960 five-card boards fall into 134,459 classes, each with its representative
  and its weight (how many boards it stands for);
- (hole cards, flop) classes: all (holding, flop) pairs up to renaming. For a class's representative
  holding the renamings that keep it are its stabiliser; the flops fall into the stabiliser's
  orbits. A (holding, flop) pair's class is its representative's orbit of `sigma(flop)`.

Cards are engine indices `(rank - 2) * 4 + suit`; a pair `i < j` is indexed `j(j-1)/2 + i`, a triple
`i < j < k` by `k(k-1)(k-2)/6 + j(j-1)/2 + i` (the combinatorial number system).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]

PERMS: Ints = np.array(list(permutations(range(4))), dtype=np.int64)
CARD_PERM: Ints = np.array([[(c & ~3) | int(p[c & 3]) for c in range(52)] for p in PERMS], dtype=np.int64)
"""CARD_PERM[p, card]: the card under suit renaming p."""


def pair_index(i: npt.ArrayLike, j: npt.ArrayLike) -> Ints:
    """Index of the pairs {i, j} (any order) in 0..1325."""
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    return np.asarray(hi * (hi - 1) // 2 + lo, dtype=np.int64)


def triple_index(cards: npt.ArrayLike) -> Ints:
    """Index in 0..22099 of each row of an (n, 3) array of distinct cards (any order)."""
    c = np.sort(np.asarray(cards, dtype=np.int64), axis=-1)
    return c[..., 2] * (c[..., 2] - 1) * (c[..., 2] - 2) // 6 + c[..., 1] * (c[..., 1] - 1) // 2 + c[..., 0]


PAIRS: Ints = np.array(list(combinations(range(52), 2)), dtype=np.int64)[np.argsort(
    pair_index(*np.array(list(combinations(range(52), 2))).T))]
"""PAIRS[index] = (i, j), i < j."""
TRIPLES: Ints = np.array(list(combinations(range(52), 3)), dtype=np.int64)[np.argsort(
    triple_index(np.array(list(combinations(range(52), 3)))))]
"""TRIPLES[index] = (i, j, k), i < j < k."""


@dataclass(frozen=True)
class Symmetry:
    """The hole, board and (hole, flop) classes (see the module's docstring)."""

    hole_class: Ints  # (1326,) class of each holding
    sigma: Ints  # (1326,) the renaming taking each holding to its class's representative
    hole_rep: Ints  # (169, 2) each class's representative cards
    hole_orbit: Ints  # (169,) holdings per class (4, 6 or 12)
    triple_perm: Ints  # (24, 22100) TRIPLE index of each flop under each renaming
    flop_class: npt.NDArray[np.int32]  # (169, 22100) (hole, flop) class of (representative, flop); -1 if they share a card
    class_hole: Ints  # (classes,) hole class of each (hole, flop) class
    class_flop: Ints  # (classes,) representative flop (TRIPLE index) of each class
    class_size: Ints  # (classes,) (holding, flop) pairs in each class
    boards: npt.NDArray[np.uint8]  # (134459, 5) representative boards, cards ascending
    board_weight: Ints  # (134459,) boards each stands for

    @property
    def classes(self) -> int:
        return len(self.class_hole)


def _hole_classes() -> tuple[Ints, Ints, Ints, Ints]:
    mapped = pair_index(CARD_PERM[:, PAIRS[:, 0]], CARD_PERM[:, PAIRS[:, 1]])  # (24, 1326)
    canonical = mapped.min(axis=0)
    sigma = mapped.argmin(axis=0)
    reps, hole_class, orbit = np.unique(canonical, return_inverse=True, return_counts=True)
    return hole_class, sigma, PAIRS[reps], orbit


def _boards() -> tuple[npt.NDArray[np.uint8], Ints]:
    quads = np.array(list(combinations(range(52), 4)), dtype=np.int64)
    boards = np.concatenate([np.concatenate([np.full((int((quads[:, 0] > a).sum()), 1), a), quads[quads[:, 0] > a]], axis=1)
                             for a in range(48)])
    best = np.full(len(boards), np.iinfo(np.int64).max)
    for perm in CARD_PERM:
        b = np.sort(perm[boards], axis=1)
        code = (((b[:, 0] * 52 + b[:, 1]) * 52 + b[:, 2]) * 52 + b[:, 3]) * 52 + b[:, 4]
        np.minimum(best, code, out=best)
    codes, weight = np.unique(best, return_counts=True)
    cards = np.stack([(codes // 52 ** (4 - k)) % 52 for k in range(5)], axis=1).astype(np.uint8)
    return cards, weight


@cache
def symmetry() -> Symmetry:
    """The tables (built once a process: a few seconds)."""
    hole_class, sigma, hole_rep, hole_orbit = _hole_classes()
    triple_perm = triple_index(CARD_PERM[:, TRIPLES])  # (24, 22100)
    flop_class = np.full((len(hole_rep), len(TRIPLES)), -1, dtype=np.int32)
    class_hole, class_flop, class_size = [], [], []
    base = 0
    for h, (x, y) in enumerate(hole_rep):
        free = ~np.isin(TRIPLES, (x, y)).any(axis=1)
        keep = [p for p in range(24) if pair_index(CARD_PERM[p, x], CARD_PERM[p, y]) == pair_index(x, y)]
        orbit_min = triple_perm[keep].min(axis=0)[free]
        reps, local, counts = np.unique(orbit_min, return_inverse=True, return_counts=True)
        flop_class[h, free] = base + local
        class_hole.append(np.full(len(reps), h))
        class_flop.append(reps)
        class_size.append(counts * hole_orbit[h])
        base += len(reps)
    boards, weight = _boards()
    return Symmetry(hole_class, sigma, hole_rep, hole_orbit, triple_perm, flop_class,
                    np.concatenate(class_hole), np.concatenate(class_flop), np.concatenate(class_size),
                    boards, weight)
