"""The restarter restarts a dead child as systemd's Restart=always does, and gives up on a crash loop."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest

from sim.restarter import Restarter, RestarterError

SERVICE = [sys.executable, "-c",
           "import json, os, time; print(json.dumps({'ready': True, 'pid': os.getpid()}), flush=True); time.sleep(60)"]
CRASHER = [sys.executable, "-c", "import json; print(json.dumps({'ready': True}), flush=True); raise SystemExit(3)"]
MUTE = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture
def restarters() -> Iterator[list[Restarter]]:
    made: list[Restarter] = []
    yield made
    for s in made:
        s.stop()


def test_a_killed_child_is_restarted_and_stop_ends_it(restarters: list[Restarter]) -> None:
    sup = Restarter(SERVICE, name="svc", restart_s=0.01)
    restarters.append(sup)
    first = sup.start()
    assert first["ready"] is True and first["pid"] == sup.pid and first["start"] == 1
    assert sup.kill(signal.SIGKILL) == first["pid"]
    second = sup.wait_ready(2)
    assert second["pid"] != first["pid"] and second["start"] == 2
    assert sup.exits == [-signal.SIGKILL]
    sup.stop()
    assert sup.pid is None and sup.exits == [-signal.SIGKILL, -signal.SIGTERM]


def test_a_crash_loop_hits_the_start_limit(restarters: list[Restarter]) -> None:
    sup = Restarter(CRASHER, name="crasher", restart_s=0.01, burst=2, burst_s=30.0)
    restarters.append(sup)
    with pytest.raises(RestarterError, match="died 2 times"):
        sup.start()
        sup.wait_ready(5, timeout_s=20)
    assert sup.exits == [3, 3] and sup.starts == 2


def test_a_child_that_never_says_ready_is_not_taken_for_started(restarters: list[Restarter]) -> None:
    sup = Restarter(MUTE, name="mute", restart_s=0.01, ready_timeout_s=0.3, burst=1)
    restarters.append(sup)
    with pytest.raises(RestarterError):
        sup.start()
    assert sup.pid is None


def test_a_child_is_out_of_reach_of_a_signal_to_the_parents_group(restarters: list[Restarter]) -> None:
    """A Ctrl-C at the terminal signals the whole foreground group: the child, in a session of its own, is not in
    it, so the parent stops it in order rather than finding it dead and counting a restart (the demo said
    "controller: exited with status 0; restarting" and `"restarts": 1` after a stop)."""
    sup = Restarter(SERVICE, name="svc", restart_s=0.01)
    restarters.append(sup)
    ready = sup.start()
    assert os.getsid(ready["pid"]) == ready["pid"] != os.getsid(0)
    assert os.getpgid(ready["pid"]) != os.getpgid(0)
