"""The one pass over every Ultimate Texas Hold'em deal: per (hole cards, flop) class, the sums the decisions need.

Every representative board (134,459, each with its weight) is dealt every holding of the 47 cards
left (1,081) and, for each, every dealer hand (990, counted by `uth_count`). For each (board,
holding) the pass knows the player's final hand and how many dealer hands are beaten, tied and
beaten by, qualified or not; so the value of playing (per Ante, for any Play multiple: Ante and
Blind `A` plus `m` times the Play's own `P`), the river's best decision and its value, and the
Trips' value played and folded. Each (board, holding) is then added, with its board's weight, to
the (hole cards, flop) class of each of the board's ten flops (`uth_tables`), the other two cards
being that flop's turn and river. Values are integers: pays are scaled by the least common
denominator of their tables (`Scale`), so every sum is exact in float64 (all stay below 2**53).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from math import lcm
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.paytables import FIVE_CARD_CATEGORIES, Odds, Qualifier, UthRules
from analysis.batch_eval import ROYAL, categories, from_keys, KEY, MASK_KEY
from analysis.uth.count import DEALER_HANDS, showdowns, six_card_strengths
from analysis.uth.dist import Layout, layout, result_counts
from analysis.uth.simple import SIMPLE_STRATEGY, flop_raises, preflop_raises, river_raises
from analysis.uth.symmetry import TRIPLES, Symmetry, pair_index, triple_index

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

FLOP_PLACES = np.array(list(combinations(range(5), 3)), dtype=np.int64)  # the ten flops of a board
SUMS = ("ante_blind", "play", "river_best", "river_multiple", "trips_played", "trips_river",
        "simple_river", "simple_river_multiple", "simple_trips_river")
"""The sums kept per (hole cards, flop) class, each over the class's deals (turn and river, dealer hand)."""
BATCH = 128
TRIPS_SUMS = ("trips_played", "trips_river", "simple_trips_river")


def kept_sums(rules: UthRules) -> tuple[str, ...]:
    """The sums a profile needs: the Trips' only when its value depends on the play."""
    trips_by_play = rules.trips_paid_on != "hand" or rules.trips_on_fold != "stands"
    return tuple(n for n in SUMS if trips_by_play or n not in TRIPS_SUMS)


def qualifier_strength(qualifier: Qualifier) -> int:
    """The weakest qualifying strength of a dealer's hand."""
    if qualifier.category == "royal_flush":
        return ROYAL
    if qualifier.category == "high_card":
        return qualifier.top_rank << 16
    return FIVE_CARD_CATEGORIES.index(qualifier.category) << 20


@dataclass(frozen=True)
class Scale:
    """A paytable as integers: `pays[category index]` is the odds times `unit` (a loss: -unit)."""

    unit: int
    pays: Ints

    @classmethod
    def of(cls, table: Mapping[str, Odds], missing: int) -> Scale:
        """`missing`: what a category not in the table gets, in stakes (0: push, -1: loses)."""
        unit = lcm(*(s for _, s in table.values())) if table else 1
        pays = [table[c][0] * unit // table[c][1] if c in table else missing * unit for c in FIVE_CARD_CATEGORIES]
        return cls(unit, np.array(pays, dtype=np.int64))


def simple_multiple(wanted: int, allowed: tuple[int, ...]) -> int:
    """The simple strategy's multiple if the profile allows it, else the profile's largest."""
    return wanted if wanted in allowed else max(allowed)


def deal_values(rules: UthRules, boards: npt.NDArray[np.integer]) -> tuple[dict[str, Ints], Ints, Ints, Ints]:
    """Per (board, holding) of `boards`: the sums' values, and the holdings' cards and categories."""
    blind, trips = Scale.of(rules.blind, 0), Scale.of(rules.trips, -1)
    d = blind.unit
    q = qualifier_strength(rules.dealer_qualifier)
    shown = showdowns(boards, q)
    cat = categories(shown.strength)
    below = shown.strength < q
    wins = shown.weaker
    win_unqualified = np.where(below, wins, shown.unqualified)
    lose = DEALER_HANDS - shown.at_most
    lose_unqualified = np.where(below, shown.unqualified - shown.at_most, 0)
    ante_blind = d * (wins - win_unqualified) - d * (lose - lose_unqualified) + blind.pays[cat] * wins - d * lose
    play = d * (wins - lose)
    fold = -2 * DEALER_HANDS * d
    m = np.where(play >= 0, max(rules.river_multiples), min(rules.river_multiples))  # Play's value is linear in m
    best_play = ante_blind + m * play
    plays = best_play > fold
    if rules.trips_paid_on == "hand":
        trips_played = DEALER_HANDS * trips.pays[cat]
    else:
        trips_played = wins * trips.pays[cat] - lose * trips.unit
    trips_folded = trips_played if rules.trips_on_fold == "stands" else np.full_like(wins, -DEALER_HANDS * trips.unit)
    b = np.asarray(boards, dtype=np.int64)
    board_strength = from_keys(KEY[b].sum(axis=1), MASK_KEY[b].sum(axis=1)).astype(np.int64)
    simple = river_raises(shown, b, board_strength, six_card_strengths(b, shown.left))
    sm = simple_multiple(int(SIMPLE_STRATEGY["river_multiple"]), rules.river_multiples)
    values = {
        "ante_blind": ante_blind, "play": play,
        "river_best": np.where(plays, best_play, fold), "river_multiple": np.where(plays, m, 0),
        "trips_played": trips_played, "trips_river": np.where(plays, trips_played, trips_folded),
        "simple_river": np.where(simple, ante_blind + sm * play, fold),
        "simple_river_multiple": np.where(simple, sm, 0),
        "simple_trips_river": np.where(simple, trips_played, trips_folded),
        "results": result_counts(wins, shown.at_most, win_unqualified, lose_unqualified, DEALER_HANDS),
    }
    return values, shown.first, shown.second, cat


@dataclass(frozen=True)
class Sums:
    """The pass's result: `sums[name]` per (hole cards, flop) class; `seven_card[c]`: seven-card hands of
    category c, each counted 21 times (once per two cards of it taken as the holding)."""

    sums: dict[str, Floats]
    seven_card: Floats
    blind_unit: int
    trips_unit: int
    cells: dict[str, npt.NDArray[np.integer[Any]]] = field(default_factory=dict)
    """`uth_dist`'s counts: "bet" and "river" per (hole cards, flop) class, "simple" whole."""


def simple_decisions(sym: Symmetry) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The simple strategy's pre-flop raise per starting hand and flop bet per (hole cards, flop) class."""
    reps = sym.hole_rep
    high, low = np.maximum(reps[:, 0], reps[:, 1]) >> 2, np.minimum(reps[:, 0], reps[:, 1]) >> 2
    suited = (reps[:, 0] & 3) == (reps[:, 1] & 3)
    return preflop_raises(high + 2, low + 2, suited), flop_raises(reps[sym.class_hole], TRIPLES[sym.class_flop])


class _Cells:
    """`uth_dist`'s counts as the pass adds them up (see `Sums.cells`). Per class, the bet cells (every
    deal) and the river line's cells but its last line's (those are the bet cells less the others'),
    each added with one scatter per batch; the simple strategy's cells per deal, its ten flops
    counted by the line each takes."""

    def __init__(self, rules: UthRules, sym: Symmetry) -> None:
        self.lay: Layout = layout(rules)
        lay = self.lay
        self.bet = np.zeros(sym.classes * lay.per_line, dtype=np.int32)
        self.river = np.zeros(sym.classes * (len(lay.river_lines) - 1) * lay.per_line, dtype=np.int32)
        self.simple = np.zeros(lay.cells)
        self.river_k = np.zeros(max(lay.multiples) + 1, dtype=np.int64)  # river multiple -> its river line
        for k, line in enumerate(lay.river_lines[1:]):
            self.river_k[lay.multiples[line - 1]] = k + 1
        pre, flop = simple_decisions(sym)
        self.pre_line = np.where(pre, lay.line(simple_multiple(int(SIMPLE_STRATEGY["preflop_multiple"]),
                                                               rules.preflop_multiples)), -1)
        self.flop_line = lay.line(simple_multiple(int(SIMPLE_STRATEGY["flop_multiple"]), rules.flop_multiples))
        self.flop_bets = flop
        self.sym = sym

    def add(self, values: dict[str, Ints], cat: Ints, holding: Ints, where: Ints, w: Ints) -> None:
        lay, per, r = self.lay, self.lay.per_line, np.arange(5, dtype=np.int64)
        counts = (values["results"] * w[:, None, None]).astype(np.int32)  # (n, 1081, 5)
        base = lay.group_of[cat] * 5  # (n, 1081)
        spread = np.broadcast_to(counts[:, :, None, :], (*where.shape, 5)).ravel()
        np.add.at(self.bet, ((where * per + base[:, :, None])[..., None] + r).ravel(), spread)
        k = self.river_k[values["river_multiple"]]  # the deal's river line
        lines = len(lay.river_lines) - 1
        other = k < lines  # the deals on the river's other lines (a fold): a few, taken out first
        if other.any():
            cell = (where[other] * (lines * per) + (k * per + base)[other][:, None])[..., None] + r
            np.add.at(self.river, cell.ravel(), np.broadcast_to(counts[other][:, None, :], cell.shape).ravel())
        pre = self.pre_line[self.sym.hole_class[holding]]  # (n, 1081): -1 where the hand checks
        bets = self.flop_bets[where].sum(axis=2)  # of the deal's ten flops, those the simple strategy bets
        river = lay.line_of(values["simple_river_multiple"])
        for line, times in ((np.where(pre >= 0, pre, self.flop_line), np.where(pre >= 0, 10, bets)),
                            (river, np.where(pre >= 0, 0, 10 - bets))):
            self.simple += np.bincount(((line * per + base)[..., None] + r).ravel(),
                                       weights=(counts * times[..., None]).ravel().astype(np.float64),
                                       minlength=lay.cells)

    def result(self) -> dict[str, npt.NDArray[np.integer[Any]]]:
        classes = self.sym.classes
        return {"bet": self.bet.reshape(classes, -1), "river": self.river.reshape(classes, -1),
                "simple": np.rint(self.simple).astype(np.int64)}




def run_pass(rules: UthRules, sym: Symmetry, boards: slice = slice(None),
             tick: Callable[[int], None] | None = None) -> Sums:
    """Add up every deal of the representative boards `boards` (all by default)."""
    reps, weights = sym.boards[boards], sym.board_weight[boards]
    names = kept_sums(rules)
    k = len(names)
    flat = np.zeros(sym.classes * k)
    seven = np.zeros(len(FIVE_CARD_CATEGORIES))
    cells = _Cells(rules, sym)
    for start in range(0, len(reps), BATCH):
        chunk, w = reps[start:start + BATCH].astype(np.int64), weights[start:start + BATCH]
        values, first, second, cat = deal_values(rules, chunk)
        holding = pair_index(first, second)
        flops = triple_index(chunk[:, FLOP_PLACES])  # (n, 10)
        renamed = sym.triple_perm[sym.sigma[holding][:, :, None], flops[:, None, :]]
        where = sym.flop_class[sym.hole_class[holding][:, :, None], renamed].astype(np.int64)  # (n, 1081, 10)
        # one bincount for all the sums, each deal's k sums side by side (one cache line, not k)
        stacked = np.stack([values[name] * w[:, None] for name in names], axis=-1).astype(np.float64)
        weighted = np.broadcast_to(stacked[:, :, None, :], (*where.shape, k)).ravel()
        index = (where[..., None] * k + np.arange(k)).ravel()
        flat += np.bincount(index, weights=weighted, minlength=len(flat))
        seven += np.bincount(cat.ravel(), weights=np.repeat(w.astype(np.float64), cat.shape[1]),
                             minlength=len(FIVE_CARD_CATEGORIES))
        cells.add(values, cat, holding, where, w.astype(np.int64))
        if tick is not None:
            tick(len(chunk))
    table = flat.reshape(sym.classes, k)
    sums = {name: table[:, n] for n, name in enumerate(names)}
    return Sums(sums, seven, Scale.of(rules.blind, 0).unit, Scale.of(rules.trips, -1).unit, cells.result())


_FORKED: dict[str, Any] = {}  # what the forked workers inherit (the tables are not pickled)


def _work(boards: slice) -> Sums:
    counter = _FORKED["counter"]

    def tick(n: int) -> None:
        with counter.get_lock():
            counter.value += n
    return run_pass(_FORKED["rules"], _FORKED["sym"], boards, tick)


def run_parallel(rules: UthRules, sym: Symmetry, workers: int = 2,
                 tick: Callable[[int], None] | None = None) -> Sums:
    """`run_pass` over all the boards, split between `workers` forked processes (one: in this process)."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return run_pass(rules, sym, tick=tick)
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    _FORKED.update(rules=rules, sym=sym, counter=counter)
    n = len(sym.boards)
    parts = [slice(w * n // workers, (w + 1) * n // workers) for w in range(workers)]
    try:
        with context.Pool(workers) as pool:
            pending = pool.map_async(_work, parts)
            seen = 0
            while not pending.ready():
                pending.wait(0.5)
                if tick is not None:
                    now = int(counter.value)
                    tick(now - seen)
                    seen = now
            results = pending.get()
    finally:
        _FORKED.clear()
    first = results[0]
    return Sums({k: sum((r.sums[k] for r in results[1:]), first.sums[k]) for k in first.sums},
                sum((r.seven_card for r in results[1:]), first.seven_card), first.blind_unit, first.trips_unit,
                {k: sum((r.cells[k] for r in results[1:]), first.cells[k]) for k in first.cells})
