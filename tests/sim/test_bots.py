"""Bot players' stakes and decisions; the simulated table's configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.house import TableLimits
from sim.bots.players import BotPlayer, tcp_decision, uth_decision
from sim.bots.table import SimLimits, TableEndpoints, write_config
from firmware_host.service.config import Config


def test_uth_decisions() -> None:
    assert uth_decision("preflop", ["As", "7d"], []) == ("play", 4)
    assert uth_decision("preflop", ["9c", "9d"], []) == ("play", 4)
    assert uth_decision("preflop", ["7s", "2d"], []) == ("check", None)
    assert uth_decision("flop", ["7s", "2d"], ["7c", "Kd", "4h"]) == ("play", 2)
    assert uth_decision("flop", ["8s", "2d"], ["7c", "Kd", "4h"]) == ("check", None)
    assert uth_decision("river", ["8s", "2d"], ["7c", "Kd", "4h", "Jc", "3s"]) == ("fold", None)
    assert uth_decision("river", ["8s", "3d"], ["7c", "Kd", "4h", "Jc", "3s"]) == ("play", 1)


def test_3cp_plays_queen_six_four_or_better() -> None:
    assert tcp_decision(["Qs", "6d", "4c"]) == "play"
    assert tcp_decision(["Qs", "6d", "3c"]) == "fold"
    assert tcp_decision(["2s", "2d", "9c"]) == "play"
    assert tcp_decision(["Js", "Td", "8c"]) == "fold"


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_stakes_are_the_same_for_a_hand_and_within_the_limits(game: str) -> None:
    limits = SimLimits()
    table = TableLimits(limits.minimum, limits.maximum, limits.side_minimum, limits.side_maximum, limits.chip)
    seen = set()
    for hand in range(1, 60):
        for seat in (1, 4):
            bets = BotPlayer(seat, seed=9).bets(game, hand, limits)
            assert bets == BotPlayer(seat, seed=9).bets(game, hand, limits)
            table.check_main("ante", bets["ante"])
            if game == "uth":
                assert bets["blind"] == bets["ante"]
            for side in ("trips", "pair_plus"):
                if side in bets:
                    table.check_side(side, bets[side])
            seen.add(tuple(sorted(bets)))
    assert len(seen) == 2  # with and without the side bet


def test_the_written_configuration_is_one_the_controller_takes(tmp_path: Path) -> None:
    eps = TableEndpoints.ipc(tmp_path)
    path = write_config(tmp_path / "t.toml", endpoints=eps, shoe_url="socket://127.0.0.1:7000", game="3cp", seats=6)
    cfg = Config.load(path)
    assert cfg.table.game == "3cp" and cfg.table.seats == 6 and cfg.feed.full == eps.full
    assert cfg.gpio.backend == "sim" and cfg.gpio.panel == eps.panel and cfg.limits.chip == 100
