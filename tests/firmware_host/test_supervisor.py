"""The supervisor restarts a dead child as systemd's Restart=always does, and gives up on a crash loop."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator

import pytest

from firmware_host.supervisor import Supervisor, SupervisorError

SERVICE = [sys.executable, "-c",
           "import json, os, time; print(json.dumps({'ready': True, 'pid': os.getpid()}), flush=True); time.sleep(60)"]
CRASHER = [sys.executable, "-c", "import json; print(json.dumps({'ready': True}), flush=True); raise SystemExit(3)"]
MUTE = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture
def supervisors() -> Iterator[list[Supervisor]]:
    made: list[Supervisor] = []
    yield made
    for s in made:
        s.stop()


def test_a_killed_child_is_restarted_and_stop_ends_it(supervisors: list[Supervisor]) -> None:
    sup = Supervisor(SERVICE, name="svc", restart_s=0.01)
    supervisors.append(sup)
    first = sup.start()
    assert first["ready"] is True and first["pid"] == sup.pid and first["start"] == 1
    assert sup.kill(signal.SIGKILL) == first["pid"]
    second = sup.wait_ready(2)
    assert second["pid"] != first["pid"] and second["start"] == 2
    assert sup.exits == [-signal.SIGKILL]
    sup.stop()
    assert sup.pid is None and sup.exits == [-signal.SIGKILL, -signal.SIGTERM]


def test_a_crash_loop_hits_the_start_limit(supervisors: list[Supervisor]) -> None:
    sup = Supervisor(CRASHER, name="crasher", restart_s=0.01, burst=2, burst_s=30.0)
    supervisors.append(sup)
    with pytest.raises(SupervisorError, match="died 2 times"):
        sup.start()
        sup.wait_ready(5, timeout_s=20)
    assert sup.exits == [3, 3] and sup.starts == 2


def test_a_child_that_never_says_ready_is_not_taken_for_started(supervisors: list[Supervisor]) -> None:
    sup = Supervisor(MUTE, name="mute", restart_s=0.01, ready_timeout_s=0.3, burst=1)
    supervisors.append(sup)
    with pytest.raises(SupervisorError):
        sup.start()
    assert sup.pid is None
