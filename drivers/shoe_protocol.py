"""The card-reading shoe's wire protocol, sans-IO: bytes in through `Decoder.feed`, frames out; `encode` back.

Frame layout (written once here; docs/protocol.md explains the exchanges)::

    offset  size  field
    0       2     SYNC     0xA5 0x5A
    2       1     LEN      payload length, 0..MAX_PAYLOAD
    3       1     SEQ      sequence number 0..255 (see below)
    4       1     TYPE     message type (MsgType)
    5       LEN   PAYLOAD  message fields, integers big-endian
    5+LEN   2     CRC      CRC-16/CCITT (poly 0x1021, init 0xFFFF) over LEN, SEQ, TYPE and PAYLOAD,
                           big-endian; `binascii.crc_hqx(data, 0xFFFF)`

Numbered types (CARD, MISREAD, SENSOR from the device; CONTINUE from the host) carry their own
sequence number in SEQ, one more than the sender's previous numbered frame (mod 256), and are
acknowledged by an ACK naming that number; the sender keeps one numbered frame in flight and
retransmits it until it is acknowledged (stop and wait), so a receiver that sees a number skipped
knows a frame was lost for good. Unnumbered types (HELLO, HEARTBEAT, ACK, IDENTIFY) are never
acknowledged; in them SEQ carries the sender's last numbered frame (HELLO: the last one a host
acknowledged; HEARTBEAT: the last one sent, sent only when nothing is in flight).

The framing (the sync search, the garbage skipped, a frame cut short on a quiet line dropped) is the
chip reader board's too: drivers/framing.py, with the shoe's `FORMAT`.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import ClassVar, Union

from drivers import framing
from drivers.errors import DeviceError, FrameError
from drivers.framing import CRC_SIZE, DecoderStats, Heartbeat, Identify, crc16, only_byte, seq_delta
from drivers.framing import pack_text as _pack_text, unpack_text as _text
from drivers.readings import RANKS, SUITS, Sensor

__all__ = ["SYNC", "MAX_PAYLOAD", "HEADER_SIZE", "CRC_SIZE", "MIN_FRAME", "PROTOCOL_VERSION", "FORMAT", "MsgType",
           "NUMBERED", "Source", "Frame", "Decoder", "DecoderStats", "Hello", "CardMsg", "MisreadMsg", "SensorMsg",
           "Heartbeat", "Ack", "Identify", "Continue", "Message", "MESSAGES", "decode_message", "encode_message",
           "check_card_text", "crc16", "seq_delta"]

SYNC = b"\xa5\x5a"
MAX_PAYLOAD = 64
FORMAT = framing.FrameFormat(SYNC, 1, MAX_PAYLOAD)
"""The shoe's framing: LEN of one byte (a card is two)."""
HEADER_SIZE = FORMAT.header_size  # SYNC, LEN, SEQ, TYPE
MIN_FRAME = FORMAT.min_frame
PROTOCOL_VERSION = 1


class MsgType(enum.IntEnum):
    """Message types. 0x01..0x0F come from the device, 0x10.. from the host; ACK goes both ways."""

    HELLO = 0x01
    CARD = 0x02
    MISREAD = 0x03
    SENSOR = 0x04
    HEARTBEAT = framing.HEARTBEAT
    ACK = 0x06
    IDENTIFY = framing.IDENTIFY
    CONTINUE = 0x11


NUMBERED = frozenset({MsgType.CARD, MsgType.MISREAD, MsgType.SENSOR, MsgType.CONTINUE})


class Source(enum.IntEnum):
    """Which reader saw the card: the shoe's card-out reader or the discard rack's reader."""

    SHOE = 0
    DISCARD = 1


class Frame(framing.Frame):
    """One shoe frame: its sequence number, type and raw payload (`drivers.framing.Frame` in the shoe's format)."""

    __slots__ = ()
    FORMAT = FORMAT

    @property
    def numbered(self) -> bool:
        return self.kind in NUMBERED


class Decoder(framing.Decoder):
    """Turns the shoe's byte stream into frames (`drivers.framing.Decoder` in its format)."""

    FRAME = Frame


# --- messages: the payload of each type ------------------------------------------------------


def _source(value: int) -> Source:
    try:
        return Source(value)
    except ValueError as exc:
        raise FrameError(f"unknown card source {value}") from exc


def _sensor(text: str) -> Sensor:
    try:
        return Sensor.parse(text)
    except DeviceError as exc:
        raise FrameError(f"SENSOR: {exc}") from None


def check_card_text(text: str) -> str:
    """Return `text` when it is a card in the docs/rules.md form (`As`, `Td`); raise FrameError otherwise."""
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise FrameError(f"not a card: {text!r}")
    return text


@dataclass(frozen=True, slots=True)
class Hello:
    """Device → host: who it is. Sent at boot and in answer to IDENTIFY."""

    protocol: int
    firmware: tuple[int, int, int]
    boot: int
    model: str
    serial: str
    TYPE: ClassVar[MsgType] = MsgType.HELLO

    def encode(self) -> bytes:
        return (struct.pack(">B3BI", self.protocol, *self.firmware, self.boot)
                + _pack_text(self.model, "model") + _pack_text(self.serial, "serial number"))

    @classmethod
    def decode(cls, payload: bytes) -> Hello:
        if len(payload) < 8:
            raise FrameError(f"HELLO of {len(payload)} bytes is too short")
        protocol, major, minor, patch, boot = struct.unpack_from(">B3BI", payload)
        model, at = _text(payload, 8, "HELLO model")
        serial, at = _text(payload, at, "HELLO serial number")
        if at != len(payload):
            raise FrameError("HELLO has trailing bytes")
        return cls(protocol, (major, minor, patch), boot, model, serial)

    @property
    def firmware_text(self) -> str:
        return ".".join(map(str, self.firmware))


@dataclass(frozen=True, slots=True)
class CardMsg:
    """Device → host, numbered: a card read by the shoe or the discard reader (`As`, `Td`)."""

    TYPE: ClassVar[MsgType] = MsgType.CARD
    source: Source
    card: str

    def encode(self) -> bytes:
        return bytes((self.source,)) + check_card_text(self.card).encode("ascii")

    @classmethod
    def decode(cls, payload: bytes) -> CardMsg:
        if len(payload) != 3:
            raise FrameError(f"CARD of {len(payload)} bytes, expected 3")
        return cls(_source(payload[0]), check_card_text(payload[1:].decode("latin-1")))


@dataclass(frozen=True, slots=True)
class MisreadMsg:
    """Device → host, numbered: a card went past a reader and could not be read."""

    TYPE: ClassVar[MsgType] = MsgType.MISREAD
    source: Source

    def encode(self) -> bytes:
        return bytes((self.source,))

    @classmethod
    def decode(cls, payload: bytes) -> MisreadMsg:
        return cls(_source(only_byte(payload, "MISREAD")))


@dataclass(frozen=True, slots=True)
class SensorMsg:
    """Device → host, numbered: one of the shoe's own sensors changed (`empty`, `lid_open`, `card_out`;
    the older `lid` is read as `lid_open`)."""

    TYPE: ClassVar[MsgType] = MsgType.SENSOR
    name: Sensor
    active: bool

    def encode(self) -> bytes:
        return bytes((1 if self.active else 0,)) + _pack_text(_sensor(self.name).value, "sensor name")

    @classmethod
    def decode(cls, payload: bytes) -> SensorMsg:
        if len(payload) < 2 or payload[0] > 1:
            raise FrameError("SENSOR payload is not (state 0|1, name)")
        name, at = _text(payload, 1, "sensor name")
        if at != len(payload) or not name:
            raise FrameError("SENSOR name empty or trailing bytes")
        return cls(_sensor(name), payload[0] == 1)


@dataclass(frozen=True, slots=True)
class Ack:
    """Either way: the numbered frame `seq` arrived."""

    TYPE: ClassVar[MsgType] = MsgType.ACK
    seq: int

    def encode(self) -> bytes:
        return bytes((self.seq,))

    @classmethod
    def decode(cls, payload: bytes) -> Ack:
        return cls(only_byte(payload, "ACK"))


@dataclass(frozen=True, slots=True)
class Continue:
    """Host → device, numbered: go on sending. `last` is the last device frame the host has kept
    (from its journal, after a restart); the device drops that frame and any before it if still
    in flight. `None`: the host kept nothing of this device, send what is in flight."""

    TYPE: ClassVar[MsgType] = MsgType.CONTINUE
    last: int | None

    def encode(self) -> bytes:
        return bytes((0, 0)) if self.last is None else bytes((1, self.last))

    @classmethod
    def decode(cls, payload: bytes) -> Continue:
        if len(payload) != 2 or payload[0] > 1:
            raise FrameError("CONTINUE payload is not (flag 0|1, last)")
        return cls(payload[1] if payload[0] else None)


Message = Union[Hello, CardMsg, MisreadMsg, SensorMsg, Heartbeat, Ack, Identify, Continue]
MESSAGES: dict[int, type[Message]] = {
    m.TYPE: m for m in (Hello, CardMsg, MisreadMsg, SensorMsg, Heartbeat, Ack, Identify, Continue)
}


CODEC = framing.Codec[Message](Frame, {kind: m.decode for kind, m in MESSAGES.items()})
decode_message = CODEC.decode
"""The message a frame carries. Raises FrameError for an unknown type or a malformed payload."""
encode_message = CODEC.encode
"""A message as a whole frame on the wire with sequence field `seq`. Raises FrameError."""
