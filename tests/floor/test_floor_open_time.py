"""The floor's open time from the tables' open / close events and idle spells, the per-pit figures and the day per clock hour, every figure worked out by hand here."""

from __future__ import annotations

import csv
import io
import json
import threading
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest
import zmq

from cli import main as croupier
from floor.archive import Archive, ArchiveError
from floor.catchup import CatchUp
from floor.config import PitConfig, PitTable as PitEntry
from floor.follower import TableFollower
from floor.migrate import migrate
from floor.series import day_series
from protocol.commands import encode_reply, error_reply
from protocol.config import ConfigError
from firmware_host.service.journal import Journal
from tests.floor.test_floor_archive import PitTable
from tests.floor.test_floor_stats import ANTE_BLIND_PLAY, house

DAY = "2026-12-01"
ANTE_PLAY = Fraction(686689, 20358520)  # the default profile's 3CP Ante and Play edge per Ante
UTH_BETS = [{"seat": 1, "bets": {"ante": 10, "blind": 10}, "play": {"street": "river", "multiple": 1}}]  # 30
TCP_BETS = [{"seat": 1, "bets": {"ante": 10}, "play": True}]  # 20


def at(hhmm: str, day: str = DAY) -> str:
    return f"{day}T{hhmm}:00+00:00"


def uth(hand: int, closed: str, net: int) -> dict[str, Any]:
    return house(hand, "uth", closed, UTH_BETS, net)


def event(n: int, kind: str, when: str, hand: int, game: str | None = "uth") -> dict[str, Any]:
    return {"event": n, "kind": kind, "at": when, "hand": hand, "game": game if kind == "open" else None}


# uth-a (pit-1): opened 09:50, six hands, idle from 10:12 to 10:40 (28 min > 15), closed 11:15.
# Open: 09:50-09:58 8 + 7 + 7 + (10:12-10:40 idle) + 10:40-10:52 12 + 13 + 11:05-11:15 10 = 57 min.
UTH_A = [uth(1, at("09:58"), 100), uth(2, at("10:05"), -50), uth(3, at("10:12"), 25),
         uth(4, at("10:40"), 40), uth(5, at("10:52"), 0), uth(6, at("11:05"), 10)]  # win 125, handle 180
UTH_A_EVENTS = [event(1, "open", at("09:50"), 1), event(40, "close", at("11:15"), 7)]
# 3cp-b (pit-1): no events archived (a table older than the events pages): open from its first hand, 20 min.
TCP_B = [house(1, "3cp", at("10:00"), TCP_BETS, 30), house(2, "3cp", at("10:10"), TCP_BETS, 30),
         house(3, "3cp", at("10:20"), TCP_BETS, -10)]  # win 50, handle 60
# uth-c (pit-2): opened 05:50 (the gaming day before: it starts at 06:00), closed 06:12.
# 2026-11-30: 05:50-05:55 5 + 05:55-06:00 5 = 10 min, 1 hand; 2026-12-01: 06:00-06:05 5 + 5 + 2 = 12 min, 2 hands.
UTH_C = [uth(1, at("05:55"), 20), uth(2, at("06:05"), 60), uth(3, at("06:10"), -30)]
UTH_C_EVENTS = [event(3, "open", at("05:50"), 1), event(90, "close", at("06:12"), 4)]
COUNTS = [("uth-a", "opening", 5000), ("uth-a", "closing", 5100), ("uth-a", "drop", 1000), ("uth-a", "fill", 600),
          ("3cp-b", "opening", 2000), ("3cp-b", "closing", 2050), ("3cp-b", "drop", 500)]
# count win: uth-a 5100 + 1000 - 5000 - 600 = 500; 3cp-b 2050 + 500 - 2000 = 550; pit-1 1050 over a drop of 1500


@pytest.fixture
def floor(db: str) -> str:
    migrate(db)
    with Archive(db, pit="pit-1") as one:
        one.write("uth-a", UTH_A)
        one.write_events("uth-a", UTH_A_EVENTS)
        one.write("3cp-b", TCP_B)
    with Archive(db, pit="pit-2") as two:
        two.write("uth-c", UTH_C)
        assert two.write_events("uth-c", UTH_C_EVENTS) == 2
        two.write_events("uth-c", UTH_C_EVENTS)  # written twice: one set of rows
    for table, kind, amount in COUNTS:
        assert croupier(["stats", kind, "--db", db, "--table", table, "--day", DAY, "--amount", str(amount)]) == 0
    return db


def report(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert croupier(["stats", "--db", db, "--json", *extra]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def by(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {row[key]: row for row in rows}


def test_open_time_from_the_events_with_idle_spells_closed(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    t = by(report(floor, capsys, "--day", DAY)["tables"], "table")
    a = t["uth-a"]
    assert (a["hands"], a["handle"], a["house_win"]) == (6, 180, 125)
    assert a["open_hours"] == round(57 / 60, 4) == 0.95
    assert (a["hands_per_hour"], a["win_per_hour"]) == (round(6 / 0.95, 2), round(125 / 0.95, 2)) == (6.32, 131.58)
    b = t["3cp-b"]  # no events: from its first hand closed to its last, 10 min apart
    assert (b["open_hours"], b["hands_per_hour"], b["win_per_hour"]) == (round(20 / 60, 4), 9.0, 150.0)
    c = t["uth-c"]  # opened on the day before: the day's open time starts at 06:00
    assert (c["hands"], c["open_hours"], c["hands_per_hour"], c["win_per_hour"]) == (2, 0.2, 10.0, 150.0)
    before = by(report(floor, capsys, "--day", "2026-11-30")["tables"], "table")["uth-c"]
    assert (before["hands"], before["open_hours"], before["hands_per_hour"], before["win_per_hour"]) == (
        1, round(10 / 60, 4), 6.0, 120.0)
    with psycopg.connect(floor) as conn:
        assert conn.execute("SELECT count(*) FROM table_events").fetchone() == (4,)


def test_the_idle_setting_moves_the_open_time(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert croupier(["stats", "gaming-day", "--db", floor, "--idle", "30"]) == 0
    assert json.loads(capsys.readouterr().out) == {"starts": "06:00", "time_zone": "UTC", "idle_minutes": 30}
    a = by(report(floor, capsys, "--day", DAY)["tables"], "table")["uth-a"]
    assert a["open_hours"] == round(85 / 60, 4)  # 10:12-10:40 (28 min) is no longer idle: 09:50 to 11:15
    assert croupier(["stats", "gaming-day", "--db", floor, "--idle", "5"]) == 0
    a = by(report(floor, capsys, "--day", DAY)["tables"], "table")["uth-a"]
    assert a["open_hours"] == 0.0 and a["hands_per_hour"] is None  # every gap is over 5 min: idle throughout
    assert croupier(["stats", "gaming-day", "--db", floor, "--idle", "0"]) == 2
    assert "--idle: '0' is not a number of minutes from 1 to 720" in capsys.readouterr().err


def test_one_shift_cuts_the_open_time_at_its_start(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    c = by(report(floor, capsys, "--day", DAY, "--shift", "day")["tables"], "table")["uth-c"]
    assert (c["hands"], c["open_hours"]) == (2, 0.2)  # 06:00-06:12 is the day shift's
    grave = by(report(floor, capsys, "--day", "2026-11-30", "--shift", "grave")["tables"], "table")["uth-c"]
    assert (grave["hands"], grave["open_hours"]) == (1, round(10 / 60, 4))


def test_per_pit_figures_and_counts(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = report(floor, capsys, "--day", DAY)
    pits = by(rep["pits"], "pit")
    assert set(pits) == {"pit-1", "pit-2"}
    one = pits["pit-1"]  # uth-a and 3cp-b
    hours = (57 + 20) / 60
    assert (one["hands"], one["spots"], one["handle"], one["house_win"]) == (9, 9, 240, 175)
    assert one["handle_by_circle"] == {"ante": 90, "blind": 60, "play": 90}
    assert (one["open_hours"], one["hands_per_hour"], one["win_per_hour"]) == (
        round(hours, 4), round(9 / hours, 2), round(175 / hours, 2))
    tables = by(rep["tables"], "table")
    uth_ante, tcp_ante = (tables[t]["handle_by_circle"]["ante"] for t in ("uth-a", "3cp-b"))
    assert one["theoretical"] == round(float(uth_ante * ANTE_BLIND_PLAY + tcp_ante * ANTE_PLAY), 2)  # UTH's approved
    assert (one["drop"], one["fills"], one["credits"], one["count_win"], one["hold_pct"]) == (1500, 600, 0, 1050, 70.0)
    two = pits["pit-2"]
    assert (two["hands"], two["handle"], two["house_win"], two["open_hours"], two["win_per_hour"]) == (
        2, 60, 30, 0.2, 150.0)
    assert two["drop"] is None and two["hold_pct"] is None  # nothing counted
    only = report(floor, capsys, "--day", DAY, "--pit", "pit-1")
    assert only["pit"] == "pit-1" and only["hands"] == 9
    assert [r["table"] for r in only["tables"]] == ["3cp-b", "uth-a"] and [p["pit"] for p in only["pits"]] == ["pit-1"]
    tcp = by(only["games"], "game")["3cp"]
    assert tcp["theoretical"] == round(float(3 * 10 * ANTE_PLAY), 2)
    assert report(floor, capsys, "--pit", "pit-9")["hands"] == 0


def test_per_pit_rows_in_the_csv_and_the_text(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert croupier(["stats", "--db", floor, "--day", DAY, "--csv"]) == 0
    rows = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["level"] == "pit"]
    assert [(r["pit"], r["hands"], r["house_win"], r["hold_pct"]) for r in rows] == [
        ("pit-1", "9", "175", "70.0"), ("pit-2", "2", "30", "")]
    assert croupier(["stats", "--db", floor, "--day", DAY, "--pit", "pit-2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 hands archived, gaming day 2026-12-01, pit pit-2")
    assert "pit pit-2" in out.splitlines()[-1] and "win/h 150.0" in out.splitlines()[-1]


def test_the_day_per_clock_hour(floor: str) -> None:
    with psycopg.connect(floor) as conn:
        series = day_series(conn, date(2026, 12, 1))
        assert [t["table"] for t in day_series(conn, date(2026, 12, 1), pit="pit-2")["tables"]] == ["uth-c"]
        named = day_series(conn, date(2026, 12, 1), tables=["uth-a", "uth-z"])  # a screen's tables: uth-z idle
        assert [(t["table"], sum(t["hands"])) for t in named["tables"]] == [("uth-a", 6), ("uth-z", 0)]
        assert sum(named["floor"]["hands"]) == 6
    hours = series["hours"]
    assert len(hours) == 24 and hours[0] == "2026-12-01T06:00" and hours[-1] == "2026-12-02T05:00"
    h9, h10, h11 = hours.index("2026-12-01T09:00"), hours.index("2026-12-01T10:00"), hours.index("2026-12-01T11:00")
    t = by(series["tables"], "table")
    assert (t["uth-a"]["game"], t["uth-a"]["pit"]) == ("uth", "pit-1")
    a = t["uth-a"]
    assert [a["hands"][i] for i in (h9, h10, h11)] == [1, 4, 1] and sum(a["hands"]) == 6
    assert [a["house_win"][i] for i in (h9, h10, h11)] == [100, -50 + 25 + 40 + 0, 10]
    # 09:50-10:00; 10:00-10:05, 10:05-10:12, 10:40-10:52, 10:52-11:00; 11:00-11:05, 11:05-11:15
    assert [a["open_hours"][i] for i in (h9, h10, h11)] == [round(10 / 60, 4), round(32 / 60, 4), 0.25]
    assert (t["3cp-b"]["hands"][h10], t["3cp-b"]["house_win"][h10], t["3cp-b"]["open_hours"][h10]) == (
        3, 50, round(20 / 60, 4))
    assert (t["uth-c"]["hands"][0], t["uth-c"]["house_win"][0], t["uth-c"]["open_hours"][0]) == (2, 30, 0.2)
    p = by(series["pits"], "pit")
    assert p["pit-1"]["tables"] == 2 and [p["pit-1"]["hands"][i] for i in (h9, h10, h11)] == [1, 7, 1]
    assert [p["pit-1"]["house_win"][i] for i in (h9, h10, h11)] == [100, 65, 10]
    assert (p["pit-2"]["hands"][0], p["pit-2"]["house_win"][0]) == (2, 30)
    assert sum(series["floor"]["hands"]) == 11 and sum(series["floor"]["house_win"]) == 125 + 50 + 30


def test_the_day_per_clock_hour_on_the_command_line(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rep = report(floor, capsys, "--by-hour", "--day", DAY, "--pit", "pit-1")
    assert rep["day"] == DAY and rep["pit"] == "pit-1" and rep["time_zone"] == "UTC"
    assert [t["table"] for t in rep["tables"]] == ["3cp-b", "uth-a"] and sum(rep["floor"]["hands"]) == 9
    assert croupier(["stats", "--db", floor, "--by-hour"]) == 2
    assert "--by-hour goes with --json" in capsys.readouterr().err
    assert croupier(["stats", "--db", floor, "--by-hour", "--json", "--table", "x"]) == 2
    assert "--by-hour takes --day and --pit only" in capsys.readouterr().err


def test_a_real_tables_open_and_close_are_archived_by_its_pit(tmp_path: Path, ctx: zmq.Context[Any],
                                                               db: str) -> None:
    table = PitTable(tmp_path, ctx, 2)  # opened at its start (journaled), 5 hands
    try:
        reply = table.client.request("close")  # the pit closes the table
        assert reply["ok"], reply
        first = table.client.request("history", events=True, after=0, limit=1)  # the page, one event at a time
        assert first["ok"] and [e["kind"] for e in first["events"]] == ["open"] and first["more"] is True
        assert first["events"][0]["game"] == "uth" and first["last"] == first["events"][0]["event"]
        rest = table.client.request("history", events=True, after=first["last"], limit=1)
        assert [e["kind"] for e in rest["events"]] == ["close"] and rest["events"][0]["hand"] == 6
        migrate(db)
        cfg = PitConfig.parse('[pit]\ndb = "x"\n', source=str(tmp_path / "pit-east.toml"))
        assert cfg.name == "pit-east"  # the configuration file's stem
        worker = CatchUp(ctx, Archive(db, pit=cfg.name), lambda _: (None, None))
        worker.set_tables({"uth-7": PitEntry("uth-7", "ipc://unused", "ipc://unused", table.endpoint)})
        assert worker.catch_up("uth-7") == 5
        read_to = worker.events.read_to["uth-7"]
        assert worker.catch_up("uth-7") == 0 and worker.events.read_to["uth-7"] == read_to  # nothing new
        journal = [(e.id, e.kind, e.ts) for e in table.c.journal.events() if e.kind in ("open", "close")]
        reader = Journal.open(table.state, readonly=True)
        try:  # pages that read at most 3 journal events each find the same open and close
            got, after, more, pages = [], 0, True, 0
            while more:
                page, after, more = reader.table_events(after, 100, 3)
                got, pages = got + page, pages + 1
            assert [(e.id, e.kind) for e in got] == [(i, k) for i, k, _ in journal]
            assert pages > 10 and after == max(e.id for e in reader.events())
        finally:
            reader.close()
    finally:
        table.close()
    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT event, kind, extract(epoch FROM at), pit FROM table_events ORDER BY event").fetchall()
        pits = conn.execute("SELECT DISTINCT pit FROM hands").fetchall()
    assert [(r[0], r[1], r[3]) for r in rows] == [(i, k, "pit-east") for i, k, _ in journal]
    assert all(abs(float(r[2]) - ts) < 0.001 for r, (_, _, ts) in zip(rows, journal))  # to the millisecond
    assert pits == [("pit-east",)]


def test_a_pit_name_is_checked_and_a_bad_event_line_refused(db: str) -> None:
    with pytest.raises(ConfigError, match=r"\[pit\] name: must not start with '\*'"):
        PitConfig.parse('[pit]\nname = "pit one"\n', source="floor.toml")
    assert PitConfig.parse('[pit]\nname = "east"\n', source="floor.toml").name == "east"
    migrate(db)
    with Archive(db, pit="pit-1") as archive:
        with pytest.raises(ArchiveError, match="event 7: 'noon' is not an ISO 8601 time"):
            archive.write_events("uth-a", [event(6, "open", at("09:00"), 1), event(7, "close", "noon", 2)])
        with pytest.raises(ArchiveError, match="kind 'pause' is not open, close, player or dealer"):
            archive.write_events("uth-a", [event(8, "pause", at("09:00"), 1)])
        assert archive.last_event("uth-a") == 0  # nothing of a refused batch is written


def test_a_table_older_than_the_events_pages_is_archived_all_the_same(tmp_path: Path, ctx: zmq.Context[Any],
                                                                      db: str) -> None:
    """A table that refuses `events` as its decoder does (malformed, unknown argument): its hands are archived."""
    endpoint = f"ipc://{tmp_path}/old-table"
    router = ctx.socket(zmq.ROUTER)
    router.bind(endpoint)
    hands = [uth(1, at("10:00"), 5), uth(2, at("10:05"), 5)]

    def serve() -> None:
        for _ in range(4):  # hands, events; hands, events
            if not router.poll(10000):
                return
            *head, frame = router.recv_multipart()
            cmd = msgpack.unpackb(frame)
            args = {k: v for k, v in cmd.items() if k not in ("cmd", "id")}
            if "events" in args:
                reply = error_reply(cmd.get("id"), "malformed", "history: unknown argument(s) events")
            else:
                page = [h for h in hands if h["hand"] > args.get("after", 0)]
                reply = {"id": cmd.get("id"), "ok": True, "hands": page, "more": False,
                         "last": page[-1]["hand"] if page else args.get("after", 0)}
            router.send_multipart([*head, encode_reply(reply)])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    migrate(db)
    worker = CatchUp(ctx, Archive(db, pit="pit-1"), lambda _: (None, None))
    worker.set_tables({"uth-old": PitEntry("uth-old", "ipc://unused", "ipc://unused", endpoint)})
    try:
        assert worker.catch_up("uth-old") == 2
        assert worker.catch_up("uth-old") == 0 and worker.events.unsupported == {"uth-old"}
    finally:
        thread.join(15)
        router.close(0)
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*), min(pit) FROM hands").fetchone() == (2, "pit-1")
        assert conn.execute("SELECT count(*) FROM table_events").fetchone() == (0,)


def test_a_game_changed_and_a_table_moved_to_another_pit_split_its_open_time(db: str,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """t-x opens for UTH at 10:00 (pit-1), plays a hand at 10:05, is opened again for 3CP at 10:10 and
    moved to pit-2, plays a hand at 10:20 and closes at 10:25. A spell ending in a hand is that hand's
    game and pit; one ending in an open or a close, the game and pit of the moment it starts from:
    UTH 10:00-10:05 + 10:05-10:10 = 10 min in pit-1; 3CP 10:10-10:20 + 10:20-10:25 = 15 min in pit-2."""
    migrate(db)
    with Archive(db, pit="pit-1") as one:
        one.write("t-x", [uth(1, at("10:05"), 40)])
        one.write_events("t-x", [event(1, "open", at("10:00"), 1), event(30, "open", at("10:10"), 2, "3cp")])
    with Archive(db, pit="pit-2") as two:
        two.write("t-x", [house(2, "3cp", at("10:20"), TCP_BETS, -20)])
        two.write_events("t-x", [event(50, "close", at("10:25"), 3)])
    assert croupier(["stats", "drop", "--db", db, "--table", "t-x", "--day", DAY, "--amount", "300"]) == 0
    rep = report(db, capsys, "--day", DAY)
    rows = {(r["table"], r["game"]): r for r in rep["tables"]}
    assert (rows["t-x", "uth"]["hands"], rows["t-x", "uth"]["open_hours"]) == (1, round(10 / 60, 4))
    assert (rows["t-x", "3cp"]["hands"], rows["t-x", "3cp"]["open_hours"]) == (1, 0.25)
    pits = by(rep["pits"], "pit")
    assert (pits["pit-1"]["hands"], pits["pit-1"]["open_hours"], pits["pit-1"]["win_per_hour"]) == (
        1, round(10 / 60, 4), 240.0)
    assert (pits["pit-2"]["hands"], pits["pit-2"]["open_hours"], pits["pit-2"]["hands_per_hour"]) == (1, 0.25, 4.0)
    # the table's counts go to the pit of its last hand of the day
    assert (pits["pit-2"]["drop"], pits["pit-1"]["drop"]) == (300, None)


def test_the_pit_catches_a_table_up_when_it_closes(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    """The close event is fetched when the table closes, not at its next hand (the next day's)."""
    follower = TableFollower(ctx, PitEntry("t-1", f"ipc://{tmp_path}/p", f"ipc://{tmp_path}/s", f"ipc://{tmp_path}/c"),
                             None, None, 0.0)
    try:
        seen = []
        for hand, phase in [(4, "betting"), (4, "settled"), (5, "betting"), (5, "closed"), (5, "closed"),
                            (5, "betting")]:
            follower.client.state = {"hand": hand, "phase": phase}
            seen.append(follower.hand_closed())
        assert seen == [False, True, True, True, False, False]
    finally:
        follower.close()


def test_a_table_moved_between_pits_has_each_days_counts_in_the_pit_it_played_in(
        floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    # uth-m played in pit-2 on the 30th and in pit-1 on the 1st: the 1st's drop is pit-1's, the 30th's pit-2's,
    # in the tables' counts of a pit's report as in the pits' counts (floor/pits.py)
    with Archive(floor, pit="pit-2") as two:
        two.write("uth-m", [uth(1, at("12:00", "2026-11-30"), 10)])
    with Archive(floor, pit="pit-1") as one:
        one.write("uth-m", [uth(2, at("12:00"), 20)])
    for day, amount in (("2026-11-30", 300), (DAY, 700)):
        assert croupier(["stats", "drop", "--db", floor, "--table", "uth-m", "--day", day, "--amount", str(amount)]) == 0
    one = by(report(floor, capsys, "--pit", "pit-1")["tables"], "table")
    two = by(report(floor, capsys, "--pit", "pit-2")["tables"], "table")
    assert (one["uth-m"]["drop"], two["uth-m"]["drop"]) == (700, 300)
    assert "uth-m" not in by(report(floor, capsys, "--day", "2026-11-30", "--pit", "pit-1")["tables"], "table")
    pits = by(report(floor, capsys)["pits"], "pit")
    assert (pits["pit-1"]["drop"], pits["pit-2"]["drop"]) == (1500 + 700, 300)
