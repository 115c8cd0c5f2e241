"""`croupier demo --tournament`: a simulated 3-table, 24-player tournament to one winner, checked from its files."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from engine.tournament import BlindLevel, PayoutRow, parse_tournament
from sim.tournament.hands import DEMO_TOURNAMENT, SimError, TournamentRun, demo_tournament

ROOT = Path(__file__).resolve().parents[2]


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def hands_of(state: Path) -> dict[str, list[dict[str, Any]]]:
    return {d.name: [json.loads(line) for line in (d / "hands.jsonl").read_text().splitlines()]
            for d in sorted(state.iterdir()) if d.is_dir()}


def level_at(played_s: float, text: str = DEMO_TOURNAMENT) -> tuple[int, BlindLevel | None]:
    """The level number and level (None on a break) of a schedule, `played_s` after the start."""
    t, number = 0.0, 0
    stages = parse_tournament(text).stages
    for i, stage in enumerate(stages):
        number += isinstance(stage, BlindLevel)
        if i == len(stages) - 1 or played_s < t + stage.duration_s:
            return number, stage if isinstance(stage, BlindLevel) else None
        t += stage.duration_s
    raise AssertionError


def covered(places: list[dict[str, Any]]) -> list[int]:
    """The places the finishes cover, a shared place counting once per player sharing it."""
    count: dict[int, int] = defaultdict(int)
    for p in places:
        count[p["place"]] += 1
    return sorted(place + k for place, n in count.items() for k in range(n))


def check_the_run(state: Path, line: dict[str, Any], *, players: int, text: str, buy_in: int, stack: int,
                  colour_ups: set[tuple[int, int]], break_order: list[str]) -> dict[str, Any]:
    """Every rule the tournament's files can show: one winner, every place covered, prizes adding up to the
    pool, chips conserved every hand, each hand at its level (never on a break), the chip total changed
    only by the races, tables broken in order and within one player at every round. Returns the record."""
    assert set(line) == {"entries", "hands", "prize_pool", "places"}
    assert (line["entries"], line["prize_pool"]) == (players, players * buy_in)    # the fees stay out of the pool
    places = line["places"]
    assert [p["place"] for p in places].count(1) == 1 and covered(places) == list(range(1, players + 1))
    assert sorted(p["player"] for p in places) == [f"bot{i:02d}" for i in range(1, players + 1)]
    assert sum(p["prize"] for p in places) == line["prize_pool"]
    record: dict[str, Any] = json.loads((state / "tournament.json").read_text())
    hands = hands_of(state)
    assert sum(len(h) for h in hands.values()) == line["hands"] > 0
    for table, lines in hands.items():
        for h in lines:
            assert h["chips_before"] == h["chips_after"], (table, h)            # chips conserved every hand
            number, level = level_at(h["at_s"], text)                            # the level at the hand's start
            assert level is not None and h["level"] == number, (table, h)        # never a hand begun on a break
            assert (h["blinds"], h["ante"]) == ([level.small_blind, level.big_blind], level.ante)
    # the chip total changes only by the chip races, each by the rounding its rule makes, said in the record
    races = record["chip_races"]
    assert {(r["colour"], r["into"]) for r in races} == colour_ups
    assert record["chip_total"] == players * stack + sum(r["change"] for r in races)
    assert all(abs(r["change"]) < r["into"] * (1 + len(r["kept_in"])) for r in races)
    # tables broken in the break order; at every round the tables in play are within one player
    assert [b["table"] for b in record["breaks"]] == break_order
    rounds: dict[float, list[int]] = defaultdict(list)
    for lines in hands.values():
        for h in lines:
            rounds[h["at_s"]].append(h["players"])
    assert all(max(n) - min(n) <= 1 for n in rounds.values())
    assert record["moves"], "balancing or breaking moved nobody"
    assert all(m["from_table"] != m["to_table"] for m in record["moves"])
    for r in record["hand_for_hand"]:   # every table in play dealt exactly one hand in the round
        assert sorted(t for t, lines in hands.items() for h in lines if h["at_s"] == r["at_s"]) == r["tables"]
    return record


def test_the_demo_tournament_runs_to_one_winner_every_rule_checked_from_its_files(tmp_path: Path) -> None:
    done = croupier("demo", "--tournament", "--in-process", "--players", "24", "--tables", "3", "--seed", "1",
                    "--state", str(tmp_path))
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout.strip().splitlines()[-1])
    check_the_run(tmp_path, line, players=24, text=DEMO_TOURNAMENT, buy_in=20000, stack=10000,
                  colour_ups={(25, 100), (100, 500)}, break_order=["T3", "T2"])
    assert [p["prize"] for p in line["places"][:3]] == [240000, 144000, 96000]  # 24 entries pay 3: 50/30/20


def test_hand_for_hand_at_the_bubble_holds_every_table_and_shares_the_round(tmp_path: Path) -> None:
    # 12 places paid of 24: the bubble comes with 13 left on two tables. Seed 1 loses two players in one
    # hand-for-hand round (seed 6 did before the dead button); they finish by their stacks at the start of their hands.
    paying_12 = PayoutRow(30, (20, 15, 12, 10, 9, 8, 7, 6, 5, 4, 2, 2))
    tournament = dataclasses.replace(demo_tournament(3), payouts=(paying_12,))
    run = TournamentRun(tmp_path, players=24, tables=3, seed=1, tournament=tournament)
    line = run.run()
    assert sum(p["prize"] for p in line["places"]) == line["prize_pool"]
    hfh = run.record["hand_for_hand"]
    assert hfh and all(r["tables"] == ["T1", "T2"] for r in hfh)
    hands = hands_of(tmp_path)
    for r in hfh:   # every table in play dealt exactly one hand in the round
        assert sorted(t for t, lines in hands.items() for h in lines if h["at_s"] == r["at_s"]) == r["tables"]
    burst = next(r for r in hfh if len(r["out"]) > 1)
    stacks = {p: s for lines in hands.values() for h in lines if h["at_s"] == burst["at_s"] for p, s in h["out"].items()}
    finish = {p["player"]: p["place"] for p in line["places"]}
    ranked = sorted(stacks, key=lambda p: (finish[p], -stacks[p]))
    assert [stacks[p] for p in ranked] == sorted(stacks.values(), reverse=True)
    assert {finish[p] for p in stacks} in ({12, 13}, {12})   # 12th and 13th, or 12th shared by equal stacks


def test_bad_tournament_arguments_exit_2_with_a_reason() -> None:
    too_many = croupier("demo", "--tournament", "--players", "40", "--tables", "2")
    assert too_many.returncode == 2 and "40 players do not fit on 2 tables of 9" in too_many.stderr
    assert "Traceback" not in too_many.stderr
    stray = croupier("demo", "--players", "3")
    assert stray.returncode == 2 and "(and --in-process, --director) are for --tournament" in stray.stderr
    both = croupier("demo", "--tournament", "--director", "--in-process")
    assert both.returncode == 2 and "--director drives the devices' tables: not with --in-process" in both.stderr
    with pytest.raises(SimError, match="at least two players"):
        TournamentRun("unused", players=1)


def test_a_run_is_replayed_from_its_seed(tmp_path: Path) -> None:
    first = TournamentRun(tmp_path / "a", players=12, tables=2, seed=5).run()
    again = TournamentRun(tmp_path / "b", players=12, tables=2, seed=5).run()
    other = TournamentRun(tmp_path / "c", players=12, tables=2, seed=6).run()
    assert first == again and first != other
    assert (tmp_path / "a" / "T1" / "hands.jsonl").read_text() == (tmp_path / "b" / "T1" / "hands.jsonl").read_text()
