"""The host side of the shoe's serial link: handshake, acks, retransmission, gaps, silence; the `serial` card reader.

Two layers, h11-style:

- `HostSession` is the protocol state machine with no I/O and no clock of its own: feed it bytes
  and the time, take the bytes it wants sent and the readings it produced.
- `ShoeLink` is a `drivers.serial_link.SerialLink` (a pyserial port opened with
  `serial.serial_for_url`: device path, pty, `socket://host:port`, `loop://`, `spy://`) driving
  the session: one turn (`pump`) reads what the port holds, hands the readings to `on_reading` and
  sends the acks. Either its own reader thread turns it, or (`start(driven=True)`) the caller's
  event loop does, polling `fileno()`: the controller serves the shoe from its own loop, so a card
  costs no thread hand-off. A link never dies on a bad frame or a failing callback: it logs with
  the device's name, counts, and goes on; a lost port is reopened.

`ShoeLink` is the `serial` backend of `drivers.card_reader` (its registry names it; nothing
registers on import).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import serial

from drivers.card_reader import ResumePoint
from drivers.errors import FrameError
from drivers.serial_link import CONNECTING, ONLINE, REFUSED, SerialLink, _descriptor, _read_available
from drivers.readings import (
    CardRead, CardSource, DeviceFault, DeviceOffline, DeviceOnline, FaultKind, Misread, OfflineKind, OnReading, Reading,
    SensorChange,
)
from drivers.shoe_protocol import (
    PROTOCOL_VERSION, Ack, CardMsg, Continue, Decoder, DecoderStats, Frame, Heartbeat, Hello, Identify, MisreadMsg,
    SensorMsg, Source, decode_message, encode_message, seq_delta,
)

log = logging.getLogger(__name__)

SUPPORTED_FIRMWARE_MAJORS = frozenset({1})
_SOURCE_NAMES: dict[Source, CardSource] = {Source.SHOE: "shoe", Source.DISCARD: "discard"}

__all__ = ["CONNECTING", "ONLINE", "REFUSED", "HostSession", "LinkStats", "ShoeLink", "_descriptor", "_read_available"]


@dataclass
class LinkStats:
    """Counters of what the link saw, for logs and health displays."""

    frames: int = 0
    accepted: int = 0
    repeats: int = 0
    gaps: int = 0
    bad_messages: int = 0
    unexpected: int = 0
    retransmits: int = 0
    callback_errors: int = 0
    reconnects: int = 0
    decoder: DecoderStats = field(default_factory=DecoderStats)  # the line's own: garbage, bad CRCs

    @property
    def garbage_bytes(self) -> int:
        return self.decoder.garbage_bytes

    @property
    def crc_errors(self) -> int:
        return self.decoder.crc_errors


@dataclass
class HostSession:
    """The host's half of the protocol (see drivers/shoe_protocol.py and docs/protocol.md).

    Call `connect(now)` once, then `receive(data, now)` with whatever the port gave and `poll(now)`
    regularly; after each, send `take_output()` and dispatch `take_readings()`.
    """

    device: str = "shoe"
    resume: ResumePoint | None = None
    identify_s: float = 0.5
    retry_s: float = 0.2
    silence_s: float = 2.0
    stale_s: float = 0.05               # a partial frame this old on a quiet line is garbage
    supported_majors: frozenset[int] = SUPPORTED_FIRMWARE_MAJORS

    state: str = CONNECTING
    hello: Hello | None = None
    refusal: str | None = None         # why the device on this connection was refused, while it is
    _refused: Hello | None = None      # the HELLO refused on this connection (reported once)
    stats: LinkStats = field(default_factory=LinkStats)
    _decoder: Decoder = field(default_factory=Decoder)
    _out: bytearray = field(default_factory=bytearray)
    _readings: list[Reading] = field(default_factory=list)
    _last: int | None = None           # last device frame kept
    _boot: int | None = None           # the device boot that `_last` belongs to
    _host_seq: int = 0
    _in_flight: tuple[int, bytes] | None = None  # our unacknowledged CONTINUE
    _next_send: float = 0.0
    _last_heard: float = 0.0
    _connecting_since: float = 0.0
    _last_rx: float = 0.0
    _offline_posted: bool = False

    def __post_init__(self) -> None:
        if self.resume is not None:
            self._boot, self._last = self.resume.boot, self.resume.seq
        self.stats.decoder = self._decoder.stats  # one set of line counters, the decoder's

    # -- driving -------------------------------------------------------------------------------

    def connect(self, now: float) -> None:
        """Start (or restart, after the port was reopened) the handshake. A device refused on the
        old connection is asked again: the one on this connection may be another."""
        self.state = CONNECTING
        self._refused = None
        self._in_flight = None
        self._decoder.reset()
        self._last_heard = self._connecting_since = now
        self._send_identify(now)

    def receive(self, data: bytes, now: float) -> None:
        if data:
            self._last_rx = now
        self._frames(self._decoder.feed(data), now)

    def _frames(self, frames: list[Frame], now: float) -> None:
        for frame in frames:
            self.stats.frames += 1
            self._last_heard = now
            self._frame(frame, now)

    def poll(self, now: float) -> None:
        if self._decoder.buffered and now - self._last_rx >= self.stale_s:
            self._frames(self._decoder.idle(), now)
        if self.state == REFUSED:
            # Nothing is taken from a refused device; asking now and then who is there finds a
            # good device put in its place on the same line (its HELLO at power-up may be lost).
            if now >= self._next_send:
                self._out += encode_message(Identify(PROTOCOL_VERSION), self._host_seq)
                self._next_send = now + max(self.silence_s, self.identify_s)
            return
        if self.state == CONNECTING:
            waited, what, kind = now - self._connecting_since, "no HELLO", OfflineKind.DEVICE_OFFLINE
        else:
            waited, what, kind = now - self._last_heard, "silent", OfflineKind.DEVICE_SILENT
        if waited >= self.silence_s and not self._offline_posted:
            self._offline_posted = True
            self._post(DeviceOffline(self.device, f"{what} for {waited:.1f} s", kind))
            if self.state == ONLINE:
                self.state = CONNECTING
                self._connecting_since = now
                self._in_flight = None
                self._next_send = now
        if now >= self._next_send:
            if self.state == CONNECTING:
                self._send_identify(now)
            elif self._in_flight is not None:
                self.stats.retransmits += 1
                self._out += self._in_flight[1]
                self._next_send = now + self.retry_s

    def lost(self, reason: str) -> None:
        """The port went away: drop unsent bytes; post DeviceOffline once if the device was online."""
        self._out.clear()
        self._in_flight = None
        if self.state == ONLINE:
            self.state = CONNECTING
            self._offline_posted = True
            self._post(DeviceOffline(self.device, reason, OfflineKind.DEVICE_OFFLINE))
        self._connecting_since = self._last_heard

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_readings(self) -> list[Reading]:
        out = self._readings
        self._readings = []
        return out

    def online(self) -> DeviceOnline | None:
        """The device accepted on this connection, or None."""
        if self.state != ONLINE or self.hello is None:
            return None
        hello = self.hello
        return DeviceOnline(self.device, hello.model, hello.serial, hello.firmware_text, hello.boot)

    @property
    def resume_point(self) -> ResumePoint | None:
        """The device's boot and the last frame kept, once known."""
        if self._boot is None or self._last is None:
            return None
        return ResumePoint(self._boot, self._last)

    # -- inside --------------------------------------------------------------------------------

    def _post(self, reading: Reading) -> None:
        self._readings.append(reading)

    def _send_identify(self, now: float) -> None:
        self._out += encode_message(Identify(PROTOCOL_VERSION), self._host_seq)
        self._next_send = now + self.identify_s

    def _ack(self, seq: int) -> None:
        self._out += encode_message(Ack(seq), self._host_seq)

    def _frame(self, frame: Frame, now: float) -> None:
        try:
            message = decode_message(frame)
        except FrameError as exc:
            self.stats.bad_messages += 1
            log.warning("%s: bad message (type 0x%02x, seq %d): %s", self.device, frame.kind, frame.seq, exc)
            if frame.numbered and self.state == ONLINE and seq_delta(frame.seq, self._last or 0) == 1:
                # A numbered frame with a valid CRC but a payload we cannot read: firmware bug.
                # Acknowledge it so it is not sent forever, and stop the hand.
                self._ack(frame.seq)
                self._last = frame.seq
                self._post(DeviceFault(self.device, f"unreadable frame {frame.seq}: {exc}", FaultKind.DEVICE_FAULT))
            return
        if isinstance(message, Hello):
            self._hello(message, frame.seq, now)
        elif self.state == REFUSED:
            self.stats.unexpected += 1  # nothing but a HELLO is taken from a refused device
        elif isinstance(message, Ack):
            if self._in_flight is not None and message.seq == self._in_flight[0]:
                self._in_flight = None
        elif self.state != ONLINE:
            self.stats.unexpected += 1  # stale frames from before the handshake: ignored, not acked
        elif isinstance(message, Heartbeat):
            self._heartbeat(frame.seq)
        elif isinstance(message, (CardMsg, MisreadMsg, SensorMsg)):
            self._event(frame.seq, message)
        else:
            self.stats.unexpected += 1
            log.warning("%s: unexpected %s from the device", self.device, type(message).__name__)

    def _hello(self, hello: Hello, seq: int, now: float) -> None:
        if hello.protocol != PROTOCOL_VERSION or hello.firmware[0] not in self.supported_majors:
            self._refuse(hello, now)
            return
        again = self.state == ONLINE and self.hello == hello
        if hello.boot != self._boot:
            # A device we have no record of (or that restarted): start counting from what it
            # says was last acknowledged; what it still holds comes next.
            self._boot, self._last = hello.boot, seq
            last = None
        else:
            last = self._last
        self.hello = hello
        self.state = ONLINE
        self.refusal = self._refused = None
        self._offline_posted = False
        self._host_seq = (self._host_seq + 1) % 256
        wire = encode_message(Continue(last), self._host_seq)
        self._in_flight = (self._host_seq, wire)
        self._out += wire
        self._next_send = now + self.retry_s
        if not again:  # a HELLO repeated while online (asked twice) needs a CONTINUE, not news
            self._post(DeviceOnline(self.device, hello.model, hello.serial, hello.firmware_text, hello.boot))

    def _refuse(self, hello: Hello, now: float) -> None:
        """The device on this line is one we do not run: report it (once per device), take nothing
        more from it, and count it gone, so a hand cannot go on as if the shoe were there."""
        was_online = self.state == ONLINE
        self.state = REFUSED
        self._in_flight = None
        self._next_send = now + max(self.silence_s, self.identify_s)
        if hello == self._refused:
            return  # the same device answering again
        self._refused = hello
        self.refusal = (f"{self.device}: unsupported {hello.model} firmware {hello.firmware_text}, protocol "
                        f"{hello.protocol} (supported: protocol {PROTOCOL_VERSION}, firmware major "
                        f"{', '.join(map(str, sorted(self.supported_majors)))})")
        log.error("%s", self.refusal)
        self._post(DeviceFault(self.device, self.refusal, FaultKind.DEVICE_FAULT))
        if was_online or not self._offline_posted:
            self._offline_posted = True
            self._post(DeviceOffline(self.device, f"refused: {self.refusal}", OfflineKind.DEVICE_OFFLINE))

    def _heartbeat(self, seq: int) -> None:
        assert self._last is not None
        if self._in_flight is not None:
            return  # until our CONTINUE is acknowledged the device may still be replaying
        if seq != self._last:
            # Heartbeats come only with nothing in flight, so the device's last frame sent is one
            # we kept: any other number means frames up to `seq` were sent and lost.
            self.stats.gaps += 1
            self._post(DeviceFault(self.device, f"sequence gap: last frame kept {self._last}, device is at {seq}",
                                   FaultKind.SEQUENCE_GAP))
            self._last = seq

    def _event(self, seq: int, message: CardMsg | MisreadMsg | SensorMsg) -> None:
        assert self._last is not None
        # Stop and wait: the device sends frame n+1 only once n was acknowledged, so the one number
        # that can come again is the last one kept (its ACK was lost). The 8-bit SEQ cannot say
        # "200 ahead" from "56 behind": every number but the last and the next is a gap.
        delta = seq_delta(seq, self._last)
        self._ack(seq)
        if delta == 0:
            self.stats.repeats += 1
            return
        if delta != 1:
            self.stats.gaps += 1
            self._post(DeviceFault(self.device, f"sequence gap: expected {(self._last + 1) % 256}, got {seq}",
                                   FaultKind.SEQUENCE_GAP))
        self._last = seq
        self.stats.accepted += 1
        if isinstance(message, CardMsg):
            self._post(CardRead(message.card, _SOURCE_NAMES[message.source], seq))
        elif isinstance(message, MisreadMsg):
            self._post(Misread(_SOURCE_NAMES[message.source], seq))
        else:
            self._post(SensorChange(message.name, message.active, seq))


class ShoeLink(SerialLink):
    """The card-reading shoe on a serial line: the `serial` card reader backend.

    `url` is anything `serial.serial_for_url` opens. Readings (CardRead, Misread, SensorChange,
    DeviceOnline, DeviceOffline, DeviceFault) reach `on_reading` on the link's reader thread.
    `resume` is the device boot and last frame seq the controller journaled, so that after a
    restart nothing is taken twice and nothing is lost.
    """

    session: HostSession

    def __init__(self, on_reading: OnReading, url: str, device: str = "shoe", resume: ResumePoint | None = None,
                 baudrate: int = 115200, retry_s: float = 0.2, identify_s: float = 0.5, silence_s: float = 2.0,
                 reconnect_s: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 open_port: Callable[..., Any] = serial.serial_for_url) -> None:
        session = HostSession(device=device, resume=resume, identify_s=identify_s, retry_s=retry_s,
                              silence_s=silence_s)
        super().__init__(on_reading, url, session, baudrate=baudrate, reconnect_s=reconnect_s, clock=clock,
                         open_port=open_port)

    @property
    def stats(self) -> LinkStats:
        return self.session.stats
