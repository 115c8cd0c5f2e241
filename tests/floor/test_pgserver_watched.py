"""A watched throw-away cluster (the rated demo's archive, `sim.pgserver`) is stopped and removed when the process that made it is SIGKILLed: no PostgreSQL left running, no directory left behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

MAKER = """import sys, time
from sim.pgserver import PgServer
server = PgServer(watched=True)
server.start()
print(server.root, server.port, flush=True)
time.sleep(300)
"""


def accepts(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    """Whether `condition` came true within `timeout_s` (asked every 50 ms)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_watched_cluster_stops_and_goes_when_its_maker_is_killed() -> None:
    maker = subprocess.Popen([sys.executable, "-c", MAKER], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert maker.stdout is not None
        root_text, port_text = maker.stdout.readline().split()
        root, port = Path(root_text), int(port_text)
        postmaster = int((root / "data" / "postmaster.pid").read_text().splitlines()[0])
        assert accepts(port) and alive(postmaster)
        os.kill(maker.pid, signal.SIGKILL)  # no atexit, no finally: nothing of the maker runs
        maker.wait(10)
        assert wait_for(lambda: not alive(postmaster), 60), "the postmaster outlived its maker"
        assert not accepts(port)
        assert wait_for(lambda: not root.exists(), 30), f"{root} left behind"
    finally:
        if maker.poll() is None:
            maker.kill()
            maker.wait()


def test_a_watched_cluster_closed_leaves_no_watcher() -> None:
    from sim.pgserver import PgServer
    server = PgServer(watched=True)
    assert server._watcher is not None
    watcher = server._watcher[0]
    server.start()
    server.close()
    assert watcher.poll() is not None and not server.root.exists()  # reaped, the cluster gone
