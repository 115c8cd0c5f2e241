"""The distribution of a UTH hand's net result (Ante + Blind + Play, and with Trips), counted in the one pass.

Every deal ends in a cell: the line the player took (folded, or played at a multiple), the group of
the player's final hand (categories the Blind and the Trips pay alike) and what the dealer's hand did
(`RESULTS`). The pass counts, per (hole cards, flop) class, the cells of the bet lines (the result
and group only: the multiple is chosen later) and of the river line (the river's decision is per
deal); the simple strategy's decisions are known before the pass, so its cells are counted whole.
After the pass the flop decision of each class picks its bet or river cells, the pre-flop decision
of each starting hand its bet cells or its check line's (`optimal_cells`); each cell's net result
follows from the rules (`nets`), and the outcomes are the distinct net results with their weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.paytables import FIVE_CARD_CATEGORIES, UthRules
from analysis.figures import Outcome

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

RESULTS = ("win", "win_unqualified", "tie", "loss", "loss_unqualified")
"""What the dealer's hand did: the player beats it (qualified / not), ties it, loses to it (qualified / not)."""
R = len(RESULTS)


@dataclass(frozen=True)
class Layout:
    """The cells of a profile: `line` 0 is a fold, line k >= 1 a Play of `multiples[k - 1]`."""

    multiples: tuple[int, ...]
    group_of: Ints  # (10,) category index -> group
    groups: tuple[tuple[str, ...], ...]  # each group's categories
    river_lines: Ints  # the river line's lines: fold, then the river multiples (the last is the bet cells less the others)

    @property
    def per_line(self) -> int:
        return len(self.groups) * R

    @property
    def cells(self) -> int:
        return (1 + len(self.multiples)) * self.per_line

    def line(self, multiple: int) -> int:
        return 0 if multiple == 0 else 1 + self.multiples.index(multiple)

    def line_of(self, multiples: npt.ArrayLike) -> Ints:
        """The line of each multiple (0: a fold)."""
        table = np.zeros(max(self.multiples) + 1, dtype=np.int64)
        for k, m in enumerate(self.multiples):
            table[m] = k + 1
        return np.asarray(table[np.asarray(multiples, dtype=np.int64)], dtype=np.int64)


def _odds(table: Mapping[str, tuple[int, int]], category: str, missing: int) -> Fraction:
    return Fraction(*table[category]) if category in table else Fraction(missing)


def layout(rules: UthRules) -> Layout:
    """The cells of `rules`: categories grouped by their Blind and Trips pays."""
    multiples = tuple(sorted(set(rules.preflop_multiples) | set(rules.flop_multiples) | set(rules.river_multiples)))
    keys: list[tuple[Fraction, Fraction]] = []
    groups: list[list[str]] = []
    group_of = []
    for c in FIVE_CARD_CATEGORIES:
        key = (_odds(rules.blind, c, 0), _odds(rules.trips, c, -1))
        if key not in keys:
            keys.append(key)
            groups.append([])
        group_of.append(keys.index(key))
        groups[keys.index(key)].append(c)
    river = [0, *(1 + multiples.index(m) for m in sorted(set(rules.river_multiples)))]
    return Layout(multiples, np.array(group_of, dtype=np.int64), tuple(tuple(g) for g in groups),
                  np.array(river, dtype=np.int64))


def result_counts(wins: Ints, at_most: Ints, win_unqualified: Ints, lose_unqualified: Ints, dealer_hands: int) -> Ints:
    """(..., 5) the dealer hands of each `RESULTS` per holding."""
    lose = dealer_hands - at_most
    return np.stack([wins - win_unqualified, win_unqualified, at_most - wins, lose - lose_unqualified,
                     lose_unqualified], axis=-1)


def nets(rules: UthRules, lay: Layout) -> tuple[list[Fraction], list[Fraction]]:
    """Each cell's net result per unit of Ante: Ante + Blind + Play, and the Trips (staked one Ante)."""
    abp: list[Fraction] = []
    trips: list[Fraction] = []
    for line in range(1 + len(lay.multiples)):
        m = lay.multiples[line - 1] if line else 0
        for group in lay.groups:
            blind, pays = _odds(rules.blind, group[0], 0), _odds(rules.trips, group[0], -1)
            for r in RESULTS:
                won, tie = r.startswith("win"), r == "tie"
                if not line:
                    abp.append(Fraction(-2))
                elif won:
                    abp.append((1 if r == "win" else 0) + blind + m)
                elif tie:
                    abp.append(Fraction(0))
                else:
                    abp.append(Fraction(-(1 if r == "loss" else 0) - 1 - m))
                if not line and rules.trips_on_fold != "stands":
                    trips.append(Fraction(-1))
                elif rules.trips_paid_on == "hand":
                    trips.append(pays)
                else:
                    trips.append(pays if won else Fraction(0) if tie else Fraction(-1))
    return abp, trips


def at_line(lay: Layout, lines: Ints, per_line: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Rows of bet cells (n, per_line) placed at each row's line: (n, cells)."""
    out = np.zeros((len(per_line), lay.cells), dtype=np.int64)
    cols = lines[:, None] * lay.per_line + np.arange(lay.per_line)
    np.put_along_axis(out, cols, np.asarray(per_line, dtype=np.int64), axis=1)
    return out


def _by_hole(class_hole: Ints, holes: int, rows: npt.NDArray[Any], keep: Bools) -> npt.NDArray[np.int64]:
    """Sum the rows of the kept classes per hole class (exact: every sum is below 2**53)."""
    out = np.zeros((holes, rows.shape[1]), dtype=np.int64)
    for col in range(rows.shape[1]):
        out[:, col] = np.rint(np.bincount(class_hole, weights=np.where(keep, rows[:, col], 0).astype(np.float64),
                                          minlength=holes)).astype(np.int64)
    return out


def optimal_cells(lay: Layout, class_hole: Ints, holes: int, bet: npt.NDArray[Any], river: npt.NDArray[Any],
                  flop_bets: Bools, flop_m: Ints, preflop: Bools, preflop_m: Ints) -> npt.NDArray[np.int64]:
    """(holes, cells) each starting hand's cells under the decisions taken: per class, its bet cells at
    the flop multiple where it bets, else its river cells; per starting hand, its bet cells at the
    pre-flop multiple where it raises, else its check line."""
    everything = np.ones(len(class_hole), dtype=bool)
    bet_h = _by_hole(class_hole, holes, bet, everything)
    check = np.zeros((holes, lay.cells), dtype=np.int64)
    for m in np.unique(flop_m[flop_bets]):
        check += at_line(lay, np.full(holes, lay.line(int(m))), _by_hole(class_hole, holes, bet, flop_bets & (flop_m == m)))
    river_h = _by_hole(class_hole, holes, river, ~flop_bets)  # the river line's cells but its last line's
    last = _by_hole(class_hole, holes, bet, ~flop_bets)
    for k, line in enumerate(lay.river_lines[:-1]):
        part = river_h[:, k * lay.per_line:(k + 1) * lay.per_line]
        check[:, line * lay.per_line:(line + 1) * lay.per_line] += part
        last -= part
    line = int(lay.river_lines[-1])
    check[:, line * lay.per_line:(line + 1) * lay.per_line] += last
    raised = at_line(lay, lay.line_of(np.where(preflop, preflop_m, 0)), bet_h)
    return np.where(preflop[:, None], raised, check)


def pays_text(x: Fraction) -> int | str:
    """A pay as JSON keeps it exactly: an integer, or a fraction as text."""
    return int(x) if x.denominator == 1 else str(x)


def outcomes(weights: npt.NDArray[np.integer[Any]], values: list[Fraction], what: str) -> list[Outcome]:
    """The distinct net results of `values` with the cells' weights: exact weights, probabilities and pays
    (integers, or fractions as text: JSON, as the cache keeps them)."""
    total = int(weights.sum())
    by: dict[Fraction, int] = {}
    for w, v in zip(weights.tolist(), values):
        if w:
            by[v] = by.get(v, 0) + int(w)
    return [{"outcome": f"{what} {'+' if v > 0 else ''}{v}", "weight": w, "probability": str(Fraction(w, total)),
             "pays": pays_text(v)} for v, w in sorted(by.items())]


def expected(out: list[Outcome]) -> Fraction:
    """The mean net result of outcomes as `outcomes` gives them."""
    return sum((Fraction(o["probability"]) * Fraction(o["pays"]) for o in out), Fraction(0))
