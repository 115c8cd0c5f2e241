"""Ultimate Texas Hold'em house edges of a profile: Trips, and Ante + Blind + Play under the optimal and a simple strategy.

`uth_figures(profile)` is the interface (docs/math.md, "Ultimate Texas Hold'em"): it runs the exact
pass (`uth_pass`: every deal, minutes), takes the decisions backwards from the sums (the river's in
the pass, then the flop's per (hole cards, flop) class, then the pre-flop's per starting hand, each
the best of its options by its exact expected value), and returns JSON-able figures; results are
cached by the content hash of the profile's UTH rules (`cache`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.cards import RANKS
from engine.paytables import FIVE_CARD_CATEGORIES, Profile, ProfileText, UthRules, parse_profile
from analysis import cache
from analysis.uth.count import DEALER_HANDS
from analysis.uth.dist import expected, layout, nets, optimal_cells, outcomes, pays_text
from analysis.uth.deals import Scale, Sums, run_parallel, simple_decisions, simple_multiple
from analysis.uth.simple import SIMPLE_STRATEGY
from analysis.uth.symmetry import Symmetry, symmetry

__all__ = ["uth_figures", "rules_of", "rules_key", "METHOD"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

METHOD_VERSION = 2  # 2: the outcomes are the net results' distribution (`uth_dist`)
WORKERS = 2  # processes sharing the pass (this machine's cores)
METHOD = ("exact enumeration: every deal of 2 player cards, 5 board cards and 2 dealer cards "
          "(2,781,381,002,400 deals); the 134,459 boards up to suit renaming, each with its 1,081 holdings "
          "valued once, each holding's 990 dealer hands counted by rank with card-removal corrections; "
          "decisions taken backwards (river per deal, flop per (hole cards, flop) class, pre-flop per "
          "starting hand), each the best by its exact expected value")
SEVEN_CARD_HANDS = 133_784_560
DEALS_PER_HOLDING = 19_600 * 1_081 * DEALER_HANDS  # flops, then turn and river, then dealer hands


def rules_of(profile: Profile | ProfileText | Mapping[str, Any] | UthRules) -> UthRules:
    """The UTH rules of a profile, its text, its TOML data (a mapping, as tomllib reads it) or the rules."""
    if isinstance(profile, UthRules):
        return profile
    if isinstance(profile, Profile):
        return profile.uth
    if isinstance(profile, ProfileText):
        return profile.parse().uth
    return parse_profile(_toml(profile), "<profile data>").uth


def _toml(data: Mapping[str, Any], prefix: str = "") -> str:
    """Profile-shaped data (tables of strings, integers and lists) as TOML text."""
    def value(v: Any) -> str:
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return str(v)
    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, Mapping)]
    for k, v in data.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{prefix}{k}]", _toml(v, f"{prefix}{k}.")]
    return "\n".join(lines)


def rules_key(rules: UthRules) -> dict[str, Any]:
    """What the math depends on, as plain data (its hash names the cached figures)."""
    return {
        "method": METHOD_VERSION, "dealer_qualifier": str(rules.dealer_qualifier),
        "preflop_multiples": list(rules.preflop_multiples), "flop_multiples": list(rules.flop_multiples),
        "river_multiples": list(rules.river_multiples), "trips_paid_on": rules.trips_paid_on,
        "trips_on_fold": rules.trips_on_fold,
        "blind": {c: list(p) for c, p in rules.blind.items()}, "trips": {c: list(p) for c, p in rules.trips.items()},
    }


def uth_figures(profile: Mapping[str, Any] | Profile | ProfileText | UthRules, *, progress: bool = False,
                use_cache: bool = True) -> dict[str, Any]:
    """The house edges of a profile's UTH bets (see docs/math.md for every field).

    `progress`: a progress bar with the time left on standard error (tqdm). Cached by
    `rules_key`'s hash unless `use_cache` is false. Raises ProfileError for bad profile data.
    """
    rules = rules_of(profile)
    key = rules_key(rules)
    if use_cache:
        hit = cache.load("uth", key)
        if hit is not None:
            return hit
    sym = symmetry()
    sums = _run(rules, sym, progress)
    figures = figures_from(rules, sym, sums)
    if use_cache:
        cache.store("uth", key, figures)
    return figures


def _run(rules: UthRules, sym: Symmetry, progress: bool) -> Sums:
    workers = min(WORKERS, os.cpu_count() or 1)
    if not progress:
        return run_parallel(rules, sym, workers)
    try:
        from tqdm import tqdm  # the `analysis` extra
    except ImportError:  # numpy without tqdm: the figures, without the bar
        return run_parallel(rules, sym, workers)
    with tqdm(total=len(sym.boards), unit="board", desc="UTH deals", file=sys.stderr, smoothing=0.05) as bar:
        return run_parallel(rules, sym, workers, tick=bar.update)


def _per_hole(sym: Symmetry, values: Floats) -> Floats:
    return np.asarray(np.bincount(sym.class_hole, weights=values, minlength=len(sym.hole_rep)), dtype=np.float64)


def dealt(sym: Symmetry, sums: Sums) -> int:
    """The deals the pass counted (each with its flop taken as the flop): all of them,
    1,326 x 19,600 x 1,081 x 990, unless it ran on part of the boards (a test's subproblem)."""
    return int(sums.cells["bet"].sum()) if sums.cells else len(sym.hole_class) * DEALS_PER_HOLDING


def _play(rules: UthRules, sym: Symmetry, sums: Sums, flop_bets: npt.NDArray[np.bool_] | None,
          preflop: npt.NDArray[np.bool_] | None, river: str, river_m: str, trips: str) -> dict[str, Any]:
    """Value and bet frequencies of a strategy: optimal where `flop_bets` / `preflop` are None, else those."""
    s = sums.sums
    a, p = s["ante_blind"], s["play"]
    bet_m = np.where(p >= 0, max(rules.flop_multiples), min(rules.flop_multiples))
    if flop_bets is None:
        flop_bets = a + bet_m * p > s[river]
    else:
        bet_m = np.full_like(p, simple_multiple(int(SIMPLE_STRATEGY["flop_multiple"]), rules.flop_multiples))
    checked = np.where(flop_bets, a + bet_m * p, s[river])
    a_h, p_h, check_h = _per_hole(sym, a), _per_hole(sym, p), _per_hole(sym, checked)
    if preflop is None:
        pre_m = np.where(p_h >= 0, max(rules.preflop_multiples), min(rules.preflop_multiples))
        preflop = a_h + pre_m * p_h > check_h
    else:
        pre_m = np.full_like(p_h, simple_multiple(int(SIMPLE_STRATEGY["preflop_multiple"]), rules.preflop_multiples))
    value_h = np.where(preflop, a_h + pre_m * p_h, check_h)  # per starting hand, summed over its holdings
    deals = dealt(sym, sums)
    total = Fraction(int(round(value_h.sum())), deals * sums.blind_unit)
    # frequencies: every (holding, flop) pair of a class counts alike; a class's deals are its size x 1,081 x 990
    raised = preflop[sym.class_hole]
    n_pairs = len(sym.hole_class) * 19_600
    p_pre = float(sym.hole_orbit[preflop].sum() / len(sym.hole_class))
    flop_w = sym.class_size * (~raised & flop_bets)
    p_flop = float(flop_w.sum() / n_pairs)
    river_units = s[river_m] * (~raised & ~flop_bets)
    river_bet = float(river_units.sum() / (n_pairs * 1_081))  # the multiple is summed per deal of the board
    pre_bet = float((sym.hole_orbit * preflop * pre_m).sum() / len(sym.hole_class))
    flop_bet = float((flop_w * bet_m).sum() / n_pairs)
    average_bet = 2 + pre_bet + flop_bet + river_bet
    out: dict[str, Any] = {
        "house_edge_per_ante": float(-total), "house_edge_exact": str(-total),
        "element_of_risk": float(-total) / average_bet, "average_total_bet_per_ante": average_bet,
        "play_rates": [
            {"outcome": "play_preflop", "probability": p_pre, "average_multiple": pre_bet / p_pre if p_pre else 0.0},
            {"outcome": "play_flop", "probability": p_flop, "average_multiple": flop_bet / p_flop if p_flop else 0.0},
            {"outcome": "play_river_per_ante", "probability": None, "average_multiple": river_bet},
        ],
    }
    if trips in s:
        t = s["trips_played"]
        t_h = np.where(preflop, _per_hole(sym, t), _per_hole(sym, np.where(flop_bets, t, s[trips])))
        out["trips_house_edge"] = float(-t_h.sum() / (deals * sums.trips_unit))
    out["_preflop"], out["_flop"], out["_pre_m"], out["_flop_m"] = preflop, flop_bets, pre_m, bet_m
    return out


def figures_from(rules: UthRules, sym: Symmetry, sums: Sums) -> dict[str, Any]:
    """The figures of `uth_figures` from the pass's sums."""
    optimal = _play(rules, sym, sums, None, None, "river_best", "river_multiple", "trips_river")
    reps = sym.hole_rep
    high, low = np.maximum(reps[:, 0], reps[:, 1]) >> 2, np.minimum(reps[:, 0], reps[:, 1]) >> 2
    suited = (reps[:, 0] & 3) == (reps[:, 1] & 3)
    simple_pre, simple_flop = simple_decisions(sym)
    simple = _play(rules, sym, sums, simple_flop, simple_pre, "simple_river", "simple_river_multiple",
                   "simple_trips_river")
    lay = layout(rules)
    cells = optimal_cells(lay, sym.class_hole, len(reps), sums.cells["bet"], sums.cells["river"], optimal.pop("_flop"),
                          optimal.pop("_flop_m"), optimal["_preflop"], optimal.pop("_pre_m")).sum(axis=0)
    preflop = optimal.pop("_preflop")
    for k in ("_preflop", "_flop", "_pre_m", "_flop_m"):
        simple.pop(k)
    abp_net, trips_net = nets(rules, lay)
    optimal["house_edge"] = optimal["house_edge_per_ante"]
    optimal["outcomes"] = outcomes(cells, abp_net, "net")
    simple["house_edge"] = simple["house_edge_per_ante"]
    simple["outcomes"] = outcomes(sums.cells["simple"], abp_net, "net")
    trips = _trips(rules, sums, optimal.pop("trips_house_edge", None))
    if "house_edge_exact" not in trips:  # paid by the play: its outcomes are the optimal play's
        trips["outcomes"] = outcomes(cells, trips_net, "Trips net")
    simple_trips = simple.pop("trips_house_edge", None)
    optimal["preflop_raise"] = sorted(_hand_name(int(h), int(lo), bool(su))
                                      for h, lo, su, up in zip(high + 2, low + 2, suited, preflop) if up)
    simple_out = {"strategy": {k: v for k, v in SIMPLE_STRATEGY.items()}, **simple}
    if simple_trips is not None:
        simple_out["trips_house_edge"] = simple_trips
    both = outcomes(cells, [a + t for a, t in zip(abp_net, trips_net)], "net")
    joint = {"ante_blind_play+trips": {"house_edge": str(-expected(both) / 2), "stake": 2, "outcomes": both}}
    return {"trips": trips, "ante_blind_play": optimal, "simple_strategy": simple_out, "joint": joint,
            "method": METHOD}


def _hand_name(high: int, low: int, suited: bool) -> str:
    r = RANKS
    if high == low:
        return r[high - 2] * 2
    return r[high - 2] + r[low - 2] + ("s" if suited else "o")


def _trips(rules: UthRules, sums: Sums, by_play: float | None) -> dict[str, Any]:
    """The Trips: the seven-card distribution and its pays; the edge by it, or by the play when it depends on it."""
    tallies = [int(round(c)) for c in sums.seven_card]  # each seven-card hand 21 times (all the boards)
    counts, tallied = [c // 21 for c in tallies], sum(tallies)
    scale = Scale.of(rules.trips, -1)
    outcomes = []
    for name, count, tally in zip(FIVE_CARD_CATEGORIES, counts, tallies):
        pays = list(rules.trips.get(name, (-1, 1)))
        outcomes.append({"outcome": name, "weight": count, "probability": str(Fraction(tally, tallied)),
                         "odds": pays, "pays": pays_text(Fraction(pays[0], pays[1]))})
    exact = Fraction(sum(int(p) * c for p, c in zip(scale.pays, tallies)), tallied * scale.unit)
    if by_play is None:
        return {"house_edge": float(-exact), "house_edge_exact": str(-exact), "paid_on": "final hand",
                "outcomes": outcomes}
    return {"house_edge": by_play, "paid_on": f"{rules.trips_paid_on} (fold: {rules.trips_on_fold}), under the "
            "optimal Ante-Blind-Play strategy", "house_edge_if_paid_on_final_hand": float(-exact), "outcomes": outcomes}
