"""The chip reader's host session against the emulated board, sans-IO on a fake clock: handshake, debounce, gaps, faults, silence."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings, strategies as st

from drivers.chip_link import ChipSession
from drivers.chip_protocol import MAX_UIDS, Frame, Heartbeat, Inventory, MsgType, encode_message
from drivers.readings import ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, Reading
from drivers.serial_link import ONLINE, REFUSED
from sim.chip_board import MISS_RATE, ChipBoardFirmware, layout

A, B, C = "E004010000000001", "E004010000000002", "E004010000000003"
STACK = [f"E0040100000001{n:02X}" for n in range(20)]


class Table:
    """A session and an emulated board wired back to back, turned on a fake clock every 10 ms."""

    def __init__(self, confirm: int = 4, settle_s: float = 0.3, silence_s: float = 1.0, **board: Any) -> None:
        board.setdefault("antennas", layout("uth", 1))
        board.setdefault("miss_rate", 0.0)
        self.board = ChipBoardFirmware(seed=3, **board)
        self.session = ChipSession(confirm=confirm, settle_s=settle_s, silence_s=silence_s)
        self.now = 0.0
        self.readings: list[Reading] = []
        self.session.connect(self.now)
        self.board.boot_hello()

    def run(self, seconds: float) -> list[Reading]:
        """Turn the clock; return the readings it brought."""
        start = len(self.readings)
        for _ in range(round(seconds / 0.01)):
            self.now += 0.01
            self.board.receive(self.session.take_output(), self.now)
            self.board.poll(self.now)
            self.session.receive(self.board.take_output(), self.now)
            self.session.poll(self.now)
            self.readings += self.session.take_readings()
        return self.readings[start:]

    def control(self, line: str) -> str:
        return self.board.control(line, self.now)


def chips(readings: list[Reading], antenna: str | None = None) -> list[ChipsRead]:
    return [r for r in readings if isinstance(r, ChipsRead) and (antenna is None or r.antenna == antenna)]


def faults(readings: list[Reading]) -> list[DeviceFault]:
    return [r for r in readings if isinstance(r, DeviceFault)]


def test_a_board_is_taken_then_every_antenna_reported_once_empty_then_stable() -> None:
    table = Table()
    got = table.run(1.0)
    assert got[0] == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 1)
    names = [name for _, name in layout("uth", 1)]
    assert [r for r in chips(got) if not r.stable] == [ChipsRead(n, frozenset(), False) for n in names]
    assert [r for r in chips(got) if r.stable] == [ChipsRead(n, frozenset(), True) for n in names]
    assert table.session.state == ONLINE and table.session.stats.gaps == 0


def test_chips_placed_moved_and_taken_are_reported_once_each_change() -> None:
    table = Table()
    table.run(1.0)
    assert table.control(f"place spot1.ante {A} {B}") == "ok"
    assert chips(table.run(1.0)) == [ChipsRead("spot1.ante", frozenset({A, B}), False),
                                     ChipsRead("spot1.ante", frozenset({A, B}), True)]
    assert table.control(f"move spot1.ante spot1.play {B}") == "ok"
    got = chips(table.run(1.0))
    assert set(got) == {ChipsRead("spot1.ante", frozenset({A}), False), ChipsRead("spot1.ante", frozenset({A}), True),
                        ChipsRead("spot1.play", frozenset({B}), False), ChipsRead("spot1.play", frozenset({B}), True)}
    assert table.control("clear spot1.play").split() == ["ok", B]
    assert chips(table.run(1.0), "spot1.play") == [ChipsRead("spot1.play", frozenset(), False),
                                                   ChipsRead("spot1.play", frozenset(), True)]


def test_a_chip_missed_fewer_than_k_scans_stays_and_k_scans_takes_it_out() -> None:
    table = Table(confirm=3)
    table.control(f"place spot1.trips {A} {B}")
    table.run(1.0)
    table.control(f"miss spot1.trips {A} 2")
    assert chips(table.run(1.0)) == []
    table.control(f"miss spot1.trips {A} 3")
    assert chips(table.run(1.0)) == [ChipsRead("spot1.trips", frozenset({B}), False),
                                     ChipsRead("spot1.trips", frozenset({A, B}), False),
                                     ChipsRead("spot1.trips", frozenset({A, B}), True)]


def flickers(confirm: int) -> int:
    """Changes reported of a 20-chip stack left alone for 20 s (200 scans), read with the emulated
    board's misses, which grow with the height in the stack (the top chip: one scan in ten)."""
    table = Table(confirm=confirm, miss_rate=MISS_RATE)
    table.control("place spot1.ante " + " ".join(STACK))
    table.run(1.0)
    return len([r for r in chips(table.run(20.0)) if not r.stable])


def test_debounce_is_what_keeps_a_tall_stack_from_flickering() -> None:
    counts = [flickers(k) for k in (1, 2, 3, 4)]
    assert counts[0] > 100  # every scan's misses reported: the top chips come and go
    assert counts[0] > counts[1] > counts[2] > counts[3] == 0  # K = 4, the default, holds it still


def test_garbled_and_lost_frames_cost_scans_not_readings() -> None:
    table = Table()
    table.control(f"place spot1.ante {A}")
    table.run(1.0)
    for _ in range(3):
        table.control("fault garble")
        table.control("fault gap")
    got = table.run(1.0)
    assert chips(got) == [] and faults(got) == []
    stats = table.session.stats
    assert stats.lost_frames == 6 and stats.gaps == 1 and stats.crc_errors == 3  # six frames running, one gap
    # Five antennas, six INVENTORY frames in a row: each antenna saw the scan (or two) it missed
    assert [d.gaps for d in table.session.antennas.values()] == [1] * 5


def test_a_change_read_across_a_lost_scan_still_comes_after_k_consecutive_scans() -> None:
    table = Table(confirm=3)
    table.run(1.0)
    table.control(f"place spot1.blind {A}")
    table.control("fault gap")  # most likely the first INVENTORY of the next scan, or another antenna's
    assert chips(table.run(1.0)) == [ChipsRead("spot1.blind", frozenset({A}), False),
                                     ChipsRead("spot1.blind", frozenset({A}), True)]


def test_an_inventory_of_an_antenna_the_hello_did_not_name_is_one_fault() -> None:
    table = Table()
    table.run(0.5)
    table.control("fault unknown")
    table.control("fault unknown")
    got = table.run(1.0)
    assert faults(got) == [DeviceFault("chips", "inventory of antenna 5, which the board's HELLO does not name",
                                       FaultKind.DEVICE_FAULT)]
    assert table.session.stats.unknown_antennas == 2


def test_a_board_fault_is_reported_once_while_it_stands_and_again_when_it_returns() -> None:
    table = Table(silence_s=1.0)
    table.run(0.5)
    table.control("fault antenna spot1.play")
    got = table.run(3.0)  # said again every heartbeat
    assert faults(got) == [DeviceFault("chips", "spot1.play: antenna fault: antenna open", FaultKind.DEVICE_FAULT)]
    table.control("repair")
    assert faults(table.run(1.5)) == []
    table.control("fault antenna spot1.play")
    table.control("fault rf")
    assert {f.reason for f in faults(table.run(1.0))} == {"spot1.play: antenna fault: antenna open",
                                                         "board: reader front end fault: front end not answering"}


def test_an_antenna_over_what_one_inventory_carries_is_a_board_fault_and_keeps_its_last_reading() -> None:
    # One INVENTORY carries at most MAX_UIDS chips (docs/protocol.md): a tray that reads more is not sent in
    # part (the host would take the rest as taken away) nor lost silently; the board says OVERFLOW for it.
    table = Table(silence_s=1.0)
    tray = [f"E0040200{n:08X}" for n in range(MAX_UIDS)]
    table.control("place tray " + " ".join(tray))
    assert chips(table.run(1.0), "tray")[-1] == ChipsRead("tray", frozenset(tray), True)
    table.control("place tray E0040300000000FF")
    table.control(f"place spot1.ante {A}")
    got = table.run(1.0)
    assert faults(got) == [DeviceFault("chips", f"tray: too many chips to read: {MAX_UIDS + 1} chips, at most "
                                                f"{MAX_UIDS}", FaultKind.DEVICE_FAULT)]
    assert chips(got, "tray") == []  # its last reading stands: no chip taken for gone
    assert chips(got, "spot1.ante")[-1] == ChipsRead("spot1.ante", frozenset({A}), True)  # the board goes on
    assert table.board.status(table.now)["faults"] == [f"overflow:{len(layout('uth', 1)) - 1}"]
    table.control("remove tray E0040300000000FF")
    got = table.run(2.0)
    assert faults(got) == [] and "overflow" not in json.dumps(table.board.status(table.now))


def test_a_silent_board_goes_offline_and_comes_back_with_every_reading_said_again() -> None:
    table = Table(silence_s=1.0)
    table.control(f"place spot1.ante {A}")
    table.run(1.0)
    table.control("fault silent 2")
    got = table.run(1.5)
    assert [r for r in got if isinstance(r, DeviceOffline)] == [
        DeviceOffline("chips", "silent for 1.0 s", OfflineKind.DEVICE_SILENT)]
    assert chips(got) == []  # no stable flag comes from a board not heard
    got = table.run(2.0)
    assert got[0] == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 1)
    # Back: once K scans confirm them, every antenna's reading is said again, changed or not.
    names = [name for _, name in layout("uth", 1)]
    held = {name: frozenset({A}) if name == "spot1.ante" else frozenset() for name in names}
    assert [r for r in chips(got) if not r.stable] == [ChipsRead(n, held[n], False) for n in names]
    assert [r for r in chips(got) if r.stable] == [ChipsRead(n, held[n], True) for n in names]


def test_chips_taken_while_the_board_was_lost_are_reported_when_it_is_back() -> None:
    table = Table(silence_s=1.0)
    table.control(f"place spot1.ante {A} {B}")
    table.run(1.0)
    table.control("fault lost")
    table.run(1.5)
    table.control(f"remove spot1.ante {B}")
    table.control("wake")
    got = table.run(1.0)
    assert got[0] == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 1)
    assert chips(got, "spot1.ante") == [ChipsRead("spot1.ante", frozenset({A}), False),
                                        ChipsRead("spot1.ante", frozenset({A}), True)]


def test_unsupported_firmware_is_refused_and_nothing_taken() -> None:
    table = Table(firmware=(2, 0, 0))
    table.control(f"place spot1.ante {A}")
    got = table.run(1.0)
    assert table.session.state == REFUSED and chips(got) == []
    assert [type(r) for r in got] == [DeviceFault, DeviceOffline]
    assert "unsupported CB-SIM firmware 2.0.0" in faults(got)[0].reason


def test_an_unreadable_frame_from_an_online_board_is_one_fault() -> None:
    table = Table()
    table.run(0.5)
    bad = Frame(table.board.seq + 1, MsgType.INVENTORY, b"\x00\x00\x01" + bytes(5)).encode()
    table.board.seq += 1
    table.session.receive(bad + bad, table.now)
    table.session.poll(table.now)
    got = table.session.take_readings()
    assert [f.reason.split(":")[0] for f in faults(got)] == [f"unreadable frame {table.board.seq}"]
    assert table.session.stats.bad_messages == 2


def test_frames_before_the_hello_are_not_taken() -> None:
    session = ChipSession()
    session.connect(0.0)
    session.receive(encode_message(Inventory(0, 1, (A,)), 1) + encode_message(Heartbeat(), 2), 0.1)
    assert session.take_readings() == [] and session.stats.unexpected == 2
    session.poll(1.0)
    session.poll(2.5)
    assert session.take_readings() == [DeviceOffline("chips", "no HELLO for 2.5 s", OfflineKind.DEVICE_OFFLINE)]
    assert session.take_output().count(b"\xa5\xc3") >= 3  # IDENTIFY, asked again every half second


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=12))
def test_the_session_never_raises_on_any_stream(chunks: list[bytes]) -> None:
    table = Table()
    table.run(0.3)
    for n, chunk in enumerate(chunks):
        table.session.receive(chunk, table.now + n * 0.01)
        table.session.poll(table.now + n * 0.01)
    table.session.take_readings()
