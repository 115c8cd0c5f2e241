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

A receiver that meets bytes that do not start a valid frame (no sync, LEN too large, CRC wrong)
drops one byte and searches for the next sync: garbage costs only the frames it touches. A frame
left incomplete when the line goes quiet (a damaged LEN promising more bytes than come) is dropped
the same way (`Decoder.idle`), so it cannot swallow the frames behind it.
"""

from __future__ import annotations

import binascii
import enum
import struct
from dataclasses import dataclass, field
from typing import ClassVar, Union

from drivers.errors import DeviceError, FrameError
from drivers.readings import RANKS, SUITS, Sensor

SYNC = b"\xa5\x5a"
MAX_PAYLOAD = 64
HEADER_SIZE = 5  # SYNC, LEN, SEQ, TYPE
CRC_SIZE = 2
MIN_FRAME = HEADER_SIZE + CRC_SIZE
PROTOCOL_VERSION = 1


class MsgType(enum.IntEnum):
    """Message types. 0x01..0x0F come from the device, 0x10.. from the host; ACK goes both ways."""

    HELLO = 0x01
    CARD = 0x02
    MISREAD = 0x03
    SENSOR = 0x04
    HEARTBEAT = 0x05
    ACK = 0x06
    IDENTIFY = 0x10
    CONTINUE = 0x11


NUMBERED = frozenset({MsgType.CARD, MsgType.MISREAD, MsgType.SENSOR, MsgType.CONTINUE})


class Source(enum.IntEnum):
    """Which reader saw the card: the shoe's card-out reader or the discard rack's reader."""

    SHOE = 0
    DISCARD = 1


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data`.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def seq_delta(seq: int, last: int) -> int:
    """How far `seq` is past `last`, in -128..127, counting modulo 256.

    >>> seq_delta(1, 0), seq_delta(0, 255), seq_delta(5, 5), seq_delta(250, 3)
    (1, 1, 0, -9)
    """
    return (seq - last + 128) % 256 - 128


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: its sequence number, type and raw payload."""

    seq: int
    kind: int
    payload: bytes = b""

    def encode(self) -> bytes:
        """The frame's bytes on the wire. Raises FrameError when a field is out of range."""
        if not 0 <= self.seq <= 255:
            raise FrameError(f"frame seq out of range: {self.seq}")
        if not 0 <= self.kind <= 255:
            raise FrameError(f"frame type out of range: {self.kind}")
        if len(self.payload) > MAX_PAYLOAD:
            raise FrameError(f"payload of {len(self.payload)} bytes, over {MAX_PAYLOAD}")
        body = bytes((len(self.payload), self.seq, self.kind)) + self.payload
        return SYNC + body + crc16(body).to_bytes(2, "big")

    @classmethod
    def decode(cls, data: bytes) -> Frame:
        """One whole frame from exactly its bytes. Raises FrameError naming what is wrong."""
        if len(data) < MIN_FRAME:
            raise FrameError(f"frame of {len(data)} bytes is too short (at least {MIN_FRAME})")
        if data[:2] != SYNC:
            raise FrameError(f"frame does not start with sync {SYNC.hex()}: {data[:2].hex()}")
        length = data[2]
        if length > MAX_PAYLOAD:
            raise FrameError(f"frame length {length} over {MAX_PAYLOAD}")
        if len(data) != HEADER_SIZE + length + CRC_SIZE:
            raise FrameError(f"frame of {len(data)} bytes, its length field says {HEADER_SIZE + length + CRC_SIZE}")
        body = data[2:HEADER_SIZE + length]
        got = int.from_bytes(data[HEADER_SIZE + length:], "big")
        if crc16(body) != got:
            raise FrameError(f"bad CRC {got:04x}, expected {crc16(body):04x}")
        return cls(seq=data[3], kind=data[4], payload=bytes(data[HEADER_SIZE:HEADER_SIZE + length]))

    @property
    def numbered(self) -> bool:
        return self.kind in NUMBERED


@dataclass
class DecoderStats:
    """What the decoder threw away, for logs and the feed's health counters."""

    frames: int = 0
    crc_errors: int = 0
    bad_lengths: int = 0
    garbage_bytes: int = 0


@dataclass
class Decoder:
    """Turns a byte stream into frames. Never raises on any input; garbage is counted and skipped.

    >>> d = Decoder()
    >>> wire = Frame(3, MsgType.HEARTBEAT).encode()
    >>> d.feed(b"junk" + wire[:4]), d.feed(wire[4:])
    ([], [Frame(seq=3, kind=5, payload=b'')])
    >>> d.stats.garbage_bytes
    4
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray, repr=False)

    def feed(self, data: bytes) -> list[Frame]:
        """Add bytes; return every frame they complete, in order."""
        buf = self._buf
        buf += data
        frames: list[Frame] = []
        while True:
            start = buf.find(SYNC)
            if start < 0:
                # Keep a trailing first sync byte: the second may come in the next read.
                keep = 1 if buf[-1:] == SYNC[:1] else 0
                self.stats.garbage_bytes += len(buf) - keep
                del buf[:len(buf) - keep]
                return frames
            if start:
                self.stats.garbage_bytes += start
                del buf[:start]
            if len(buf) < HEADER_SIZE:
                return frames
            length = buf[2]
            if length > MAX_PAYLOAD:
                self.stats.bad_lengths += 1
                self.stats.garbage_bytes += 1
                del buf[:1]
                continue
            end = HEADER_SIZE + length + CRC_SIZE
            if len(buf) < end:
                return frames
            body = bytes(buf[2:HEADER_SIZE + length])
            if crc16(body) != int.from_bytes(buf[end - CRC_SIZE:end], "big"):
                # Not a frame after all (or a damaged one): skip this sync and search again,
                # so a real frame hidden behind a false sync is still found.
                self.stats.crc_errors += 1
                self.stats.garbage_bytes += 1
                del buf[:1]
                continue
            frames.append(Frame(seq=buf[3], kind=buf[4], payload=body[3:]))
            self.stats.frames += 1
            del buf[:end]

    def reset(self) -> None:
        """Forget buffered bytes (a reopened port); the counters stay."""
        self._buf.clear()

    def idle(self) -> list[Frame]:
        """The line went quiet with part of a frame buffered: it will never complete (a damaged
        LEN promised more bytes than came, or the sender reset mid-frame). Drop it byte by byte,
        returning any whole frames found behind its false start; the buffer ends empty."""
        frames: list[Frame] = []
        while self._buf:
            self.stats.garbage_bytes += 1
            del self._buf[:1]
            frames += self.feed(b"")
        return frames

    @property
    def buffered(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buf)


# --- messages: the payload of each type ------------------------------------------------------


def _text(data: bytes, at: int, what: str) -> tuple[str, int]:
    if at >= len(data):
        raise FrameError(f"{what} missing")
    n = data[at]
    raw = data[at + 1:at + 1 + n]
    if len(raw) != n:
        raise FrameError(f"{what} truncated")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        raise FrameError(f"{what} is not ASCII") from exc
    if not text.isprintable():
        raise FrameError(f"{what} is not printable")
    return text, at + 1 + n


def _pack_text(text: str, what: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > 32:
        raise FrameError(f"{what} over 32 characters: {text!r}")
    return bytes((len(raw),)) + raw


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

    TYPE: ClassVar[MsgType] = MsgType.HELLO
    protocol: int
    firmware: tuple[int, int, int]
    boot: int
    model: str
    serial: str

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
        if len(payload) != 1:
            raise FrameError(f"MISREAD of {len(payload)} bytes, expected 1")
        return cls(_source(payload[0]))


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
class Heartbeat:
    """Device → host: alive, nothing in flight; SEQ is its last numbered frame."""

    TYPE: ClassVar[MsgType] = MsgType.HEARTBEAT

    def encode(self) -> bytes:
        return b""

    @classmethod
    def decode(cls, payload: bytes) -> Heartbeat:
        if payload:
            raise FrameError("HEARTBEAT carries no payload")
        return cls()


@dataclass(frozen=True, slots=True)
class Ack:
    """Either way: the numbered frame `seq` arrived."""

    TYPE: ClassVar[MsgType] = MsgType.ACK
    seq: int

    def encode(self) -> bytes:
        return bytes((self.seq,))

    @classmethod
    def decode(cls, payload: bytes) -> Ack:
        if len(payload) != 1:
            raise FrameError(f"ACK of {len(payload)} bytes, expected 1")
        return cls(payload[0])


@dataclass(frozen=True, slots=True)
class Identify:
    """Host → device: say HELLO, then hold numbered frames until CONTINUE."""

    TYPE: ClassVar[MsgType] = MsgType.IDENTIFY
    protocol: int = PROTOCOL_VERSION

    def encode(self) -> bytes:
        return bytes((self.protocol,))

    @classmethod
    def decode(cls, payload: bytes) -> Identify:
        if len(payload) != 1:
            raise FrameError(f"IDENTIFY of {len(payload)} bytes, expected 1")
        return cls(payload[0])


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


def decode_message(frame: Frame) -> Message:
    """The message a frame carries. Raises FrameError for an unknown type or a malformed payload."""
    cls = MESSAGES.get(frame.kind)
    if cls is None:
        raise FrameError(f"unknown message type 0x{frame.kind:02x}")
    return cls.decode(frame.payload)


def encode_message(message: Message, seq: int) -> bytes:
    """A message as a whole frame on the wire with sequence field `seq`. Raises FrameError."""
    return Frame(seq, message.TYPE, message.encode()).encode()
