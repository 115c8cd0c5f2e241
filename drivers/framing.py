"""The framing the shoe and the chip reader board share, sans-IO: a frame format, its frames, its stream decoder, the text fields.

A frame on the wire (each device's module draws its own layout: drivers/shoe_protocol.py,
drivers/chip_protocol.py)::

    SYNC (2 bytes) | LEN (1 or 2 bytes, big-endian) | SEQ (1) | TYPE (1) | PAYLOAD (LEN bytes) | CRC (2)

CRC is CRC-16/CCITT (poly 0x1021, init 0xFFFF) over LEN, SEQ, TYPE and PAYLOAD, big-endian. A
`FrameFormat` says what differs from one device to the other: its SYNC (so that one device
plugged into the other's port is heard as garbage), the width of LEN and the largest payload (a
LEN above it is garbage, not a wait). Each device's module binds its format once: its `Frame`
and `Decoder` are this module's with `FORMAT` set, nothing more.

A receiver that meets bytes that do not start a valid frame (no sync, LEN too large, CRC wrong)
drops one byte and searches for the next sync: garbage costs only the frames it touches. A frame
left incomplete when the line goes quiet (a damaged LEN promising more bytes than come) is dropped
the same way (`Decoder.idle`), so it cannot swallow the frames behind it.

Text fields (a model, a serial number, a sensor's or an antenna's name, a fault's words) are one
length byte and at most `TEXT_MAX` printable ASCII characters.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from drivers.errors import FrameError

CRC_SIZE = 2
TEXT_MAX = 32
"""The most characters a text field carries."""

HEARTBEAT = 0x05
"""HEARTBEAT's type on both devices: alive, no payload."""
IDENTIFY = 0x10
"""IDENTIFY's type on both devices: the host asks the device to say HELLO."""


class Payload(Protocol):
    """A message as a frame carries it: its type and its payload's bytes."""

    @property
    def TYPE(self) -> int: ...  # noqa: N802 (each message's class constant)

    def encode(self) -> bytes: ...


M = TypeVar("M", bound=Payload)
Reader = Callable[[bytes], M]
"""A message type's reader: its payload in, the message out (its `decode`); raises FrameError."""


def crc16(data: bytes | bytearray | memoryview) -> int:
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
class FrameFormat:
    """One device's framing: its two sync bytes, the width of LEN (1 or 2 bytes) and the largest payload.

    >>> FrameFormat(b"\\xa5\\x5a", 1, 64).header_size
    5
    """

    sync: bytes
    length_size: int
    max_payload: int

    def __post_init__(self) -> None:
        if len(self.sync) != 2 or self.length_size not in (1, 2) \
                or not 0 < self.max_payload < 256 ** self.length_size:
            raise ValueError(f"a frame format is 2 sync bytes, a LEN of 1 or 2 bytes and a largest payload it can say, "
                             f"not {self.sync.hex()}, {self.length_size}, {self.max_payload}")

    @property
    def header_size(self) -> int:
        """SYNC, LEN, SEQ and TYPE."""
        return 2 + self.length_size + 2

    @property
    def min_frame(self) -> int:
        return self.header_size + CRC_SIZE


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: its sequence number, type and raw payload. A device's frames are a subclass naming its `FORMAT`."""

    FORMAT: ClassVar[FrameFormat]
    seq: int
    kind: int
    payload: bytes = b""

    def encode(self) -> bytes:
        """The frame's bytes on the wire. Raises FrameError when a field is out of range."""
        fmt = self.FORMAT
        if not 0 <= self.seq <= 255:
            raise FrameError(f"frame seq out of range: {self.seq}")
        if not 0 <= self.kind <= 255:
            raise FrameError(f"frame type out of range: {self.kind}")
        if len(self.payload) > fmt.max_payload:
            raise FrameError(f"payload of {len(self.payload)} bytes, over {fmt.max_payload}")
        body = len(self.payload).to_bytes(fmt.length_size, "big") + bytes((self.seq, self.kind)) + self.payload
        return fmt.sync + body + crc16(body).to_bytes(CRC_SIZE, "big")

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """One whole frame from exactly its bytes. Raises FrameError naming what is wrong."""
        fmt = cls.FORMAT
        header = fmt.header_size
        if len(data) < fmt.min_frame:
            raise FrameError(f"frame of {len(data)} bytes is too short (at least {fmt.min_frame})")
        if data[:2] != fmt.sync:
            raise FrameError(f"frame does not start with sync {fmt.sync.hex()}: {data[:2].hex()}")
        length = int.from_bytes(data[2:2 + fmt.length_size], "big")
        if length > fmt.max_payload:
            raise FrameError(f"frame length {length} over {fmt.max_payload}")
        if len(data) != header + length + CRC_SIZE:
            raise FrameError(f"frame of {len(data)} bytes, its length field says {header + length + CRC_SIZE}")
        body = data[2:header + length]
        got = int.from_bytes(data[header + length:], "big")
        if crc16(body) != got:
            raise FrameError(f"bad CRC {got:04x}, expected {crc16(body):04x}")
        return cls(data[header - 2], data[header - 1], bytes(data[header:header + length]))


@dataclass
class DecoderStats:
    """What the decoder threw away, for logs and the health counters."""

    frames: int = 0
    crc_errors: int = 0
    bad_lengths: int = 0
    garbage_bytes: int = 0


@dataclass
class Decoder:
    """Turns a byte stream into frames of `FRAME`'s format. Never raises on any input; garbage is counted and
    skipped. A device's decoder is a subclass naming its `FRAME`.

    >>> class Tiny(Frame):
    ...     __slots__ = ()
    ...     FORMAT = FrameFormat(b"\\xa5\\x5a", 1, 64)
    >>> class TinyDecoder(Decoder):
    ...     FRAME = Tiny
    >>> d = TinyDecoder()
    >>> wire = Tiny(3, HEARTBEAT).encode()
    >>> d.feed(b"junk" + wire[:4]), d.feed(wire[4:])
    ([], [Tiny(seq=3, kind=5, payload=b'')])
    >>> d.stats.garbage_bytes
    4
    """

    FRAME: ClassVar[type[Frame]]
    _LAYOUT: ClassVar[tuple[type[Frame], bytes, bool, int, int]]
    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray, repr=False)

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        fmt = cls.FRAME.FORMAT  # what `feed` reads of the format, in one tuple (the fast path below)
        cls._LAYOUT = (cls.FRAME, fmt.sync, fmt.length_size == 2, fmt.max_payload, fmt.header_size)

    def feed(self, data: bytes) -> list[Frame]:
        """Add bytes; return every frame they complete, in order."""
        # The shoe's cards come through here on the controller's loop: the format is one tuple read once a call,
        # LEN and CRC are read without a slice, and a frame is made with its fields by position.
        make, sync, wide, most, header = self._LAYOUT
        stats = self.stats
        buf = self._buf
        buf += data
        frames: list[Frame] = []
        while True:
            start = buf.find(sync)
            if start < 0:
                # Keep a trailing first sync byte: the second may come in the next read.
                keep = 1 if buf[-1:] == sync[:1] else 0
                stats.garbage_bytes += len(buf) - keep
                del buf[:len(buf) - keep]
                return frames
            if start:
                stats.garbage_bytes += start
                del buf[:start]
            if len(buf) < header:
                return frames
            length = (buf[2] << 8 | buf[3]) if wide else buf[2]
            if length > most:
                stats.bad_lengths += 1
                stats.garbage_bytes += 1
                del buf[:1]
                continue
            end = header + length + CRC_SIZE
            if len(buf) < end:
                return frames
            body = bytes(buf[2:header + length])
            if crc16(body) != (buf[end - 2] << 8 | buf[end - 1]):
                # Not a frame after all (or a damaged one): skip this sync and search again,
                # so a real frame hidden behind a false sync is still found.
                stats.crc_errors += 1
                stats.garbage_bytes += 1
                del buf[:1]
                continue
            frames.append(make(buf[header - 2], buf[header - 1], body[header - 2:]))
            stats.frames += 1
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


# --- the fields messages share ------------------------------------------------------------------


def only_byte(payload: bytes, what: str) -> int:
    """The byte of a one-byte payload. Raises FrameError naming `what` when it is not one byte.

    >>> only_byte(b"\\x07", "ACK")
    7
    """
    if len(payload) != 1:
        raise FrameError(f"{what} of {len(payload)} bytes, expected 1")
    return payload[0]


def unpack_text(data: bytes, at: int, what: str) -> tuple[str, int]:
    """The text field at `at` of `data` and the offset after it. Raises FrameError naming `what`.

    >>> unpack_text(b"\\x02CR\\x00", 0, "model")
    ('CR', 3)
    """
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


def pack_text(text: str, what: str) -> bytes:
    """`text` as a text field. Raises FrameError naming `what` (not ASCII, over TEXT_MAX characters).

    >>> pack_text("CR", "model")
    b'\\x02CR'
    >>> pack_text("Café", "model")
    Traceback (most recent call last):
    ...
    drivers.errors.FrameError: model is not ASCII: 'Café'
    """
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        raise FrameError(f"{what} is not ASCII: {text!r}") from None
    if len(raw) > TEXT_MAX:
        raise FrameError(f"{what} over {TEXT_MAX} characters: {text!r}")
    return bytes((len(raw),)) + raw


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Device → host: alive (what its SEQ says is each device's: docs/protocol.md)."""

    TYPE: ClassVar[int] = HEARTBEAT

    def encode(self) -> bytes:
        return b""

    @classmethod
    def decode(cls, payload: bytes) -> Heartbeat:
        if payload:
            raise FrameError("HEARTBEAT carries no payload")
        return cls()


@dataclass(frozen=True, slots=True)
class Identify:
    """Host → device: say HELLO (the host has just connected, or heard nothing for too long). `protocol`: the
    host's version of the device's protocol (1 on both devices so far)."""

    TYPE: ClassVar[int] = IDENTIFY
    protocol: int = 1

    def encode(self) -> bytes:
        return bytes((self.protocol,))

    @classmethod
    def decode(cls, payload: bytes) -> Identify:
        return cls(only_byte(payload, "IDENTIFY"))


class Codec(Generic[M]):
    """One device's messages on its frames: `decode` a frame's message, `encode` a message as a whole frame."""

    def __init__(self, frame: type[Frame], readers: Mapping[int, Reader[M]]) -> None:
        self._frame = frame
        self._readers = dict(readers)

    def decode(self, frame: Frame) -> M:
        """The message a frame carries. Raises FrameError for an unknown type or a malformed payload."""
        read = self._readers.get(frame.kind)
        if read is None:
            raise FrameError(f"unknown message type 0x{frame.kind:02x}")
        return read(frame.payload)

    def encode(self, message: M, seq: int) -> bytes:
        """A message as a whole frame on the wire with sequence field `seq`. Raises FrameError."""
        return self._frame(seq, message.TYPE, message.encode()).encode()
