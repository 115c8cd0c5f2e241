"""Best five of 5 to 7 cards for numpy arrays of hands: the strengths of `engine.evaluate.high_strength`, vectorised.

A card is its engine index `(rank - 2) * 4 + suit`. Every card carries two additive keys, so the
keys of a hand are sums (and a board's sum is shared by all the hands dealt on it):

- the key of `engine.evaluate`: 3 bits per rank from bit 16 (the hand's rank multiset) and 4 bits
  per suit below (its suit counts: a count of five or more is a flush; at most one suit can have
  it in seven cards);
- the suit-mask key (`1 << 13 * suit + rank - 2`): each suit's 13-bit rank mask side by side, read
  only for the flushes.

A non-flush hand's strength is looked up in two steps, low ranks (2 to 8, the key's 21 low bits)
and high ranks (9 to A, the 18 high bits) each to a small id, the pair of ids to the strength in
one table built from the engine's own table (`engine.evaluate.tables()`); a flush is the
engine's flush table at the flush suit's rank mask. The strengths are the engine's integers,
so they order, tie and name exactly as `engine.evaluate.high` does.

>>> import numpy as np
>>> from engine.cards import parse_cards
>>> hand = np.array([[c.index for c in parse_cards("As Ks Qs Js Ts 2c 2d")]])
>>> int(evaluate(hand)[0]) == high_strength([c.index for c in parse_cards("As Ks Qs Js Ts 2c 2d")])
True
>>> CATEGORIES[int(categories(evaluate(hand))[0])]
'royal_flush'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.evaluate import high_strength, tables

__all__ = ["CATEGORIES", "ROYAL", "KEY", "MASK_KEY", "evaluate", "from_keys", "categories"]

Ints = npt.NDArray[np.int64]

CATEGORIES: tuple[str, ...] = (
    "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
    "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
)
"""Category keys by the index `categories` returns (royal flush its own, 9)."""

ROYAL = high_strength([48, 44, 40, 36, 32])  # A K Q J T of clubs
_LOW_BITS = 21
_LOW_MASK = (1 << _LOW_BITS) - 1
_RANK_SHIFT = 16

KEY: Ints = np.array([(1 << (_RANK_SHIFT + 3 * (i >> 2))) | (1 << (4 * (i & 3))) for i in range(52)], dtype=np.int64)
MASK_KEY: Ints = np.array([1 << (13 * (i & 3) + (i >> 2)) for i in range(52)], dtype=np.int64)


def _build() -> tuple[Ints, Ints, npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    nonflush, flush_table = tables()
    keys = np.fromiter(nonflush.keys(), dtype=np.int64, count=len(nonflush))
    values = np.fromiter(nonflush.values(), dtype=np.int64, count=len(nonflush))
    lows, low_id = np.unique(keys & _LOW_MASK, return_inverse=True)
    highs, high_id = np.unique(keys >> _LOW_BITS, return_inverse=True)
    low_table = np.full(1 << _LOW_BITS, -1, dtype=np.int64)
    high_table = np.full(1 << (39 - _LOW_BITS), -1, dtype=np.int64)
    low_table[lows] = np.arange(len(lows), dtype=np.int64) * len(highs)
    high_table[highs] = np.arange(len(highs), dtype=np.int64)
    table = np.zeros(len(lows) * len(highs), dtype=np.int32)
    table[low_id * len(highs) + high_id] = values
    flush = np.array(flush_table, dtype=np.int32)
    return low_table, high_table, table, flush


_LOW_TABLE, _HIGH_TABLE, _TABLE, _FLUSH = _build()


def from_keys(key: npt.NDArray[Any], mask_key: npt.NDArray[Any] | Callable[[Ints], Ints]) -> npt.NDArray[np.int32]:
    """Strengths of hands given by their summed keys (int64 arrays of one shape). No checks.

    `mask_key` is the summed suit-mask keys, or a function giving them for the flat indices of the
    hands that hold a flush (the only ones that need it).
    """
    rank_key = key >> _RANK_SHIFT
    strength = _TABLE[_LOW_TABLE[rank_key & _LOW_MASK] + _HIGH_TABLE[rank_key >> _LOW_BITS]]
    probe = (key + 0x3333) & 0x8888
    flushed = np.flatnonzero(probe)
    if flushed.size:
        p = probe.ravel()[flushed]
        suit = np.where(p & 0x8000, 3, np.where(p & 0x800, 2, np.where(p & 0x80, 1, 0)))
        masks = mask_key(flushed) if callable(mask_key) else mask_key.ravel()[flushed]
        strength = strength.ravel()
        strength[flushed] = _FLUSH[(masks >> (13 * suit)) & 0x1FFF]
        strength = strength.reshape(key.shape)
    return np.asarray(strength, dtype=np.int32)


def evaluate(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Strengths of an (n, k) array of card indices, 5 <= k <= 7 distinct cards a row.

    Raises ValueError for another shape or an index outside 0..51 (repeated cards are not checked:
    the caller deals them).
    """
    hands = np.asarray(cards)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7:
        raise ValueError(f"expected an (n, 5..7) array of card indices, got shape {hands.shape}")
    if hands.size and (hands.min() < 0 or hands.max() > 51):
        raise ValueError("card indices must be 0..51")
    columns = np.ascontiguousarray(hands.T, dtype=np.intp)
    key = KEY[columns[0]]
    for column in columns[1:]:
        key = key + KEY[column]

    def masks(flushed: Ints) -> Ints:
        return MASK_KEY[columns[:, flushed]].sum(axis=0)  # type: ignore[no-any-return]
    return from_keys(key, masks)


def categories(strengths: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Category index (into `CATEGORIES`) of each strength."""
    s = np.asarray(strengths, dtype=np.int64)
    return np.where(s == ROYAL, 9, s >> 20)
