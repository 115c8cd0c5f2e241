"""`croupier floor-sim` -> `croupier pit` -> PostgreSQL: every closed hand archived once, the floor feed without a gap, and the same after the pit is killed, PostgreSQL stopped and a table restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from floor.migrate import migrate
from tests.floor.pgserver import PgServer
from tests.firmware_host.processes import croupier_here, start_cli, wait_for


def floor_sim(tmp_path: Path, db: str, *args: str) -> tuple[subprocess.Popen[str], Path]:
    config = tmp_path / "pit.toml"
    # the pit's floor sockets on ipc: a port picked free here could be taken by one of the tables'
    # thousands of ports (picked the same way) before the pit binds it
    proc = subprocess.Popen([sys.executable, "-m", "cli", "floor-sim", "--pit-config", str(config),
                             "--pit-listen", f"ipc://{tmp_path}/floor", "--pit-snapshot",
                             f"ipc://{tmp_path}/floor-snap", "--db", db, "--heartbeat-s", "0.5", *args],
                            stdout=subprocess.PIPE, stderr=open(tmp_path / "floor-sim.log", "ab"), text=True)
    wait_for(config.exists, "the pit configuration written", timeout_s=60)
    return proc, config


def start_pit(tmp_path: Path, config: Path) -> subprocess.Popen[str]:
    pit, _ = start_cli(["pit", "--config", str(config), "--log-level", "WARNING"], tmp_path)
    return pit


def finish(proc: subprocess.Popen[str], tmp_path: Path, timeout_s: float = 120) -> dict[str, Any]:
    out, _ = proc.communicate(timeout=timeout_s)
    assert proc.returncode == 0, (tmp_path / "floor-sim.log").read_text()[-3000:]
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    print("floor-sim:", json.dumps(report))
    return report


def archived(db: str) -> tuple[int, int, list[tuple[str, int, int]]]:
    """(rows, distinct (table, hand), per table: name, hands, highest hand)."""
    with psycopg.connect(db) as conn:
        rows, distinct = conn.execute("SELECT count(*), count(DISTINCT (table_name, hand)) FROM hands").fetchone() or (0, 0)
        tables = conn.execute("SELECT table_name, count(*), max(hand) FROM hands GROUP BY table_name "
                              "ORDER BY table_name").fetchall()
    return int(rows), int(distinct), [(str(t), int(n), int(m)) for t, n, m in tables]


def stats_hands(db: str) -> int:
    done = croupier_here("stats", "--db", db, "--json")  # `croupier stats` in this process: the same code, no start-up
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"tables", "games"} <= set(report)
    return int(report["hands"])


def archive_failures(tmp_path: Path) -> int:
    """How many times the pits started in tmp_path logged a catch-up failed on the archive (floor/catchup.py)."""
    log = tmp_path / "pit.log"
    return log.read_text(encoding="utf-8", errors="replace").count("(the archive tried again in") if log.exists() else 0


def stop(proc: subprocess.Popen[str] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_ten_tables_at_fifty_times_real_time_are_archived_whole(tmp_path: Path, db: str) -> None:
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", "10", "--speed", "50", "--duration", "4",
                            "--pit-wait", "40", "--watch")  # 4 s: about 40 hands (61 in 6 s at load 8)
    pit = None
    try:
        pit = start_pit(tmp_path, config)
        report = finish(sim, tmp_path)
    finally:
        stop(sim)
        stop(pit)
    assert report["tables"] == 10 and report["pit_ready"] and report["archived"]
    assert report["hands"] > 20 and report["messages"] > 10 * report["hands"]
    floor = report["floor"]
    # every update a table sent was passed on by the pit on its own, and the floor feed has no hole
    assert floor["missing"] == 0 and floor["floor_gaps"] == 0 and floor["received"] > 10 * report["hands"]
    rows, distinct, tables = archived(db)
    assert rows == distinct == report["hands"]
    assert len(tables) == 10 and all(n == top for _, n, top in tables)  # hands 1..n of each table, no hole
    assert stats_hands(db) == report["hands"]


def test_the_pit_killed_postgresql_stopped_and_a_table_restarted_lose_no_hand(tmp_path: Path, db: str,
                                                                           pg: PgServer) -> None:
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", "4", "--speed", "100", "--duration", "10",
                            "--pit-wait", "40", "--restart", "sim-uth-0001@5")
    pit = None
    try:
        pit = start_pit(tmp_path, config)
        wait_for(lambda: archived(db)[0] > 0, "the pit's first hands archived", timeout_s=60)
        os.kill(pit.pid, signal.SIGKILL)  # the pit killed mid-run: no goodbye, its pid file left
        pit.wait(10)
        failed = archive_failures(tmp_path)
        pit = start_pit(tmp_path, config)
        pg.stop()  # the archive down for a while: the pit's catch-up fails, then resumes on its timer
        wait_for(lambda: archive_failures(tmp_path) > failed, "the pit's catch-up failing on the archive down",
                 timeout_s=60)
        pg.start()
        report = finish(sim, tmp_path)
    finally:
        if not pg.running:
            pg.start()
        stop(sim)
        stop(pit)
    assert report["archived"] and report["restarted"] == ["sim-uth-0001"]
    rows, distinct, tables = archived(db)
    assert rows == distinct == report["hands"]  # none lost, none twice
    assert len(tables) == 4 and all(n == top for _, n, top in tables)
    assert stats_hands(db) == report["hands"]


def test_forty_tables_in_two_processes_are_archived_whole(tmp_path: Path, db: str) -> None:
    """`--processes 2`: each child plays half the tables, the parent writes the one configuration (every
    table, named as one process names them), the watcher hears both halves, the counts are merged."""
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", "40", "--processes", "2", "--speed", "50", "--duration", "3",
                            "--pool", "4", "--pit-wait", "40", "--watch")
    pit = None
    try:
        pit = start_pit(tmp_path, config)
        report = finish(sim, tmp_path)
    finally:
        stop(sim)
        stop(pit)
    listed = [line.split('"')[1] for line in config.read_text().splitlines() if line.startswith("name = ")]
    assert listed == [f"sim-{'uth' if i % 2 == 0 else '3cp'}-{i + 1:04d}" for i in range(40)]
    assert report["tables"] == 40 and report["pit_ready"] and report["archived"]
    assert report["hands"] > 40 and report["messages"] > 10 * report["hands"]
    floor = report["floor"]
    assert floor["missing"] == 0 and floor["floor_gaps"] == 0 and floor["received"] > 10 * report["hands"]
    rows, distinct, tables = archived(db)
    assert rows == distinct == report["hands"] == stats_hands(db)
    assert len(tables) == 40 and all(n == top for _, n, top in tables)
    # both halves played: tables of the first and of the second process closed hands
    assert {t for t, _, _ in tables} >= {"sim-uth-0001", "sim-3cp-0040"}


def test_more_processes_than_tables_is_refused_saying_so(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "floor-sim", "--tables", "3", "--processes", "4",
                           "--duration", "1", "--pit-config", str(tmp_path / "pit.toml")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--processes: 4 is not between 1 and 3" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "pit.toml").exists()


@pytest.mark.soak
def test_five_thousand_tables_at_real_time(tmp_path: Path, db: str, pg: PgServer) -> None:
    """The aim of issue 11: 5,000 tables at real time on one pit process, for 3 minutes (FLOOR_5000_TABLES,
    _S, _PROCESSES to change), floor-sim in 4 processes, the tables' heartbeat 1 s (their default): every
    table online, no gap, every closed hand archived once; the lag, the pit's CPU, RSS and file descriptors
    (its own and its archiver child's), with the machine's load, printed and written to `soak.json`."""
    tables = os.environ.get("FLOOR_5000_TABLES", "5000")
    seconds = os.environ.get("FLOOR_5000_S", "180")
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", tables, "--processes", os.environ.get("FLOOR_5000_PROCESSES", "4"),
                            "--speed", "1", "--duration", seconds, "--heartbeat-s", "1.0", "--pit-wait", "900",
                            "--watch")
    pit = None
    sampler = None
    try:
        pit = start_pit(tmp_path, config)
        sampler = UsageSampler(pit.pid, sim.pid)
        report = finish(sim, tmp_path, timeout_s=float(seconds) + 2400)
    finally:
        if sampler is not None:
            sampler.stop()
        stop(sim)
        stop(pit)
    rows, distinct, per_table = archived(db)
    figures = {"floor_sim": report, "archive": {"rows": rows, "distinct": distinct, "hands_played": report["hands"],
                                                "stats_hands": stats_hands(db), "tables": len(per_table)},
               "pit": sampler.report() if sampler is not None else None}
    (tmp_path / "soak.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    summary = {k: v for k, v in (figures["pit"] or {}).items() if k != "samples"}
    print("floor 5,000:", json.dumps({**figures, "pit": summary}), f"(written to {tmp_path / 'soak.json'})")
    floor = report["floor"]
    assert report["pit_ready"] and report["archived"] and floor["missing"] == 0 and floor["floor_gaps"] == 0
    assert rows == distinct == report["hands"] == figures["archive"]["stats_hands"]
    assert summary["fds_max"] < 16000 and summary["child_fds_max"] < 16000  # well under the 20,000 a process has


@pytest.mark.soak
def test_a_thousand_tables_at_ten_times_real_time(tmp_path: Path, db: str, pg: PgServer) -> None:
    """1,000 tables at 10x for 5 minutes (FLOOR_SOAK_TABLES / _S to change): lag p99 under 50 ms, no gap,
    every hand archived; the pit's RSS and CPU, with the machine's load, printed and written to
    `soak.json` in the test's tmp directory. The faults are the next test's."""
    tables, seconds = os.environ.get("FLOOR_SOAK_TABLES", "1000"), os.environ.get("FLOOR_SOAK_S", "300")
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", tables, "--speed", "10", "--duration", seconds,
                            "--pit-wait", "300", "--watch")
    pit = None
    sampler = None
    try:
        pit = start_pit(tmp_path, config)
        sampler = UsageSampler(pit.pid, sim.pid)
        report = finish(sim, tmp_path, timeout_s=float(seconds) + 900)
    finally:
        if sampler is not None:
            sampler.stop()
        stop(sim)
        stop(pit)
    rows, distinct, _ = archived(db)
    figures = {"floor_sim": report, "archive": {"rows": rows, "distinct": distinct, "hands_played": report["hands"],
                                                "stats_hands": stats_hands(db)},
               "pit": sampler.report() if sampler is not None else None}
    (tmp_path / "soak.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print("floor soak:", json.dumps(figures), f"(written to {tmp_path / 'soak.json'})")
    floor = report["floor"]
    assert report["archived"] and floor["missing"] == 0 and floor["floor_gaps"] == 0
    assert rows == distinct == report["hands"] == figures["archive"]["stats_hands"]
    assert floor["lag_p99_ms"] is not None and floor["lag_p99_ms"] < 50


@pytest.mark.soak
def test_the_soak_faults_lose_no_hand(tmp_path: Path, pg: PgServer) -> None:
    """The soak's faults, on their own (so that they run whatever the load test found): 100 tables at
    10x for 90 s, the pit killed at 10 s and started again, PostgreSQL down for 30 s, a table restarted."""
    fault_dir = tmp_path / "faults"
    fault_dir.mkdir()
    fault_db = pg.create_database("floor_soak_faults")
    migrate(fault_db)
    sim, config = floor_sim(fault_dir, fault_db, "--tables", "100", "--speed", "10", "--duration", "90",
                            "--pit-wait", "120", "--restart", "sim-uth-0001@50")
    pit = None
    try:
        pit = start_pit(fault_dir, config)
        time.sleep(10)
        os.kill(pit.pid, signal.SIGKILL)
        pit.wait(10)
        pit = start_pit(fault_dir, config)
        time.sleep(5)
        pg.stop()
        time.sleep(30)
        pg.start()
        report = finish(sim, fault_dir, timeout_s=400)
    finally:
        if not pg.running:
            pg.start()
        stop(sim)
        stop(pit)
    rows, distinct, tables = archived(fault_db)
    assert report["archived"] and report["restarted"] == ["sim-uth-0001"]
    assert rows == distinct == report["hands"] == stats_hands(fault_db)  # none lost, none twice
    assert len(tables) == 100 and all(n == top for _, n, top in tables)  # each table's hands 1..n


class UsageSampler(threading.Thread):
    """Every 2 s while the floor-sim runs: the pit's RSS and CPU seconds, and the machine's load average."""

    def __init__(self, pid: int, sim_pid: int) -> None:
        super().__init__(name="usage", daemon=True)
        self.pid, self.sim_pid = pid, sim_pid
        self.started = time.monotonic()
        self.first = pit_usage(pid)
        self.samples: list[dict[str, Any]] = []
        self._done = threading.Event()
        self.start()

    def run(self) -> None:
        while not self._done.wait(2.0):
            try:
                usage = {**pit_usage(self.pid), "at_s": round(time.monotonic() - self.started, 1),
                         "sim_cpu_s": pit_usage(self.sim_pid)["cpu_s"], "load": os.getloadavg()[0]}
            except (OSError, StopIteration):
                return
            self.samples.append(usage)

    def stop(self) -> None:
        self._done.set()
        self.join(5)

    def report(self) -> dict[str, Any]:
        if not self.samples:
            return {"samples": 0}
        last = self.samples[-1]
        wall = last["at_s"]
        cpu = last["cpu_s"] - self.first["cpu_s"]
        loads = [s["load"] for s in self.samples]
        return {"wall_s": wall, "cpu_s": round(cpu, 1), "cpu_share": round(cpu / wall, 2) if wall else None,
                "sim_cpu_s": last["sim_cpu_s"], "rss_mib_last": last["rss_mib"],
                "rss_mib_max": max(s["rss_mib"] for s in self.samples),
                "fds_max": max(s["fds"] for s in self.samples), "child_fds_max": max(s["child_fds"] for s in self.samples),
                "fds_last": last["fds"], "child_fds_last": last["child_fds"],
                "load_min": min(loads), "load_max": max(loads), "load_mean": round(sum(loads) / len(loads), 2),
                "samples": self.samples}


def pit_usage(pid: int) -> dict[str, Any]:
    """The pit's resident memory (MiB) and CPU seconds so far, from /proc, its catch-up process's
    (`floor/archiver.py`, a child) with them (`child_*` apart); the file descriptors each holds (`fds`,
    `child_fds`: the entries of /proc/PID/fd)."""
    def one(p: int) -> tuple[float, float]:
        status = Path(f"/proc/{p}/status").read_text(encoding="utf-8")
        rss_kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        fields = Path(f"/proc/{p}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        return rss_kib / 1024, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    rss, cpu = one(pid)
    try:
        kids = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii").split()]
    except OSError:
        kids = []
    child_rss = child_cpu = 0.0
    child_fds = 0
    for kid in kids:
        try:
            r, c = one(kid)
            child_fds += fds(kid)
        except (OSError, StopIteration):
            continue
        child_rss, child_cpu = child_rss + r, child_cpu + c
    return {"rss_mib": round(rss + child_rss, 1), "cpu_s": round(cpu + child_cpu, 1),
            "child_rss_mib": round(child_rss, 1), "child_cpu_s": round(child_cpu, 1), "fds": fds(pid),
            "child_fds": child_fds}


def fds(pid: int) -> int:
    """The file descriptors process `pid` holds."""
    return len(os.listdir(f"/proc/{pid}/fd"))
