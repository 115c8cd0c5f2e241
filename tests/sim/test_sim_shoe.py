"""The emulated shoe: seeded deck, control lines, faults, and `croupier sim-shoe` as its own process."""

from __future__ import annotations

import json
import queue
import signal
import socket
import subprocess
import sys
from typing import Any

import pytest

from drivers.card_reader import CardRead
from drivers.errors import DeviceError
from drivers.readings import DeviceOnline, Sensor
from drivers.shoe_sensors import SensorChange
from drivers.shoe_protocol import Ack, Decoder, MsgType, encode_message
from drivers.shoe_link import ShoeLink
from sim.shoe import FRESH_DECK, ShoeEmpty, ShoeFirmware, SimShoeClient


def test_deck_is_a_seeded_shuffle_of_52() -> None:
    a, b = ShoeFirmware(seed=11), ShoeFirmware(seed=11)
    assert a.deck == b.deck and sorted(a.deck) == sorted(FRESH_DECK) and len(set(a.deck)) == 52
    assert a.deck != ShoeFirmware(seed=12).deck
    a.shuffle(), b.shuffle()
    assert a.deck == b.deck  # the shoe's own sequence of shuffles repeats too


def test_control_lines() -> None:
    shoe = ShoeFirmware(seed=2)
    top = shoe.deck[-1]
    assert shoe.control("draw", 0.0) == f"ok {top}"
    assert shoe.control("discard Qh", 0.0) == "ok"
    assert shoe.control("discard Q", 0.0) == "err not a card: 'Q'"
    assert shoe.control("sensor lid on", 0.0) == "ok"
    assert shoe.control("fault misread", 0.0) == "ok"
    assert shoe.control("draw 2", 0.0).startswith("ok misread:")
    assert shoe.control("draw 60", 0.0) == "err draw 1 to 52 cards"
    assert shoe.control("fault meteor", 0.0).startswith("err no fault 'meteor'")
    assert shoe.control("fault silent 2", 0.0) == "ok"
    status = json.loads(shoe.control("status", 1.0)[3:])
    assert status["silent"] is True and status["remaining"] == 49 and status["pending"] == 5
    assert shoe.control("wake", 1.0) == "ok"
    assert json.loads(shoe.control("status", 1.0)[3:])["silent"] is False
    assert shoe.control("shuffle 5", 1.0) == "ok 52"
    assert shoe.control("ping", 1.0) == "ok pong"
    assert shoe.control("deal everyone", 1.0).startswith("err bad request")
    assert shoe.control("", 1.0) == "err empty request"


def test_empty_shoe_says_so_and_a_shuffle_refills_it() -> None:
    shoe = ShoeFirmware(seed=4)
    shoe.held = False
    for _ in range(52):
        shoe.draw()
    with pytest.raises(ShoeEmpty):
        shoe.draw()
    assert shoe.control("draw", 0.0) == "err shoe empty"
    assert shoe.control("draw 2", 0.0) == "err shoe empty (0 left)"
    shoe.shuffle()
    kinds = []
    now = 0.0
    decoder = Decoder()
    while shoe.pending:  # play the host: acknowledge each frame
        now += 0.01
        shoe.poll(now)
        for frame in decoder.feed(shoe.take_output()):
            if frame.numbered:
                kinds.append((frame.kind, frame.payload))
                shoe.receive(encode_message(Ack(frame.seq), 0), now)
    sensors = [p for k, p in kinds if k == MsgType.SENSOR]
    assert sensors == [b"\x01\x05empty", b"\x00\x05empty"]
    assert sum(k == MsgType.CARD for k, _ in kinds) == 52


def test_duplicate_fault_repeats_the_last_card() -> None:
    shoe = ShoeFirmware(seed=8)
    first, _ = shoe.draw()
    shoe.inject("duplicate", 0.0)
    assert shoe.draw() == (first, True)
    assert len(shoe.deck) == 51


def start_cli(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    proc = subprocess.Popen([sys.executable, "-m", "cli", "sim-shoe", *args],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())


@pytest.mark.parametrize("link", [["--tcp", "127.0.0.1:0"], ["--pty"]])
def test_cli_serves_a_host_and_a_dealer(link: list[str]) -> None:
    proc, info = start_cli(*link, "--seed", "21", "--boot", "77", "--serial", "SN-9")
    inbox: queue.Queue[Any] = queue.Queue()
    link_ = ShoeLink(inbox.put, url=info["port"])
    try:
        assert info["boot"] == 77 and info["seed"] == 21
        assert link_.start(timeout=10) == DeviceOnline("shoe", "CR-SIM", "SN-9", "1.0.0", 77)
        with SimShoeClient(info["control"]) as dealer:
            card = dealer.draw()
            assert card == ShoeFirmware(seed=21).deck[-1]
            dealer.request("sensor lid on")
            got = []
            while len(got) < 2:
                reading = inbox.get(timeout=10)
                if isinstance(reading, (CardRead, SensorChange)):
                    got.append(reading)
            assert got == [CardRead(card, "shoe", 1), SensorChange(Sensor.LID_OPEN, True, 2)]  # `lid`: its older name
            with pytest.raises(DeviceError, match="no fault"):
                dealer.fault("flood")
    finally:
        link_.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


def test_cli_rejects_a_bad_version() -> None:
    result = subprocess.run([sys.executable, "-m", "cli", "sim-shoe", "--firmware", "1.x"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "not a firmware version" in result.stderr


@pytest.mark.parametrize("option", ["--tcp", "--control"])
def test_cli_with_its_port_in_use_says_so_in_one_line(option: str) -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        address = "127.0.0.1:%d" % taken.getsockname()[1]
        args = [option, address] + (["--tcp", "127.0.0.1:0"] if option == "--control" else [])
        result = subprocess.run([sys.executable, "-m", "cli", "sim-shoe", *args],
                                capture_output=True, text=True, timeout=30)
    finally:
        taken.close()
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"croupier sim-shoe: {option}: the emulated shoe cannot listen on {address}")


def test_paced_line_delivers_a_burst_in_order() -> None:
    from sim.shoe import SimShoeServer
    server = SimShoeServer(ShoeFirmware(seed=6, boot=3), link="tcp", baud=115200).start()
    inbox: queue.Queue[Any] = queue.Queue()
    link = ShoeLink(inbox.put, url=server.port_url)
    try:
        link.start(timeout=5)
        with SimShoeClient(server.control_address) as dealer:
            burst = dealer.request("draw 12").split()
        got = []
        while len(got) < 12:
            reading = inbox.get(timeout=10)
            if isinstance(reading, CardRead):
                got.append(reading.card)
        assert got == burst
    finally:
        link.close()
        server.close()
