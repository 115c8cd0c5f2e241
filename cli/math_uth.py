"""`croupier math uth`: a profile's Ultimate Texas Hold'em house edges (Trips, Ante + Blind + Play optimal and simple)."""

from __future__ import annotations

import json
import sys
from typing import Any

from engine.errors import ProfileError


def main_uth(names: list[str], as_json: bool) -> int:
    """Print each profile's figures; a progress bar only when both outputs are terminals."""
    from engine.paytables import read_profile
    try:
        from analysis.uth.edges import uth_figures
    except ImportError as exc:  # numpy (or tqdm) missing
        print(f"croupier math uth: needs the analysis extra (pip install 'croupier[analysis]'): {exc}",
              file=sys.stderr)
        return 2
    progress = sys.stdout.isatty() and sys.stderr.isatty()
    status = 0
    for number, name in enumerate(names):
        try:
            text = read_profile(name)
            figures = uth_figures(text, progress=progress)
        except (ProfileError, ValueError, OSError) as exc:
            print(f"croupier math: profile {name!r}: {exc}", file=sys.stderr)
            status = 2
            continue
        if as_json:
            print(json.dumps({"profile": name, **figures}), flush=True)
        else:
            if number:
                print()
            print(report(name, figures), flush=True)
    return status


def _pct(x: float) -> str:
    return f"{x * 100:.4f}%"


def report(name: str, figures: dict[str, Any]) -> str:
    """The human report for one profile."""
    abp, trips, simple = figures["ante_blind_play"], figures["trips"], figures["simple_strategy"]
    freq = {o["outcome"]: o for o in abp["play_rates"]}
    lines = [
        f"Ultimate Texas Hold'em, profile {name}",
        f"  Ante + Blind + Play, optimal strategy: house edge {_pct(abp['house_edge_per_ante'])} of the Ante"
        f" (element of risk {_pct(abp['element_of_risk'])}; average total bet {abp['average_total_bet_per_ante']:.4f}"
        f" Antes); exact {abp['house_edge_exact']}.",
        f"    plays pre-flop {_pct(freq['play_preflop']['probability'])} of hands, on the flop"
        f" {_pct(freq['play_flop']['probability'])}; pre-flop raise: {' '.join(abp['preflop_raise'])}",
        f"  {simple['strategy']['name']} ({simple['strategy']['url']}): house edge"
        f" {_pct(simple['house_edge_per_ante'])} of the Ante (element of risk {_pct(simple['element_of_risk'])}).",
        f"  Trips, paid on {trips['paid_on']}: house edge {_pct(trips['house_edge'])}.",
    ]
    if "trips_house_edge" in simple:
        lines.append(f"    under the simple strategy: {_pct(simple['trips_house_edge'])}.")
    lines.append(f"  Method: {figures['method']}.")
    return "\n".join(lines)
