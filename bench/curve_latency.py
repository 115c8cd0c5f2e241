"""CURVE's cost on the feed: the card-to-public-update latency with every socket CURVE, beside the plaintext figure in the same run.

The same measurement as `bench.controller_latency` (a CARD frame's last byte on the 115,200-baud
line to its public update received by a local subscriber; `croupier run` in its own process), made
in alternating rounds: plaintext, then with `[security]` set (throwaway keys; the table's ZAP
handler lets the subscribers and the bot dealer in; every TCP socket a CURVE server). The machine
is shared, so each figure is the median of its rounds and the two are compared as measured in the
same run. Aim: the CURVE p99 within 0.3 ms of the plaintext p99.
"""

from __future__ import annotations

import os
import statistics

from bench import Figure
from bench.controller_latency import measure

AIM_P99_EXTRA_MS = 0.3


def run(rounds: int = 5, hands: int = 30) -> list[Figure]:
    figures: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for n in range(rounds):
        for secure in (False, True):
            f = measure(hands, secure=secure)
            figures[secure].append(f)
            print(f"   round {n + 1} {'CURVE    ' if secure else 'plaintext'}: {int(f['matched'])} cards timed: "
                  f"p50 {f['p50_ms']:.2f} ms, p99 {f['p99_ms']:.2f} ms, max {f['max_ms']:.2f} ms; controller CPU "
                  f"{100 * f['cpu_share']:.1f}% of one core while the shoe streams", flush=True)

    def median(secure: bool, key: str) -> float:
        return statistics.median(f[key] for f in figures[secure])

    plain_p99, curve_p99 = median(False, "p99_ms"), median(True, "p99_ms")
    extra = curve_p99 - plain_p99
    print(f"   median of {rounds}: plaintext p50 {median(False, 'p50_ms'):.2f} ms p99 {plain_p99:.2f} ms; CURVE p50 "
          f"{median(True, 'p50_ms'):.2f} ms p99 {curve_p99:.2f} ms; CURVE's p99 {extra:+.2f} ms "
          f"({curve_p99 / plain_p99:.2f}x; aim within +{AIM_P99_EXTRA_MS} ms), p50 "
          f"{median(True, 'p50_ms') - median(False, 'p50_ms'):+.2f} ms; the rounds' p99 spread "
          f"{min(f['p99_ms'] for f in figures[False] + figures[True]):.2f}-"
          f"{max(f['p99_ms'] for f in figures[False] + figures[True]):.2f} ms; controller CPU while streaming "
          f"{100 * median(False, 'cpu_share'):.1f}% plaintext, {100 * median(True, 'cpu_share'):.1f}% CURVE; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return [Figure("CURVE on every socket vs plaintext: card-to-publish p99, medians of rounds",
                   f"{extra:+.2f} ms ({curve_p99 / plain_p99:.2f}x)", f"<= +{AIM_P99_EXTRA_MS} ms",
                   extra <= AIM_P99_EXTRA_MS)]
