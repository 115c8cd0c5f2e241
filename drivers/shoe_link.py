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

from dataclasses import dataclass, field
from typing import Any

from drivers import framing
from drivers.card_reader import ResumePoint
from drivers.errors import FrameError
from drivers.readings import CardRead, CardSource, DeviceFault, FaultKind, Misread, OnReading, SensorChange
from drivers.serial_link import (
    CONNECTING, ONLINE, REFUSED, DeviceSession, SerialLink, SessionStats, _descriptor, _read_available,
)
from drivers.shoe_protocol import (
    NUMBERED, PROTOCOL_VERSION, Ack, CardMsg, Continue, Decoder, Heartbeat, Hello, Identify, MisreadMsg, SensorMsg,
    Source, decode_message, encode_message, seq_delta,
)

SUPPORTED_FIRMWARE_MAJORS = frozenset({1})
_SOURCE_NAMES: dict[Source, CardSource] = {Source.SHOE: "shoe", Source.DISCARD: "discard"}

__all__ = ["CONNECTING", "ONLINE", "REFUSED", "HostSession", "LinkStats", "ShoeLink", "_descriptor", "_read_available"]


@dataclass
class LinkStats(SessionStats):
    """Counters of what the shoe's link saw, for logs and health displays."""

    accepted: int = 0
    repeats: int = 0
    gaps: int = 0
    retransmits: int = 0


@dataclass
class HostSession(DeviceSession[Hello]):
    """The host's half of the protocol (see drivers/shoe_protocol.py and docs/protocol.md).

    Call `connect(now)` once, then `receive(data, now)` with whatever the port gave and `poll(now)`
    regularly; after each, send `take_output()` and dispatch `take_readings()`. What every device's
    session does alike (handshake, refusal, silence, loss) is `drivers.serial_link.DeviceSession`'s.
    """

    DECODER = Decoder
    PROTOCOL = PROTOCOL_VERSION

    device: str = "shoe"
    resume: ResumePoint | None = None
    retry_s: float = 0.2
    supported_majors: frozenset[int] = SUPPORTED_FIRMWARE_MAJORS
    stats: LinkStats = field(default_factory=LinkStats)
    _last: int | None = None           # last device frame kept
    _boot: int | None = None           # the device boot that `_last` belongs to
    _in_flight: tuple[int, bytes] | None = None  # our unacknowledged CONTINUE

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.resume is not None:
            self._boot, self._last = self.resume.boot, self.resume.seq

    @property
    def resume_point(self) -> ResumePoint | None:
        """The device's boot and the last frame kept, once known."""
        if self._boot is None or self._last is None:
            return None
        return ResumePoint(self._boot, self._last)

    def _timers_due(self, now: float) -> float | None:
        """Seconds until our CONTINUE is sent again (`DeviceSession.next_turn`), or None."""
        return self._next_send - now if self._in_flight is not None else None

    # -- inside --------------------------------------------------------------------------------

    def _identify(self) -> bytes:
        return encode_message(Identify(PROTOCOL_VERSION), self._host_seq)

    def _forget_in_flight(self) -> None:
        self._in_flight = None

    def _online_poll(self, now: float) -> None:
        if now >= self._next_send:
            if self.state == CONNECTING:
                self._send_identify(now)
            elif self._in_flight is not None:
                self.stats.retransmits += 1
                self._out += self._in_flight[1]
                self._next_send = now + self.retry_s

    def _ack(self, seq: int) -> None:
        self._out += encode_message(Ack(seq), self._host_seq)

    def _frame(self, frame: framing.Frame, now: float) -> None:
        try:
            message = decode_message(frame)
        except FrameError as exc:
            self._unreadable(frame, exc)
            if frame.kind in NUMBERED and self.state == ONLINE and seq_delta(frame.seq, self._last or 0) == 1:
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
            self._unexpected(message)

    def _hello(self, hello: Hello, seq: int, now: float) -> None:
        again = self.state == ONLINE and self.hello == hello
        if not self._accept(hello, now):
            return
        if hello.boot != self._boot:
            # A device we have no record of (or that restarted): start counting from what it
            # says was last acknowledged; what it still holds comes next.
            self._boot, self._last = hello.boot, seq
            last = None
        else:
            last = self._last
        self._host_seq = (self._host_seq + 1) % 256
        wire = encode_message(Continue(last), self._host_seq)
        self._in_flight = (self._host_seq, wire)
        self._out += wire
        self._next_send = now + self.retry_s
        if not again:  # a HELLO repeated while online (asked twice) needs a CONTINUE, not news
            self._post(self._online_reading(hello))

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


class ShoeLink(SerialLink[HostSession]):
    """The card-reading shoe on a serial line: the `serial` card reader backend.

    `url` is anything `serial.serial_for_url` opens. Readings (CardRead, Misread, SensorChange,
    DeviceOnline, DeviceOffline, DeviceFault) reach `on_reading` on the link's reader thread.
    `resume` is the device boot and last frame seq the controller journaled, so that after a
    restart nothing is taken twice and nothing is lost.
    """

    def __init__(self, on_reading: OnReading, url: str, device: str = "shoe", resume: ResumePoint | None = None,
                 retry_s: float = 0.2, identify_s: float = 0.5, silence_s: float = 2.0, **link: Any) -> None:
        super().__init__(on_reading, url, HostSession(device=device, resume=resume, identify_s=identify_s,
                                                      retry_s=retry_s, silence_s=silence_s), **link)
