"""`croupier demo --tournament` on emulated devices: a controller, shoe and bot dealer per table, the eliminations read from the feeds, every rule and every journal checked."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.tournament import parse_tournament
from cli.demo import tournament_table
from firmware_host.service.journal import Journal
from sim.tournament.hands import DEMO_TOURNAMENT
from sim.tournament.devices import DeviceTournamentRun
from tests.sim.test_sim_tournament import ROOT, check_the_run, hands_of

SIX = """
name = "Six 100+10"
buy_in = 10000
fee = 1000
starting_stack = 2000
seats_per_table = 3
late_registration_until_level = 0
chips = [25, 100]

[tables]
use = ["T1", "T2"]

[[levels]]
small_blind = 25
big_blind = 50
duration_s = 300

[[levels]]
small_blind = 50
big_blind = 100
ante = 25
duration_s = 300

[[levels]]
break_s = 120

[[levels]]
small_blind = 100
big_blind = 200
ante = 100
duration_s = 300

[[levels]]
small_blind = 200
big_blind = 400
ante = 100
duration_s = 300

[[levels]]
small_blind = 500
big_blind = 1000
ante = 200
duration_s = 300

[[payouts]]
up_to = 10
shares = [50, 30, 20]
"""
"""Six players on two tables of three, five-minute levels from 25/50 to 500/1000, a break that colours up
the 25s, three places paid: the bubble comes with four left, two a table, and is played hand-for-hand."""


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """The run's directory, in memory when the machine has /dev/shm (a journal's fsync costs nothing there)."""
    shm = Path("/dev/shm")
    path = Path(tempfile.mkdtemp(dir=shm, prefix="croupier-tournament-")) if shm.is_dir() else tmp_path / "state"
    yield path
    shutil.rmtree(path, ignore_errors=True)


def journal_of(table_dir: Path) -> list[dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "cli", "history", "--json", "--last", "0",
                           "--state", str(table_dir)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def check_the_journals(state: Path) -> None:
    """Each table's journal (`croupier history --json`): every hand settled and balanced, and the same hands
    as its hands.jsonl: number, button, players, chips, blinds and ante (in the chips counted then)."""
    for table, lines in hands_of(state).items():
        journal = journal_of(state / table)
        assert [h["hand"] for h in journal] == [h["hand"] for h in lines], table
        for row, line in zip(journal, lines):
            assert row["status"] == "settled", (table, row["hand"])
            results = row["results"]
            assert sum(n["net"] for n in results["net"]) + results["rake"] == 0 and results["rake"] == 0
            record, unit = row["hand_record"], line["unit"]
            assert record["button"] == line["button"], (table, line)
            # everyone seated is dealt in, but a player moved in between the button and the blinds (dead button)
            dealt, chips = len(record["stacks"]), sum(record["stacks"].values()) * unit
            assert dealt == line["players"] and chips == line["chips_before"] or \
                dealt < line["players"] and chips < line["chips_before"], (table, line)
            stakes = record["stakes"]
            assert [b * unit for b in stakes["blinds"]] == line["blinds"], (table, line)     # the level's blinds
            assert stakes["antes"] * unit == line["ante"], (table, line)
            out = {seat for seat, n in ((str(n["seat"]), n["net"]) for n in results["net"])
                   if record["stacks"][seat] + n == 0}
            assert len(out) == len(line["out"]), (table, line)    # the players out are those the feed showed broke


def test_six_players_on_two_tables_play_to_one_winner_on_the_devices(state: Path) -> None:
    run = DeviceTournamentRun(state, tournament_table, players=6, tables=2, seed=2,
                              tournament=parse_tournament(SIX, "six.toml"))
    line = run.run()
    record = check_the_run(state, line, players=6, text=SIX, buy_in=10000, stack=2000,
                           colour_ups={(25, 100)}, break_order=["T2"])
    assert [p["prize"] for p in line["places"][:3]] == [30000, 18000, 12000]
    hfh = record["hand_for_hand"]
    assert hfh and all(r["tables"] == ["T1", "T2"] for r in hfh)      # the bubble held both tables
    assert any(r["out"] for r in hfh)
    hands = hands_of(state)
    assert {h["unit"] for lines in hands.values() for h in lines} == {25, 100}   # counted in 100s after the break
    for name in ("T1", "T2"):                     # each table's shoe drew its first button: its first hand's
        journal = Journal.open(state / name, readonly=True)
        try:
            draws = [e for e in journal.events() if e.kind == "button-draw"]
            first = min(journal.hands(), key=lambda row: row.hand)
        finally:
            journal.close()
        assert len(draws) == 1 and first.record["button"] == record["buttons"][name], (name, record["buttons"])
    check_the_journals(state)


@pytest.mark.soak
def test_the_demo_tournament_on_the_devices_24_players_3_tables(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "demo", "--tournament", "--players", "24",
                           "--tables", "3", "--seed", "1", "--state", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout.strip().splitlines()[-1])
    check_the_run(tmp_path, line, players=24, text=DEMO_TOURNAMENT, buy_in=20000, stack=10000,
                  colour_ups={(25, 100), (100, 500)}, break_order=["T3", "T2"])
    check_the_journals(tmp_path)


def test_the_command_line_plays_on_the_devices_by_default_each_journal_in_its_table_directory(state: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "demo", "--tournament", "--players", "2",
                           "--tables", "1", "--seed", "1", "--state", str(state)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout.strip().splitlines()[-1])      # heads-up from the first hand
    assert line["entries"] == 2 and [p["prize"] for p in line["places"]] == [line["prize_pool"], 0] == [40000, 0]
    assert len(journal_of(state / "T1")) == line["hands"] == len(hands_of(state)["T1"])
    check_the_journals(state)
