"""The framing both devices share (drivers/framing.py): formats, one decoder for both, the fields messages share."""

from __future__ import annotations

import pytest

from drivers import chip_protocol, framing, shoe_protocol
from drivers.errors import FrameError


@pytest.mark.parametrize("sync,length_size,max_payload", [
    (b"\xa5", 1, 64),           # one sync byte
    (b"\xa5\x5a", 3, 64),       # a LEN of three bytes
    (b"\xa5\x5a", 1, 256),      # a largest payload LEN cannot say
    (b"\xa5\xc3", 2, 0),
])
def test_a_format_the_framing_cannot_carry_is_refused(sync: bytes, length_size: int, max_payload: int) -> None:
    with pytest.raises(ValueError, match="frame format"):
        framing.FrameFormat(sync, length_size, max_payload)


def test_both_devices_frame_with_the_one_frame_and_decoder_in_their_own_format() -> None:
    for module in (shoe_protocol, chip_protocol):
        assert module.Frame.encode is framing.Frame.encode and module.Decoder.feed is framing.Decoder.feed
        assert module.Heartbeat is framing.Heartbeat and module.Identify is framing.Identify
    payload = bytes(range(60))
    shoe_wire = shoe_protocol.Frame(9, 0x42, payload).encode()
    board_wire = chip_protocol.Frame(9, 0x42, payload).encode()
    assert shoe_wire[:3] == b"\xa5\x5a\x3c" and board_wire[:4] == b"\xa5\xc3\x00\x3c"  # LEN: 1 byte, 2 bytes
    assert shoe_wire[3:-2] == board_wire[4:-2] == b"\x09\x42" + payload  # SEQ, TYPE, PAYLOAD alike
    assert shoe_wire[-2:] == framing.crc16(shoe_wire[2:-2]).to_bytes(2, "big")  # the CRC over LEN too
    assert board_wire[-2:] == framing.crc16(board_wire[2:-2]).to_bytes(2, "big")


def test_a_message_type_neither_device_knows_is_refused_by_number() -> None:
    with pytest.raises(FrameError, match="unknown message type 0x42"):
        shoe_protocol.decode_message(shoe_protocol.Frame(1, 0x42))
    with pytest.raises(FrameError, match="IDENTIFY of 2 bytes, expected 1"):
        chip_protocol.decode_message(chip_protocol.Frame(1, chip_protocol.MsgType.IDENTIFY, b"\x01\x02"))
