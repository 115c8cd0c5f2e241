"""PAR sheets: per bet circle every paying outcome's weight, probability, pay and share of the return; house edge, hit frequency, standard deviation.

A sheet is built from a game's figures (`analysis.figures`). For each outcome of a bet
staked 1 (`pays` its net result, a loss -1; a bet raised later, as the Ante and Play, is counted per
unit of its base stake, the Ante):

    probability  = weight / the weights' total
    return       = probability * (1 + pays)      the stake and what it wins, per unit staked
    share        = return / the bet's return     which outcomes the return is made of
    house edge   = -(sum of probability * pays)  = 1 - the sum of the returns
    hit frequency= the probability that the bet wins (pays > 0)
    std dev      = sqrt(sum of probability * pays^2 - (sum of probability * pays)^2)

A bet's return on an outcome that lost more than its base stake (a Play lost with the Ante) is
negative: the returns still add to 1 - house edge. A combination of bets played together (3CP's
Ante and Play with Pair Plus, each staked 1) is one more bet over their joint outcomes, its stake the
sum of theirs: its house edge per unit of that stake, its standard deviation of the hand's whole
result in units of one bet. The standard deviation of a combination needs the joint distribution
(the bets are correlated through the player's hand); where the figures give none, the sheet gives
the house edge (expectations add) and the bounds |s1 - s2| <= s <= s1 + s2, never a guess.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.paytables import Profile, ProfileText
from analysis.figures import figures as game_figures


@dataclass(frozen=True)
class BetSpec:
    """A bet circle of a sheet: the figures' key, its title, its stake in units."""

    key: str
    title: str
    stake: int = 1


@dataclass(frozen=True)
class SheetSpec:
    """What a game's sheet shows: its bets in order and its common combinations (title, bets)."""

    game: str
    title: str
    bets: tuple[BetSpec, ...]
    combinations: tuple[tuple[str, tuple[str, ...]], ...]


SHEETS: Mapping[str, SheetSpec] = {
    "3cp": SheetSpec("3cp", "Three Card Poker", (
        BetSpec("ante_play", "Ante and Play, its Ante Bonus included, per unit of Ante (the player's best decision)"),
        BetSpec("pair_plus", "Pair Plus"),
        BetSpec("bonus", "Bonus, a separate stake paid only when the spot plays"),
    ), (("Ante and Play", ("ante_play",)), ("Pair Plus", ("pair_plus",)),
        ("Ante and Play with Pair Plus", ("ante_play", "pair_plus")))),
    "uth": SheetSpec("uth", "Ultimate Texas Hold'em", (
        BetSpec("ante_blind_play", "Ante + Blind + Play, optimal strategy, per unit of Ante"),
        BetSpec("trips", "Trips"),
        BetSpec("simple_strategy", "Ante + Blind + Play under the simple strategy, per unit of Ante"),
    ), (("Ante + Blind + Play", ("ante_blind_play",)),
        ("Ante + Blind + Play with Trips", ("ante_blind_play", "trips")))),
}
"""Game code -> its sheet. A bet the figures do not give (a profile without 3CP's Bonus) is left out."""

_TOLERANCE = 1e-7  # figures given as floats (rounded by their source): how far their totals may be off


@dataclass(frozen=True)
class Line:
    """One outcome of a bet."""

    outcome: str
    weight: Fraction
    probability: Fraction
    pays: Fraction
    returns: Fraction
    share: Fraction | None  # None when the bet returns nothing


@dataclass(frozen=True)
class BetFigures:
    """A bet's (or a combination's) lines and figures. `std_dev` is None when it cannot be known from
    the figures (a combination with no joint distribution); `std_dev_bounds` then bounds it."""

    key: str
    title: str
    stake: int
    lines: tuple[Line, ...]
    expected: Fraction  # the expected net result of the hand, in units of one bet's stake
    house_edge: Fraction  # per unit of `stake`
    hit_frequency: Fraction | None
    variance: Fraction | None
    std_dev_bounds: tuple[float, float] | None
    exact: bool  # every number came as a count or a fraction (no float)
    note: str = ""

    @property
    def std_dev(self) -> float | None:
        return math.sqrt(self.variance) if self.variance is not None else None

    @property
    def total_return(self) -> Fraction:
        return 1 - self.house_edge


@dataclass(frozen=True)
class ParSheet:
    """A game's PAR sheet under one profile."""

    game: str
    title: str
    profile: str
    sha256: str | None
    method: str
    bets: tuple[BetFigures, ...]
    combinations: tuple[BetFigures, ...]
    strategy: str | None

    def bet(self, key: str) -> BetFigures:
        """The bet `key`. Raises KeyError."""
        for bet in self.bets:
            if bet.key == key:
                return bet
        raise KeyError(key)


def _number(value: Any, where: str) -> tuple[Fraction, bool]:
    """A figure as a Fraction, and whether it was exact (not a float). Raises ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ValueError(f"{where}: not a number: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: not a finite number: {value!r}")
        return Fraction(value), False
    return Fraction(value), True


def bet_figures(key: str, title: str, figures: Mapping[str, Any], stake: int = 1) -> BetFigures:
    """A bet's lines and figures from its figures (`house_edge`, `outcomes`). Raises ValueError when
    the probabilities do not add to 1 or the outcomes do not give the house edge stated."""
    raw = figures.get("outcomes")
    if not isinstance(raw, Sequence) or not raw:
        raise ValueError(f"{key}: the figures give no outcomes")
    exact = True
    rows: list[tuple[str, Fraction, Fraction, Fraction]] = []
    for n, o in enumerate(raw):
        at = f"{key}: outcome {n + 1}"
        if not isinstance(o, Mapping) or o.get("probability") is None or o.get("pays") is None:
            raise ValueError(f"{at}: the figures give no probability and pay for it (no distribution of "
                             f"results to make a PAR sheet from)")
        weight, e1 = _number(o.get("weight", 0), f"{at} weight")
        probability, e2 = _number(o["probability"], f"{at} probability")
        pays, e3 = _number(o["pays"], f"{at} pays")
        exact = exact and e1 and e2 and e3
        rows.append((str(o["outcome"]), weight, probability, pays))
    total = sum((p for _, _, p, _ in rows), Fraction(0))
    if (total != 1) if exact else abs(total - 1) > _TOLERANCE:
        raise ValueError(f"{key}: the outcomes' probabilities add to {float(total)!r}, not 1")
    expected = sum((p * pays for _, _, p, pays in rows), Fraction(0))
    edge = -expected / stake
    stated, stated_exact = _number(figures["house_edge"], f"{key}: house_edge")
    if (edge != stated) if exact and stated_exact else abs(edge - stated) > _TOLERANCE:
        raise ValueError(f"{key}: the outcomes give a house edge of {float(edge)!r}, the figures say {float(stated)!r}")
    back = 1 - edge
    lines = tuple(Line(name, w, p, pays, p * (stake + pays) / stake, p * (stake + pays) / stake / back if back else None)
                  for name, w, p, pays in rows)
    variance = sum((p * pays * pays for _, _, p, pays in rows), Fraction(0)) - expected * expected
    return BetFigures(key, title, stake, lines, expected, edge, sum((p for _, _, p, pays in rows if pays > 0), Fraction(0)),
                      variance, None, exact)


def _combination(title: str, bets: Sequence[BetFigures], joint: Mapping[str, Any] | None) -> BetFigures:
    key = "+".join(b.key for b in bets)
    stake = sum(b.stake for b in bets)
    if len(bets) == 1:
        b = bets[0]
        return BetFigures(key, title, b.stake, (), b.expected, b.house_edge, b.hit_frequency, b.variance,
                          b.std_dev_bounds, b.exact, "the bet alone: its lines above")
    if joint is not None:
        return bet_figures(key, title, joint, int(joint.get("stake", stake)))
    expected = sum((b.expected for b in bets), Fraction(0))
    sds = [b.std_dev or 0.0 for b in bets]
    low, high = max(0.0, 2 * max(sds) - sum(sds)), sum(sds)
    return BetFigures(key, title, stake, (), expected, -expected / stake, None, None, (low, high),
                      all(b.exact for b in bets),
                      "the figures give no joint distribution of these bets: the standard deviation is bounded, "
                      "not known, and the hit frequency is not known")


def par_sheet(game: str, profile: Profile, text: ProfileText | None = None, *, progress: bool = False) -> ParSheet:
    """The PAR sheet of `game` under `profile` (`text`: its text, for the sheet's sha256).

    Raises FiguresUnavailable (no figures for the game in this build), KeyError (no such game),
    ValueError (a table the game's math cannot use, or figures that do not add up)."""
    spec = SHEETS[game]
    figures = game_figures(game, profile, progress=progress)
    bets = tuple(bet_figures(b.key, b.title, figures[b.key], b.stake) for b in spec.bets if b.key in figures)
    have = {b.key: b for b in bets}
    joints: Mapping[str, Any] = figures.get("joint") or {}
    combinations = tuple(_combination(title, [have[k] for k in keys], joints.get("+".join(keys)))
                         for title, keys in spec.combinations if all(k in have for k in keys))
    main = figures.get(spec.bets[0].key, {})
    strategy = main.get("strategy") if isinstance(main, Mapping) else None
    return ParSheet(game, spec.title, profile.name, text.sha256 if text is not None else None,
                    str(figures.get("method", "")), bets, combinations, str(strategy) if strategy else None)


# -- the sheet written out ---------------------------------------------------------------------------


def _exact(x: Fraction, exact: bool) -> dict[str, Any]:
    return {"exact": str(x)} if exact else {}


def bet_json(bet: BetFigures) -> dict[str, Any]:
    """A bet's figures as JSON values: floats, with the exact fractions as text when they are exact."""
    out: dict[str, Any] = {
        "title": bet.title, "stake": bet.stake,
        "house_edge": float(bet.house_edge), **{f"house_edge_{k}": v for k, v in _exact(bet.house_edge, bet.exact).items()},
        "expected": float(bet.expected), "return": float(bet.total_return),
        "hit_frequency": float(bet.hit_frequency) if bet.hit_frequency is not None else None,
        "std_dev": bet.std_dev,
        **({"variance_exact": str(bet.variance)} if bet.exact and bet.variance is not None else {}),
    }
    if bet.std_dev_bounds is not None:
        out["std_dev_bounds"] = list(bet.std_dev_bounds)
    if bet.note:
        out["note"] = bet.note
    if bet.lines:
        out["outcomes"] = [{"outcome": line.outcome,
                            "weight": int(line.weight) if line.weight.denominator == 1 else float(line.weight),
                            "probability": float(line.probability), **({"probability_exact": str(line.probability)}
                                                                       if bet.exact else {}),
                            "pays": float(line.pays), "return": float(line.returns),
                            "share": float(line.share) if line.share is not None else None} for line in bet.lines]
    return out


def sheet_json(sheet: ParSheet) -> dict[str, Any]:
    """The whole sheet as JSON values."""
    return {"game": sheet.game, "title": sheet.title, "profile": sheet.profile, "sha256": sheet.sha256,
            "method": sheet.method, **({"strategy": sheet.strategy} if sheet.strategy else {}),
            "bets": {b.key: bet_json(b) for b in sheet.bets},
            "combinations": {c.key: bet_json(c) for c in sheet.combinations}}


def _pct(x: Fraction | None, places: int = 4) -> str:
    return "" if x is None else f"{float(x * 100):.{places}f}%"


def _sd(bet: BetFigures) -> str:
    if bet.std_dev is not None:
        return f"{bet.std_dev:.4f}"
    low, high = bet.std_dev_bounds or (0.0, 0.0)
    return f"between {low:.4f} and {high:.4f}"


def _weight(w: Fraction) -> str:
    return f"{int(w):,}" if w.denominator == 1 else f"{float(w):.6g}"


def _pays(p: Fraction) -> str:
    return str(p) if p.denominator == 1 else (f"{p.numerator}:{p.denominator}" if abs(p.denominator) < 1000 else f"{float(p):.6f}")


def markdown(sheet: ParSheet) -> str:
    """The sheet as a Markdown page."""
    out = [f"# PAR sheet: {sheet.title}, profile {sheet.profile}", ""]
    if sheet.sha256:
        out.append(f"Profile sha256 `{sheet.sha256}`.")
    if sheet.method:
        out.append(f"Method: {sheet.method}.")
    if sheet.strategy:
        out.append(f"Strategy: play {sheet.strategy} or better.")
    for bet in sheet.bets:
        out += ["", f"## {bet.title}", "", "| outcome | weight | probability | pays | return | share of return |",
                "| --- | ---: | ---: | ---: | ---: | ---: |"]
        out += [f"| {ln.outcome} | {_weight(ln.weight)} | {float(ln.probability):.8f} | {_pays(ln.pays)} | "
                f"{float(ln.returns):.8f} | {_pct(ln.share, 2)} |" for ln in bet.lines]
        out += ["", f"House edge {_pct(bet.house_edge)}" + (f" (exact {bet.house_edge})" if bet.exact else "")
                + f"; return {_pct(bet.total_return)}; hit frequency {_pct(bet.hit_frequency)}; "
                f"standard deviation {_sd(bet)}."]
    out += ["", "## Combinations", "", "| bets | stake | house edge | hit frequency | standard deviation |",
            "| --- | ---: | ---: | ---: | ---: |"]
    out += [f"| {c.title} | {c.stake} | {_pct(c.house_edge)} | {_pct(c.hit_frequency) or 'not known'} | {_sd(c)} |"
            for c in sheet.combinations]
    notes = [f"{c.title}: {c.note}." for c in sheet.combinations if c.note and not c.note.startswith("the bet alone")]
    if notes:
        out += [""] + notes
    return "\n".join(out) + "\n"


CSV_COLUMNS = ("kind", "bet", "outcome", "weight", "probability", "pays", "return", "share",
               "house_edge", "hit_frequency", "std_dev")


def csv_text(sheet: ParSheet) -> str:
    """The sheet as CSV: an `outcome` row per outcome, a `bet` row per bet, a `combination` row per
    combination (its standard deviation empty when not known)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)

    def summary(kind: str, b: BetFigures) -> list[Any]:
        return [kind, b.key, "", "", "", "", float(b.total_return), "", float(b.house_edge),
                float(b.hit_frequency) if b.hit_frequency is not None else "",
                b.std_dev if b.std_dev is not None else ""]

    for bet in sheet.bets:
        for ln in bet.lines:
            w.writerow(["outcome", bet.key, ln.outcome, _weight(ln.weight).replace(",", ""), float(ln.probability),
                        float(ln.pays), float(ln.returns), float(ln.share) if ln.share is not None else "", "", "", ""])
        w.writerow(summary("bet", bet))
    for c in sheet.combinations:
        w.writerow(summary("combination", c))
    return buf.getvalue()
