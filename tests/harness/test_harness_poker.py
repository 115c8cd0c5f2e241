"""Poker at the simulated table: the controller, the emulated shoe and the poker bots as separate processes; every variant played, and hold'em, Omaha hi-lo, stud and triple-draw tables killed mid-hand with the public feed audited.

In `make test` each kill run is short (3 kills, 4 hands a table); the full runs of 20 kills mid-hand
a table are `@pytest.mark.soak` (`make soak`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from poker_kit import PokerAudit, poker_continuation_problem, poker_kill_run, poker_ledger

from engine.games import STRUCTURES
from engine.poker import VARIANTS
from cli.demo import SimTable
from sim.bots.poker import PokerDealer, choose

KILL_TABLES = [("holdem", "no-limit", 6, 31), ("omaha_hilo8", "pot-limit", 6, 32), ("stud", "fixed-limit", 6, 33),
               ("deuce_seven_triple", "fixed-limit", 5, 34)]
"""The tables the harness kills mid-hand: game, structure, seats, seed."""

EVERY_VARIANT = [(game, STRUCTURES[i % len(STRUCTURES)]) for i, game in enumerate(VARIANTS)]
"""Every poker variant once, the four structures taken in turn (each at least twice)."""


def test_the_poker_audit_sees_a_leak() -> None:
    assert PokerAudit.check({"phase": "betting", "spots": [{"seat": 1, "cards": ["??", "As"], "up": [False, False]}]})
    assert PokerAudit.check({"phase": "betting", "spots": [], "discards": ["As"]})
    assert PokerAudit.check({"phase": "over", "spots": [{"seat": 2, "cards": ["Kd"], "up": [False]}]})
    # a stud up card is public; a hand shown down is too
    assert PokerAudit.check({"phase": "betting", "spots": [{"seat": 1, "cards": ["??", "??", "As"],
                                                           "up": [False, False, True]}]}) is None
    assert PokerAudit.check({"phase": "showdown", "spots": [{"seat": 1, "cards": ["Qs", "As"], "up": [False, False],
                                                            "shown": True}]}) is None


def test_a_restart_that_lost_or_skipped_steps_is_seen() -> None:
    before = {"hand": 4, "phase": "betting", "board": ["As", "Kd", "7c"], "burns": ["2c"], "total_pot": 60,
              "spots": [{"seat": 1, "cards": ["Qs", "Qd"], "decision": "calls 10"},
                        {"seat": 2, "cards": ["3s", "4d"], "decision": None}]}
    one_more = {**before, "spots": [before["spots"][0], {**before["spots"][1], "decision": "checks"}]}
    assert poker_continuation_problem(before, before) is None
    assert poker_continuation_problem(before, one_more) is None
    assert poker_continuation_problem(before, {**one_more, "board": ["As", "Kd", "7c", "9h"]}) == "2 steps apart"
    assert poker_continuation_problem(before, {**before, "board": ["As", "Kd"]}) is not None
    assert poker_continuation_problem(before, {**before, "hand": 5, "phase": "dealing"}) is not None
    assert poker_continuation_problem({**before, "phase": "settled"}, {**before, "hand": 5, "phase": "waiting"}) is None


def test_the_bots_choose_only_what_the_table_allows() -> None:
    rng = random.Random(5)
    fixed = {"fold": True, "check": False, "call": 10, "bring_in": None, "all_in": 400, "draw": False,
             "show": False, "muck": False, "bet_or_raise": {"kind": "raise", "min_to": 20, "max_to": 20,
                                                            "choices": [20]}}
    seen = {choose(rng, fixed, []) for _ in range(300)}
    assert {c.action for c in seen} == {"fold", "call", "raise", "all_in"}
    assert {c.amount for c in seen if c.action == "raise"} == {20}
    no_limit = {**fixed, "check": True, "call": None, "bet_or_raise": {"kind": "bet", "min_to": 10, "max_to": 990,
                                                                       "choices": None}}
    amounts = {c.amount for c in (choose(rng, no_limit, []) for _ in range(300)) if c.action == "bet"}
    assert amounts and all(10 <= a <= 990 for a in amounts) and len(amounts) > 5
    assert "fold" not in {choose(rng, no_limit, []).action for _ in range(300)}  # no fold when a check is free
    draw = {**fixed, "draw": True}
    draws = [choose(rng, draw, ["As", "Kd", "7c", "7h", "2s"], draw_cap=2) for _ in range(300)]
    assert {c.action for c in draws} == {"draw", "stand_pat"}
    assert all(c.cards is None or 1 <= len(c.cards) <= 2 for c in draws)
    stud = {**fixed, "fold": False, "call": None, "bring_in": 5, "bet_or_raise": {"kind": "complete", "min_to": 10,
                                                                                 "max_to": 10, "choices": [10]}}
    assert {choose(rng, stud, []).action for _ in range(100)} == {"bring_in", "complete"}


def test_every_variant_dealt_acted_and_paid(sim_table: Callable[..., SimTable]) -> None:
    """One table opened for each variant in turn (by the bot floor's signed-off `open`), two hands
    each: every hand settled, its chips adding up, the shoe's cards dealt once each, the draws'
    discards read by the discard reader, the PHH export replaying to the stacks paid."""
    table = sim_table(game="holdem", seed=41, seats=6)
    for game, structure in EVERY_VARIANT:
        seats = min(6, VARIANTS[game].max_players)
        dealer = table.dealer()
        assert isinstance(dealer, PokerDealer)
        dealer.game, dealer.structure, dealer.seats = game, structure, seats
        try:
            log = dealer.play(2)
        finally:
            dealer.close()
        assert not log.faults, log.faults
        records = poker_ledger(table.state_dir, dealer, log.first_hand, 2)
        assert {(r["game"], r["structure"]) for r in records} == {(game, structure)}
        if any(street.draw for street in VARIANTS[game].streets):
            assert any(r["discards"] for r in records), f"{game}: nobody drew"
    assert table.controller is not None and table.controller.starts == 1


@pytest.mark.parametrize(("game", "structure", "seats", "seed"), KILL_TABLES)
def test_poker_sigkill_mid_hand(sim_table: Callable[..., SimTable], game: str, structure: str, seats: int,
                                seed: int) -> None:
    """The short run of `make test`: 3 SIGKILLs mid-hand in 4 hands (20 in `make soak`, below). Each restart continues the last
    state seen by at most the one step in flight; every hand is journaled once, settled with the
    stacks it must (its nets and rake adding up, its PHH replaying to them, the next hand starting
    from them), with exactly the cards that left the shoe; no down card on the public feed."""
    table = sim_table(game=game, structure=structure, seed=seed, seats=seats, restart_s=0.05, restart_burst=4)
    poker_kill_run(table, seed, kills=3, hands=4)


@pytest.mark.soak
@pytest.mark.parametrize(("game", "structure", "seats", "seed"), KILL_TABLES)
def test_poker_sigkill_mid_hand_twenty_times(sim_table: Callable[..., SimTable], game: str, structure: str,
                                             seats: int, seed: int) -> None:
    """The full run (`make soak`): 20 SIGKILLs mid-hand in 30 hands, checked as the short run."""
    table = sim_table(game=game, structure=structure, seed=seed + 100, seats=seats, restart_s=0.05, restart_burst=21)
    poker_kill_run(table, seed + 100, kills=20, hands=30)
