"""The chip reader board's frames and messages: byte by byte, garbled, bad CRCs, oversize lengths, malformed payloads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from drivers import shoe_protocol
from drivers.chip_protocol import (
    BOARD, MAX_PAYLOAD, MAX_UIDS, SYNC, Decoder, Fault, FaultCode, Frame, Heartbeat, Hello, Identify, Inventory,
    MsgType, check_antenna, check_uid, decode_message, encode_message,
)
from drivers.errors import FrameError

UIDS = ("E004010000000001", "E004010000000002", "E0040100000000FF")
HELLO = Hello(1, (1, 2, 3), 0xDEADBEEF, 100, "CB-SIM", "SIM0001",
              ((0, "spot1.ante"), (1, "spot1.blind"), (2, "spot1.play"), (28, "tray")))
MESSAGES = [HELLO, Inventory(2, 65535, UIDS), Inventory(28, 0, ()), Heartbeat(), Fault(FaultCode.ANTENNA, 2, "open"),
            Fault(FaultCode.RF, BOARD, "no answer"), Identify(1)]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_goes_through_the_wire_and_back(message: object) -> None:
    wire = encode_message(message, 7)  # type: ignore[arg-type]
    frames = Decoder().feed(wire)
    assert [f.seq for f in frames] == [7]
    assert decode_message(frames[0]) == message
    assert Frame.decode(wire) == frames[0]


def test_frames_fed_one_byte_at_a_time_come_out_whole_and_in_order() -> None:
    wire = b"".join(encode_message(m, n) for n, m in enumerate(MESSAGES))
    decoder = Decoder()
    got = [frame for byte in wire for frame in decoder.feed(bytes((byte,)))]
    assert [decode_message(f) for f in got] == MESSAGES
    assert [f.seq for f in got] == list(range(len(MESSAGES)))
    assert decoder.stats.garbage_bytes == 0 and decoder.buffered == 0


def test_garbage_and_a_damaged_frame_cost_only_what_they_touch() -> None:
    good = encode_message(Inventory(1, 5, UIDS[:1]), 1)
    bad = bytearray(encode_message(Inventory(1, 6, UIDS), 2))
    bad[12] ^= 0x40  # a bit flipped in a UID: the CRC no longer matches
    decoder = Decoder()
    frames = decoder.feed(b"\x00\xa5\xff" + bytes(bad) + good + b"\xa5")
    assert [decode_message(f) for f in frames] == [Inventory(1, 5, UIDS[:1])]
    assert decoder.stats.crc_errors >= 1 and decoder.stats.garbage_bytes >= 3 + len(bad)
    assert decoder.buffered == 1  # a trailing first sync byte waits for its second


def test_a_length_over_the_largest_payload_is_garbage_not_a_wait() -> None:
    oversize = SYNC + (MAX_PAYLOAD + 1).to_bytes(2, "big") + b"\x01\x02"
    good = encode_message(Heartbeat(), 9)
    decoder = Decoder()
    assert [f.seq for f in decoder.feed(oversize + good)] == [9]
    assert decoder.stats.bad_lengths == 1
    with pytest.raises(FrameError, match="over"):
        Frame(1, MsgType.INVENTORY, bytes(MAX_PAYLOAD + 1)).encode()


def test_a_frame_cut_short_on_a_quiet_line_is_dropped_and_what_hides_behind_it_found() -> None:
    good = encode_message(Heartbeat(), 4)
    false_start = SYNC + (200).to_bytes(2, "big") + b"\x00\x05"  # promises 200 bytes that never come
    decoder = Decoder()
    assert decoder.feed(false_start + good) == []  # waiting for the 200 bytes
    assert [f.seq for f in decoder.idle()] == [4]
    assert decoder.buffered == 0


def test_the_shoe_and_the_board_never_hear_each_other() -> None:
    shoe_wire = shoe_protocol.encode_message(shoe_protocol.Heartbeat(), 3)
    board_wire = encode_message(Heartbeat(), 3)
    assert Decoder().feed(shoe_wire) == []
    assert shoe_protocol.Decoder().feed(board_wire) == []


def test_a_full_tray_fits_one_frame() -> None:
    uids = tuple(sorted(f"E0040100{n:08X}" for n in range(MAX_UIDS)))
    wire = encode_message(Inventory(28, 1, uids), 1)
    assert decode_message(Decoder().feed(wire)[0]) == Inventory(28, 1, uids)
    with pytest.raises(FrameError, match="over"):
        Inventory(28, 1, uids + ("E0040200000000FF",)).encode()


@pytest.mark.parametrize("kind,payload,why", [
    (MsgType.INVENTORY, b"\x01\x00", "not antenna, scan"),
    (MsgType.INVENTORY, b"\x01\x00\x01" + bytes(7), "whole 8-byte UIDs"),
    (MsgType.INVENTORY, b"\x01\x00\x01" + bytes(8) * 2, "names a chip twice"),
    (MsgType.HEARTBEAT, b"\x00", "no payload"),
    (MsgType.FAULT, b"\x09\x01\x01x", "unknown fault code"),
    (MsgType.FAULT, b"\x01\x01\x05ab", "truncated"),
    (MsgType.IDENTIFY, b"", "expected 1"),
    (0x42, b"", "unknown message type"),
])
def test_malformed_payloads_are_refused_by_name(kind: int, payload: bytes, why: str) -> None:
    with pytest.raises(FrameError, match=why):
        decode_message(Frame(1, kind, payload))


def _hello_payload(antennas: list[tuple[int, bytes]]) -> bytes:
    head = bytes((1, 1, 0, 0)) + (7).to_bytes(4, "big") + (100).to_bytes(2, "big") + b"\x02CB\x01S"
    return head + bytes((len(antennas),)) + b"".join(bytes((n, len(name))) + name for n, name in antennas)


@pytest.mark.parametrize("antennas,why", [
    ([(0, b"spot1.ante"), (0, b"spot1.play")], "twice"),
    ([(0, b"spot1.ante"), (1, b"spot1.ante")], "twice"),
    ([(255, b"tray")], "twice"),
    ([(0, b"spot1.Ante")], "not an antenna name"),
    ([(0, b"table")], "not an antenna name"),
])
def test_a_hello_with_a_bad_antenna_map_is_refused(antennas: list[tuple[int, bytes]], why: str) -> None:
    with pytest.raises(FrameError, match=why):
        Hello.decode(_hello_payload(antennas))
    assert Hello.decode(_hello_payload([(0, b"spot1.ante"), (9, b"tray")])).antennas == ((0, "spot1.ante"), (9, "tray"))


def test_names_and_uids_are_checked() -> None:
    assert check_antenna("spot7.pair_plus") == "spot7.pair_plus" and check_antenna("tray") == "tray"
    for bad in ("spot", "spot3", "spot3.", "spot03.ante", "spot3.ante ", "tray2", ""):
        with pytest.raises(FrameError):
            check_antenna(bad)
    assert check_uid("E004010000000001") == "E004010000000001"
    for bad in ("e004010000000001", "E00401000000001", "E0040100000000011", "E00401000000000G"):
        with pytest.raises(FrameError):
            check_uid(bad)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=64), max_size=20))
def test_the_decoder_never_raises_and_keeps_what_is_whole(chunks: list[bytes]) -> None:
    good = encode_message(Inventory(3, 12, UIDS), 5)
    decoder = Decoder()
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            try:
                decode_message(frame)
            except FrameError:
                pass
    decoder.idle()
    assert decoder.buffered == 0
    frames = decoder.feed(good)
    assert frames and decode_message(frames[-1]) == Inventory(3, 12, UIDS)
