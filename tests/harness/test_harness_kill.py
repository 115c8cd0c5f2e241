"""The controller killed with SIGKILL at random points mid-hand, 4 times (100 in `make soak`): restarted to the same state, hands right."""

from __future__ import annotations

from collections.abc import Callable

from harness_kit import kill_run

from cli.demo import SimTable

KILLS = 4  # the hundred kills of each game: tests/harness/test_harness_soak.py (make soak)


def test_sigkill_mid_hand_four_times(sim_table: Callable[..., SimTable]) -> None:
    """Each restart continues the last state seen by at most the one step in flight; every hand is
    journaled once, settled as `croupier settle` settles it, with exactly the cards that left the shoe."""
    table = sim_table(game="uth", seed=21, seats=5, restart_s=0.05, restart_burst=KILLS + 1)
    kill_run(table, "uth", 5, seed=21, kills=KILLS, hands=KILLS + 6)
