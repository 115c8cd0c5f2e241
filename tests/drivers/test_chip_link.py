"""The chip reader's host session against the emulated board, sans-IO on a fake clock: handshake, debounce, gaps, faults, silence."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from drivers.chip_link import ChipSession
from drivers.chip_protocol import MAX_UIDS, Frame, Heartbeat, Hello, Inventory, MsgType, encode_message
from drivers.readings import ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, Reading
from drivers.serial_link import ONLINE, REFUSED
from sim.chips.board import MISS_RATE, ChipBoardFirmware, layout

A, B, C = "E004010000000001", "E004010000000002", "E004010000000003"
STACK = [f"E0040100000001{n:02X}" for n in range(20)]
FIRST_S = 2.0
"""Long enough for the board to be taken and every antenna's first reading made (12 scans) and stable."""


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
    got = table.run(FIRST_S)
    assert got[0] == DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 1)
    names = [name for _, name in layout("uth", 1)]
    assert [r for r in chips(got) if not r.stable] == [ChipsRead(n, frozenset(), False) for n in names]
    assert [r for r in chips(got) if r.stable] == [ChipsRead(n, frozenset(), True) for n in names]
    assert table.session.state == ONLINE and table.session.stats.gaps == 0


def test_chips_placed_moved_and_taken_are_reported_once_each_change() -> None:
    table = Table()
    table.run(FIRST_S)
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
    table.run(FIRST_S)
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
    table.run(FIRST_S)
    return len([r for r in chips(table.run(20.0)) if not r.stable])


def test_debounce_is_what_keeps_a_tall_stack_from_flickering() -> None:
    counts = [flickers(k) for k in (1, 2, 3, 4)]
    assert counts[0] > 100  # every scan's misses reported: the top chips come and go
    assert counts[0] > counts[1] > counts[2] > counts[3] == 0  # K = 4, the default, holds it still


def test_garbled_and_lost_frames_cost_scans_not_readings() -> None:
    table = Table()
    table.control(f"place spot1.ante {A}")
    table.run(FIRST_S)
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
    table.run(FIRST_S)
    table.control(f"place spot1.blind {A}")
    table.control("fault gap")  # most likely the first INVENTORY of the next scan, or another antenna's
    assert chips(table.run(1.0)) == [ChipsRead("spot1.blind", frozenset({A}), False),
                                     ChipsRead("spot1.blind", frozenset({A}), True)]


def test_an_inventory_of_an_antenna_the_hello_did_not_name_is_one_fault() -> None:
    table = Table()
    table.run(0.5)
    table.control("fault unknown")
    table.control("fault unknown")
    got = table.run(FIRST_S)
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
    assert {f.reason for f in faults(table.run(FIRST_S))} == {"spot1.play: antenna fault: antenna open",
                                                         "board: reader front end fault: front end not answering"}


def test_an_antenna_over_what_one_inventory_carries_is_a_board_fault_and_keeps_its_last_reading() -> None:
    # One INVENTORY carries at most MAX_UIDS chips (docs/protocol.md): a tray that reads more is not sent in
    # part (the host would take the rest as taken away) nor lost silently; the board says OVERFLOW for it.
    table = Table(silence_s=1.0)
    tray = [f"E0040200{n:08X}" for n in range(MAX_UIDS)]
    table.control("place tray " + " ".join(tray))
    assert chips(table.run(FIRST_S), "tray")[-1] == ChipsRead("tray", frozenset(tray), True)
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
    table.run(FIRST_S)
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
    table.run(FIRST_S)
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
    got = table.run(FIRST_S)
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


# --- a scan that repeats its antenna's last one costs the compare --------------------------------

class EveryScanDecoded(ChipSession):
    """The session as it was before the shortcut: every INVENTORY decoded and debounced."""

    def _repeated(self, frame: Any, now: float) -> bool:
        return False

    def _quiet_frames(self, data: bytes, now: float, at: int = 0) -> int:
        return at


HELLO = Hello(1, (1, 0, 0), 1, 100, "CB-SIM", "SIM0001", ((0, "spot1.ante"), (1, "spot1.play")))
READS = (frozenset(), frozenset({A}), frozenset({A, B}), frozenset({A, B, C}), frozenset(STACK))


def scans(steps: list[tuple[int, int, int, bool]]) -> list[tuple[bytes, float]]:
    """A board's stream: HELLO, then each step's INVENTORY (antenna, which of READS, how many times, the
    scan number skipped before it: a frame lost) with the time it came, its UIDs in a shuffled order."""
    out = [(encode_message(HELLO, 1), 0.0)]
    seq, scan, now = 1, {0: 0, 1: 0}, 0.0
    for antenna, read, times, lost in steps:
        for _ in range(times):
            now += 0.05
            seq = (seq + 1 + lost) % 256
            scan[antenna] = (scan[antenna] + 1 + lost) % 65536
            uids = sorted(READS[read], key=lambda uid: (uid[-1:], uid))  # the wire's order need not be sorted
            out.append((encode_message(Inventory(antenna, scan[antenna], tuple(uids)), seq), now))
    return out


def readings_of(session: ChipSession, stream: list[tuple[bytes, float]]) -> list[Reading]:
    session.connect(0.0)
    got: list[Reading] = []
    for data, now in stream:
        session.receive(data, now)
        session.poll(now)
        got += session.take_readings()
    return got


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, len(READS) - 1), st.integers(1, 6), st.booleans()),
                max_size=30))
def test_scans_taken_undecoded_give_the_readings_every_scan_decoded_gives(steps: list[tuple[int, int, int, bool]]) -> None:
    # Random inventories: chips put, missed (a read that drops some for fewer or more than K scans),
    # frames lost; the same readings in the same order as with every scan decoded and debounced.
    stream = scans(steps)
    fast, plain = ChipSession(confirm=3, settle_s=0.2), EveryScanDecoded(confirm=3, settle_s=0.2)
    assert readings_of(fast, stream) == readings_of(plain, stream)
    assert fast.stats.inventories == plain.stats.inventories and fast.stats.gaps == plain.stats.gaps
    assert plain.stats.repeats == 0
    assert {n: (d.chips, d.stable, d.gaps) for n, d in fast.antennas.items()} == \
        {n: (d.chips, d.stable, d.gaps) for n, d in plain.antennas.items()}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, len(READS) - 1), st.integers(1, 6), st.booleans()),
                max_size=30), st.lists(st.integers(1, 400), max_size=40), st.sets(st.integers(0, 4000), max_size=3))
def test_bursts_cut_anywhere_and_damaged_give_the_readings_every_scan_decoded_gives(
        steps: list[tuple[int, int, int, bool]], cuts: list[int], flips: set[int]) -> None:
    # The board's scans come as bursts of frames, read in pieces cut anywhere (a frame split between
    # reads, several frames a read) and now and then a byte damaged: the quiet frames taken at the
    # compare (`_quiet_frames`) give what every frame decoded gives.
    stream = scans(steps)
    wire = bytearray(b"".join(data for data, _ in stream[1:]))
    for at in flips:
        if at < len(wire):
            wire[at] ^= 0x5A
    pieces, at = [], 0
    for n, cut in enumerate(cuts):
        pieces.append((bytes(wire[at:at + cut]), 0.05 * (n + 1)))
        at += cut
    pieces.append((bytes(wire[at:]), 0.05 * (len(cuts) + 1)))
    burst = [stream[0], *pieces]
    fast, plain = ChipSession(confirm=3, settle_s=0.2), EveryScanDecoded(confirm=3, settle_s=0.2)
    assert readings_of(fast, burst) == readings_of(plain, burst)
    assert (fast.stats.inventories, fast.stats.gaps, fast.stats.frames, fast.stats.crc_errors) == \
        (plain.stats.inventories, plain.stats.gaps, plain.stats.frames, plain.stats.crc_errors)
    assert {n: (d.chips, d.stable, d.gaps) for n, d in fast.antennas.items()} == \
        {n: (d.chips, d.stable, d.gaps) for n, d in plain.antennas.items()}


def test_a_quiet_scan_read_in_one_piece_is_taken_at_the_compare() -> None:
    stream = scans([(0, 2, 20, False), (1, 1, 20, False), (0, 2, 1, False), (1, 1, 1, False)])
    session = ChipSession(confirm=3, settle_s=0.2)
    readings_of(session, stream[:-2])
    before = session.stats.repeats, session.stats.frames, session.stats.decoder.frames
    session.receive(stream[-2][0] + stream[-1][0], 10.0)
    assert session.take_readings() == []
    assert (session.stats.repeats - before[0], session.stats.frames - before[1],
            session.stats.decoder.frames - before[2]) == (2, 2, 2)
    assert session.next_turn(10.0) == pytest.approx(2.0)  # nothing but the board's silence to wait for


class FramesCounted(ChipSession):
    """The session, counting the frames it took through the decoder (`_frame`) rather than at the compare."""

    decoded: int = 0

    def _frame(self, frame: Any, now: float) -> None:
        self.decoded += 1
        super()._frame(frame, now)


def test_the_quiet_frames_behind_a_change_in_one_read_are_taken_at_the_compare() -> None:
    # A scan in which one circle changed: the change's UIDs read where they lie (no frame made of it, `_changed`), the
    # quiet frames before and after it compared.
    stream = scans([(0, 2, 20, False), (1, 1, 20, False), (1, 1, 1, False), (0, 3, 1, False), (1, 1, 2, False)])
    session = FramesCounted(confirm=3, settle_s=0.2)
    readings_of(session, stream[:-4])
    before = session.decoded, session.stats.repeats, session.stats.inventories
    session.receive(b"".join(data for data, _ in stream[-4:]), 10.0)
    assert (session.decoded - before[0], session.stats.repeats - before[1], session.stats.inventories - before[2]) \
        == (0, 3, 4)
    assert session.antennas["spot1.ante"].runs()[0] == {C: 1}  # the change is counting towards K
    assert session.take_readings() == []


def test_a_quiet_circle_s_scans_are_taken_undecoded_and_a_change_is_not() -> None:
    table = Table()
    table.control(f"place spot1.ante {A} {B}")
    table.run(FIRST_S)
    stats = table.session.stats
    before = stats.repeats, stats.inventories, stats.reread
    assert table.run(1.0) == []
    assert stats.repeats - before[0] == stats.inventories - before[1] == 50  # 5 antennas x 10 scans, all repeats
    table.control(f"place spot1.ante {C}")
    before = stats.repeats, stats.inventories, stats.reread
    assert chips(table.run(1.0)) == [ChipsRead("spot1.ante", frozenset({A, B, C}), False),
                                     ChipsRead("spot1.ante", frozenset({A, B, C}), True)]
    # spot1.ante's changed scan was decoded, the K - 1 while C was counted in debounced from its UIDs: the rest repeats
    assert stats.inventories - before[1] == 50 and stats.repeats - before[0] == 50 - 4
    assert stats.reread - before[2] == 3


def test_a_repeat_after_a_lost_scan_is_debounced_afresh_and_counted_as_a_gap() -> None:
    table = Table()
    table.run(FIRST_S)
    table.control("fault gap")
    stats = table.session.stats
    before = stats.repeats, stats.inventories, stats.reread
    table.run(0.2)  # two scans of 5 antennas, one INVENTORY lost
    assert sum(d.gaps for d in table.session.antennas.values()) == 1 and stats.gaps == 1
    assert stats.inventories - before[1] == 9 and stats.repeats - before[0] == 9 - 1  # the one after the gap debounced
    assert stats.reread - before[2] == 1


def test_an_online_session_asks_for_a_turn_only_when_a_flag_or_the_silence_is_due() -> None:
    table = Table(silence_s=1.0)
    assert table.session.next_turn(table.now) is None  # connecting: turned at the link's pace
    table.run(FIRST_S)
    heard = table.session._last_heard
    assert table.session.next_turn(table.now) == pytest.approx(heard + 1.0 - table.now)  # all stable: the silence
    table.control(f"place spot1.ante {A}")
    got = table.run(0.5)
    flagged = chips(got)[-1]
    assert not flagged.stable  # K scans read it: its stable flag comes after the settle time
    wait = table.session.next_turn(table.now)
    assert wait is not None and 0 < wait <= 0.3
    table.now += wait
    table.session.poll(table.now)
    assert table.session.take_readings() == [ChipsRead("spot1.ante", frozenset({A}), True)]
