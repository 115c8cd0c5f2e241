"""The shoe link on the production ports (a pty, a TCP socket) against the emulated shoe: reads, acks, gaps, reconnects, refusals."""

from __future__ import annotations

import os
import queue
import select
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import serial

from drivers.card_reader import CardRead
from drivers.errors import UnsupportedDevice
from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, Reading
from drivers.serial_link import _plain, _write
from drivers.shoe_link import ShoeLink, _descriptor, _read_available
from sim.shoe import ShoeFirmware, SimShoeClient, SimShoeServer


@pytest.mark.parametrize("plain", [False, True], ids=["pyserial", "descriptor"])
def test_socket_port_reads_what_is_there_in_one_go(plain: bool) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = serial.serial_for_url(f"socket://127.0.0.1:{server.getsockname()[1]}", timeout=0.5)
    peer, _ = server.accept()
    try:
        fd = _descriptor(port)
        assert fd == port.fileno() and port.timeout == 0  # pyserial's own non-blocking reads from now on
        assert _plain(port)  # socket://: its bytes are the socket's
        assert _read_available(port, fd, 0.01, plain) == b""  # nothing yet: the wait times out
        assert _read_available(port, fd, 0.0, plain) == b""  # a driven turn with nothing there
        peer.sendall(bytes(range(30)))
        assert _read_available(port, fd, 2.0, plain) == bytes(range(30))  # not 30 reads of one byte (in_waiting says 1)
        _write(port, fd, b"ack!", plain)
        assert peer.recv(16) == b"ack!"
        peer.close()
        try:
            _read_available(port, fd, 2.0, plain)
        except serial.SerialException:
            pass  # the peer went away: pyserial says so, and the link reopens
        else:
            raise AssertionError("a closed peer must raise")
    finally:
        port.close()
        server.close()


@pytest.mark.parametrize("plain", [False, True], ids=["pyserial", "descriptor"])
def test_pty_port_reads_what_is_there_in_one_go(plain: bool) -> None:
    master, slave = os.openpty()
    port = serial.serial_for_url(os.ttyname(slave), timeout=0.5)
    try:
        fd = _descriptor(port)
        assert fd == port.fileno() and _plain(port)  # a device or a pty: its bytes are the descriptor's
        assert _read_available(port, fd, 0.0, plain) == b""  # a driven turn with nothing there
        os.write(master, b"\x7e" * 12)
        got = b""
        while len(got) < 12:
            got += _read_available(port, fd, 2.0, plain)
        assert got == b"\x7e" * 12
        _write(port, fd, b"ack!", plain)
        assert os.read(master, 16) == b"ack!"
    finally:
        port.close()
        os.close(master)
        os.close(slave)


def test_a_port_that_reads_its_own_way_keeps_pyserial_calls() -> None:
    master, slave = os.openpty()
    port = serial.serial_for_url(f"spy://{os.ttyname(slave)}?file={os.devnull}", timeout=0.5)
    try:
        assert _descriptor(port) == port.fileno() and not _plain(port)  # spy:// logs what its read and write pass
    finally:
        port.close()
        os.close(master)
        os.close(slave)


def test_other_ports_keep_pyserial_reads() -> None:
    port = serial.serial_for_url("loop://", timeout=0.05)
    try:
        assert _descriptor(port) is None and port.timeout == 0.05  # no descriptor: pyserial's waiting reads
        assert not _plain(port)
        port.write(b"hello")
        assert _read_available(port, None, 0.05) == b"hello"  # in_waiting counts on loop://
    finally:
        port.close()


# -- the whole link on the production ports, against the emulated shoe ---------------------------

class Host:
    """A shoe link and what it posted, turned by its own thread or, `driven`, the way the
    controller's loop turns it (select on its descriptor, then pump)."""

    def __init__(self, url: str, driven: bool, **options: Any) -> None:
        self.inbox: queue.Queue[Reading] = queue.Queue()
        self.link = ShoeLink(self.inbox.put, url=url, reconnect_s=0.05, **options)
        self.driven = driven

    def start(self) -> DeviceOnline | None:
        return self.link.start(timeout=5, driven=self.driven)

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

    def next_of(self, kind: type[Any]) -> Any:
        while not isinstance(reading := self.next(), kind):
            pass
        return reading


@pytest.fixture(params=["thread", "driven"])
def driven(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "driven")


@pytest.fixture(params=["tcp", "pty"])
def line(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def host_and_shoe(line: str, driven: bool) -> Iterator[tuple[Host, SimShoeServer]]:
    server = SimShoeServer(ShoeFirmware(seed=5, boot=9, heartbeat_s=0.1), link=line).start()
    host = Host(server.port_url, driven)
    try:
        yield host, server
    finally:
        host.link.close()
        server.close()


def test_cards_arrive_in_order_acknowledged_and_a_lost_frame_is_a_gap(host_and_shoe: tuple[Host, SimShoeServer]) -> None:
    host, server = host_and_shoe
    assert host.start() == DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 9)
    with SimShoeClient(server.control_address) as dealer:
        drawn = [dealer.draw() for _ in range(3)]
        assert [host.next_of(CardRead) for _ in drawn] == [CardRead(c, "shoe", i + 1) for i, c in enumerate(drawn)]
        dealer.fault("drop")
        dealer.draw()  # lost inside the shoe: frame 4 is never sent
        fifth = dealer.draw()
        gap = host.next_of(DeviceFault)
        assert gap.kind == FaultKind.SEQUENCE_GAP and gap.reason == "sequence gap: expected 4, got 5"
        assert host.next_of(CardRead) == CardRead(fifth, "shoe", 5)
        deadline = time.monotonic() + 5
        while (status := dealer.status())["pending"] and time.monotonic() < deadline:
            if host.driven:
                host.link.pump(0.02)  # the last ACK leaves on the host's next turn
            else:
                time.sleep(0.02)
        assert status["pending"] == 0 and status["acked"] == 5  # every frame the host kept was acknowledged
    assert host.link.stats.accepted == 4 and host.link.stats.gaps == 1


def test_a_refused_device_then_a_good_one_on_a_new_tcp_connection(driven: bool) -> None:
    server = SimShoeServer(ShoeFirmware(seed=5, boot=9, heartbeat_s=0.1), link="tcp").start()
    port = int(server.port_url.rsplit(":", 1)[1])
    host = Host(server.port_url, driven)
    try:
        host.start()
        server.close()  # the shoe is swapped for one whose firmware we do not run, on the same port
        server = SimShoeServer(ShoeFirmware(seed=6, boot=10, firmware=(2, 0, 0), heartbeat_s=0.1), link="tcp",
                               tcp=("127.0.0.1", port)).start()
        offline = host.next_of(DeviceOffline)
        assert offline.kind == OfflineKind.DEVICE_OFFLINE and offline.reason.startswith("link lost")
        refused = host.next_of(DeviceFault)
        assert refused.kind == FaultKind.DEVICE_FAULT and "unsupported CR-SIM firmware 2.0.0" in refused.reason
        server.close()  # and that one for a good shoe
        server = SimShoeServer(ShoeFirmware(seed=7, boot=11, heartbeat_s=0.1), link="tcp",
                               tcp=("127.0.0.1", port)).start()
        assert host.next_of(DeviceOnline) == DeviceOnline("shoe", "CR-SIM", "SIM0001", "1.0.0", 11)
        assert host.link.refusal is None
        with SimShoeClient(server.control_address) as dealer:
            card = dealer.draw()
        assert host.next_of(CardRead) == CardRead(card, "shoe", 1)
    finally:
        host.link.close()
        server.close()


def test_unsupported_firmware_refuses_the_start_on_either_line(line: str, driven: bool) -> None:
    server = SimShoeServer(ShoeFirmware(seed=1, firmware=(2, 1, 0)), link=line).start()
    host = Host(server.port_url, driven)
    try:
        with pytest.raises(UnsupportedDevice, match="firmware 2.1.0"):
            host.start()
        assert isinstance(host.inbox.get(timeout=1), DeviceFault)
    finally:
        host.link.close()
        server.close()
