"""Three Card Poker's figures for the PAR sheet: every outcome of every bet, counted exactly (`engine.house_edge`).

`tcp_figures(profile)` returns the shape every game's figures function returns (`analysis.figures`):
a bet -> `{"house_edge", "outcomes": [{"outcome", "weight", "probability", "pays"}, ...]}`, `"method"`,
and `"joint"`: the outcomes of bets played together, when they depend on each other.

Ante and Play is counted over all 407,170,400 deals (each of the 22,100 player hands against each
of the 18,424 dealer hands from the 49 other cards), the player's decision the best one hand by
hand (as `engine.house_edge.ante_play_edge` takes it: play when playing is worth at least folding);
its outcomes are the player's category crossed with what the dealer's hand did (fold, dealer does
not qualify, player wins, tie, dealer wins). Pair Plus is counted over the 22,100 player hands.
Ante and Play with Pair Plus are correlated through the player's hand: their joint outcomes are the
same deals, each with both bets' results added (`joint["ante_play+pair_plus"]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, cast

from engine.house_edge import (CATEGORIES, DEALER_HANDS, PLAYER_HANDS, AnteBonusOn, DealerCounts, ante_play_edge,
                               category_of, dealer_counts, hand_key, play_value)
from engine.paytables import Odds, Profile, ThreeCardPokerRules
from analysis.figures import Outcome

RESULTS = ("fold", "not_qualified", "win", "tie", "loss")
"""What became of an Ante and Play: folded; played and the dealer does not qualify, the player beats a
qualified dealer, ties it, or loses to it."""

_RESULT_WORDS = {"fold": "folds", "not_qualified": "plays, dealer does not qualify", "win": "plays and wins",
                 "tie": "plays, ties the dealer", "loss": "plays, dealer wins"}


def _odds(table: Mapping[str, Odds] | None) -> dict[str, Fraction]:
    return {cat: Fraction(win, stake) for cat, (win, stake) in (table or {}).items()}


def _name(category: str) -> str:
    return category.replace("_", " ")


def _ante_play_pays(result: str, bonus: Fraction, bonus_on: str) -> Fraction:
    """The Ante and Play's net result per unit of Ante, its Ante Bonus included."""
    base = {"fold": -1, "not_qualified": 1, "win": 2, "tie": 0, "loss": -2}[result]
    paid = result != "fold" and (bonus_on == "play" or result == "win"
                                 or (bonus_on == "win" and result == "not_qualified"))
    return Fraction(base) + (bonus if paid else 0)


def _deals(rules: ThreeCardPokerRules, counts: Mapping[tuple[int, int, int], DealerCounts]) -> dict[tuple[str, str], int]:
    """(player category, result) -> how many of the 407,170,400 deals, under the best decision."""
    bonus = _odds(rules.ante_bonus)
    bonus_on = cast(AnteBonusOn, rules.ante_bonus_on)
    weights = {(cat, result): 0 for cat in CATEGORIES for result in RESULTS}
    for hand, dc in counts.items():
        cat = category_of(hand_key(hand))
        play = play_value(dc, bonus.get(cat, Fraction(0)), bonus_on)
        if play >= -DEALER_HANDS:
            weights[cat, "not_qualified"] += dc.not_qualified
            weights[cat, "win"] += dc.weaker_qualified
            weights[cat, "tie"] += dc.tied_qualified
            weights[cat, "loss"] += dc.stronger
        else:
            weights[cat, "fold"] += DEALER_HANDS
    return weights


def _outcome(outcome: str, weight: int, total: int, pays: Fraction) -> Outcome:
    return {"outcome": outcome, "weight": weight, "probability": Fraction(weight, total), "pays": pays}


def _edge(outcomes: list[Outcome], stake: int = 1) -> Fraction:
    return -sum((Fraction(o["probability"]) * Fraction(o["pays"]) for o in outcomes), Fraction(0)) / stake


def tcp_figures(profile: Profile, *, progress: bool = False) -> dict[str, Any]:
    """Every outcome of every Three Card Poker bet of `profile`, exact (weights are counts, probabilities
    and pays `Fraction`s; pays are net results per unit staked). `progress` is accepted as every
    figures function's is: the count takes under a second and shows none. Raises ValueError on a
    table or switch `engine.house_edge` cannot use."""
    rules = profile.three_card_poker
    bonus, pair_plus, separate = _odds(rules.ante_bonus), _odds(rules.pair_plus), _odds(rules.bonus)
    counts = dealer_counts(rules.dealer_qualifier)
    deals = _deals(rules, counts)
    total = PLAYER_HANDS * DEALER_HANDS
    ap = [_outcome(f"{_name(cat)}, {_RESULT_WORDS[result]}", n, total,
                   _ante_play_pays(result, bonus.get(cat, Fraction(0)), rules.ante_bonus_on))
          for (cat, result), n in deals.items() if n]
    hands = {cat: sum(deals[cat, r] for r in RESULTS) // DEALER_HANDS for cat in CATEGORIES}
    pp = [_outcome(_name(cat), hands[cat], PLAYER_HANDS, pair_plus.get(cat, Fraction(-1)))
          for cat in reversed(CATEGORIES)]
    joint = [_outcome(f"{_name(cat)}, {_RESULT_WORDS[result]}", n, total,
                      _ante_play_pays(result, bonus.get(cat, Fraction(0)), rules.ante_bonus_on)
                      + pair_plus.get(cat, Fraction(-1)))
             for (cat, result), n in deals.items() if n]
    strategy = ante_play_edge(rules.ante_bonus, rules.dealer_qualifier, cast(AnteBonusOn, rules.ante_bonus_on),
                              counts=counts).strategy
    figures: dict[str, Any] = {
        "game": "3cp",
        "ante_play": {"house_edge": _edge(ap), "outcomes": ap, "strategy": strategy},
        "pair_plus": {"house_edge": _edge(pp), "outcomes": pp},
        "joint": {"ante_play+pair_plus": {"house_edge": _edge(joint, 2), "stake": 2, "outcomes": joint}},
        "method": ("exact enumeration: the 22,100 player hands, each against the 18,424 dealer hands of the 49 "
                   "other cards (407,170,400 deals), the player's best decision hand by hand"),
    }
    if rules.bonus is not None:
        played = {cat: sum(deals[cat, r] for r in RESULTS if r != "fold") // DEALER_HANDS for cat in CATEGORIES}
        bo = [_outcome(f"{_name(cat)}, played", played[cat], PLAYER_HANDS, separate[cat])
              for cat in reversed(CATEGORIES) if cat in separate and played[cat]]
        lost = PLAYER_HANDS - sum(o["weight"] for o in bo)
        bo.append(_outcome("anything else, or folded", lost, PLAYER_HANDS, Fraction(-1)))
        figures["bonus"] = {"house_edge": _edge(bo), "outcomes": bo}
    return figures
