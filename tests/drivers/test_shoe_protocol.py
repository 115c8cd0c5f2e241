"""The shoe's wire codec: framing byte by byte, resync after garbage, bad CRC, and messages."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import FrameError
from drivers.shoe_protocol import (
    SYNC, Ack, CardMsg, Continue, Decoder, Frame, Heartbeat, Hello, Identify, MisreadMsg, MsgType,
    SensorMsg, Source, crc16, decode_message, encode_message, seq_delta,
)

FRAMES = [
    Frame(1, MsgType.CARD, CardMsg(Source.SHOE, "As").encode()),
    Frame(2, MsgType.MISREAD, MisreadMsg(Source.DISCARD).encode()),
    Frame(3, MsgType.SENSOR, SensorMsg("lid", True).encode()),
    Frame(3, MsgType.HEARTBEAT),
    Frame(0, MsgType.HELLO, Hello(1, (1, 2, 3), 77, "CR-1", "SN0042").encode()),
    Frame(255, MsgType.ACK, Ack(255).encode()),
]
WIRE = b"".join(f.encode() for f in FRAMES)


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_frame_round_trip_and_layout() -> None:
    wire = Frame(7, MsgType.CARD, b"\x00Td").encode()
    assert wire[:2] == SYNC and wire[2] == 3 and wire[3] == 7 and wire[4] == MsgType.CARD
    assert wire[5:8] == b"\x00Td"
    assert int.from_bytes(wire[8:], "big") == crc16(wire[2:8])
    assert Frame.decode(wire) == Frame(7, MsgType.CARD, b"\x00Td")


def test_one_byte_at_a_time() -> None:
    d = Decoder()
    out: list[Frame] = []
    for i in range(len(WIRE)):
        out += d.feed(WIRE[i:i + 1])
    assert out == FRAMES
    assert d.stats.garbage_bytes == 0 and d.buffered == 0


def test_garbage_between_frames_is_skipped() -> None:
    junk = [b"", b"\x00\xff", SYNC[:1], SYNC, SYNC + b"\xff", b"hello world", SYNC + b"\x02\x01"]
    wire = b"".join(junk[i % len(junk)] + f.encode() for i, f in enumerate(FRAMES))
    d = Decoder()
    out = [f for i in range(0, len(wire), 3) for f in d.feed(wire[i:i + 3])]
    assert out == FRAMES
    assert d.stats.garbage_bytes > 0


def test_truncated_frame_then_good_frame() -> None:
    d = Decoder()
    good = FRAMES[0].encode()
    assert d.feed(good[:-3]) == []
    # The cut frame's rest never comes; the next frame must still be found.
    assert d.feed(FRAMES[1].encode() + FRAMES[2].encode()) == FRAMES[1:3]
    assert d.stats.crc_errors >= 1


def test_bad_crc_is_dropped_and_counted() -> None:
    bad = bytearray(FRAMES[0].encode())
    bad[6] ^= 0x40
    d = Decoder()
    assert d.feed(bytes(bad) + FRAMES[1].encode()) == [FRAMES[1]]
    assert d.stats.crc_errors == 1
    with pytest.raises(FrameError, match="bad CRC"):
        Frame.decode(bytes(bad))


def test_oversize_length_resyncs() -> None:
    d = Decoder()
    assert d.feed(SYNC + b"\xf0\x01\x02" + FRAMES[3].encode()) == [FRAMES[3]]
    assert d.stats.bad_lengths == 1


def test_frame_decode_names_the_fault() -> None:
    with pytest.raises(FrameError, match="too short"):
        Frame.decode(b"\xa5")
    with pytest.raises(FrameError, match="sync"):
        Frame.decode(b"\x00" * 8)
    with pytest.raises(FrameError, match="length field"):
        Frame.decode(FRAMES[0].encode() + b"\x00")
    with pytest.raises(FrameError, match="payload"):
        Frame(1, 2, b"x" * 65).encode()


def test_messages_round_trip() -> None:
    messages = [Hello(1, (1, 0, 9), 2**32 - 1, "CR-1", "SN1"), CardMsg(Source.DISCARD, "Td"),
                MisreadMsg(Source.SHOE), SensorMsg("empty", False), Heartbeat(), Ack(9),
                Identify(), Continue(None), Continue(200)]
    for m in messages:
        frame = Frame.decode(encode_message(m, 5))
        assert decode_message(frame) == m
        assert frame.numbered == (m.TYPE in {MsgType.CARD, MsgType.MISREAD, MsgType.SENSOR, MsgType.CONTINUE})


@pytest.mark.parametrize("kind,payload,match", [
    (MsgType.CARD, b"\x00Xs", "not a card"),
    (MsgType.CARD, b"\x05As", "source"),
    (MsgType.CARD, b"\x00A", "expected 3"),
    (MsgType.HELLO, b"\x01\x01\x00\x00\x00\x00\x00\x01\x05CR", "truncated"),
    (MsgType.SENSOR, b"\x02\x03lid", "state"),
    (MsgType.HEARTBEAT, b"\x00", "no payload"),
    (0x7F, b"", "unknown message type"),
])
def test_malformed_payloads_are_frame_errors(kind: int, payload: bytes, match: str) -> None:
    with pytest.raises(FrameError, match=match):
        decode_message(Frame(1, kind, payload))


def test_text_that_is_not_ascii_is_a_frame_error_on_both_devices() -> None:
    # One text packer (drivers/framing.py): the shoe's HELLO refuses a name the wire cannot carry as the
    # chip reader board's does, with a FrameError naming the field, never a UnicodeEncodeError.
    from drivers import chip_protocol

    with pytest.raises(FrameError, match="model is not ASCII"):
        Hello(1, (1, 0, 0), 1, "Sabot-é", "SN1").encode()
    with pytest.raises(FrameError, match="serial number is not ASCII"):
        chip_protocol.Hello(1, (1, 0, 0), 1, 100, "CB", "SN-é", ()).encode()
    with pytest.raises(FrameError, match="over 32 characters"):
        Hello(1, (1, 0, 0), 1, "C" * 33, "SN1").encode()


def test_seq_delta_wraps() -> None:
    assert seq_delta(0, 255) == 1
    assert seq_delta(2, 0) == 2
    assert seq_delta(255, 0) == -1
    assert seq_delta(9, 9) == 0


def test_repeated_and_skipped_frames_come_out_as_sent() -> None:
    # The codec does not judge sequence numbers (the link does): repeats and gaps pass through.
    seqs = [1, 1, 2, 4]
    wire = b"".join(Frame(s, MsgType.CARD, b"\x00As").encode() for s in seqs)
    assert [f.seq for f in Decoder().feed(wire)] == seqs


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=1, max_value=64))
def test_random_bytes_never_raise(data: bytes, chunk: int) -> None:
    d = Decoder()
    for i in range(0, len(data), chunk):
        for frame in d.feed(data[i:i + chunk]):
            assert 0 <= frame.seq <= 255 and len(frame.payload) <= 64
            try:
                decode_message(frame)
            except FrameError:
                pass


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=20), min_size=len(FRAMES), max_size=len(FRAMES)),
       st.integers(min_value=1, max_value=16))
def test_frames_survive_random_garbage_between_them(junk: list[bytes], chunk: int) -> None:
    # Garbage free of the sync pattern between whole frames never hides a frame.
    junk = [j.replace(SYNC[:1], b"") for j in junk]
    wire = b"".join(j + f.encode() for j, f in zip(junk, FRAMES))
    d = Decoder()
    out = [f for i in range(0, len(wire), chunk) for f in d.feed(wire[i:i + chunk])]
    assert out == FRAMES


def test_random_corruption_loses_only_touched_frames() -> None:
    rng = random.Random(7)
    frames = [Frame(i % 256, MsgType.CARD, b"\x00" + rng.choice(["As", "Kd", "2c"]).encode()) for i in range(300)]
    wire = bytearray(b"".join(f.encode() for f in frames))
    hit = set()
    for _ in range(20):
        at = rng.randrange(len(wire))
        wire[at] ^= 1 << rng.randrange(8)
        hit.add(at // 10)  # every frame here is 10 bytes long
    out = Decoder().feed(bytes(wire))
    intact = [f for i, f in enumerate(frames) if i not in hit]
    # Every untouched frame comes out, in order; a corrupted frame can at most come out altered
    # if its CRC still matched, which a single bit flip never allows.
    assert [f for f in out if f in intact] == intact
    assert len(out) == len(intact)


def test_a_damaged_length_cannot_swallow_the_frames_behind_it() -> None:
    bad = bytearray(FRAMES[3].encode())
    bad[2] = 60  # LEN now promises 60 payload bytes that never come
    d = Decoder()
    assert d.feed(bytes(bad) + FRAMES[3].encode() + FRAMES[0].encode()) == []  # still waiting for 67 bytes
    assert d.idle() == [FRAMES[3], FRAMES[0]]  # the line went quiet: the false start is dropped
    assert d.buffered == 0 and d.idle() == []
    assert d.feed(FRAMES[1].encode()) == [FRAMES[1]]


def test_idle_drops_a_truncated_frame_at_the_end_of_a_burst() -> None:
    d = Decoder()
    assert d.feed(FRAMES[0].encode() + FRAMES[1].encode()[:5]) == [FRAMES[0]]
    assert d.idle() == [] and d.buffered == 0
