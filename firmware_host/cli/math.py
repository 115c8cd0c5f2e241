"""`croupier math 3cp|uth`: the exact house edges of a profile's Three Card Poker or Ultimate Texas Hold'em bets."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from engine.errors import ProfileError
from engine.house_edge import ThreeCardPokerEdges, as_json, describe_key, profile_edges

GAMES = ("3cp", "uth")

_BONUS_WHEN = {
    "play": "to every player who plays, whatever the dealer holds",
    "win": "only when the Ante wins (player beats a qualified dealer, or the dealer does not qualify)",
    "beat_qualified": "only when the player beats a qualified dealer",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES, help="the game: 3cp (Three Card Poker) or uth (Ultimate Texas "
                        "Hold'em: minutes the first time for a profile, then cached; needs the analysis extra)")
    parser.add_argument(
        "--profile", action="append", metavar="NAME_OR_FILE",
        help="paytable profile: a shipped name (default, standard, fr_literal) or a TOML file; "
             "repeat to compare several (default: default)",
    )
    parser.add_argument("--json", action="store_true",
                        help="print JSON (fractions, not percent): one object per profile, one a line")


def main(args: argparse.Namespace) -> int:
    from engine.paytables import load_profile  # the profile loader, imported only when needed

    names: list[str] = args.profile or ["default"]
    if args.game == "uth":
        from firmware_host.cli.math_uth import main_uth
        return main_uth(names, args.json)
    status = 0
    for number, name in enumerate(names):
        try:
            profile = load_profile(name)
            edges = profile_edges(profile)
        except (ProfileError, ValueError, OSError) as exc:
            print(f"croupier math: profile {name!r}: {exc}", file=sys.stderr)
            status = 2
            continue
        if args.json:
            figures: dict[str, Any] = {"profile": name, **as_json(edges)}
            print(json.dumps(figures), flush=True)
        else:
            if number:
                print()
            print(report(name, edges), flush=True)
    return status


def _pct(x: Fraction) -> str:
    return f"{float(x * 100):.4f}%"


def _pays(pays: tuple[tuple[str, Fraction], ...]) -> str:
    def odds(p: Fraction) -> str:
        return str(p.numerator) if p.denominator == 1 else f"{p.numerator}:{p.denominator}"
    return ", ".join(f"{cat.replace('_', ' ')} {odds(p)}" for cat, p in pays if p) or "nothing"


def report(name: str, edges: ThreeCardPokerEdges) -> str:
    """The human report for one profile."""
    ap, pp = edges.ante_play, edges.pair_plus
    if ap.threshold and ap.strongest_folded is not None:
        rule = f"play {ap.strategy} or better, fold {describe_key(ap.strongest_folded)} or worse"
    elif ap.threshold:
        rule = "play every hand"
    else:
        rule = ap.strategy
    lines = [
        f"Three Card Poker, profile {name}",
        f"  Dealer qualifies with {edges.qualifier}.",
        f"  Ante Bonus ({_pays(edges.ante_bonus)}) paid {_BONUS_WHEN.get(edges.ante_bonus_on, edges.ante_bonus_on)}.",
        f"  Optimal decision: {rule} (plays {_pct(ap.play_probability)} of hands).",
        f"  Ante and Play: house edge {_pct(ap.house_edge)} of the Ante"
        f" (element of risk {_pct(ap.element_of_risk)}); exact {ap.house_edge}.",
        f"  Pair Plus ({_pays(pp.pays)}): house edge {_pct(pp.house_edge)}; exact {pp.house_edge}.",
    ]
    if edges.bonus is not None:
        lines.append(f"  Bonus, a separate stake paid only when the spot plays ({_pays(edges.bonus_pays)}):"
                     f" house edge {_pct(edges.bonus)}; exact {edges.bonus}.")
    return "\n".join(lines)
