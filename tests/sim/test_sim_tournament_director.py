"""`croupier demo --tournament --director`: the production director (`floor/director/floorman.py`) drives real
`croupier run` tables with emulated shoes and bot dealers to one winner: seats drawn, players placed, tables
broken and balanced, hand-for-hand at the bubble holding both tables, every journal's hands settled."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.tournament import parse_tournament
from cli.demo import tournament_table
from firmware_host.service.journal import Journal
from sim.tournament.director import DirectorTournamentRun
from tests.sim.test_sim_tournament import ROOT
from tests.sim.test_sim_tournament_devices import SIX, state  # noqa: F401 (the fixture)


def events(state_dir: Path, kind: str) -> list[dict[str, Any]]:
    conn = sqlite3.connect(state_dir / "director" / "director.sqlite")
    try:
        return [json.loads(b) for (b,) in conn.execute("SELECT body FROM events WHERE kind = ? ORDER BY id", (kind,))]
    finally:
        conn.close()


def check_places(line: dict[str, Any], players: int) -> None:
    assert line["entries"] == players and line["hands"] > 0
    assert sorted(p["player"] for p in line["places"]) == sorted(f"bot{i:02d}" for i in range(1, players + 1))
    assert sum(p["prize"] for p in line["places"]) == line["prize_pool"]
    assert [p["place"] for p in line["places"]][0] == 1


@pytest.mark.soak
def test_six_players_on_two_tables_driven_by_the_director(state: Path) -> None:  # noqa: F811 (the fixture)
    line = DirectorTournamentRun(state, tournament_table, parse_tournament(SIX, "six.toml"), SIX, players=6,
                                 seed=2).run()
    check_places(line, 6)
    assert [p["prize"] for p in line["places"][:3]] == [30000, 18000, 12000]
    rounds = [e for e in events(state, "hand-for-hand") if e["step"] == "round"]
    assert rounds and all(sorted(r["hands"]) == ["T1", "T2"] for r in rounds)      # the bubble held both tables
    assert [m["table"] for m in events(state, "moves") if m["close"]] == ["T2"]    # T2 broke, into T1
    breaks = events(state, "break")                                                # the break colours up the 25s
    assert breaks[0]["step"] == "hold" and breaks[0]["colour"] == 25 and breaks[0]["into"] == 100
    raced = [e for e in breaks if e["step"] == "raced"]
    assert raced and all(s["after"] % 100 == 0 for e in raced for s in e["seats"])   # no 25 left at a table
    assert any(e["step"] == "release" for e in breaks)
    draws = {e["table"]: e for e in events(state, "button")}                     # each shoe drew its button
    assert sorted(draws) == ["T1", "T2"] and all(len(d["cards"]) == 3 for d in draws.values())
    for name, draw in draws.items():                                               # the first hand dealt with it
        journal = Journal.open(state / name, readonly=True)
        try:
            first = min(journal.hands(), key=lambda row: row.hand)
        finally:
            journal.close()
        assert first.record["button"] == draw["button"], (name, draw)


@pytest.mark.soak
def test_the_demo_tournament_driven_by_the_director_24_players_3_tables(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "demo", "--tournament", "--director",
                           "--players", "24", "--tables", "3", "--state", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    check_places(line, 24)
    broke = [m["table"] for m in events(tmp_path, "moves") if m["close"]]
    assert broke == ["T3", "T2"]                                                   # the break order
    assert any(e["step"] == "raced" for e in events(tmp_path, "break"))            # a colour-up raced
