"""Sign-off flood: the card-to-publish latency quiet and under a client's flood of supervisors' sign-offs, right and wrong.

As `bench.flood` (one controller, the emulated shoe, `HANDS` UTH hands quiet), then the same hands
under a flood of `clear` requests carrying a supervisor's sign-off (no fault stands: each is refused
once its PIN is checked): first with her right PIN, then with a wrong one, as fast as the channel
answers. A PIN costs a memory-hard hash (`service.users`): the controller hashes it off its loop
(`service.command_desk`), at most `PIN_CHECKS_PER_S` a second per key, and a key whose sign-offs
fail `MAX_FAILED` times is held (`service.signoff_holds`). Aims (`docs/security.md`, Sign-off): the
p99 under each flood within 2x the quiet p99, and no silence of the feed longer than 2 heartbeats. A
round's p99 of some 475 cards moves with the machine (1.27x and 3.35x in two quiet runs minutes apart, one
round each): `ROUNDS` rounds are taken, each its quiet hands and its floods, and a figure is the median of the
rounds' ratios, the silence the longest of all.
"""

from __future__ import annotations

import os
import statistics

from bench import Figure, flood
from bench._units import Scheduling
from protocol.signoff import PIN_CHECKS_PER_S
from protocol.signoff_holds import MAX_FAILED

HANDS = 25
ROUNDS = 3


def run(hands: int = HANDS, rounds: int = ROUNDS) -> list[Figure]:
    ratios: dict[str, list[float]] = {"right": [], "wrong": []}
    gaps: list[float] = []
    print(f"   the controller at {Scheduling.controller()}", flush=True)
    print(f"   the instruments at {Scheduling.instruments()}", flush=True)
    for round_ in range(1, rounds + 1):
        f = flood.measure(hands, floods=("right", "wrong"))
        quiet = f["quiet"]
        print(f"   round {round_}: quiet {quiet['n']} cards, CARD last byte -> public update p50 {quiet['p50_ms']:.2f} ms, "
              f"p99 {quiet['p99_ms']:.2f} ms, max {quiet['max_ms']:.2f} ms")
        for kind in ("right", "wrong"):
            loud, fl = f[kind], f[f"flooder.{kind}"]
            ratio = loud["p99_ms"] / quiet["p99_ms"]
            ratios[kind].append(ratio)
            gaps.append(fl["max_gap_s"] / flood.HEARTBEAT_S)
            print(f"     {kind} PINs: {loud['n']} cards, p50 {loud['p50_ms']:.2f} ms, p99 {loud['p99_ms']:.2f} ms, "
                  f"max {loud['max_ms']:.2f} ms; {fl['sent']} sign-offs in {fl['flood_s']:.1f} s "
                  f"({fl['sent'] / fl['flood_s']:.0f}/s): {fl['busy']} busy, {fl['other']} refused; p99 {ratio:.2f}x "
                  f"the quiet p99; longest silence {1000 * fl['max_gap_s']:.0f} ms")
    figures = []
    for kind, each in ratios.items():
        median = statistics.median(each)
        print(f"   {kind} PINs: the median of the rounds' {', '.join(f'{r:.2f}x' for r in each)} = {median:.2f}x "
              f"(aim <= {flood.AIM_P99_RATIO}x)")
        figures.append(Figure.at_most(f"card-to-publish p99 under a flood of sign-offs, {kind} PINs, vs quiet", median,
                                      flood.AIM_P99_RATIO))
    print(f"   the budget: {PIN_CHECKS_PER_S:g} PIN a second per key, held after {MAX_FAILED} failed; longest silence "
          f"{max(gaps):.2f} heartbeats (aim <= {flood.AIM_GAP_HEARTBEATS}); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return [*figures, Figure.at_most("the feed's longest silence under the sign-off floods", max(gaps),
                                     flood.AIM_GAP_HEARTBEATS, unit=" heartbeats")]
