"""The pit view fed by a real `croupier pit` (tables of `croupier floor-sim`): every table of the pit, one killed shown offline, one added by `croupier pit reload` appearing; the gaming day's figures and chart from a real PostgreSQL archive worked out by hand."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest
import zmq
from playwright.sync_api import Page

from floor.web.config import WebConfig
from floor.web.figures import PitFigures
from floor.web.hub import PitHub
from pages.config import TableFeed
from floor.figures import pit_figures
from floor.migrate import migrate
from floor.stats import set_gaming_day
from protocol.config import ConfigError
from sim.bots.table import free_tcp_port
from tests.firmware_host.processes import croupier_here, start_cli, wait_for
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)

HEARTBEAT_S = 0.5

# What the page shows, read from its data attributes.
TILES = """() => Object.fromEntries([...document.querySelectorAll("[data-table]")].map((t) => {
  const num = (sel, key) => { const e = t.querySelector(sel); return e ? e.dataset[key] : null; };
  const spark = t.querySelector("svg.spark");
  return [t.dataset.table, {hand: Number(t.dataset.hand), boot: t.dataset.boot, phase: t.dataset.phase,
    offline: t.hasAttribute("data-offline"), link: t.tagName === "A",
    source: t.querySelector(".figures").dataset.source, dayHands: num("[data-day-hands]", "dayHands"),
    dayWin: num("[data-day-win]", "dayWin"), perHour: num("[data-hands-per-hour]", "handsPerHour"),
    sparkHands: spark && !spark.hasAttribute("hidden") ? JSON.parse(spark.dataset.hands || "null") : null,
    sparkWin: spark && !spark.hasAttribute("hidden") ? JSON.parse(spark.dataset.win || "null") : null}];
}))"""

PIT_DAY = """() => { const svg = document.getElementById("day-chart");
  const b = (key) => { const e = document.querySelector(`[data-${key}]`); return e ? e.dataset : null; };
  return {hands: JSON.parse(svg.dataset.hands || "[]"), win: JSON.parse(svg.dataset.win || "[]"),
          dayWin: svg.dataset.dayWin, bars: svg.querySelectorAll("rect.bar").length,
          hidden: document.getElementById("day").hidden, source: document.getElementById("source").dataset.source,
          note: document.getElementById("source").textContent,
          pitHands: b("pit-hands")?.pitHands, pitPerHour: b("pit-per-hour")?.pitPerHour, pitWin: b("pit-win")?.pitWin};
}"""


def floor_sim(root: Path, name: str) -> tuple[subprocess.Popen[str], list[dict[str, str]]]:
    """One `croupier floor-sim` of 2 tables playing fast for long enough; the tables its pit configuration lists."""
    config = root / f"{name}.toml"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "floor-sim", "--tables", "2", "--speed", "60",
                             "--duration", "300", "--heartbeat-s", str(HEARTBEAT_S), "--pool", "4",
                             "--seed", str(len(name)), "--pit-config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=open(root / f"{name}.log", "ab"), text=True)
    wait_for(lambda: config.exists() and "[[pit.tables]]" in config.read_text(), f"{name}'s tables", timeout_s=60)
    tables = []
    for block in config.read_text().split("[[pit.tables]]")[1:]:
        entry = dict(line.split(" = ", 1) for line in block.strip().splitlines())
        tables.append({k: json.loads(v) for k, v in entry.items()})
    return proc, tables


def write_pit_config(path: Path, listen: str, snapshot: str, tables: dict[str, dict[str, str]]) -> None:
    lines = [f'[pit]\nlisten = "{listen}"\nsnapshot = "{snapshot}"\nheartbeat_s = {HEARTBEAT_S}\n'
             f'pid_file = "{path.with_suffix(".pid")}"\n']
    for name, t in tables.items():  # the pit's names, not the simulated tables' own
        lines.append(f'[[pit.tables]]\nname = "{name}"\npublic = "{t["public"]}"\nsnapshot = "{t["snapshot"]}"\n'
                     f'commands = "{t["commands"]}"\n')
    path.write_text("\n".join(lines), encoding="utf-8")


def pit_tables(snapshot: str) -> dict[str, dict[str, Any]]:
    """The pit's own floor snapshot: every table it follows, by name."""
    ctx: zmq.Context[Any] = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(snapshot)
    try:
        dealer.send(msgpack.packb({"want": "snapshot"}))
        out = {}
        while True:
            assert dealer.poll(10000), "the pit's snapshot socket did not answer"
            message = msgpack.unpackb(dealer.recv(), raw=False)
            if message["kind"] == "end":
                return out
            out[message["table"]] = message
    finally:
        dealer.close(0)
        ctx.destroy(linger=0)


class Procs:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def add(self, proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
        self.procs.append(proc)
        return proc

    def end(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def procs() -> Iterator[Procs]:
    p = Procs()
    yield p
    p.end()


def archive_by_hand(dsn: str) -> datetime:
    """The archive's hands and open / close events for the test, chosen by hand; returns when the gaming day began.
    The gaming day is set to start on the hour 12 to 13 hours ago (UTC), so every moment below is in the past and
    in today's gaming day (but the one before it). Idle: 15 minutes (the default). Minutes from the day's start:

    pit-a1: opened at 55; hands at 65, 75, then idle (115 min) to the hand at 190; closed at 200.
            open 55-60 (hour 0) 5 min, 60-75 (hour 1) 15 min, 190-200 (hour 3) 10 min: 30 min, 3 hands: 6.0 an hour
    pit-a2: no events archived (open from its first hand): hands at 110, 120 (on the hour), 130 (a void):
            open 110-120 (hour 1) 10 min, 120-130 (hour 2) 10 min: 20 min, 3 hands: 9.0 an hour
    pit-b:  one hand at 200, no events: open no time, its hands per hour null (shown as a dash)
    pit-c:  (added by the reload) opened at 240, a hand at 255, closed at 270: 30 min in hour 4, 2.0 an hour
    """
    migrate(dsn)
    opens = (datetime.now(timezone.utc) - timedelta(hours=12)).replace(minute=0, second=0, microsecond=0)
    set_gaming_day(dsn, opens.strftime("%H:%M"), "UTC")
    at = lambda minutes: opens + timedelta(minutes=minutes)  # noqa: E731
    rows = [  # (table, hand, closed_at, house_net, status)
        ("pit-a1", 1, at(65), 2500, "settled"),   # hour 1
        ("pit-a1", 2, at(75), -1000, "settled"),  # hour 1
        ("pit-a1", 3, at(190), 500, "settled"),   # hour 3, after an idle spell
        ("pit-a1", 4, None, 777, "settled"),      # no closed_at: in no hour
        ("pit-a1", 9, at(-10), 9999, "settled"),  # the day before
        ("pit-a2", 1, at(110), -3000, "settled"),  # hour 1
        ("pit-a2", 2, at(120), 700, "settled"),   # hour 2 (on the hour)
        ("pit-a2", 3, at(130), 0, "voided"),      # hour 2: a void counts as a hand, its win 0
        ("pit-b", 1, at(200), 150, "settled"),    # hour 3: alone, no open time
        ("other-pit-1", 1, at(90), 12345, "settled"),  # a table of another pit
        ("pit-c", 1, at(255), 800, "settled"),    # hour 4: the table added by the reload
    ]
    events = [  # (table, event, kind, at, hand)
        ("pit-a1", 1, "open", at(55), 1), ("pit-a1", 30, "close", at(200), 4),
        ("other-pit-1", 1, "open", at(80), 1),
        ("pit-c", 1, "open", at(240), 1), ("pit-c", 12, "close", at(270), 2),
    ]
    with psycopg.connect(dsn) as conn:
        conn.cursor().executemany(
            "INSERT INTO hands (table_name, hand, status, game, closed_at, house_net, voided, record) "
            "VALUES (%s, %s, %s, 'uth', %s, %s, %s, '{}'::jsonb)",
            [(t, h, s, c, n, s == "voided") for t, h, c, n, s in rows])
        conn.cursor().executemany(
            "INSERT INTO table_events (table_name, event, kind, at, hand, game) VALUES (%s, %s, %s, %s, %s, %s)",
            [(t, e, k, a, h, "uth" if k == "open" else None) for t, e, k, a, h in events])
    return opens


def open_of(minutes: dict[int, int]) -> list[float]:
    """A table's open hours per clock hour, from its open minutes in each (rounded to 4 places, as the series are)."""
    return [round(minutes.get(i, 0) / 60, 4) for i in range(24)]


def stats_by_hour(dsn: str, day: date) -> dict[str, dict[str, Any]]:
    """`croupier stats --by-hour --json` for the gaming day `day`: its tables by name."""
    out = croupier_here("stats", "--db", dsn, "--by-hour", "--json", "--day", day.isoformat())  # in this process
    assert out.returncode == 0, out.stderr
    return {row["table"]: row for row in json.loads(out.stdout)["tables"]}


def per_hour(row: dict[str, Any]) -> float | None:
    """The day's hands over the day's open hours of one of `stats_by_hour`'s series (2 places, as `croupier stats`)."""
    hours = round(sum(row["open_hours"]), 4)
    return round(sum(row["hands"]) / hours, 2) if hours else None


def js_number(value: float) -> str:
    """A number as the page writes it into a data attribute (6.0 as "6")."""
    return str(int(value)) if value == int(value) else str(value)


def hours_of(values: dict[int, int]) -> list[int]:
    return [values.get(i, 0) for i in range(24)]


def test_the_pit_view_follows_the_pit_aggregator_and_draws_the_archives_day(
        tmp_path: Path, procs: Procs, db: str, page: Page) -> None:  # noqa: F811
    opens = archive_by_hand(db)
    sim_a, tables_a = floor_sim(tmp_path, "sim-a")
    sim_b, tables_b = floor_sim(tmp_path, "sim-bb")
    procs.add(sim_a)
    procs.add(sim_b)
    listen, snapshot = f"tcp://127.0.0.1:{free_tcp_port()}", f"tcp://127.0.0.1:{free_tcp_port()}"
    pit_toml = tmp_path / "pit.toml"
    on_pit = {"pit-a1": tables_a[0], "pit-a2": tables_a[1], "pit-b": tables_b[0]}
    write_pit_config(pit_toml, listen, snapshot, on_pit)
    pit, _ = start_cli(["pit", "--config", str(pit_toml)], tmp_path)
    procs.add(pit)
    web_toml = tmp_path / "pit-web.toml"
    web_toml.write_text(f'[web]\nlisten = "127.0.0.1:0"\npit = "{listen}"\npit_snapshot = "{snapshot}"\n'
                            f'pit_heartbeat_s = {HEARTBEAT_S}\nfloor_db = "{db}"\nfigures_s = 0.3\n',
                            encoding="utf-8")
    web, ready = start_cli(["pit", "web", "--config", str(web_toml), "--log-level", "INFO"], tmp_path)
    procs.add(web)
    page.goto(ready["pit"])

    # every table of the pit, from the aggregator, online and dealing
    page.wait_for_function("(n) => document.querySelectorAll('[data-table]:not([data-offline])').length === n", arg=3)
    first = page.evaluate(TILES)
    page.wait_for_function("""(first) => Object.entries(first).every(([name, t]) =>
        Number(document.querySelector(`[data-table="${name}"]`).dataset.hand) > t.hand)""", arg=first)
    tiles = page.evaluate(TILES)
    own = pit_tables(snapshot)
    assert list(tiles) == sorted(on_pit) == sorted(own)  # the pit's names, in order
    for name, shown in tiles.items():
        assert shown["boot"] == own[name]["boot"] and not shown["offline"] and not shown["link"]

    # the figures, from the archive, as worked out by hand (hours from the gaming day's start; archive_by_hand)
    a1 = {"hands": hours_of({1: 2, 3: 1}), "win": hours_of({1: 2500 - 1000, 3: 500}), "per_hour": 6.0}  # 3 in 30 min
    a2 = {"hands": hours_of({1: 1, 2: 2}), "win": hours_of({1: -3000, 2: 700}), "per_hour": 9.0}  # 3 in 20 min
    b = {"hands": hours_of({3: 1}), "win": hours_of({3: 150}), "per_hour": None}  # open no time: no rate
    page.wait_for_function("() => document.getElementById('source').dataset.source === 'archive' && "
                           "document.querySelector('[data-pit-hands]')?.dataset.pitHands === '7'")
    tiles = page.evaluate(TILES)
    for name, want in (("pit-a1", a1), ("pit-a2", a2), ("pit-b", b)):
        shown = tiles[name]
        assert shown["source"] == "archive", (name, shown)
        assert (shown["sparkHands"], shown["sparkWin"]) == (want["hands"], want["win"]), (name, shown)
        assert (shown["dayHands"], shown["dayWin"]) == (str(sum(want["hands"])), str(sum(want["win"]))), (name, shown)
        assert (float(shown["perHour"]) if shown["perHour"] else None) == want["per_hour"], (name, shown)
    day = page.evaluate(PIT_DAY)
    assert not day["hidden"] and day["bars"] == 24
    assert day["hands"] == hours_of({1: 3, 2: 2, 3: 2})
    assert day["win"] == hours_of({1: 2500 - 1000 - 3000, 2: 700, 3: 500 + 150})
    assert (day["pitHands"], day["pitWin"], day["pitPerHour"]) == ("7", "-150", "8.4")  # 7 hands in 50 open minutes
    assert day["dayWin"] == "-150" and opens.strftime("%H:%M") in day["note"]
    stats = stats_by_hour(db, opens.date())
    for name in ("pit-a1", "pit-a2", "pit-b"):  # the screen says what `croupier stats --by-hour` says
        row = stats[name]
        assert (tiles[name]["sparkHands"], tiles[name]["sparkWin"]) == (row["hands"], row["house_win"])
        assert tiles[name]["perHour"] == ("" if per_hour(row) is None else js_number(per_hour(row)))
    assert day["hands"] == [sum(hour) for hour in zip(*(stats[n]["hands"] for n in ("pit-a1", "pit-a2", "pit-b")))]
    shots = Path(os.environ.get("CROUPIER_SCREENSHOTS") or tempfile.mkdtemp(prefix="croupier-screens-"))
    page.screenshot(path=str(shots / "pit-floor-1920x1080.png"))

    # one table's process killed: that table alone shown offline, as the pit says
    sim_b.send_signal(signal.SIGKILL)
    sim_b.wait(10)
    page.wait_for_selector("[data-table='pit-b'][data-offline]", timeout=20_000)
    assert wait_for(lambda: not pit_tables(snapshot)["pit-b"]["online"], "the pit to mark pit-b offline")
    tiles = page.evaluate(TILES)
    assert not tiles["pit-a1"]["offline"] and not tiles["pit-a2"]["offline"]

    # a table added to the pit's list and `croupier pit reload`: it appears, without restarting the floor's pages
    sim_c, tables_c = floor_sim(tmp_path, "sim-ccc")
    procs.add(sim_c)
    write_pit_config(pit_toml, listen, snapshot, {**on_pit, "pit-c": tables_c[1]})
    subprocess.run([sys.executable, "-m", "cli", "pit", "reload", "--config", str(pit_toml)],
                   check=True, capture_output=True, timeout=60)
    page.wait_for_selector("[data-table='pit-c']:not([data-offline])", timeout=20_000)
    page.wait_for_function("() => document.querySelector('[data-pit-hands]').dataset.pitHands === '8'")
    day = page.evaluate(PIT_DAY)
    assert day["hands"] == hours_of({1: 3, 2: 2, 3: 2, 4: 1}) and day["pitWin"] == str(-150 + 800)
    assert day["pitPerHour"] == "6.0"  # 8 hands in 80 open minutes
    assert float(page.evaluate(TILES)["pit-c"]["perHour"]) == 2.0  # 1 hand in 30 open minutes
    assert list(page.evaluate(TILES)) == ["pit-a1", "pit-a2", "pit-b", "pit-c"]
    assert web.poll() is None
    page.screenshot(path=str(shots / "pit-floor-reloaded-1920x1080.png"))


@pytest.mark.parametrize(("text", "says"), [
    ('pit = "tcp://127.0.0.1:1"\n', "pit, pit_snapshot: give both or neither"),
    ('pit = "tcp://10.0.0.2:6556"\npit_snapshot = "tcp://10.0.0.2:6557"\n',
     "[web] pit: without [web] pit_server_key and key (CURVE), the floor feed may only be followed on loopback"),
    ('pit = "tcp://127.0.0.1:1"\npit_snapshot = "tcp://127.0.0.1:2"\npit_server_key = "/nope.key"\n', "needs key"),
    ('pit_server_key = "/nope.key"\nkey = "/nope.key_secret"\n', "needs pit and pit_snapshot"),
    ('pit = "http://x"\npit_snapshot = "ipc:///s"\n', "pit: must be a ZeroMQ endpoint"),
    ('figures_s = 0\n', "figures_s: must be a number of seconds between 0.1 and 3600, not 0"),
])
def test_bad_pit_keys_of_the_floors_pages_are_refused_naming_the_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match="w.toml") as err:
        WebConfig.parse(f"[web]\n{text}", source="w.toml")
    assert says in str(err.value)


def test_the_pit_on_ipc_or_loopback_is_followed_in_plaintext() -> None:
    cfg = WebConfig.parse('[web]\npit = "ipc:///run/pit-feed"\npit_snapshot = "tcp://127.0.0.1:6557"\n'
                          'floor_db = "host=db dbname=floor"\n', source="w.toml")
    assert (cfg.pit, cfg.pit_snapshot, cfg.pit_server_key, cfg.floor_db) == (
        "ipc:///run/pit-feed", "tcp://127.0.0.1:6557", None, "host=db dbname=floor")


def figures_of(dsn: str, tables: list[str]) -> dict[str, Any]:
    """One reading of the floor pages' figures task (as `croupier pit web` runs it), the message the screens get."""
    async def run() -> dict[str, Any]:
        hub = PitHub([TableFeed(name, "ipc:///p", "ipc:///s") for name in tables])
        figures = PitFigures(hub, dsn, 60.0, pit_figures)
        figures.start()
        while hub.figures is None:
            await asyncio.sleep(0.02)
        await figures.stop()
        message: dict[str, Any] = json.loads(hub.figures)
        return message

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (Playwright's may run in this thread)
        return pool.submit(asyncio.run, run()).result(60)


def test_an_archive_that_cannot_be_read_is_said_to_the_screens(db: str) -> None:  # noqa: F811
    unmigrated = figures_of(db, ["uth-1"])
    assert unmigrated["source"] == "archive" and "croupier pit migrate" in unmigrated["error"]
    down = figures_of(f"host=127.0.0.1 port={free_tcp_port()} user=nobody dbname=floor connect_timeout=5", ["uth-1"])
    assert down["source"] == "archive" and "the archive" in down["error"] and "tables" not in down
    migrate(db)
    empty = figures_of(db, ["uth-1"])
    assert empty["tables"] == {"uth-1": {"hands": [0] * 24, "win": [0] * 24, "open_hours": [0.0] * 24,
                                         "day_hands": 0, "day_win": 0, "day_open_hours": 0.0,
                                         "hands_per_hour": None}}
    assert len(empty["hours"]) == 24 and empty["starts"] == "06:00" and empty["time_zone"] == "UTC"


def test_the_screens_figures_are_croupier_stats_by_hour(db: str) -> None:  # noqa: F811
    opens = archive_by_hand(db)
    names = ["pit-a1", "pit-a2", "pit-b", "pit-c", "pit-d"]  # pit-d: on the pit, nothing archived
    shown = figures_of(db, names)
    assert (shown["day"], shown["starts"], shown["time_zone"]) == (opens.date().isoformat(), opens.strftime("%H:%M"),
                                                                   "UTC")
    assert shown["hours"][:2] == [opens.strftime("%H:%M"), (opens + timedelta(hours=1)).strftime("%H:%M")]
    assert 12 <= shown["elapsed"] < 13.1
    t = shown["tables"]
    assert list(t) == names
    # as worked out by hand in archive_by_hand
    assert (t["pit-a1"]["hands"], t["pit-a1"]["win"]) == (hours_of({1: 2, 3: 1}), hours_of({1: 1500, 3: 500}))
    assert t["pit-a1"]["open_hours"] == open_of({0: 5, 1: 15, 3: 10})
    assert (t["pit-a1"]["day_hands"], t["pit-a1"]["day_win"], t["pit-a1"]["day_open_hours"],
            t["pit-a1"]["hands_per_hour"]) == (3, 2000, 0.5, 6.0)
    assert t["pit-a2"]["open_hours"] == open_of({1: 10, 2: 10}) and t["pit-a2"]["win"] == hours_of({1: -3000, 2: 700})
    assert (t["pit-a2"]["day_hands"], t["pit-a2"]["day_open_hours"], t["pit-a2"]["hands_per_hour"]) == (
        3, 0.3334, 9.0)  # 3 hands in 20 min (its two 10 min rounded up to 0.1667 h each)
    assert (t["pit-b"]["day_hands"], t["pit-b"]["day_win"], t["pit-b"]["day_open_hours"],
            t["pit-b"]["hands_per_hour"]) == (1, 150, 0.0, None)  # a hand, but open no time: no rate
    assert (t["pit-c"]["open_hours"], t["pit-c"]["hands_per_hour"]) == (open_of({4: 30}), 2.0)
    assert (t["pit-d"]["day_hands"], t["pit-d"]["hands_per_hour"]) == (0, None)
    pit = shown["pit"]
    assert pit["hands"] == hours_of({1: 3, 2: 2, 3: 2, 4: 1}) and pit["day_win"] == 2000 - 2300 + 150 + 800
    assert (pit["tables"], pit["day_hands"], pit["day_open_hours"], pit["hands_per_hour"]) == (
        5, 8, 1.3334, 6.0)  # 8 hands in 80 min; other-pit-1's hand and open time not the pit's
    # and exactly what `croupier stats --by-hour --json` says for those tables and that day
    stats = stats_by_hour(db, opens.date())
    assert "other-pit-1" in stats and "pit-d" not in stats
    for name in names[:4]:
        row = stats[name]
        assert (t[name]["hands"], t[name]["win"], t[name]["open_hours"]) == (
            row["hands"], row["house_win"], row["open_hours"]), name
        assert t[name]["hands_per_hour"] == per_hour(row), name
    assert pit["open_hours"] == [round(sum(hour), 4) for hour in zip(*(stats[n]["open_hours"] for n in names[:4]))]
