"""`croupier watch`: money in the table's currency, whose turn, the next card, the nets at the
settlement, and OFFLINE once the controller's heartbeats stop (a real `croupier run`, SIGKILLed)."""

from __future__ import annotations

import io
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import zmq

from drivers.card_reader import SimCardReader
from cli.watch import render_screen, watch
from protocol.commands import CommandClient
from firmware_host.service.controller import Controller
from protocol.feed import Feed
from firmware_host.service.journal import Journal
from engine.money import Money
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import start_cli, table_config

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
HEARTBEAT_S = 0.2


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_an_unknown_currency_is_refused_naming_the_key(tmp_path: Path) -> None:
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    config.write_text(config.read_text().replace('game = "uth"', 'game = "uth"\ncurrency = "XYZ"'))
    proc = croupier("run", "--config", str(config), "--state", str(tmp_path / "state"), "--check")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert str(config) in proc.stderr and "[table] currency" in proc.stderr and "XYZ" in proc.stderr


def test_the_feed_carries_the_currency_and_watch_shows_the_settlement(tmp_path: Path,
                                                                      ctx: zmq.Context[Any]) -> None:
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "cmd")}
    feed = Feed(ctx, "t9", public=eps["public"], snapshot=eps["snapshot"], heartbeat_s=HEARTBEAT_S)
    c = Controller(Journal.open(tmp_path / "state"), table="t9", default_setup=UTH, feed=feed,
                   money=Money.of("USD"))
    c.recover()
    shoe = SimCardReader(c.inbox.post)
    thread = threading.Thread(target=c.run, args=(ctx, eps["cmd"]), daemon=True)
    thread.start()
    dealer = CommandClient(ctx, eps["cmd"])
    try:
        assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100, "trips": 50})["ok"]
        assert dealer.request("bet", seat=3, bets={"ante": 250, "blind": 250})["ok"]
        out = io.StringIO()
        assert watch(eps["public"], eps["snapshot"], out, count=1, timeout_s=5.0) == 0
        line = out.getvalue()
        assert "ante=USD 1.00,blind=USD 1.00,trips=USD 0.50" in line and "ante=USD 2.50" in line
        assert "next=" not in line and "turn=" not in line  # taking bets: no card expected, no decision
        shoe.start()
        shoe.deal("As")
        wait_phase(dealer, "deal")
        out = io.StringIO()
        assert watch(eps["public"], eps["snapshot"], out, count=1, timeout_s=5.0) == 0
        assert "next=[spot 3]" in out.getvalue()  # where the next card goes
        for card in "Kd Qh Ac Tc 9d".split():
            shoe.deal(card)
        wait_phase(dealer, "preflop")
        out = io.StringIO()
        assert watch(eps["public"], eps["snapshot"], out, count=1, timeout_s=5.0) == 0
        assert "turn=[spot 1 to decide]" in out.getvalue() and "next=" not in out.getvalue()
        assert dealer.request("decide", seat=1, decision="play", multiple=4)["ok"]
        assert dealer.request("decide", seat=3, decision="check")["ok"]
        for card in "2c 7d 9h".split():
            shoe.deal(card)
        wait_phase(dealer, "flop")
        assert dealer.request("decide", seat=3, decision="check")["ok"]
        for card in "4s 3c".split():
            shoe.deal(card)
        wait_phase(dealer, "river")
        assert dealer.request("decide", seat=3, decision="play", multiple=1)["ok"]
        assert dealer.request("confirm")["ok"]
        out = io.StringIO()
        assert watch(eps["public"], eps["snapshot"], out, count=1, timeout_s=5.0) == 0
        shown = out.getvalue()
        state = dealer.request("state")["state"]
    finally:
        dealer.close()
        c.stop()
        thread.join(5)
        feed.close()
    record = Journal.open(tmp_path / "state", readonly=True).hands()[0].record["settlement"]
    assert state["currency"] == "USD" and state["decimals"] == 2 and state["phase"] == "settled"
    nets = {s["seat"]: s["net"] for s in record["spots"]}
    assert len(nets) == 2 and any(nets.values())
    expected = ", ".join(f"seat{seat}={Money('USD', 2).format(net, signed=True)}" for seat, net in sorted(nets.items()))
    assert f"nets=[{expected}]" in shown
    assert f"house={Money('USD', 2).format(record['house_net'], signed=True)}" in shown
    screen = render_screen({**state, "table": "t9", "seq": 1})
    assert f"house   {Money('USD', 2).format(record['house_net'], signed=True)}" in screen
    assert "STALE" not in screen and "OFFLINE" not in screen


def wait_phase(dealer: CommandClient, phase: str) -> None:
    for _ in range(500):
        if dealer.request("state")["state"]["phase"] == phase:
            return
        threading.Event().wait(0.02)
    raise AssertionError(f"the hand never reached {phase}")


def lines_of(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """`proc`'s stdout, line by line, as it comes."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return lines


def next_line(lines: queue.Queue[str], starts: str, seen: list[str], within_s: float = 20.0) -> str:
    """The next line starting with `starts` (the ones before it kept in `seen`)."""
    while True:
        try:
            line = lines.get(timeout=within_s)
        except queue.Empty:
            raise AssertionError(f"no line starting {starts!r}; got {seen[-5:]}") from None
        seen.append(line)
        if line.startswith(starts):
            return line


def test_watch_says_offline_when_the_controller_is_killed_and_clears_when_it_is_back(tmp_path: Path) -> None:
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    config.write_text(config.read_text().replace('full_snapshot = ""', f'full_snapshot = ""\nheartbeat_s = {HEARTBEAT_S}')
                      .replace('game = "uth"', 'game = "uth"\ncurrency = "JPY"'))
    state = tmp_path / "state"
    run, ready = start_cli(["run", "--config", str(config), "--state", str(state)], tmp_path)
    watcher = subprocess.Popen([sys.executable, "-m", "cli", "watch", f"ipc://{tmp_path}/public",
                                "--snapshot", f"ipc://{tmp_path}/snapshot", "--plain", "--heartbeat-s",
                                str(HEARTBEAT_S)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = lines_of(watcher)
    seen: list[str] = []
    try:
        first = next_line(lines, "seq=", seen)
        assert " snapshot " in first
        for _ in range(5):  # heartbeats flow: never offline while they do
            assert next_line(lines, "seq=", seen).endswith(" heartbeat")
        assert not any(line.startswith("OFFLINE") for line in seen)
        run.send_signal(signal.SIGKILL)
        run.wait(10)
        offline = next_line(lines, "OFFLINE", seen)
        silent = float(offline.split("nothing for ")[1].split(" s")[0])
        assert silent >= round(3 * HEARTBEAT_S, 1) and "3 heartbeats missed" in offline and "is stale" in offline
        run, again = start_cli(["run", "--config", str(config), "--state", str(state)], tmp_path)
        assert again["boot"] != ready["boot"]
        back = next_line(lines, "ONLINE", seen)
        assert again["boot"][:6] in back or again["boot"][:6] in next_line(lines, "seq=", seen)
        after = next_line(lines, "seq=", seen)
        assert again["boot"][:6] in after and not after.startswith("OFFLINE")
    finally:
        watcher.terminate()
        watcher.wait(10)
        run.terminate()
        run.wait(10)


def test_watch_refuses_a_bad_endpoint_or_heartbeat_in_the_configuration_files_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    from cli import main
    for argv, says in [(["http://t1:5556"], "ENDPOINT: must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH"),
                       (["ipc:///p", "--snapshot", "tcp://t1"], "--snapshot: must be a ZeroMQ endpoint"),
                       (["tcp://t1:5556", "--heartbeat-s", "0"],
                        "--heartbeat-s: must be a number of seconds between 0.05 and 60, not 0.0")]:
        assert main(["watch", *argv]) == 2
        assert f"croupier watch: {says}" in capsys.readouterr().err
