"""The frames written out by hand in docs/protocol.md: the codec encodes and decodes each byte for byte."""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.readings import Sensor
from drivers.shoe_protocol import (
    SYNC, Ack, CardMsg, Continue, Decoder, Frame, Heartbeat, Hello, Identify, Message, MisreadMsg, MsgType,
    SensorMsg, Source, decode_message, encode_message,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# What each example in the doc says, in its order, written from the words above each block (not
# from the codec): the kind, the SEQ field and the message.
EXPECTED: list[tuple[str, int, Message]] = [
    ("HELLO", 0, Hello(1, (1, 0, 0), 3141592653, "CR-SIM", "SIM0001")),
    ("CARD", 1, CardMsg(Source.SHOE, "As")),
    ("CARD", 2, CardMsg(Source.DISCARD, "Kd")),
    ("MISREAD", 3, MisreadMsg(Source.SHOE)),
    ("SENSOR", 4, SensorMsg(Sensor.EMPTY, True)),
    ("HEARTBEAT", 4, Heartbeat()),
    ("ACK", 1, Ack(4)),
    ("ACK", 4, Ack(1)),
    ("IDENTIFY", 0, Identify(1)),
    ("CONTINUE", 1, Continue(None)),
    ("CONTINUE", 2, Continue(41)),
]


@dataclass(frozen=True)
class Example:
    """One ```frame block of the doc: its title and its fields as written."""

    title: str
    fields: list[bytes]  # SYNC, LEN, SEQ, TYPE, PAYLOAD, CRC

    @property
    def kind(self) -> str:
        return self.title.split()[0]

    @property
    def wire(self) -> bytes:
        return b"".join(self.fields)


def examples() -> list[Example]:
    found = []
    for block in re.findall(r"^```frame\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        lines = block.strip().splitlines()
        rows = [line for line in lines if "|" in line]
        assert len(rows) == 1, f"one line of bytes per example: {block!r}"
        fields = [bytes.fromhex(part) for part in rows[0].split("|")]
        assert len(fields) == 6, f"SYNC | LEN | SEQ | TYPE | PAYLOAD | CRC: {rows[0]!r}"
        found.append(Example(" ".join(line for line in lines if "|" not in line), fields))
    return found


EXAMPLES = examples()


def test_the_doc_shows_every_message_kind_in_the_order_the_test_expects() -> None:
    assert [e.kind for e in EXAMPLES] == [kind for kind, _, _ in EXPECTED]
    assert {e.kind for e in EXAMPLES} == {t.name for t in MsgType}  # a new type needs its example


@pytest.mark.parametrize(("example", "expected"), list(zip(EXAMPLES, EXPECTED)),
                         ids=[f"{kind}-{seq}" for kind, seq, _ in EXPECTED])
def test_the_doc_frame_is_what_the_codec_writes_and_reads(example: Example, expected: tuple[str, int, Message]) -> None:
    kind, seq, message = expected
    sync, length, seq_field, type_field, payload, crc = example.fields
    # The fields as the layout in drivers/shoe_protocol.py defines them, checked without the codec.
    assert sync == b"\xa5\x5a" == SYNC
    assert length == bytes((len(payload),)) and seq_field == bytes((seq,))
    assert type_field == bytes((MsgType[kind],))
    assert crc == binascii.crc_hqx(length + seq_field + type_field + payload, 0xFFFF).to_bytes(2, "big")
    # The codec writes exactly these bytes and reads them back.
    assert encode_message(message, seq) == example.wire
    frame = Frame.decode(example.wire)
    assert (frame.seq, frame.kind, frame.payload) == (seq, MsgType[kind], payload)
    assert decode_message(frame) == message
    decoder = Decoder()
    fed: list[Frame] = []
    for byte in example.wire:  # one byte at a time, as a slow line brings them
        fed += decoder.feed(bytes((byte,)))
    assert fed == [frame] and decoder.stats.garbage_bytes == 0


def test_a_doc_frame_with_one_bit_flipped_is_refused() -> None:
    for example in EXAMPLES:
        damaged = bytearray(example.wire)
        damaged[-3] ^= 0x01
        assert Decoder().feed(bytes(damaged)) == []
