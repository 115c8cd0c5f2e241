"""The floor's figures against an archive whose every figure is worked out by hand here: UTH and 3CP hands, a void, raked poker hands, the pit's counts."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq

from engine.paytables import read_profile
from cli import main as croupier
from floor.archive import Archive
from floor.migrate import migrate
from floor.shift_counts import selection
from firmware_host.service.history import hand_line
from firmware_host.service.journal import HandRow
from tests.firmware_host.processes import croupier_here
from tests.floor.test_floor_archive import PitTable

DAY = "2026-12-01"
PROFILE = read_profile("default")
LIMITS = {"minimum": 10, "maximum": 1000, "side_minimum": 5, "side_maximum": 100, "chip": 5}
ANTE_PLAY = Fraction(686689, 20358520)  # the default profile's Ante and Play edge per Ante (croupier math 3cp)
PAIR_PLUS = Fraction(402, 5525)  # its Pair Plus edge (1, 3, 6, 30, 40)
ANTE_BLIND_PLAY = Fraction(50643648973, 2317817502000)  # its UTH Ante + Blind + Play edge per Ante, as approved
TRIPS = Fraction(401956319543, 2317817502000)  # its Trips (paid when the player beats the dealer), as approved
BARE = PROFILE.from_text(re.sub(r"\n\[uth\.approved\]\n(?:[^\[\n].*\n?)*", "\n", PROFILE.text), "bare.toml")
"""The default profile without its approved UTH figures: a table on it has UTH's edges only from a certificate."""


def house(hand: int, game: str, closed: str, spots: list[dict[str, Any]], net: int,
          status: str = "settled", profile: Any = PROFILE) -> dict[str, Any]:
    """A house hand's `croupier history --json` line, with its bets and the house's net as given."""
    return {"hand": hand, "status": status, "burns": [], "round": {"game": game, "spots": spots},
            "settlement": {"house_net": net} if status == "settled" else None,
            "profile": {"name": profile.name, "sha256": profile.sha256, "content": profile.text},
            "limits": LIMITS, "faults": [], "reason": "shoe fault" if status == "voided" else None,
            "closed": closed}


def poker(hand: int, closed: str, rake: int) -> dict[str, Any]:
    return {"hand": hand, "status": "settled", "game": "holdem", "burns": [], "hand_record": {},
            "results": {"rake": rake, "pots": []}, "chopped": False, "faults": [], "reason": None, "closed": closed}


TCP = [  # 3cp-1, gaming day 2026-12-01 (the day starts 06:00 UTC)
    house(1, "3cp", "2026-12-01T10:00:00+00:00",
          [{"seat": 1, "bets": {"ante": 100, "pair_plus": 50}, "play": True}], 120),  # handle 100 + 50 + 100 = 250
    house(2, "3cp", "2026-12-01T10:30:00+00:00",
          [{"seat": 1, "bets": {"ante": 200}, "play": True},  # 200 + 200
           {"seat": 2, "bets": {"ante": 100}, "play": False}], -150),  # folded: 100; hand 500
    house(3, "3cp", "2026-12-01T11:00:00+00:00",
          [{"seat": 1, "bets": {"ante": 100}}], 0, status="voided"),  # every bet returned: nothing wagered
]
UTH = [  # uth-1
    house(1, "uth", "2026-12-01T05:30:00+00:00",  # before 06:00: gaming day 2026-11-30, the grave shift
          [{"seat": 1, "bets": {"ante": 100, "blind": 100, "trips": 25},
            "play": {"street": "preflop", "multiple": 4}}], 200),  # 100 + 100 + 25 + 400 = 625
    house(2, "uth", "2026-12-01T07:00:00+00:00",
          [{"seat": 1, "bets": {"ante": 50, "blind": 50}, "play": {"street": "river", "multiple": 1}}], -75),  # 150
    house(3, "uth", "2026-12-01T09:00:00+00:00",
          [{"seat": 1, "bets": {"ante": 50, "blind": 50}, "play": None}], 100),  # folded: 100
]
POKER = [poker(1, "2026-12-01T12:00:00+00:00", 10), poker(2, "2026-12-01T14:30:00+00:00", 7)]  # 2.5 h open

COUNTS = [("3cp-1", "opening", 10000), ("3cp-1", "drop", 2000), ("3cp-1", "drop", 500), ("3cp-1", "fill", 1000),
          ("3cp-1", "credit", 300), ("3cp-1", "closing", 9000), ("3cp-1", "closing", 9500),  # the latest stands
          ("uth-1", "opening", 5000), ("uth-1", "closing", 5000), ("uth-1", "drop", 0)]


@pytest.fixture
def floor(db: str) -> str:
    migrate(db)
    with Archive(db) as archive:
        archive.write("3cp-1", TCP)
        archive.write("uth-1", UTH)
        archive.write("poker-1", POKER)
    for table, kind, amount in COUNTS:
        assert croupier(["stats", kind, "--db", db, "--table", table, "--day", DAY, "--amount", str(amount)]) == 0
    # idle after 3 h without a hand (the default is 15 min): these hands, 30 min to 2.5 h apart, are all open time
    assert croupier(["stats", "gaming-day", "--db", db, "--idle", "180"]) == 0
    return db


def report(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert croupier(["stats", "--db", db, "--json", *extra]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def by_table(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["table"]: row for row in rep["tables"]}


def test_a_3cp_tables_day_every_figure_as_worked_by_hand(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = report(floor, capsys, "--day", DAY)
    assert rep["hands"] == 3 + 2 + 2  # uth-1's hand 1 closed on the gaming day before
    t = by_table(rep)["3cp-1"]
    theo = 400 * ANTE_PLAY + 50 * PAIR_PLUS  # Play's handle carries no edge of its own
    assert t["game"] == "3cp" and t["poker"] is False
    assert (t["hands"], t["voids"], t["spots"]) == (3, 1, 3)
    assert t["handle"] == 750 and t["handle_by_circle"] == {"ante": 400, "pair_plus": 50, "play": 300}
    assert t["house_win"] == 120 - 150
    assert t["average_bet"] == 250.0  # 750 over 3 spots played
    assert t["open_hours"] == 1.0  # 10:00 to 11:00
    assert (t["hands_per_hour"], t["win_per_hour"]) == (3.0, -30.0)
    assert t["theoretical"] == round(float(theo), 2)
    assert t["win_minus_theoretical"] == round(float(-30 - theo), 2)
    assert t["win_over_theoretical"] == round(float(-30 / theo), 4)
    assert t["rake"] is None
    # the counts: win = closing + credits + drop - opening - fills; hold % = win / drop
    assert (t["drop"], t["fills"], t["credits"], t["opening"], t["closing"]) == (2500, 1000, 300, 10000, 9500)
    assert t["count_win"] == 9500 + 300 + 2500 - 10000 - 1000 == 1300
    assert t["hold_pct"] == 52.0


def test_uth_and_poker_tables_day_figures(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    t = by_table(report(floor, capsys, "--day", DAY))
    uth, pk = t["uth-1"], t["poker-1"]
    assert (uth["hands"], uth["spots"], uth["handle"], uth["house_win"]) == (2, 2, 250, 25)
    assert uth["handle_by_circle"] == {"ante": 100, "blind": 100, "play": 50}
    # open from 05:30 (hand 1, the day before) on: 06:00 to 09:00 on this gaming day
    assert (uth["average_bet"], uth["open_hours"], uth["hands_per_hour"], uth["win_per_hour"]) == (125.0, 3.0, 0.67, 8.33)
    theo = 100 * ANTE_BLIND_PLAY  # the profile's approved edge per Ante, as a rating takes it; Blind and Play none
    assert uth["theoretical"] == round(float(theo), 2) and uth["win_minus_theoretical"] == round(float(25 - theo), 2)
    assert (uth["drop"], uth["count_win"], uth["hold_pct"]) == (0, 0, None)  # no drop: no hold
    assert pk["game"] == "holdem" and pk["poker"] is True
    assert (pk["hands"], pk["handle"], pk["house_win"], pk["rake"]) == (2, 0, 17, 17)
    assert (pk["average_bet"], pk["theoretical"]) == (None, None)
    assert (pk["open_hours"], pk["hands_per_hour"], pk["win_per_hour"]) == (2.5, 0.8, 6.8)
    assert pk["drop"] is None and pk["hold_pct"] is None  # nothing counted


def test_all_days_and_the_per_game_figures(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = report(floor, capsys)
    assert rep["hands"] == 8 and rep["day"] is None
    games = {g["game"]: g for g in rep["games"]}
    assert set(games) == {"3cp", "uth", "holdem"}
    uth = games["uth"]
    assert (uth["hands"], uth["handle"], uth["house_win"]) == (3, 625 + 250, 225)
    assert uth["handle_by_circle"] == {"ante": 200, "blind": 200, "trips": 25, "play": 450}
    assert uth["open_hours"] == 3.5  # 05:30-06:00 on 2026-11-30 + 06:00-09:00 on 2026-12-01
    assert games["3cp"]["house_win"] == -30 and games["holdem"]["rake"] == 17
    one = report(floor, capsys, "--table", "uth-1", "--day", "2026-11-30")
    assert one["hands"] == 1 and [r["table"] for r in one["tables"]] == ["uth-1"]
    assert one["tables"][0]["hands_per_hour"] == 2.0  # one hand over 05:30-06:00: the spell to hand 2 is cut at the day's start
    assert report(floor, capsys, "--table", "3cp-1", "--day", "2026-11-30")["tables"] == []


def test_one_shift_of_the_day(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = report(floor, capsys, "--day", DAY, "--shift", "day")
    assert rep["hands"] == 3 + 2 + 1 and rep["shift"] == "day"  # poker-1's 14:30 hand is the swing shift's
    t = by_table(rep)
    # poker-1 open 12:00-14:30: 2 h in the day shift, 0.5 h in the swing shift (from 14:00)
    assert (t["poker-1"]["hands"], t["poker-1"]["rake"], t["poker-1"]["open_hours"]) == (1, 10, 2.0)
    assert t["uth-1"]["open_hours"] == 3.0 and t["uth-1"]["hands_per_hour"] == 0.67 and t["3cp-1"]["house_win"] == -30
    assert t["3cp-1"]["drop"] is None  # the counts are the gaming day's, not a shift's
    swing = report(floor, capsys, "--day", DAY, "--shift", "swing")
    assert swing["hands"] == 1 and [(r["table"], r["rake"]) for r in swing["tables"]] == [("poker-1", 7)]
    assert swing["tables"][0]["open_hours"] == 0.5
    assert croupier(["stats", "--db", floor, "--shift", "night"]) == 1
    assert "no shift 'night' (the shifts: day, swing, grave)" in capsys.readouterr().err


def test_the_gaming_day_start_and_the_shifts(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    with psycopg.connect(floor) as conn:
        shifts = dict(conn.execute("SELECT table_name || ':' || hand, shift FROM hand_figures").fetchall())
    assert shifts["uth-1:1"] == "grave" and shifts["uth-1:2"] == "day" and shifts["poker-1:2"] == "swing"
    assert croupier(["stats", "gaming-day", "--db", floor, "--starts", "00:00"]) == 0
    assert report(floor, capsys, "--day", DAY)["hands"] == 8  # uth-1's 05:30 hand is now on 2026-12-01
    assert croupier(["stats", "gaming-day", "--db", floor, "--starts", "06:00", "--time-zone", "America/New_York"]) == 0
    # New York is UTC-5 in December: up to 10:30 UTC is before 06:00 there, on 2026-11-30's gaming day;
    # 3cp-1's hand 3 at 11:00 UTC (06:00 there) and the poker hands are on 2026-12-01's
    assert report(floor, capsys, "--day", DAY)["hands"] == 3
    assert report(floor, capsys, "--day", "2026-11-30")["hands"] == 5


def test_a_profile_text_not_its_sha256_gives_no_theoretical(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    migrate(db)
    forged = dict(TCP[0], profile={"name": "default", "sha256": "ab" * 32, "content": PROFILE.text})
    with Archive(db) as archive:
        archive.write("3cp-2", [forged, TCP[1]])  # hand 2 under the true profile
    t = by_table(report(db, capsys))["3cp-2"]
    assert t["handle"] == 250 + 500 and t["theoretical"] is None  # hand 1's edges are unknown, so the sum's are
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT DISTINCT profile_sha256 FROM bet_edges").fetchall() == [(PROFILE.sha256,)]


def test_csv_has_a_row_per_table_and_per_game(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert croupier(["stats", "--db", floor, "--day", DAY, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["level"], r["table"], r["game"]) for r in rows] == [
        ("table", "3cp-1", "3cp"), ("table", "poker-1", "holdem"), ("table", "uth-1", "uth"),
        ("game", "", "3cp"), ("game", "", "holdem"), ("game", "", "uth")]
    tcp = rows[0]
    assert (tcp["hands"], tcp["handle"], tcp["house_win"], tcp["hold_pct"], tcp["count_win"]) == (
        "3", "750", "-30", "52.0", "1300")
    assert tcp["handle_by_circle"] == "ante=400 pair_plus=50 play=300"
    assert rows[1]["theoretical"] == "" and rows[2]["hold_pct"] == ""  # poker's none; uth-1 no drop
    assert rows[2]["theoretical"] == str(round(float(100 * ANTE_BLIND_PLAY), 2))


def test_the_text_report_names_each_table(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert croupier(["stats", "--db", floor, "--day", DAY]) == 0
    out = capsys.readouterr().out
    assert out.startswith("7 hands archived, gaming day 2026-12-01")
    assert "3cp-1" in out and "hold 52.0%" in out and "rake 17" in out


@pytest.mark.parametrize("argv, says", [
    (["--day", "2026-13-01"], "--day: '2026-13-01' is not a day"),
    (["drop", "--table", "t", "--day", DAY], "drop: --amount is required"),
    (["fill", "--day", DAY, "--amount", "5"], "fill: --table is required"),
    (["credit", "--table", "t", "--day", DAY, "--amount", "-5"], "--amount: '-5' is not a whole amount"),
    (["credit", "--table", "t", "--day", DAY, "--amount", "1.5"], "--amount: '1.5' is not a whole amount"),
    (["--amount", "5"], "--amount goes with a count"),
    (["gaming-day", "--starts", "25:00"], "--starts: '25:00' is not a time of day"),
    (["--starts", "06:00"], "--starts and --time-zone go with gaming-day"),
    (["fill", "--table", "t", "--day", DAY, "--amount", "5", "--shift", "day"], "--shift goes with the report"),
    (["drop", "--table", "t", "--day", DAY, "--amount", "5", "--json"], "--json and --csv go with the report"),
])
def test_bad_arguments_exit_2_with_the_reason(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert croupier(["stats", "--db", "host=127.0.0.1 port=1", *argv]) == 2
    assert says in capsys.readouterr().err


def test_no_dsn_and_an_unknown_action_exit_2(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CROUPIER_DB", raising=False)
    assert croupier(["stats", "--json"]) == 2
    assert "--db DSN is required" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        croupier(["stats", "tally", "--db", "x"])
    assert exit_.value.code == 2


def test_an_unknown_time_zone_and_an_unmigrated_archive_exit_1(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert croupier(["stats", "--db", db, "--json"]) == 1
    assert "run `croupier pit migrate --db DSN`" in capsys.readouterr().err
    migrate(db)
    assert croupier(["stats", "gaming-day", "--db", db, "--time-zone", "Mars/Olympus"]) == 1
    assert "'Mars/Olympus' is not a time zone" in capsys.readouterr().err


def test_the_selection_of_a_day_tables_pit_and_shift_is_one_clause() -> None:
    assert selection() == ("true", [])
    assert selection(date(2026, 11, 30), ("uth-1",), "pit-1", "swing") == (
        "gaming_day = %s AND table_name = ANY(%s) AND pit = %s AND shift = %s",
        [date(2026, 11, 30), ["uth-1"], "pit-1", "swing"])
    assert selection(tables=[], shift="day") == ("table_name = ANY(%s) AND shift = %s", [[], "day"])


def test_a_history_line_says_when_its_hand_closed() -> None:
    row = HandRow(hand=4, game="3cp", status="settled", closed_event=9, ts=1780000000.25,
                  record={"round": {"game": "3cp", "spots": []}, "settlement": {"house_net": 0}})
    assert hand_line(row)["closed"] == "2026-05-28T20:26:40.250+00:00"
    poker_row = HandRow(hand=5, game="holdem", status="settled", closed_event=10, ts=1780000000.0,
                        record={"poker": True, "game": "holdem", "results": {"rake": 0}})
    assert hand_line(poker_row)["closed"] == "2026-05-28T20:26:40.000+00:00"


def test_a_real_tables_journal_caught_up_then_reported(tmp_path: Path, ctx: zmq.Context[Any], db: str) -> None:
    table = PitTable(tmp_path, ctx, 3)  # UTH: 3 settled, one voided by the dealer, one by a supervisor, one more
    try:
        migrate(db)
        with Archive(db) as archive:
            archive.catch_up("uth-7", table.fetch_page)
        journal = table.history_json()
    finally:
        table.close()
    assert all(line["closed"].endswith("+00:00") for line in journal)
    done = croupier_here("stats", "--db", db, "--json")  # in this process: the same code, no start-up
    assert done.returncode == 0, done.stderr
    out = done.stdout
    rep = json.loads(out)
    assert rep["hands"] == len(journal) == 6
    [t] = rep["tables"]
    assert (t["table"], t["game"], t["hands"], t["voids"], t["spots"]) == ("uth-7", "uth", 6, 2, 4)
    assert t["handle"] == 600 + 625 + 600 + 625  # ante 100, blind 100, Play 4x; trips 25 on every other hand
    assert t["house_win"] == sum(h["settlement"]["house_net"] for h in journal if h["status"] == "settled")
    assert t["theoretical"] == round(float(400 * ANTE_BLIND_PLAY + 50 * TRIPS), 2)  # the default profile's approved
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM hands WHERE closed_at IS NULL").fetchone() == (0,)


def test_a_certificates_figures_give_uth_its_theoretical_win(floor: str, capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    """A UTH profile without approved figures rates from its certificate; an approved one keeps its approved
    figures, certificate or not (the order a rating session takes them in: engine.rating_edges.bet_edges)."""
    with Archive(floor) as archive:
        archive.write("uth-2", [house(1, "uth", "2026-12-01T08:00:00+00:00",
                                      [{"seat": 1, "bets": {"ante": 100, "blind": 100, "trips": 25},
                                        "play": {"street": "flop", "multiple": 2}}], 50, profile=BARE)])
    edge, trips = Fraction(2185, 100000), Fraction(34979, 1000000)
    sheet = {"bets": {"ante_blind_play": {"house_edge": float(edge), "house_edge_exact": str(edge)},
                      "trips": {"house_edge": float(trips)}}}  # no exact text: the float's decimal is taken
    for profile in (BARE, PROFILE):
        certificate = {"format": "croupier-paytable-certificate/1",
                       "profile": {"name": profile.name, "source": profile.source, "sha256": profile.sha256},
                       "sheets": {"uth": sheet, "3cp": {"available": False, "reason": "not this test's"}}}
        (tmp_path / f"{profile.sha256[:8]}.json").write_text(json.dumps(certificate))
    (tmp_path / "other.json").write_text(json.dumps({**certificate, "profile": {"sha256": "0" * 64}}))
    t = by_table(report(floor, capsys, "--day", DAY))
    assert t["uth-2"]["theoretical"] is None  # without the certificates: no UTH edge for it, never a flat one
    assert t["uth-1"]["theoretical"] == round(float(100 * ANTE_BLIND_PLAY), 2)  # approved
    t = by_table(report(floor, capsys, "--day", DAY, "--certificates", str(tmp_path)))
    assert t["uth-2"]["theoretical"] == round(float(100 * edge + 25 * trips), 2)  # the Ante's handle carries it per Ante
    assert t["uth-1"]["theoretical"] == round(float(100 * ANTE_BLIND_PLAY), 2)  # approved figures stand first
    day_before = by_table(report(floor, capsys, "--day", "2026-11-30", "--certificates", str(tmp_path)))["uth-1"]
    assert day_before["theoretical"] == round(float(100 * ANTE_BLIND_PLAY + 25 * TRIPS), 2)  # hand 1 had Trips
    assert t["3cp-1"]["theoretical"] == round(float(400 * ANTE_PLAY + 50 * PAIR_PLUS), 2)  # as approved, as computed


def test_a_certificates_directory_that_is_none_is_said(floor: str, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    assert croupier(["stats", "--db", floor, "--certificates", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert f"certificates {tmp_path / 'missing'}: not a directory" in err and "Traceback" not in err


def test_the_drop_fills_and_credits_take_what_the_tray_read(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A smart table's hands carry the chips moved at its tray (docs/tray.md): its drop, fills and credits
    are what the tray read where it read any that day (a difference shared by two movements: as recorded)."""
    def moved(kind: str, amount: int, read: int | None) -> dict[str, Any]:
        return {"kind": kind, "amount": amount, "read": read, "event": 1}

    first = house(1, "3cp", "2026-12-01T10:00:00+00:00", [{"seat": 1, "bets": {"ante": 100}, "play": True}], 100)
    first["tray"] = {"movements": [moved("buy_in", 20000, 20000), moved("fill", 50000, 49500)],
                     "tray_change": 29500, "difference": -500}
    second = house(2, "3cp", "2026-12-01T11:00:00+00:00", [{"seat": 1, "bets": {"ante": 100}, "play": True}], -100)
    second["tray"] = {"movements": [moved("buy_in", 5000, None), moved("colour_up", 2500, 2500)],
                      "tray_change": -5500, "difference": -500}
    with Archive(floor) as archive:
        archive.write("tray-1", [first, second])
    for kind, amount in (("drop", 99999), ("credit", 300), ("opening", 100000), ("closing", 120000)):
        assert croupier(["stats", kind, "--db", floor, "--table", "tray-1", "--day", DAY, "--amount", str(amount)]) == 0
    t = by_table(report(floor, capsys, "--day", DAY))["tray-1"]
    assert (t["drop"], t["fills"], t["credits"]) == (20000 + 5000, 49500, 300)  # the pit's credit: the tray read none
    assert t["count_win"] == 120000 + 300 + 25000 - 100000 - 49500
    assert by_table(report(floor, capsys, "--day", DAY))["3cp-1"]["drop"] == 2500  # no tray: the pit's counts
