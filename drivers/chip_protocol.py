"""The chip reader board's wire protocol, sans-IO: bytes in through `Decoder.feed`, frames out; `encode` back.

One reader board serves N antennas (one under each betting circle of each spot, one under the
tray) and reports each antenna's inventory of chip UIDs (ISO 15693: 8 bytes). Frame layout
(written once here; docs/protocol.md explains the exchanges)::

    offset  size  field
    0       2     SYNC     0xA5 0xC3
    2       2     LEN      payload length, 0..MAX_PAYLOAD, big-endian
    4       1     SEQ      the sender's frame number 0..255, one more (mod 256) than its previous frame
    5       1     TYPE     message type (MsgType)
    6       LEN   PAYLOAD  message fields, integers big-endian
    6+LEN   2     CRC      CRC-16/CCITT (poly 0x1021, init 0xFFFF) over LEN, SEQ, TYPE and PAYLOAD,
                           big-endian; `binascii.crc_hqx(data, 0xFFFF)` (`framing.crc16`)

    an INVENTORY's PAYLOAD:
    6       1     ANTENNA  the antenna's number (HELLO's map names it)
    7       2     SCAN     the antenna's scan number 0..65535, big-endian
    9       8*N   UIDS     the chips' UIDs, 8 bytes each

The offsets are named once, below (`LEN_AT` .. `UIDS_AT`, from a frame's first byte): the decoder
(`framing.Decoder` in `FORMAT`, `Inventory.decode`) and the chip link's quiet scans taken where they lie
(`drivers.chip_link.ChipSession._quiet_frames`) read them by those names.

It is the shoe's framing (drivers/shoe_protocol.py) with two differences, each for a reason: LEN
has two bytes, because a tray's inventory of a few hundred chips is kilobytes where a card is two
bytes; and SYNC differs, so that a shoe plugged into the board's port (or the board into the
shoe's) is heard as garbage, never as the other device.

Every frame is a statement of state, not an event: an INVENTORY says all an antenna read in one
scan, a FAULT is said again with every heartbeat while it stands. So nothing is acknowledged or
retransmitted (the next scan, a few tens of milliseconds later, says it all again), and a frame
lost on the line costs nothing but that scan: the receiver counts the gap in SEQ, and each antenna
counts its own scans (INVENTORY's `scan`), so the debounce knows which scans it never saw.

The framing itself (the sync search, garbage skipped, a frame cut short on a quiet line dropped) is
the shoe's code too: drivers/framing.py, with the board's `FORMAT`.
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass
from typing import ClassVar, Union

from drivers import framing
from drivers.errors import FrameError
from drivers.framing import CRC_SIZE, DecoderStats, Heartbeat, Identify, crc16, seq_delta
from drivers.framing import pack_text as _pack_text, unpack_text as _text

__all__ = ["SYNC", "LEN_AT", "SEQ_AT", "TYPE_AT", "ANTENNA_AT", "SCAN_AT", "UIDS_AT", "INVENTORY_HEAD", "INVENTORY_UIDS", "UID_SIZE", "MAX_PAYLOAD", "MAX_UIDS", "MAX_ANTENNAS", "BOARD", "PROTOCOL_VERSION", "FORMAT", "MsgType",
           "FaultCode", "Frame", "Decoder", "DecoderStats", "Hello", "Inventory", "Heartbeat", "Fault", "Identify", "Message",
           "decode_message", "encode_message", "check_antenna", "check_uid", "crc16", "seq_delta", "uid_texts"]

SYNC = b"\xa5\xc3"
MAX_UIDS = 1024
"""The most chips one INVENTORY carries: a full tray with room to spare (a circle holds a few dozen)."""
MAX_PAYLOAD = 3 + 8 * MAX_UIDS
"""An INVENTORY of MAX_UIDS chips; a LEN above this is garbage."""
FORMAT = framing.FrameFormat(SYNC, 2, MAX_PAYLOAD)
"""The board's framing: LEN of two bytes (a tray's inventory is kilobytes)."""
HEADER_SIZE = FORMAT.header_size  # SYNC, LEN, SEQ, TYPE
MIN_FRAME = FORMAT.min_frame
LEN_AT = len(SYNC)
"""LEN's first byte (its two big-endian), from the frame's first byte as every `..._AT`: `framing.Decoder`'s reading."""
SEQ_AT = HEADER_SIZE - 2
"""The frame's number."""
TYPE_AT = HEADER_SIZE - 1
"""The message type (`MsgType`)."""
INVENTORY_HEAD = struct.Struct(">BH")
"""An INVENTORY's payload before its UIDs: the antenna's number and the scan's (big-endian)."""
ANTENNA_AT = HEADER_SIZE
"""An INVENTORY's antenna number: the payload's first byte."""
SCAN_AT = ANTENNA_AT + 1
"""An INVENTORY's scan number, two bytes big-endian."""
INVENTORY_UIDS = INVENTORY_HEAD.size
"""Where an INVENTORY's UIDs begin in its payload."""
UIDS_AT = HEADER_SIZE + INVENTORY_UIDS
"""An INVENTORY's first UID."""
MAX_ANTENNAS = 64
BOARD = 0xFF
"""The antenna number of a FAULT that is the whole board's (its RF front end, its supply), not one antenna's."""
PROTOCOL_VERSION = 1
UID_SIZE = 8

_ANTENNA = re.compile(r"tray|spot[1-9][0-9]?\.[a-z][a-z_]{0,23}")
_UID = re.compile(r"[0-9A-F]{16}")


class MsgType(enum.IntEnum):
    """Message types. 0x01..0x0F come from the board, 0x10.. from the host."""

    HELLO = 0x01
    INVENTORY = 0x02
    HEARTBEAT = framing.HEARTBEAT
    FAULT = 0x07
    IDENTIFY = framing.IDENTIFY


class FaultCode(enum.IntEnum):
    """What the board found wrong with itself (FAULT's `code`)."""

    ANTENNA = 1   # an antenna is open, shorted or detuned: its inventories cannot be trusted
    RF = 2        # the reader's front end does not answer: no antenna is read
    OVERFLOW = 3  # more chips read on an antenna than one INVENTORY carries (MAX_UIDS): its scan is not sent
    OTHER = 0xFF  # anything else the firmware knows of; its text says what


def check_antenna(name: str) -> str:
    """Return `name` when it is an antenna's name (`tray`, `spot3.ante`, `spot7.pair_plus`); raise FrameError.

    >>> check_antenna("spot3.ante")
    'spot3.ante'
    >>> check_antenna("spot0.ante")
    Traceback (most recent call last):
    ...
    drivers.errors.FrameError: not an antenna name (tray, spotN.circle): 'spot0.ante'
    """
    if not isinstance(name, str) or not _ANTENNA.fullmatch(name):
        raise FrameError(f"not an antenna name (tray, spotN.circle): {name!r}")
    return name


def uid_texts(read: bytes) -> list[str]:
    """The UIDs of whole 8-byte UIDs `read` (an INVENTORY's, after its head) as the host writes them, in their order.

    >>> uid_texts(bytes.fromhex("e004010000000001e0040100000000ff"))
    ['E004010000000001', 'E0040100000000FF']
    """
    text, size = read.hex().upper(), 2 * UID_SIZE
    return [text[at:at + size] for at in range(0, len(text), size)]


def check_uid(text: str) -> str:
    """Return `text` when it is a chip's UID as the host writes it (16 upper-case hex digits); raise FrameError."""
    if not isinstance(text, str) or not _UID.fullmatch(text):
        raise FrameError(f"not a chip UID (16 upper-case hex digits): {text!r}")
    return text


class Frame(framing.Frame):
    """One board frame: its sequence number, type and raw payload (`drivers.framing.Frame` in the board's format)."""

    __slots__ = ()
    FORMAT = FORMAT


class Decoder(framing.Decoder):
    """Turns the board's byte stream into frames (`drivers.framing.Decoder` in its format)."""

    FRAME = Frame


# --- messages: the payload of each type ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Board → host: who it is, how often it scans, and its antennas (number → name). Sent at boot and
    in answer to IDENTIFY. `period_ms`: each antenna is scanned, and its INVENTORY sent, this often."""

    TYPE: ClassVar[MsgType] = MsgType.HELLO
    protocol: int
    firmware: tuple[int, int, int]
    boot: int
    period_ms: int
    model: str
    serial: str
    antennas: tuple[tuple[int, str], ...]

    def encode(self) -> bytes:
        if len(self.antennas) > MAX_ANTENNAS:
            raise FrameError(f"HELLO with {len(self.antennas)} antennas, over {MAX_ANTENNAS}")
        out = (struct.pack(">B3BIH", self.protocol, *self.firmware, self.boot, self.period_ms)
               + _pack_text(self.model, "model") + _pack_text(self.serial, "serial number")
               + bytes((len(self.antennas),)))
        for number, name in self.antennas:
            if not 0 <= number < BOARD:
                raise FrameError(f"antenna number {number} out of range 0..{BOARD - 1}")
            out += bytes((number,)) + _pack_text(check_antenna(name), "antenna name")
        return out

    @classmethod
    def decode(cls, payload: bytes) -> Hello:
        if len(payload) < 10:
            raise FrameError(f"HELLO of {len(payload)} bytes is too short")
        protocol, major, minor, patch, boot, period_ms = struct.unpack_from(">B3BIH", payload)
        model, at = _text(payload, 10, "HELLO model")
        serial, at = _text(payload, at, "HELLO serial number")
        if at >= len(payload):
            raise FrameError("HELLO antenna count missing")
        count, at = payload[at], at + 1
        if count > MAX_ANTENNAS:
            raise FrameError(f"HELLO with {count} antennas, over {MAX_ANTENNAS}")
        antennas: list[tuple[int, str]] = []
        for _ in range(count):
            if at >= len(payload):
                raise FrameError("HELLO antenna map truncated")
            number = payload[at]
            name, at = _text(payload, at + 1, "HELLO antenna name")
            antennas.append((number, check_antenna(name)))
        if at != len(payload):
            raise FrameError("HELLO has trailing bytes")
        numbers = [n for n, _ in antennas]
        names = [n for _, n in antennas]
        if len(set(numbers)) != len(numbers) or len(set(names)) != len(names) or BOARD in numbers:
            raise FrameError("HELLO antenna map names an antenna number or name twice (or 255)")
        return cls(protocol, (major, minor, patch), boot, period_ms, model, serial, tuple(antennas))

    @property
    def firmware_text(self) -> str:
        return ".".join(map(str, self.firmware))


@dataclass(frozen=True, slots=True)
class Inventory:
    """Board → host: every chip antenna `antenna` read in its scan number `scan` (0..65535, wrapping).

    UIDs go on the wire as their 8 bytes, most significant first (as ISO 15693 readers print them:
    `E004...`), and are held as 16 upper-case hex digits, sorted, each once.
    """

    TYPE: ClassVar[MsgType] = MsgType.INVENTORY
    antenna: int
    scan: int
    uids: tuple[str, ...]

    def encode(self) -> bytes:
        if len(self.uids) > MAX_UIDS:
            raise FrameError(f"INVENTORY of {len(self.uids)} chips, over {MAX_UIDS}")
        return INVENTORY_HEAD.pack(self.antenna, self.scan) + b"".join(bytes.fromhex(check_uid(u)) for u in self.uids)

    @classmethod
    def decode(cls, payload: bytes) -> Inventory:
        head = INVENTORY_UIDS
        if len(payload) < head or (len(payload) - head) % UID_SIZE:
            raise FrameError(f"INVENTORY of {len(payload)} bytes is not antenna, scan and whole 8-byte UIDs")
        antenna, scan = INVENTORY_HEAD.unpack_from(payload)
        uids = uid_texts(payload[head:])
        if len(set(uids)) != len(uids):
            raise FrameError(f"INVENTORY of antenna {antenna} names a chip twice")
        return cls(antenna, scan, tuple(sorted(uids)))


@dataclass(frozen=True, slots=True)
class Fault:
    """Board → host: something is wrong with antenna `antenna` (BOARD: with the whole board). Said
    when it arises and again every heartbeat while it stands."""

    TYPE: ClassVar[MsgType] = MsgType.FAULT
    code: FaultCode
    antenna: int
    text: str

    def encode(self) -> bytes:
        return bytes((self.code, self.antenna)) + _pack_text(self.text, "fault text")

    @classmethod
    def decode(cls, payload: bytes) -> Fault:
        if len(payload) < 3:
            raise FrameError(f"FAULT of {len(payload)} bytes is too short")
        try:
            code = FaultCode(payload[0])
        except ValueError:
            raise FrameError(f"unknown fault code {payload[0]}") from None
        text, at = _text(payload, 2, "fault text")
        if at != len(payload):
            raise FrameError("FAULT has trailing bytes")
        return cls(code, payload[1], text)


Message = Union[Hello, Inventory, Heartbeat, Fault, Identify]
MESSAGES: dict[int, type[Message]] = {m.TYPE: m for m in (Hello, Inventory, Heartbeat, Fault, Identify)}


CODEC = framing.Codec[Message](Frame, {kind: m.decode for kind, m in MESSAGES.items()})
decode_message = CODEC.decode
"""The message a frame carries. Raises FrameError for an unknown type or a malformed payload."""
encode_message = CODEC.encode
"""A message as a whole frame on the wire with sequence field `seq`. Raises FrameError."""
