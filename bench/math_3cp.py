"""`croupier math 3cp`: time of the exact Three Card Poker enumeration (aim: under 30 s, pure Python)."""

from __future__ import annotations

import time

from bench import Figure
from engine.house_edge import ante_play_edge, dealer_counts, pair_plus_edge

AIM_S = 30.0


def run() -> list[Figure]:
    started = time.perf_counter()
    counts = dealer_counts("Q-high")
    counted = time.perf_counter()
    ante_play = ante_play_edge({"straight": 1, "three_of_a_kind": 4, "straight_flush": 5}, counts=counts)
    pair_plus = pair_plus_edge({"pair": 1, "flush": 3, "straight": 6, "three_of_a_kind": 30, "straight_flush": 40})
    elapsed = time.perf_counter() - started
    print(f"   22,100 x 18,424 deals counted in {counted - started:.3f} s; both edges in {elapsed:.3f} s"
          f" (aim < {AIM_S:.0f} s)")
    print(f"   Ante-and-Play {float(ante_play.house_edge) * 100:.4f}% ({ante_play.strategy}),"
          f" Pair Plus 1-3-6-30-40 {float(pair_plus.house_edge) * 100:.4f}%")
    right = round(float(ante_play.house_edge) * 100, 2) == 3.37 and round(float(pair_plus.house_edge) * 100, 2) == 7.28
    return [Figure.at_most("`croupier math 3cp`, full enumeration", elapsed, AIM_S, unit=" s"),
            Figure("`croupier math 3cp`: Ante-and-Play and Pair Plus edges", f"{float(ante_play.house_edge) * 100:.4f}%, "
                   f"{float(pair_plus.house_edge) * 100:.4f}%", "3.37%, 7.28% (published)", right)]
