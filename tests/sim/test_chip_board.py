"""The emulated chip reader board: its antennas, the chips it holds, its misses, its control lines, and `croupier sim-chips` as its own process."""

from __future__ import annotations

import json
import queue
import signal
import socket
import subprocess
import sys
from typing import Any

import pytest

from drivers.chip_link import ChipLink
from drivers.chip_protocol import Decoder, Inventory, MsgType, decode_message
from drivers.errors import DeviceError
from drivers.readings import ChipsRead, DeviceOnline
from sim.chips.board import MAX_MISS, ChipBoardClient, ChipBoardFirmware, layout, miss_chance

A, B, C = "E004010000000B01", "E004010000000B02", "E004010000000B03"


def test_the_antennas_are_each_spots_circles_and_play_then_the_tray() -> None:
    uth = [name for _, name in layout("uth", 7)]
    assert len(uth) == 7 * 4 + 1 and uth[:4] == ["spot1.ante", "spot1.blind", "spot1.trips", "spot1.play"]
    assert uth[-1] == "tray" and [n for n, _ in layout("uth", 7)] == list(range(29))
    with pytest.raises(ValueError, match="no house game 'holdem'"):
        layout("holdem", 1)


def test_a_chip_is_likelier_missed_the_higher_it_sits() -> None:
    assert miss_chance(0, 0.005) == 0.0 and miss_chance(19, 0.005) == pytest.approx(0.095)
    assert miss_chance(500, 0.005) == MAX_MISS
    board = ChipBoardFirmware(seed=5, antennas=layout("uth", 1), miss_rate=0.02)
    stack = [f"E0040100000002{n:02X}" for n in range(20)]
    board.place("spot1.ante", stack)
    missed = {uid: 0 for uid in stack}
    for _ in range(2000):
        read = set(board.read("spot1.ante"))
        for uid in stack:
            missed[uid] += uid not in read
    assert missed[stack[0]] == 0  # the bottom chip lies on the antenna
    assert missed[stack[1]] < missed[stack[10]] < missed[stack[19]]
    assert 0.3 < missed[stack[19]] / 2000 < 0.46  # 0.38 expected


def test_only_the_antennas_named_miss_chips_when_some_are() -> None:
    board = ChipBoardFirmware(seed=5, antennas=layout("uth", 1), miss_rate=0.02, missed_on=frozenset({"tray"}))
    stack = [f"E0040100000002{n:02X}" for n in range(20)]
    tray = [f"E0040100000003{n:02X}" for n in range(40)]
    board.place("spot1.ante", stack)
    board.place("tray", tray)
    reads = [(board.read("spot1.ante"), board.read("tray")) for _ in range(200)]
    assert all(circle == tuple(stack) for circle, _ in reads)  # the circle's stack read whole every scan
    assert sum(len(read) < len(tray) for _, read in reads) > 150  # the tray's columns of 20 missed low and high
    assert all(set(read) <= set(tray) for _, read in reads)
    board.miss("spot1.ante", stack[3])  # a miss asked for still applies to any antenna
    assert stack[3] not in board.read("spot1.ante")


def frames(board: ChipBoardFirmware) -> list[Any]:
    return [decode_message(f) for f in Decoder().feed(board.take_output())]


def test_each_scan_sends_every_antennas_inventory_numbered() -> None:
    board = ChipBoardFirmware(antennas=layout("3cp", 1), miss_rate=0.0, period_s=0.1)
    board.place("spot1.bonus", [B, A])
    board.poll(0.0)
    board.poll(0.05)  # not due yet
    board.poll(0.1)
    sent = frames(board)
    assert [type(m) for m in sent] == [Inventory] * 10
    assert sent[2] == Inventory(2, 1, (A, B)) and sent[7] == Inventory(2, 2, (A, B))
    assert [m.antenna for m in sent[:5]] == [0, 1, 2, 3, 4]


def test_control_lines() -> None:
    board = ChipBoardFirmware(antennas=layout("uth", 2))
    assert board.control(f"place spot2.ante {A} {B.lower()}", 0.0) == "ok"
    assert board.control(f"place spot1.ante {A}", 0.0) == f"err chip {A} lies on spot2.ante already (move it)"
    assert board.control(f"place spot9.ante {C}", 0.0) == "err no antenna 'spot9.ante' on this board"
    assert board.control("place spot1.ante E004", 0.0).startswith("err not a chip UID")
    assert board.control(f"place spot1.ante {C} {C}", 0.0) == "err a chip named twice"
    assert board.control(f"move spot2.ante spot2.play {B}", 0.0) == "ok"
    assert board.control(f"remove spot2.ante {B}", 0.0) == f"err not on spot2.ante: {B}"
    assert json.loads(board.control("show", 0.0)[3:]) == {"spot2.ante": [A], "spot2.play": [B]}
    assert json.loads(board.control("show spot1.play", 0.0)[3:]) == {"spot1.play": []}
    assert board.control("clear spot2.play", 0.0) == f"ok {B}"
    assert board.control(f"miss spot2.ante {A} 2", 0.0) == "ok"
    assert board.read("spot2.ante") == () and board.read("spot2.ante") == () and board.read("spot2.ante") == (A,)
    assert board.control("fault antenna spot7.ante", 0.0).startswith("err fault antenna needs one of")
    assert board.control("fault antenna spot1.play", 0.0) == "ok"
    assert board.control("fault meteor", 0.0).startswith("err no fault 'meteor'")
    assert board.control("fault lost 2", 0.0) == "ok"
    status = json.loads(board.control("status", 1.0)[3:])
    assert status["lost"] is True and status["silent"] is True and status["chips"] == 1
    assert status["faults"] == ["antenna:3"]
    assert board.control("wake", 1.0) == "ok" and board.control("repair", 1.0) == "ok"
    status = json.loads(board.control("status", 1.0)[3:])
    assert status["lost"] is False and status["faults"] == []
    assert board.control("ping", 1.0) == "ok pong"
    assert board.control("deal", 1.0).startswith("err bad request")
    assert board.control("", 1.0) == "err empty request"


def test_a_silent_board_scans_nothing_and_a_lost_one_says_hello_when_back() -> None:
    board = ChipBoardFirmware(antennas=layout("uth", 1), period_s=0.1)
    board.inject("silent", 0.0, "1")
    board.poll(0.5)
    assert frames(board) == []
    board.poll(1.0)
    assert len(frames(board)) == 5
    board.inject("lost", 1.0, "1")
    board.poll(1.5)
    assert frames(board) == []
    board.poll(2.0)
    kinds = [MsgType(type(m).TYPE) for m in frames(board)]
    assert kinds[0] == MsgType.HELLO and kinds[1:] == [MsgType.INVENTORY] * 5


def start_cli(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    proc = subprocess.Popen([sys.executable, "-m", "cli", "sim-chips", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise AssertionError(f"sim-chips did not start: {proc.stderr.read() if proc.stderr else ''}")
    return proc, json.loads(line)


@pytest.mark.parametrize("link", [["--pty"], ["--tcp", "127.0.0.1:0"]], ids=["pty", "tcp"])
def test_cli_serves_a_host_and_a_player(link: list[str]) -> None:
    proc, info = start_cli(*link, "--game", "3cp", "--spots", "2", "--seed", "4", "--boot", "31", "--miss-rate", "0")
    inbox: queue.Queue[Any] = queue.Queue()
    host = ChipLink(inbox.put, url=info["port"], settle_s=0.1)
    try:
        assert info["antennas"] == [name for _, name in layout("3cp", 2)] and info["boot"] == 31
        assert host.start(timeout=10) == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 31)
        with ChipBoardClient(info["control"]) as hand:
            hand.place("spot2.ante", A, B)
            assert hand.show() == {"spot2.ante": [A, B]}
            while (reading := inbox.get(timeout=10)) != ChipsRead("spot2.ante", frozenset({A, B}), True):
                assert not isinstance(reading, ChipsRead) or reading.antenna != "spot2.ante" or \
                    reading.uids in (frozenset(), frozenset({A, B}))
            with pytest.raises(DeviceError, match="no fault 'flood'"):
                hand.fault("flood")
    finally:
        host.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


@pytest.mark.parametrize("args,why", [
    (["--game", "holdem"], "no house game 'holdem'"),
    (["--miss-rate", "0.9"], "not a miss rate"),
    (["--period", "0"], "not a number of seconds"),
    (["--spots", "8"], "invalid choice"),
])
def test_cli_refuses_bad_options_by_name(args: list[str], why: str) -> None:
    result = subprocess.run([sys.executable, "-m", "cli", "sim-chips", *args], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2 and why in result.stderr


def test_cli_with_its_port_in_use_says_so_in_one_line() -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        address = "127.0.0.1:%d" % taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "cli", "sim-chips", "--tcp", address],
                                capture_output=True, text=True, timeout=30)
    finally:
        taken.close()
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"croupier sim-chips: --tcp: the emulated chip reader board cannot listen on {address} "
                               "for its link: Address already in use")
