"""`croupier math 3cp|uth|par|certify|approve`: a profile's exact house edges, its PAR sheets, its certificate and its approved figures.

`croupier math 3cp` / `uth` report the Three Card Poker / Ultimate Texas Hold'em edges; `croupier math par
--game G --profile P [--format md|json|csv]` prints a game's PAR sheet (`analysis.par`);
`croupier math certify --profile P --out FILE` writes the profile's certificate
(`analysis.certify`); `croupier math approve --profile P` prints the profile's `[uth.approved]` and
`[3cp.approved]` tables (`--game G`: that game's only), each bet's exact edge as computed (the builtin
profiles carry them). Exit status: 0 done, 1 a computed figure differs from the approved
one (named), 2 bad input or figures this build cannot compute ("UTH figures not available in this build").
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from engine.errors import ProfileError
from engine.house_edge import ThreeCardPokerEdges, as_json, describe_key, profile_edges

GAMES = ("3cp", "uth")
ACTIONS = ("par", "certify", "approve")
FORMATS = ("md", "json", "csv")

_BONUS_WHEN = {
    "play": "to every player who plays, whatever the dealer holds",
    "win": "only when the Ante wins (player beats a qualified dealer, or the dealer does not qualify)",
    "beat_qualified": "only when the player beats a qualified dealer",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES + ACTIONS, metavar="{" + ",".join(GAMES + ACTIONS) + "}",
                        help="the game: 3cp (Three Card Poker) or uth (Ultimate Texas Hold'em: minutes the first "
                        "time for a profile, then cached; needs the analysis extra); or par (a PAR sheet), "
                        "certify (a certificate), approve (the [GAME.approved] tables of the edges computed)")
    parser.add_argument(
        "--profile", action="append", metavar="NAME_OR_FILE",
        help="paytable profile: a shipped name (default, standard, fr_literal) or a TOML file; "
             "repeat to compare several (default: default)",
    )
    parser.add_argument("--json", action="store_true",
                        help="print JSON (fractions, not percent): one object per profile, one a line")
    parser.add_argument("--game", dest="sheet_game", choices=("uth", "3cp"), help="par: the game of the sheet; approve: that game only")
    parser.add_argument("--format", choices=FORMATS, default="md", help="par: md (default), json or csv")
    parser.add_argument("--out", metavar="FILE", help="certify: where to write the certificate (JSON)")


def main(args: argparse.Namespace) -> int:
    from engine.paytables import load_profile  # the profile loader, imported only when needed

    names: list[str] = args.profile or ["default"]
    if args.game == "uth":
        from cli.math_uth import main_uth
        return main_uth(names, args.json)
    if args.game in ACTIONS:
        return par_or_certify(args, names)
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


def par_or_certify(args: argparse.Namespace, names: list[str]) -> int:
    """`croupier math par`, `certify` and `approve`, on one profile."""
    from engine.paytables import read_profile
    from analysis.certify import CannotCertify, NotApproved, approved_figures, approved_toml, certificate
    from analysis.figures import FiguresUnavailable
    from analysis.par import csv_text, markdown, par_sheet, sheet_json

    if len(names) != 1:
        print(f"croupier math {args.game}: give one --profile", file=sys.stderr)
        return 2
    if args.game == "par" and args.sheet_game is None:
        print("croupier math par: --game uth|3cp is required", file=sys.stderr)
        return 2
    if args.game == "certify" and not args.out:
        print("croupier math certify: --out FILE is required", file=sys.stderr)
        return 2
    progress = sys.stderr.isatty()
    try:
        text = read_profile(names[0])
        if args.game == "par":
            sheet = par_sheet(args.sheet_game, text.parse(), text, progress=progress)
            if args.format == "json":
                sys.stdout.write(json.dumps(sheet_json(sheet), indent=1) + "\n")
            else:
                sys.stdout.write(markdown(sheet) if args.format == "md" else csv_text(sheet))
            return 0
        if args.game == "approve":
            games = (args.sheet_game,) if args.sheet_game is not None else ("uth", "3cp")
            sys.stdout.write(approved_toml(approved_figures(text, games, progress=progress)))
            return 0
        cert = certificate(text, progress=progress)
    except NotApproved as exc:
        print(f"croupier math certify: profile {names[0]!r}: not certified: {exc}", file=sys.stderr)
        return 1
    except (FiguresUnavailable, CannotCertify, ProfileError, ValueError) as exc:
        print(f"croupier math {args.game}: profile {names[0]!r}: {exc}", file=sys.stderr)
        return 2
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(json.dumps(cert, indent=1) + "\n")
    except OSError as exc:
        print(f"croupier math certify: {args.out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    unavailable = [g for g, s in cert["sheets"].items() if not s.get("title")]
    for game in unavailable:
        print(f"croupier math certify: {game}: {cert['sheets'][game]['reason']}: the certificate says so",
              file=sys.stderr)
    print(f"certified profile {text.name} (sha256 {text.sha256}) -> {args.out}")
    return 0
