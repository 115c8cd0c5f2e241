"""60 UTH and 60 3CP hands (1,000 each in make soak) with the controller, the emulated shoe and the bots as separate processes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from harness_kit import PublicAudit, check_ledger, history

from sim.bots.players import seat_players
from cli.demo import SimTable


def test_the_audit_sees_a_leak() -> None:
    assert PublicAudit.check({"phase": "deal", "spots": [{"seat": 1, "cards": ["??", "As"]}]}) is not None
    assert PublicAudit.check({"phase": "preflop", "spots": [], "dealer": {"cards": ["Kd", "??"]}}) is not None
    assert PublicAudit.check({"phase": "bets", "spots": [], "burns": []}) is not None
    assert PublicAudit.check({"phase": "showdown", "spots": [{"seat": 1, "cards": ["As", "Kd"]}]}) is None


@pytest.mark.parametrize(("game", "seats", "seed"), [("uth", 7, 11), ("3cp", 6, 12)])
def test_every_hand_settled_balanced_and_equal_to_croupier_settle(
        sim_table: Callable[..., SimTable], game: str, seats: int, seed: int) -> None:
    table = sim_table(game=game, seed=seed, seats=seats)
    audit = PublicAudit(table.endpoints)
    audit.start()
    dealer = table.dealer(players=seat_players(seats, seed), buttons=0.3)
    try:
        log = dealer.play(60)
    finally:
        dealer.close()
        audit.close()
    assert audit.updates > 60 * 10 and not audit.leaks, audit.leaks[:3]  # face-down cards stayed "??"
    assert log.hands == 60 and not log.faults and not log.keyed and not log.strays
    assert log.buttons > 0 and log.commands > 0  # both the panel's buttons and the command channel served
    settled = check_ledger(history(table.state_dir), log, table.config_path)
    assert len(settled) == 60
    decisions = {spot.get("play") not in (None, False) for line in settled for spot in line["round"]["spots"]}
    assert decisions == {True, False}  # the bots both played and folded
    assert table.controller is not None and table.controller.starts == 1
