"""Long runs (make soak): a thousand hands of each game, a hundred kills of the controller in each."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from harness_kit import check_ledger, history, kill_run

from sim.bots.players import seat_players
from cli.demo import SimTable


@pytest.mark.soak
@pytest.mark.parametrize(("game", "seats"), [("uth", 7), ("3cp", 7)])
def test_a_thousand_hands(sim_table: Callable[..., SimTable], game: str, seats: int) -> None:
    table = sim_table(game=game, seed=101, seats=seats)
    dealer = table.dealer(players=seat_players(seats, 101), buttons=0.5)
    try:
        log = dealer.play(1000)
    finally:
        dealer.close()
    assert len(check_ledger(history(table.state_dir), log, table.config_path)) == 1000


@pytest.mark.soak
@pytest.mark.parametrize(("game", "seats", "seed"), [("uth", 7, 201), ("3cp", 6, 202)])
def test_a_hundred_kills(sim_table: Callable[..., SimTable], game: str, seats: int, seed: int) -> None:
    table = sim_table(game=game, seed=seed, seats=seats, restart_s=0.05, restart_burst=101)
    kill_run(table, game, seats, seed=seed, kills=100, hands=130)
