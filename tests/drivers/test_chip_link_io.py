"""The chip reader on the production ports (a pty, a TCP socket) against the emulated board: chips read, a board lost and back, refusals, the registry."""

from __future__ import annotations

import queue
import select
import time
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.chip_link import ChipLink
from drivers.chip_reader import BACKENDS, SimChipReader, open_chip_reader
from drivers.errors import BackendError, DeviceError, UnsupportedDevice
from drivers.readings import ChipsRead, DeviceOffline, DeviceOnline, OfflineKind, Reading
from sim.chips.board import ChipBoardClient, ChipBoardFirmware, ChipBoardServer, layout

A, B = "E004010000000A01", "E004010000000A02"


class Host:
    """A chip link and what it posted, turned by its own thread or, `driven`, the way the controller's
    loop turns it (select on its descriptor, then pump)."""

    def __init__(self, url: str, driven: bool, **options: Any) -> None:
        self.inbox: queue.Queue[Reading] = queue.Queue()
        self.link = ChipLink(self.inbox.put, url=url, reconnect_s=0.05, settle_s=0.1, **options)
        self.driven = driven

    def next(self, seconds: float = 5.0) -> Reading:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.driven:
                try:
                    return self.inbox.get(timeout=0.05)
                except queue.Empty:
                    continue
            if not self.inbox.empty():
                return self.inbox.get_nowait()
            fd = self.link.fileno()
            if fd is not None:
                select.select([fd], [], [], 0.02)
            else:
                time.sleep(0.01)
            self.link.pump()
        raise TimeoutError("no reading from the link")

    def until(self, wanted: Reading, seconds: float = 10.0) -> list[Reading]:
        """Every reading up to and including `wanted`."""
        seen: list[Reading] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            seen.append(self.next(deadline - time.monotonic()))
            if seen[-1] == wanted:
                return seen
        raise AssertionError(f"never got {wanted!r}; got {seen!r}")


@pytest.fixture(params=["thread", "driven"])
def driven(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "driven")


@pytest.fixture(params=["tcp", "pty"])
def line(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def board(line: str) -> Iterator[ChipBoardServer]:
    server = ChipBoardServer(ChipBoardFirmware(seed=1, antennas=layout("3cp", 2), boot=9, miss_rate=0.0),
                             link=line).start()
    yield server
    server.close()


def test_chips_placed_by_a_player_reach_the_host_debounced_and_stable(board: ChipBoardServer, driven: bool) -> None:
    host = Host(board.port_url, driven)
    try:
        assert host.link.start(timeout=5, driven=driven) == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 9)
        with ChipBoardClient(board.control_address) as hand:
            hand.place("spot2.pair_plus", A, B)
            seen = host.until(ChipsRead("spot2.pair_plus", frozenset({A, B}), True))
            assert ChipsRead("spot2.pair_plus", frozenset({A, B}), False) in seen
            assert [r for r in seen if isinstance(r, ChipsRead) and r.uids] == [
                ChipsRead("spot2.pair_plus", frozenset({A, B}), False), ChipsRead("spot2.pair_plus", frozenset({A, B}), True)]
            hand.move("spot2.pair_plus", "tray", B)
            host.until(ChipsRead("tray", frozenset({B}), True))
            assert host.link.stats.gaps == 0 and host.link.stats.unknown_antennas == 0
    finally:
        host.link.close()


def test_a_board_lost_and_back_is_offline_then_online_with_what_changed_meanwhile(board: ChipBoardServer,
                                                                                  driven: bool) -> None:
    host = Host(board.port_url, driven, silence_s=0.5)
    try:
        host.link.start(timeout=5, driven=driven)
        with ChipBoardClient(board.control_address) as hand:
            hand.place("spot1.ante", A)
            host.until(ChipsRead("spot1.ante", frozenset({A}), True))
            hand.fault("lost")
            offline = _first_of(host, DeviceOffline)
            # On TCP the connection drops (offline); on a pty the line goes quiet (silent).
            assert offline.kind == (OfflineKind.DEVICE_OFFLINE if board.link == "tcp" else OfflineKind.DEVICE_SILENT)
            hand.remove("spot1.ante", A)
            hand.wake()
            online = _first_of(host, DeviceOnline)
            assert online == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 9)
            host.until(ChipsRead("spot1.ante", frozenset(), True))
    finally:
        host.link.close()


def _first_of(host: Host, kind: type[Any]) -> Any:
    while not isinstance(reading := host.next(10.0), kind):
        pass
    return reading


def test_unsupported_firmware_refuses_the_start(line: str, driven: bool) -> None:
    server = ChipBoardServer(ChipBoardFirmware(firmware=(2, 1, 0), antennas=layout("uth", 1)), link=line).start()
    host = Host(server.port_url, driven)
    try:
        with pytest.raises(UnsupportedDevice, match="unsupported CB-SIM firmware 2.1.0"):
            host.link.start(timeout=5, driven=driven)
    finally:
        host.link.close()
        server.close()


def test_the_registry_opens_each_backend_by_name_and_only_when_asked() -> None:
    assert BACKENDS.names() == ["pn5180", "serial", "sim"]
    readings: list[Reading] = []
    now = [0.0]
    twin = open_chip_reader("sim", readings.append, antennas=("spot1.ante", "tray"), confirm=2, settle_s=0.5,
                            clock=lambda: now[0])
    assert isinstance(twin, SimChipReader)
    twin.start()
    for _ in range(5):  # the first reading takes 3 K scans
        assert twin.scan("tray", [A]) is None
    now[0] = 0.1
    assert twin.scan("tray", [A]) == ChipsRead("tray", frozenset({A}), False)
    now[0] = 0.7
    assert twin.poll() == [ChipsRead("tray", frozenset({A}), True)]
    with pytest.raises(DeviceError, match="no antenna 'spot2.ante'"):
        twin.scan("spot2.ante", [A])
    with pytest.raises(DeviceError, match="not a chip UID"):
        twin.scan("tray", ["e004"])
    assert isinstance(readings[0], DeviceOnline) and readings[1:] == [
        ChipsRead("tray", frozenset({A}), False), ChipsRead("tray", frozenset({A}), True)]
    with pytest.raises(BackendError, match="unknown chip reader backend 'nfc'; known: pn5180, serial, sim"):
        open_chip_reader("nfc", readings.append)
    with pytest.raises(BackendError, match="chip reader backend 'serial'"):
        open_chip_reader("serial", readings.append, url="loop://", colour="red")
    link = open_chip_reader("serial", readings.append, url="loop://", confirm=3)
    assert isinstance(link, ChipLink) and link.session.confirm == 3
