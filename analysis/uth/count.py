"""Every holding's showdown against every dealer hand on a batch of boards, counted by rank with card-removal corrections.

On one five-card board the 47 cards left make 1,081 two-card holdings. Each is valued once (seven
cards, `batch_eval`), then each holding's 990 dealer hands (the pairs of the 45 cards it leaves)
are counted without being dealt: the pairs weaker than it, among all 1,081, less those holding its
first card, less those holding its second, plus the one holding both (itself: never weaker, so
only the "at most as strong" counts add it back). "Weaker among all" is the holding's rank in the
board's sorted strengths, "weaker among those holding card c" its rank in card c's row of 46; both
come from one sort each, with ties ranked together. The same with the qualifier's strength gives
the dealer hands that do not qualify.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analysis.batch_eval import KEY, MASK_KEY, from_keys

Ints = npt.NDArray[np.int64]

LOCAL_I, LOCAL_J = (np.asarray(a, dtype=np.int64) for a in np.triu_indices(47, 1))
"""The 1,081 holdings of a board as positions (i < j) in its 47 cards left, ascending."""
DEALER_HANDS = 990  # C(45, 2)
_TOP = np.int64(1 << 24)  # above every strength


@dataclass(frozen=True)
class Showdowns:
    """Per board (rows) and holding (columns, `LOCAL_I`/`LOCAL_J` order) of a batch of boards."""

    left: Ints  # (n, 47) the cards left, ascending
    first: Ints  # (n, 1081) the holding's cards, first < second
    second: Ints
    strength: Ints  # (n, 1081) the player's seven-card strength
    weaker: Ints  # dealer hands weaker than the player's
    at_most: Ints  # dealer hands at most as strong (weaker + ties)
    unqualified: Ints  # dealer hands weaker than the qualifier


def _ranks(values: Ints) -> tuple[Ints, Ints]:
    """For every element along the last axis: how many are smaller, and how many are at most it."""
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    n = values.shape[-1]
    index = np.broadcast_to(np.arange(n), values.shape)
    starts = np.ones(values.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(values.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, index, n), axis=-1), axis=-1), axis=-1)
    smaller = np.empty_like(first)
    at_most = np.empty_like(last)
    np.put_along_axis(smaller, order, first, axis=-1)
    np.put_along_axis(at_most, order, last + 1, axis=-1)
    return smaller, at_most


def cards_left(boards: npt.NDArray[np.integer]) -> Ints:
    """(n, 47) the cards not on each board, ascending."""
    n = len(boards)
    free = np.ones((n, 52), dtype=bool)
    free[np.arange(n)[:, None], boards] = False
    return np.broadcast_to(np.arange(52, dtype=np.int64), (n, 52))[free].reshape(n, 47)


def showdowns(boards: npt.NDArray[np.integer], qualifier: int) -> Showdowns:
    """Count the showdowns of every holding on each board (`boards`: (n, 5) card indices).

    `qualifier` is the weakest qualifying strength: a dealer hand below it does not qualify.
    """
    n = len(boards)
    b = np.asarray(boards, dtype=np.int64)
    left = cards_left(b)
    first, second = left[:, LOCAL_I], left[:, LOCAL_J]
    board_key = KEY[b].sum(axis=1)[:, None]
    board_mask = MASK_KEY[b].sum(axis=1)[:, None]
    strength = from_keys(board_key + KEY[first] + KEY[second],
                         board_mask + MASK_KEY[first] + MASK_KEY[second]).astype(np.int64)
    all_smaller, all_at_most = _ranks(strength)
    rows = np.full((n, 47, 47), _TOP, dtype=np.int64)  # rows[c, d]: the holding {c, d}; the diagonal on top
    rows[:, LOCAL_I, LOCAL_J] = strength
    rows[:, LOCAL_J, LOCAL_I] = strength
    row_smaller, row_at_most = _ranks(rows)
    weaker = all_smaller - row_smaller[:, LOCAL_I, LOCAL_J] - row_smaller[:, LOCAL_J, LOCAL_I]
    at_most = all_at_most - row_at_most[:, LOCAL_I, LOCAL_J] - row_at_most[:, LOCAL_J, LOCAL_I] + 1
    below = strength < qualifier
    row_below = (rows < qualifier).sum(axis=2)
    unqualified = below.sum(axis=1)[:, None] - row_below[:, LOCAL_I] - row_below[:, LOCAL_J] + below
    return Showdowns(left, first, second, strength, weaker, at_most, unqualified)


def six_card_strengths(boards: npt.NDArray[np.integer], left: Ints) -> Ints:
    """(n, 47) the strength of each board with each card left added (the board and one dealer card)."""
    b = np.asarray(boards, dtype=np.int64)
    return from_keys(KEY[b].sum(axis=1)[:, None] + KEY[left],
                     MASK_KEY[b].sum(axis=1)[:, None] + MASK_KEY[left]).astype(np.int64)
