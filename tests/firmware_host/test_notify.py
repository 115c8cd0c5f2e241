"""systemd notifications: READY, watchdog pings only while the loop turns, STOPPING, on a real socket."""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.service.notify import Notifier
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import table_config


class Receiver:
    """systemd's end: an AF_UNIX datagram socket, and what arrived on it with the time it arrived."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)

    def receive(self, timeout_s: float) -> tuple[float, str] | None:
        ready, _, _ = select.select([self.sock], [], [], timeout_s)
        if not ready:
            return None
        return time.monotonic(), self.sock.recv(4096).decode("utf-8")

    def collect(self, seconds: float) -> list[tuple[float, str]]:
        got: list[tuple[float, str]] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            item = self.receive(left)
            if item is not None:
                got.append(item)
        return got

    def wait_for(self, message: str, timeout_s: float = 10.0) -> list[str]:
        """Every message up to and including `message`; fails after `timeout_s`."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            item = self.receive(left)
            if item is not None:
                seen.append(item[1])
                if item[1].split("\n")[0] == message:
                    return seen
        raise AssertionError(f"no {message} within {timeout_s} s; got {seen}")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    # A short directory of its own: an AF_UNIX path has at most 107 bytes, pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="notify-") as tmp:
        r = Receiver(os.path.join(tmp, "notify.sock"))
        try:
            yield r
        finally:
            r.sock.close()


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# -- the protocol ---------------------------------------------------------------------------------


def test_ready_status_and_stopping_are_one_datagram_each(receiver: Receiver) -> None:
    n = Notifier.from_environment({"NOTIFY_SOCKET": receiver.address})
    assert n.enabled and n.watchdog_s is None
    n.ready("table t1 ready: hand 3")
    n.status("two\nlines")
    n.stopping()
    got = [text for _, text in receiver.collect(0.3)]
    assert got == ["READY=1\nSTATUS=table t1 ready: hand 3", "STATUS=two lines", "STOPPING=1"]
    n.close()


def test_watchdog_pings_at_most_once_per_half_its_timeout(receiver: Receiver) -> None:
    from_env = Notifier.from_environment({"NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "200000"})
    assert from_env.watchdog_s == pytest.approx(0.2)
    clock = FakeClock()
    n = Notifier(receiver.address, watchdog_s=0.2, clock=clock)
    assert n.watchdog() == pytest.approx(0.1)  # the first call pings
    clock.now += 0.04
    assert n.watchdog() == pytest.approx(0.06)  # too soon: nothing sent, due in 0.06 s
    clock.now += 0.05
    n.watchdog()
    clock.now += 0.011  # 0.101 s after the first
    n.watchdog()
    clock.now += 0.5  # a long turn: one ping, not a burst to catch up
    n.watchdog()
    n.watchdog()
    assert [text for _, text in receiver.collect(0.3)] == ["WATCHDOG=1"] * 3
    n.close()


def test_watchdog_is_off_for_another_pid_or_without_watchdog_usec(receiver: Receiver) -> None:
    other = Notifier.from_environment({"NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "200000",
                                       "WATCHDOG_PID": str(os.getpid() + 1)})
    mine = Notifier.from_environment({"NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "200000",
                                      "WATCHDOG_PID": str(os.getpid())})
    none = Notifier.from_environment({"NOTIFY_SOCKET": receiver.address})
    assert other.watchdog() == float("inf") and none.watchdog() == float("inf")
    assert mine.watchdog() == pytest.approx(0.1)
    assert [text for _, text in receiver.collect(0.3)] == ["WATCHDOG=1"]  # mine only
    for n in (other, mine, none):
        n.close()


def test_a_leading_at_sign_is_the_abstract_namespace() -> None:
    name = f"croupier-test-notify-{os.getpid()}-{time.monotonic_ns()}"
    r = Receiver("\0" + name)
    try:
        n = Notifier.from_environment({"NOTIFY_SOCKET": "@" + name})
        n.ready("up")
        assert [text for _, text in r.collect(0.3)] == ["READY=1\nSTATUS=up"]
        n.close()
    finally:
        r.sock.close()


def test_without_notify_socket_every_call_does_nothing() -> None:
    n = Notifier.from_environment({"WATCHDOG_USEC": "200000"})
    assert not n.enabled and n.watchdog_s is None
    n.ready("up")
    n.status("x")
    assert n.watchdog() == float("inf")
    n.stopping()
    assert n.failures == 0 and n._sock is None  # nothing was even opened


def test_a_failing_send_never_raises_and_is_logged_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    n = Notifier(str(tmp_path / "nobody-listens"), watchdog_s=0.2)
    with caplog.at_level(logging.WARNING, logger="croupier.notify"):
        n.ready("up")
        n.watchdog()
        n.stopping()
    assert n.failures == 3
    assert [r.getMessage() for r in caplog.records if "cannot notify systemd" in r.getMessage()] == [
        f"cannot notify systemd at {str(tmp_path / 'nobody-listens')!r} ([Errno 2] No such file or directory); "
        "further failures not logged"]
    n.close()


# -- croupier run under a NOTIFY_SOCKET -----------------------------------------------------------


def test_croupier_run_says_ready_after_its_ready_line_then_pings_then_stopping(
        tmp_path: Path, receiver: Receiver) -> None:
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    env = {**os.environ, "NOTIFY_SOCKET": receiver.address, "WATCHDOG_USEC": "200000"}
    env.pop("WATCHDOG_PID", None)
    log = open(tmp_path / "run.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", "--config", str(config),
                             "--state", str(tmp_path / "state")],
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = receiver.wait_for("READY=1", timeout_s=30.0)
        assert len(first) == 1, first  # nothing before READY=1: no ping while starting
        # the ready line was written before READY=1 was sent: it is waiting in the pipe already
        assert select.select([proc.stdout], [], [], 0)[0], "READY=1 came before the ready line"
        assert '"ready": true' in proc.stdout.readline()
        assert first[0].startswith("READY=1\nSTATUS=table t1 ready: hand ")
        pings = receiver.collect(1.0)
        assert [text for _, text in pings] == ["WATCHDOG=1"] * len(pings)
        assert len(pings) >= 4, pings  # every 0.1 s with a 0.2 s watchdog, the loop idle
        gaps = [b[0] - a[0] for a, b in zip(pings, pings[1:])]
        assert min(gaps) > 0.05, gaps  # rate-limited, not one per turn
        proc.send_signal(signal.SIGTERM)
        assert receiver.wait_for("STOPPING=1")[-1].startswith("STOPPING=1")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


# -- a stuck loop -------------------------------------------------------------------------------


def test_a_stuck_loop_sends_no_pings_and_they_resume_when_it_turns_again(
        tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    controller = Controller(Journal.open(tmp_path / "state"),
                            default_setup=HouseSetup("uth", "default", {"minimum": 100}, 7))
    controller.recover()
    notifier = Notifier(receiver.address, watchdog_s=0.2)
    entered, release = threading.Event(), threading.Event()
    handle = controller.handle_command

    def stuck(cmd: Any, caller: Any = None, verdict: Any = None) -> dict[str, Any]:  # hangs, as a hung loop would
        entered.set()
        release.wait(10.0)
        return handle(cmd, caller, verdict)

    monkeypatch.setattr(controller, "handle_command", stuck)
    ctx: zmq.Context[Any] = zmq.Context()
    endpoint = f"ipc://{tmp_path}/cmd"
    loop = threading.Thread(target=controller.run, args=(ctx, endpoint), kwargs={"on_turn": notifier.watchdog})
    loop.start()
    client = ctx.socket(zmq.REQ)
    client.setsockopt(zmq.LINGER, 0)
    try:
        before = receiver.collect(0.5)
        assert len(before) >= 3 and {text for _, text in before} == {"WATCHDOG=1"}, before
        client.connect(endpoint)
        client.send(msgpack.packb({"cmd": "state", "id": "s1"}))
        assert entered.wait(10.0)
        receiver.collect(0.15)  # a ping sent just before the loop got stuck may still be in flight
        assert receiver.collect(0.8) == []  # stuck: no pings at all
        release.set()
        assert client.poll(10_000)
        assert msgpack.unpackb(client.recv())["ok"]
        after = receiver.collect(0.5)
        assert len(after) >= 3 and {text for _, text in after} == {"WATCHDOG=1"}, after
    finally:
        release.set()
        controller.stop()
        loop.join(10.0)
        client.close(0)
        ctx.destroy(linger=0)
        controller.journal.close()
        notifier.close()
    assert not loop.is_alive()


def test_the_unit_waits_for_ready_and_keeps_a_watchdog() -> None:
    from tests.test_deploy import UNIT, parse_unit

    service = {key: values[-1] for key, values in parse_unit(UNIT.read_text(encoding="utf-8"))["Service"].items()}
    assert (service["Type"], service["NotifyAccess"]) == ("notify", "main")
    assert 2 <= int(service["WatchdogSec"]) <= 30  # pinged every WatchdogSec/2 by the loop
    assert service["Restart"] == "always"  # a watchdog kill is restarted
