"""The tournament file: what it holds, its defaults, and a clear error for each bad field."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

import engine
from engine.errors import TournamentError
from engine.tournament import DEFAULT_PAYOUTS, BlindLevel, Break, parse_tournament
from tests.engine.tournament.helpers import SUNDAY


def test_the_file_holds_the_terms_of_000s_200_plus_20() -> None:
    t = parse_tournament(SUNDAY, "sunday.toml")
    assert (t.name, t.buy_in, t.fee, t.starting_stack) == ("Sunday 200+20", 20000, 2000, 10000)
    assert t.stages == (BlindLevel(25, 50, 0, 1200), BlindLevel(50, 100, 25, 1200), Break(600),
                        BlindLevel(100, 200, 100, 1200))
    assert t.levels[2] == BlindLevel(100, 200, 100, 1200)
    assert (t.tables, t.break_order, t.chips) == (("T1", "T2", "T3"), ("T3", "T2"), (25, 100, 500))
    assert (t.late_registration_until_level, t.re_entries, t.hand_for_hand, t.clock_call_s) == (2, 1, True, 60)
    assert t.payouts == DEFAULT_PAYOUTS


def test_the_default_break_order_keeps_the_first_table_as_the_final_table() -> None:
    text = SUNDAY.replace('break_order = ["T3", "T2"]\n', "")
    assert parse_tournament(text).break_order == ("T3", "T2")


@pytest.mark.parametrize("entries", range(10, 101))
def test_the_default_payouts_pay_10_to_20_percent_of_the_field_and_add_up(entries: int) -> None:
    t = parse_tournament(SUNDAY)
    shares = t.shares_for(entries)
    assert 0.10 * entries <= len(shares) <= 0.20 * entries
    assert sum(shares) == 100 and list(shares) == sorted(shares, reverse=True)


def test_a_field_beyond_the_payout_table_is_refused_by_name() -> None:
    with pytest.raises(TournamentError, match="fields up to 100 entries, not 101"):
        parse_tournament(SUNDAY).shares_for(101)


def test_a_payout_table_of_its_own() -> None:
    text = SUNDAY + "\n[[payouts]]\nup_to = 8\nshares = [70, 30]\n\n[[payouts]]\nup_to = 30\nshares = [50, 30, 20]\n"
    t = parse_tournament(text)
    assert (t.shares_for(8), t.shares_for(9)) == ((70, 30), (50, 30, 20))


@pytest.mark.parametrize("old, new, error", [
    ("buy_in = 20000", "buy_in = -5", "buy_in: must be at least 1, not -5"),
    ("buy_in = 20000", "buy_in = 200.5", "buy_in: must be a whole number, not 200.5"),
    ('name = "Sunday 200+20"', "", "name: is missing"),
    ("fee = 2000", "fee = 2000\nrake = 5", "rake: unknown key"),
    ("seats_per_table = 9", "seats_per_table = 11", "seats_per_table: must be at most 10, not 11"),
    ("chips = [25, 100, 500]", "chips = [25, 110]", "chips: each denomination must be a whole multiple"),
    ("chips = [25, 100, 500]", "chips = [100, 500]", "levels[0].small_blind: 25 cannot be made with chips of 100"),
    ("big_blind = 50", "big_blind = 20", "levels[0].big_blind: must be at least the small blind (25), not 20"),
    ("duration_s = 1200\n\n[[levels]]\nsmall_blind = 50", "duration_s = 0\n\n[[levels]]\nsmall_blind = 50",
     "levels[0].duration_s: must be at least 1, not 0"),
    ("break_s = 600", "break_s = 600\nante = 5", "levels[2].ante: unknown key"),
    ('break_order = ["T3", "T2"]', 'break_order = ["T9"]', "tables.break_order: names 'T9'"),
    ('break_order = ["T3", "T2"]', 'break_order = ["T3"]', "must name every table but the final one"),
    ('use = ["T1", "T2", "T3"]', 'use = ["T1", "T1"]', "tables.use: names a table twice"),
    ("late_registration_until_level = 2", "late_registration_until_level = 7", "there are 3 levels, not 7"),
    ("starting_stack = 10000", "starting_stack = 10010", "starting_stack: 10010 cannot be made with chips of 25"),
    ("hand_for_hand", "hand_for_hand = 1\nx", "not TOML"),
])
def test_each_bad_field_is_named_with_the_reason(old: str, new: str, error: str) -> None:
    assert old in SUNDAY or old == "hand_for_hand"
    text = SUNDAY.replace(old, new, 1) if old in SUNDAY else SUNDAY + new
    with pytest.raises(TournamentError, match=re.escape(error)) as caught:
        parse_tournament(text, "sunday.toml")
    assert str(caught.value).startswith("tournament file sunday.toml: ")


@pytest.mark.parametrize("payouts, error", [
    ("[[payouts]]\nup_to = 10\nshares = [60, 30]\n", "payouts[0].shares: must add up to 100"),
    ("[[payouts]]\nup_to = 10\nshares = [30, 70]\n", "must not pay a place more than the place above it"),
    ("[[payouts]]\nup_to = 1\nshares = [60, 40]\n", "pays 2 places to a field of at most 1"),
    ("[[payouts]]\nup_to = 10\nshares = [100]\n[[payouts]]\nup_to = 10\nshares = [100]\n",
     "payouts[1].up_to: must be above the row before's (10)"),
])
def test_a_bad_payout_table_is_named(payouts: str, error: str) -> None:
    with pytest.raises(TournamentError, match=re.escape(error)):
        parse_tournament(SUNDAY + "\n" + payouts)


def test_a_schedule_must_begin_and_end_with_play() -> None:
    with pytest.raises(TournamentError, match="must begin and end with a level of play"):
        parse_tournament(SUNDAY + "\n[[levels]]\nbreak_s = 300\n")


@pytest.mark.skipif(engine.COMPILED, reason="doctest finds no function in a module compiled by mypyc: the pure form runs them")
def test_the_doctests_of_the_tournament_modules() -> None:
    for name in ("config", "places", "clock", "seating", "chip_race"):
        module = importlib.import_module(f"engine.tournament.{name}")
        failed, tried = doctest.testmod(module)
        assert tried > 0 or name == "config", module.__name__
        assert failed == 0, module.__name__
