"""The chip reader board's frames written out in docs/protocol.md: the codec encodes and decodes each byte for byte."""

from __future__ import annotations

import binascii
import re
from pathlib import Path

import pytest

from drivers.chip_protocol import (
    SYNC, Decoder, Fault, FaultCode, Frame, Heartbeat, Hello, Identify, Inventory, Message, MsgType, decode_message,
    encode_message,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# What each ```chipframe example says, in its order, from the words above its bytes: kind, SEQ, message.
EXPECTED: list[tuple[str, int, Message]] = [
    ("HELLO", 1, Hello(1, (1, 0, 0), 3141592653, 100, "CB-SIM", "SIM0001", ((0, "spot1.ante"), (1, "tray")))),
    ("INVENTORY", 2, Inventory(0, 7, ("E004010000000001", "E004010000000002"))),
    ("INVENTORY", 3, Inventory(1, 7, ())),
    ("HEARTBEAT", 4, Heartbeat()),
    ("FAULT", 5, Fault(FaultCode.ANTENNA, 0, "open")),
    ("IDENTIFY", 1, Identify(1)),
]


def examples() -> list[tuple[str, list[bytes]]]:
    found = []
    for block in re.findall(r"^```chipframe\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        lines = block.strip().splitlines()
        (row,) = [line for line in lines if "|" in line]
        fields = [bytes.fromhex(part) for part in row.split("|")]
        assert len(fields) == 6, f"SYNC | LEN | SEQ | TYPE | PAYLOAD | CRC: {row!r}"
        found.append((lines[0].split()[0], fields))
    return found


EXAMPLES = examples()


def test_the_doc_shows_every_message_kind() -> None:
    assert [kind for kind, _ in EXAMPLES] == [kind for kind, _, _ in EXPECTED]
    assert {kind for kind, _ in EXAMPLES} == {t.name for t in MsgType}


@pytest.mark.parametrize(("example", "expected"), list(zip(EXAMPLES, EXPECTED)),
                         ids=[f"{kind}-{seq}" for kind, seq, _ in EXPECTED])
def test_the_doc_frame_is_what_the_codec_writes_and_reads(example: tuple[str, list[bytes]],
                                                          expected: tuple[str, int, Message]) -> None:
    kind, seq, message = expected
    sync, length, seq_field, type_field, payload, crc = example[1]
    wire = b"".join(example[1])
    # The fields as drivers/chip_protocol.py lays them out, checked without the codec.
    assert sync == b"\xa5\xc3" == SYNC
    assert length == len(payload).to_bytes(2, "big") and seq_field == bytes((seq,))
    assert type_field == bytes((MsgType[kind],))
    assert crc == binascii.crc_hqx(length + seq_field + type_field + payload, 0xFFFF).to_bytes(2, "big")
    assert encode_message(message, seq) == wire
    frame = Frame.decode(wire)
    assert decode_message(frame) == message
    decoder = Decoder()
    assert [f for byte in wire for f in decoder.feed(bytes((byte,)))] == [frame]
    damaged = bytearray(wire)
    damaged[-3] ^= 0x01
    assert Decoder().feed(bytes(damaged)) == []
