"""The pit's catch-up and archive in their own process (`floor/archiver.py`): killed, it is started again and no hand is lost; the pit killed, it ends too."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from floor.migrate import migrate
from tests.firmware_host.processes import wait_for
from tests.floor.test_floor_sim import archived, finish, floor_sim, start_pit, stats_hands, stop


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_archiver_killed_is_started_again_and_the_archive_stays_whole(tmp_path: Path, db: str) -> None:
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", "6", "--speed", "100", "--duration", "8", "--pit-wait", "40")
    pit = None
    try:
        pit = start_pit(tmp_path, config)
        wait_for(lambda: len(children(pit.pid)) == 1, "the archiver process", timeout_s=30)
        first = children(pit.pid)[0]
        time.sleep(2)
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: [c for c in children(pit.pid) if c != first and alive(c)], "a new archiver", timeout_s=30)
        report = finish(sim, tmp_path)
    finally:
        stop(sim)
        stop(pit)
    assert report["archived"] and report["hands"] > 20
    rows, distinct, tables = archived(db)
    assert rows == distinct == report["hands"] == stats_hands(db)
    assert len(tables) == 6 and all(n == top for _, n, top in tables)


def test_the_pit_killed_takes_its_archiver_with_it(tmp_path: Path, db: str) -> None:
    migrate(db)
    sim, config = floor_sim(tmp_path, db, "--tables", "2", "--speed", "50", "--duration", "4", "--pit-wait", "5")
    pit = None
    try:
        pit = start_pit(tmp_path, config)
        wait_for(lambda: len(children(pit.pid)) == 1, "the archiver process", timeout_s=30)
        child = children(pit.pid)[0]
        os.kill(pit.pid, signal.SIGKILL)
        pit.wait(10)
        wait_for(lambda: not alive(child), "the archiver to end with its pit", timeout_s=10)
    finally:
        stop(sim)
        stop(pit)
