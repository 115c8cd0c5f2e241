"""A published simple Ultimate Texas Hold'em strategy, written as data, and its decisions on arrays of hands.

The strategy is the Wizard of Odds' "simple strategy" for Ultimate Texas Hold'em (Michael
Shackleford, https://wizardofodds.com/games/ultimate-texas-hold-em/, section "Simple Strategy"),
read here as follows (docs/math.md says where a reading was needed):

- pre-flop, raise 4x with: any pair of 3s or better; any ace; a king with any suited card, or with
  an offsuit 5 or better; a queen with a suited 6 or better, or an offsuit 8 or better; a jack with a
  suited 8 or better, or an offsuit 10; check the rest;
- on the flop, raise 2x with: two pair or better (not the flop's own pair or trips alone); a hidden
  pair (a pair using a hole card), except pocket deuces; four to a flush holding a hole card of that
  suit of 10 or better; check the rest;
- at the river, raise 1x with: a hidden pair or better (a pair or better using a hole card: a pocket
  pair, a hole card paired on the board, or a hand better than the board's own); fewer than 21
  dealer outs, an out being a card left that would make the board and that one card beat the
  player's hand; fold the rest.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.batch_eval import categories, evaluate
from engine.cards import RANKS
from analysis.uth.count import LOCAL_I, LOCAL_J, Showdowns

Ints = npt.NDArray[np.int64]

SIMPLE_STRATEGY: dict[str, Any] = {
    "name": "Wizard of Odds simple strategy",
    "source": "Michael Shackleford, Wizard of Odds, Ultimate Texas Hold 'Em, 'Simple Strategy'",
    "url": "https://wizardofodds.com/games/ultimate-texas-hold-em/",
    # hands as ranks high-low, "s" suited / "o" offsuit / neither: both; "+" : the low card up to
    # one below the high card (pairs: up to aces)
    "preflop_raise": ["33+", "A2+", "K2s+", "K5o+", "Q6s+", "Q8o+", "J8s+", "JTo"],
    "preflop_multiple": 4,
    "flop_raise": ["two_pair_or_better", "hidden_pair_except_pocket_deuces", "four_flush_hidden_ten_or_better"],
    "flop_multiple": 2,
    "river_raise": ["hidden_pair_or_better", "dealer_outs_below"],
    "river_dealer_outs_below": 21,
    "river_multiple": 1,
}


def _rank(letter: str) -> int:
    return RANKS.index(letter) + 2


def preflop_raises(high: npt.NDArray[Any], low: npt.NDArray[Any], suited: npt.NDArray[Any],
                   rules: list[str] | None = None) -> npt.NDArray[np.bool_]:
    """Whether each starting hand (ranks 2..14, high >= low, suited flag) is in the raise list."""
    out = np.zeros(np.shape(high), dtype=bool)
    for rule in rules if rules is not None else SIMPLE_STRATEGY["preflop_raise"]:
        plus = rule.endswith("+")
        body = rule.rstrip("+")
        kind = body[2:] if len(body) > 2 else ""
        top, bottom = _rank(body[0]), _rank(body[1])
        if top == bottom:
            out |= (high == low) & (high >= top if plus else high == top)
            continue
        fits = (high == top) & (low != high) & ((low >= bottom) & (low < top) if plus else low == bottom)
        if kind == "s":
            fits &= suited
        elif kind == "o":
            fits &= ~suited
        out |= fits
    return out


def _rank_count(cards: Ints, rank: Ints) -> Ints:
    """How many of `cards` (..., k) have each rank of `rank` (...)."""
    return ((cards >> 2) == (rank[..., None] - 2)).sum(axis=-1)  # type: ignore[no-any-return]


def flop_raises(hole: Ints, flop: Ints) -> npt.NDArray[np.bool_]:
    """The flop rule for (n, 2) hole cards and (n, 3) flops."""
    cat = categories(evaluate(np.concatenate([hole, flop], axis=1)))
    fr = np.sort(flop >> 2, axis=1)
    flop_cat = np.where((fr[:, 0] == fr[:, 2]), 3, np.where((fr[:, 0] == fr[:, 1]) | (fr[:, 1] == fr[:, 2]), 1, 0))
    two_pair_up = (cat >= 2) & (cat > flop_cat)
    r0, r1 = (hole[:, 0] >> 2) + 2, (hole[:, 1] >> 2) + 2
    pocket = r0 == r1
    paired = (_rank_count(flop, r0) > 0) | (_rank_count(flop, r1) > 0)
    hidden_pair = (pocket & (r0 != 2)) | paired
    cards = np.concatenate([hole, flop], axis=1)
    four_flush = np.zeros(len(hole), dtype=bool)
    for suit in range(4):
        count = ((cards & 3) == suit).sum(axis=1)
        hidden_ten = (((hole & 3) == suit) & ((hole >> 2) + 2 >= 10)).any(axis=1)
        four_flush |= (count == 4) & hidden_ten
    return two_pair_up | hidden_pair | four_flush  # type: ignore[no-any-return]


def river_raises(shown: Showdowns, board: Ints, board_strength: Ints, six: Ints) -> npt.NDArray[np.bool_]:
    """The river rule for every holding of `shown` on its boards (n, 5); `six` (n, 47): each board
    with each card left added (`uth_count.six_card_strengths`)."""
    strength = shown.strength
    cat = categories(strength)
    board_cat = categories(board_strength)[:, None]
    r0, r1 = shown.first >> 2, shown.second >> 2
    board_ranks = board >> 2
    paired = ((board_ranks[:, None, :] == r0[..., None]) | (board_ranks[:, None, :] == r1[..., None])).any(axis=-1)
    hidden = (r0 == r1) | paired | (cat > board_cat)
    n = len(board)
    offset = (np.arange(n, dtype=np.int64) << 25)[:, None]
    flat = (np.sort(six, axis=1) + offset).ravel()
    beating = 47 - (np.searchsorted(flat, (strength + offset).ravel(), side="right").reshape(strength.shape)
                    - np.arange(n, dtype=np.int64)[:, None] * 47)
    outs = beating - (six[:, LOCAL_I] > strength) - (six[:, LOCAL_J] > strength)
    return hidden | (outs < int(SIMPLE_STRATEGY["river_dealer_outs_below"]))  # type: ignore[no-any-return]
