"""`croupier math uth`: the exact UTH pass on the standard profile against the published 2.1850% (aim: under 30 min)."""

from __future__ import annotations

import time

from bench import Figure
from engine.paytables import load_profile
from analysis.uth.edges import uth_figures

AIM_S = 30 * 60.0
PUBLISHED_EDGE = 0.021850  # Ante + Blind + Play, optimal strategy, Blind 500-50-10-3-3:2-1 (Wizard of Odds)
TOLERANCE = 0.00001  # 0.001% of the Ante
PUBLISHED_TRIPS = 0.034979  # Trips 50-40-30-8-7-4-3 on the final hand


def run() -> list[Figure]:
    started = time.perf_counter()
    figures = uth_figures(load_profile("standard"), use_cache=False)
    elapsed = time.perf_counter() - started
    abp, simple, trips = figures["ante_blind_play"], figures["simple_strategy"], figures["trips"]
    edge = abp["house_edge_per_ante"]
    print(f"   standard profile, every deal, in {elapsed:.0f} s (aim < {AIM_S:.0f} s)")
    print(f"   Ante + Blind + Play, optimal: {edge * 100:.5f}% of the Ante (published {PUBLISHED_EDGE * 100:.4f}%),"
          f" element of risk {abp['element_of_risk'] * 100:.4f}%, average total bet {abp['average_total_bet_per_ante']:.4f};"
          f" exact {abp['house_edge_exact']}")
    print(f"   {simple['strategy']['name']}: {simple['house_edge_per_ante'] * 100:.4f}% of the Ante,"
          f" element of risk {simple['element_of_risk'] * 100:.4f}%")
    print(f"   Trips 50-40-30-8-7-4-3: {trips['house_edge'] * 100:.4f}% (published {PUBLISHED_TRIPS * 100:.4f}%)")
    right = abs(edge - PUBLISHED_EDGE) < TOLERANCE and round(trips["house_edge"], 6) == PUBLISHED_TRIPS
    return [Figure.at_most("`croupier math uth`, every deal, standard profile", elapsed / 60, AIM_S / 60, unit=" min",
                           digits=1),
            Figure("`croupier math uth`: Ante + Blind + Play and Trips edges", f"{edge * 100:.5f}%, "
                   f"{trips['house_edge'] * 100:.4f}%", f"{PUBLISHED_EDGE * 100:.4f}% within 0.001%, "
                   f"{PUBLISHED_TRIPS * 100:.4f}% (published)", right)]
