"""A smart table's chip alerts per table and shift, and each dealer's figures, in a real PostgreSQL: hands worked by hand here, then a demo table's journal with faults injected, archived as the pit's catch-up does, against the journal itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli import main as croupier
from engine.ratings import chip_alerts
from firmware_host.service.journal import Journal
from floor.archive import Archive
from floor.migrate import migrate
from floor.reports import DealerFigures, ShiftAlerts
from tests.floor.test_floor_ratings import archive
from tests.floor.test_floor_stats import DAY, house
from tests.sim.test_chip_demo import FAST_SCAN

ALERTS = ("mispays", "moved_chips", "foreign_chips", "tray_differences")


def event(n: int, kind: str, at: str, hand: int, **body: Any) -> dict[str, Any]:
    from datetime import datetime
    line = {"event": n, "kind": kind, "at": at, "ts": datetime.fromisoformat(at).timestamp(), "hand": hand,
            "game": "uth" if kind == "open" else None}
    return {**line, "body": body} if body else line


def smart(hand: int, closed: str, chain: int, notes: list[str], flags: list[int]) -> dict[str, Any]:
    """A UTH hand's history line read from the chips: its reader's notes by kind, the tray's flags by value."""
    line = house(hand, "uth", closed, [{"seat": 1, "bets": {"ante": 100, "blind": 100}, "play": None}], 200)
    line["chain"] = {"event": chain}
    line["chips"] = {"source": "chips", "notes": [{"kind": k} for k in notes]}
    if flags:
        line["tray"] = {"movements": [], "tray_change": None, "difference": None,
                        "flags": [{"value": v, "hand": hand, "between": False, "event": chain} for v in flags]}
    return line


HANDS = [  # the gaming day starts 06:00 UTC; day shift 06:00-14:00, swing 14:00-22:00
    smart(1, f"{DAY}T10:30:00+00:00", 3, ["mispay", "chips_moved", "chips_moved"], []),
    smart(2, f"{DAY}T11:00:00+00:00", 4, ["mispay"], [-500]),
    smart(3, f"{DAY}T15:00:00+00:00", 6, ["foreign_chip"], [2500, -500]),
    smart(4, f"{DAY}T15:30:00+00:00", 7, [], []),
]
EVENTS = [event(1, "open", f"{DAY}T10:00:00+00:00", 1), event(2, "dealer", f"{DAY}T10:00:00+00:00", 1, dealer="ana", action="in"),
          event(5, "dealer", f"{DAY}T14:00:00+00:00", 3, dealer="bo", action="in")]


@pytest.fixture
def smart_floor(db: str) -> str:
    migrate(db)
    with Archive(db, pit="pit-1") as a:
        a.write("uth-9", HANDS)
        a.write("uth-1", [house(1, "uth", f"{DAY}T10:00:00+00:00", [{"seat": 1, "bets": {"ante": 5}}], 5)])  # no reader
        a.write_events("uth-9", EVENTS)
        a.rate("uth-9")
    return db


def out_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert croupier(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_the_alerts_are_counted_per_table_and_shift(smart_floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = out_json(capsys, "stats", "--db", smart_floor, "--json", "--day", DAY)
    assert rep["alerts"] and all(a.keys() == ShiftAlerts.__annotations__.keys() for a in rep["alerts"])  # its type's keys
    assert [(a["table"], a["shift"], a["chip_hands"], *(a[k] for k in ALERTS), a["tray_difference"]) for a in rep["alerts"]] == [
        ("uth-9", "day", 2, 2, 2, 0, 1, -500), ("uth-9", "swing", 2, 0, 0, 1, 2, 2000)]
    tables = {t["table"]: t for t in rep["tables"]}
    assert tables["uth-9"]["alerts"] == {"chip_hands": 4, "mispays": 2, "moved_chips": 2, "foreign_chips": 1,
                                         "tray_differences": 3, "tray_difference": 1500}
    assert tables["uth-1"]["alerts"] is None  # no chip reader: no alerts, not zero alerts
    swing = out_json(capsys, "stats", "--db", smart_floor, "--json", "--day", DAY, "--shift", "swing")
    assert [(a["shift"], a["foreign_chips"]) for a in swing["alerts"]] == [("swing", 1)]
    capsys.readouterr()
    assert croupier(["stats", "--db", smart_floor, "--day", DAY]) == 0
    text = capsys.readouterr().out
    assert "uth-9          2026-12-01 day    chips read 2 hands: mispays 2, moved chips 2, foreign chips 0, " \
           "tray differences 1 (-500)" in text


def test_each_dealers_figures_with_the_chips_their_hands_caught(smart_floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = out_json(capsys, "stats", "--dealers", "--db", smart_floor, "--json", "--day", DAY)
    by = {d["dealer"]: d for d in rep["dealers"]}
    assert all(d.keys() == DealerFigures.__annotations__.keys() for d in rep["dealers"])  # its type's keys
    assert set(by) == {"ana", "bo"} and by["ana"]["table"] == "uth-9" and by["ana"]["pit"] == "pit-1"
    assert (by["ana"]["turns"], by["ana"]["time_s"], by["ana"]["hands"], by["ana"]["hands_per_hour"]) == (1, 4 * 3600, 2, 0.5)
    assert {k: by["ana"][k] for k in ALERTS} == {"mispays": 2, "moved_chips": 2, "foreign_chips": 0, "tray_differences": 1}
    assert {k: by["bo"][k] for k in ALERTS} == {"mispays": 0, "moved_chips": 0, "foreign_chips": 1, "tray_differences": 2}
    assert by["bo"]["on_table"] and by["bo"]["average_seats"] == 1 and by["ana"]["started"].startswith(f"{DAY}T10:00")
    assert out_json(capsys, "stats", "--dealers", "--db", smart_floor, "--json", "--day", "2026-11-30")["dealers"] == []
    assert [d["dealer"] for d in out_json(capsys, "stats", "--dealers", "--db", smart_floor, "--json",
                                          "--pit", "pit-1", "--table", "uth-9")["dealers"]] == ["ana", "bo"]
    capsys.readouterr()
    assert croupier(["stats", "--dealers", "--db", smart_floor]) == 0
    assert "ana          uth-9          1 turns, 4.00 h, 2 hands (0.5/h), seats 1.0, voids 0, corrections 0, faults 0, " \
           "mispays 2, moved chips 2, foreign chips 0, tray differences 1" in capsys.readouterr().out


def test_the_pits_figures_carry_the_dealers_of_its_tables(smart_floor: str) -> None:
    from datetime import date
    from floor.figures import read_figures
    figures = read_figures(smart_floor, ["uth-9", "uth-1"], date.fromisoformat(DAY))
    assert [(d["dealer"], d["table"], d["hands"], d["mispays"]) for d in figures["dealers"]] == [
        ("ana", "uth-9", 2, 2), ("bo", "uth-9", 2, 0)]
    assert read_figures(smart_floor, ["uth-1"], date.fromisoformat(DAY))["dealers"] == []


@pytest.mark.parametrize("argv", [["--shift", "day"], ["--csv"], ["--by-hour", "--json"], ["--tournaments"]])
def test_the_dealers_report_takes_only_its_own_options(argv: list[str], db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert croupier(["stats", "--dealers", "--db", db, *argv]) == 2
    assert "--dealers is a report of its own" in capsys.readouterr().err


def test_an_archive_older_than_the_alerts_is_told_to_migrate(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg
    migrate(db)
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("DROP VIEW dealer_figures")
    assert croupier(["stats", "--dealers", "--db", db]) == 1
    err = capsys.readouterr().err
    assert "croupier pit migrate" in err and "Traceback" not in err


def test_a_demo_tables_faults_archived_agree_with_its_journal(tmp_path: Path, db: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Chip faults injected at a simulated smart table: what the archive counts per shift and per dealer is what
    the journal's hand records hold, and the archive's dealer figures are `croupier ratings --dealers`'s. Seed 9's
    two hands meet each kind asked for (a past-post in the first, a mispay and a foreign chip in the second: seed 7
    took 10 hands to meet two kinds)."""
    state = tmp_path / "sim-uth-chips"
    done = subprocess.run([sys.executable, "-m", "cli", "demo", "--chips", "--faults", "mispay=0.3,past_post=0.3,foreign=0.1", "--rated", "0.5",
                           "--hands", "2", "--quiet", "--seed", "9", "--state", str(state), "--chip-scan", str(FAST_SCAN)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    caught = json.loads(done.stdout.splitlines()[-1])["chips"]["caught"]
    journal = Journal.open(state, readonly=True)
    try:
        records = [row.record for row in journal.hands()]
    finally:
        journal.close()
    expected = {k: sum(chip_alerts(r)[k] for r in records) for k in ALERTS}
    assert expected["mispays"] == caught.get("mispay", 0) and all(expected[k] > 0 for k in ALERTS[:3])
    migrate(db)
    archive(db, state, "sim-uth-chips")
    rep = out_json(capsys, "stats", "--db", db, "--json")
    assert {k: sum(a[k] for a in rep["alerts"]) for k in ALERTS} == expected
    assert sum(a["chip_hands"] for a in rep["alerts"]) == len(records) == 2
    capsys.readouterr()
    assert croupier(["ratings", "--state", str(state), "--dealers", "--json"]) == 0
    journaled = capsys.readouterr().out.splitlines()
    dealers = [json.loads(line) for line in journaled if json.loads(line)["kind"] == "dealer"]
    archived = out_json(capsys, "stats", "--dealers", "--db", db, "--json")["dealers"]
    assert dealers and [(d["dealer"], d["hands"], d["turns"], *(d[k] for k in ALERTS)) for d in dealers] == [
        (d["dealer"], d["hands"], d["turns"], *(d[k] for k in ALERTS)) for d in archived]
