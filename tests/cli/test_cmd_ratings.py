"""`croupier demo --rated P` then `croupier ratings --state DIR --json`: every session against an independent count from the journal's rows and the published edges, within one cent."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

PUBLISHED = {"uth": {"ante": Fraction("0.021850"), "trips": Fraction("0.034979")},
             "3cp": {"ante": Fraction("0.033730"), "pair_plus": Fraction("0.023167")}}
"""The issue's published house edges of the standard profile (four places of a percent), per circle."""


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=180, check=False)


def by_hand(state: Path) -> dict[str, dict[str, Any]]:
    """Card -> its hands, bets, win and theo under the published edges, counted from the journal's rows alone: who
    sat where replayed from the `player` events, each settled hand's spots read at its closing event."""
    db = sqlite3.connect(state / "journal.sqlite3")
    events = db.execute("SELECT id, kind, body FROM events WHERE kind IN ('player', 'close') ORDER BY id").fetchall()
    hands = db.execute("SELECT closed_event, status, record FROM hands ORDER BY closed_event").fetchall()
    timeline = sorted([(i, "event", kind, json.loads(body)) for i, kind, body in events]
                      + [(i, "hand", status, json.loads(rec)) for i, status, rec in hands], key=lambda x: x[0])
    seats: dict[int, dict[str, Any]] = {}
    out: dict[str, dict[str, Any]] = {}
    for _, what, kind, body in timeline:
        if what == "event" and kind == "close":
            seats.clear()
        elif what == "event":
            seat = body["seat"]
            if body["action"] == "in":
                seats = {s: p for s, p in seats.items() if p["card"] != body["card"]}
                seats[seat] = {"card": body["card"], "away": False}
            elif body["action"] == "out":
                seats.pop(seat, None)
            else:
                seats[seat]["away"] = body["action"] == "away"
        elif kind == "settled":
            nets = {s["seat"]: s["net"] for s in body["settlement"]["spots"]}
            for spot in body["spots"]:
                sat = seats.get(spot["seat"])
                if sat is None or sat["away"] or not any(spot["bets"].values()):
                    continue
                mine = out.setdefault(sat["card"], {"hands": [], "bets": {}, "win": 0, "theo": Fraction(0)})
                mine["hands"].append({"hand": body["hand"], "seat": spot["seat"]})
                for circle, amount in spot["bets"].items():
                    mine["bets"][circle] = mine["bets"].get(circle, 0) + amount
                    mine["theo"] += amount * PUBLISHED[body["game"]].get(circle, Fraction(0))
                mine["win"] += nets[spot["seat"]]
    db.close()
    return out


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_the_ratings_after_a_rated_demo_equal_an_independent_count_within_a_cent(tmp_path: Path, game: str) -> None:
    state = tmp_path / "state"
    done = croupier("demo", "--game", game, "--hands", "40", "--rated", "0.6", "--quiet", "--seed", "5",
                    "--kill", "2", "--state", str(state))  # the controller killed twice mid-hand: sessions go on
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["restarts"] == 2
    listed = croupier("ratings", "--state", str(state), "--json", "--dealers", "--table", f"sim-{game}-1")
    assert listed.returncode == 0, listed.stderr
    lines = [json.loads(line) for line in listed.stdout.splitlines()]
    sessions = [r for r in lines if r["kind"] == "session"]
    expected = by_hand(state)
    assert sorted(s["player"] for s in sessions) == sorted(expected) and len(sessions) >= 6  # 3 seats x 4 players
    for s in sessions:
        mine = expected[s["player"]]
        assert s["hand_numbers"] == mine["hands"] and s["bets"] == mine["bets"] and s["win"] == mine["win"]
        assert s["theo_complete"] and abs(s["theo_cents"] - mine["theo"]) <= 1, (s["theo"], float(mine["theo"]))
        assert abs(Fraction(s["theo"]) - mine["theo"]) < Fraction(1, 100) * max(1, s["hands"])
        assert s["table"] == f"sim-{game}-1" and len(s["profile_sha256"]) == 64
    table = croupier("ratings", "--state", str(state), "--csv").stdout.splitlines()
    rows = list(__import__("csv").DictReader(table))
    assert [(r["player"], int(r["hands"]), int(r["bet_ante"]), int(r["win"]), r["theo"], r["theo_complete"])
            for r in rows] == [(s["player"], s["hands"], s["bets"]["ante"], s["win"], s["theo"], "true") for s in sessions]
    unrated = next(r for r in lines if r["kind"] == "unrated")
    assert unrated["spot_hands"] > 0  # two bots without a card, the hands between two players, the breaks
    dealers = {r["dealer"]: r for r in lines if r["kind"] == "dealer"}
    assert sum(d["hands"] for d in dealers.values()) == 40 and dealers["bot-dealer-ana"]["hands"] == 25


def test_ratings_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    done = croupier("ratings", "--state", str(tmp_path / "none"))
    assert done.returncode == 2 and "croupier ratings:" in done.stderr
    done = croupier("ratings", "--state", str(tmp_path), "--reinvestment", "2")
    assert done.returncode == 2 and "between 0 and 1" in done.stderr
    refused = croupier("demo", "--game", "holdem", "--rated", "0.5")
    assert refused.returncode == 2 and "--rated is for the house games" in refused.stderr
