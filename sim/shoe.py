"""The emulated card-reading shoe: the device side of the protocol on a pty or TCP port, a seeded deck, faults on request.

Three parts:

- `ShoeFirmware`: what a shoe's firmware does, sans-IO (bytes and the time in, bytes out): say
  HELLO, hold numbered frames until the host says CONTINUE, keep one frame in flight and
  retransmit it until acknowledged, send HEARTBEAT when idle; deal from a shuffled deck; inject
  faults (garbled bytes, a dropped frame, a repeated frame, a misread, a duplicate card, silence).
- `SimShoeServer` (a `sim.device.DeviceServer`, as the chip board's server is): one thread with a
  select loop that carries the firmware's bytes over a pty (the host opens the printed path) or a
  TCP port (the host opens `socket://host:port`), and serves the control port.
- The control port, for a (bot) dealer in another process: a line protocol on TCP, one request
  per line and one reply line each, `ok ...` or `err <reason>`:

      draw [n]               ok <card> ...  the next n cards (default 1) leave the shoe; a card
                             drawn with a misread armed shows as `misread:<card>` (it came out
                             but was not read); `err shoe empty` when fewer are left (none drawn)
      discard <card>         ok         the discard reader reads <card>
      sensor <name> on|off   ok         one of the shoe's own sensors changes (SENSOR frame)
      fault <kind> [secs]    ok         arm a fault for the next frame or draw: garble, drop,
                                        repeat, misread, duplicate; `silent [secs]` goes quiet
                                        (no heartbeats, no acks) for secs, or until `wake`
      wake                   ok         end a silence
      shuffle [seed]         ok <n>     load a freshly shuffled deck of <n> cards
      status                 ok <json>  remaining, pending, seq, acked, held, connected, silent, armed
      ping                   ok pong

  `SimShoeClient` is a small Python client for it.
"""

from __future__ import annotations

import json
import random
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from drivers import framing
from drivers.errors import DeviceError, FrameError
from drivers.gpio_sim import LineClient
from drivers.readings import RANKS, SUITS, Sensor
from drivers.shoe_protocol import (
    PROTOCOL_VERSION, Ack, CardMsg, Continue, Decoder, Heartbeat, Hello, Identify, Message, MisreadMsg, SensorMsg,
    Source, check_card_text, decode_message, encode_message, seq_delta,
)
from sim.device import CannotListen, DeviceFirmware, DeviceServer, Firmware, Verb

__all__ = ["FRESH_DECK", "HISTORY", "FAULTS", "ShoeEmpty", "CannotListen", "ShoeFirmware", "Firmware", "DeviceServer",
           "SimShoeServer", "SimShoeClient"]

FRESH_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
HISTORY = 64  # numbered frames kept for replay after a host restart
FAULTS = ("garble", "drop", "repeat", "misread", "duplicate", "silent")


class ShoeEmpty(DeviceError, LookupError):
    """No card is left in the shoe."""


@dataclass
class ShoeFirmware(DeviceFirmware):
    """The shoe's firmware, without I/O. Call `receive(data, now)` and `poll(now)`; send `take_output()`."""

    NAME = "sim-shoe"
    model: str = "CR-SIM"
    protocol: int = PROTOCOL_VERSION
    retry_s: float = 0.2

    held: bool = True            # after boot or IDENTIFY, until CONTINUE
    seq: int = 0                 # last numbered frame assigned
    acked: int = 0               # last numbered frame acknowledged (or given up for lost)
    deck: list[str] = field(default_factory=list)
    last_dealt: str | None = None
    _queue: deque[Message] = field(default_factory=deque, repr=False)
    _in_flight: tuple[int, bytes] | None = field(default=None, repr=False)
    _history: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=HISTORY), repr=False)
    _replay: deque[tuple[int, bytes]] = field(default_factory=deque, repr=False)
    _next_retry: float = 0.0
    _next_heartbeat: float = 0.0
    _decoder: Decoder = field(default_factory=Decoder, repr=False)
    _last_rx: float = 0.0
    _host_seen: int | None = None  # last CONTINUE number taken
    _empty_reported: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        self.shuffle()

    # -- I/O side ------------------------------------------------------------------------------

    def boot_hello(self) -> None:
        """Say HELLO unprompted (at power-up, or when a host connects to the TCP port)."""
        self._send(self._hello(), self.acked)

    def receive(self, data: bytes, now: float) -> None:
        if self.is_silent(now):
            return  # a hung device reads nothing
        if data:
            self._last_rx = now
        self._frames(self._decoder.feed(data), now)

    def _frames(self, frames: list[framing.Frame], now: float) -> None:
        for frame, message in self._from_host(frames, decode_message):
            if isinstance(message, Identify):
                self.held = True
                self._host_seen = None  # a new handshake: the host numbers its frames afresh
                self._send(self._hello(), self.acked)
            elif isinstance(message, Ack):
                if self._in_flight is not None and message.seq == self._in_flight[0]:
                    if seq_delta(message.seq, self.acked) > 0:
                        self.acked = message.seq
                    self._in_flight = None
                    self._next_heartbeat = now + self.heartbeat_s
            elif isinstance(message, Continue):
                self._send(Ack(frame.seq), self.seq)
                if frame.seq == self._host_seen:
                    continue  # our ACK was lost; the CONTINUE came again
                self._host_seen = frame.seq
                self.held = False
                if message.last is not None:
                    # Send again, in order, every frame after the last one the host kept: those
                    # it acknowledged but lost in a restart, and the one in flight.
                    self._replay = deque(f for f in self._history if 0 < seq_delta(f[0], message.last)
                                         <= seq_delta(self.seq, message.last))
                    self._in_flight = None
                elif self._in_flight is not None:
                    self._out += self._in_flight[1]
                    self._next_retry = now + self.retry_s

    def poll(self, now: float) -> None:
        if self.silent_until is not None:
            if now < self.silent_until:
                return
            self.silent_until = None
            self._next_heartbeat = now
        if self._decoder.buffered and now - self._last_rx >= 0.05:
            self._frames(self._decoder.idle(), now)  # a partial frame on a quiet line is garbage
        if self.held:
            if self._in_flight is None and not self._replay and now >= self._next_heartbeat:
                self._send(Heartbeat(), self.seq)
                self._next_heartbeat = now + self.heartbeat_s
            return
        if self._in_flight is not None:
            if now >= self._next_retry:
                self._out += self._in_flight[1]
                self._next_retry = now + self.retry_s
            return
        if self._replay:
            self._in_flight = self._replay.popleft()
            self._out += self._in_flight[1]
            self._next_retry = now + self.retry_s
            return
        while self._in_flight is None and self._queue:
            self._transmit(self._queue.popleft(), now)
        if self._in_flight is None and now >= self._next_heartbeat:
            self._send(Heartbeat(), self.seq)
            self._next_heartbeat = now + self.heartbeat_s

    @property
    def pending(self) -> int:
        """Frames not yet acknowledged: queued plus the one in flight."""
        return len(self._queue) + len(self._replay) + (self._in_flight is not None)

    # -- the dealer's side ---------------------------------------------------------------------

    def shuffle(self, seed: int | None = None) -> int:
        """Load a freshly shuffled 52-card deck (from `seed` if given, else the shoe's own sequence)."""
        rng = random.Random(seed) if seed is not None else self._rng
        deck = list(FRESH_DECK)
        rng.shuffle(deck)
        self.deck = deck
        if self._empty_reported:
            self._empty_reported = False
            self._queue.append(SensorMsg(Sensor.EMPTY, False))
        return len(deck)

    def draw(self) -> tuple[str, bool]:
        """The next card leaves the shoe; returns it and whether it was read. Raises ShoeEmpty."""
        if self._take("duplicate") and self.last_dealt is not None:
            card = self.last_dealt  # a second card of the same face: a foreign card in the shoe
        else:
            if not self.deck:
                if not self._empty_reported:
                    self._empty_reported = True
                    self._queue.append(SensorMsg(Sensor.EMPTY, True))
                raise ShoeEmpty("shoe empty")
            card = self.deck.pop()
        self.last_dealt = card
        if self._take("misread"):
            self._queue.append(MisreadMsg(Source.SHOE))
            return card, False
        self._queue.append(CardMsg(Source.SHOE, card))
        if not self.deck and not self._empty_reported:
            self._empty_reported = True
            self._queue.append(SensorMsg(Sensor.EMPTY, True))
        return card, True

    def discard(self, card: str) -> None:
        """The discard reader reads `card`. Raises FrameError when it is not a card."""
        self._queue.append(CardMsg(Source.DISCARD, check_card_text(card)))

    def sensor(self, name: str, active: bool) -> None:
        """Report one of the shoe's own sensors. Raises FrameError for a name that is no sensor."""
        try:
            sensor = Sensor.parse(name)
        except DeviceError as exc:
            raise FrameError(str(exc)) from None
        message = SensorMsg(sensor, active)
        self._queue.append(message)

    def inject(self, kind: str, now: float, seconds: float | None = None) -> None:
        """Arm fault `kind` (one of FAULTS). Raises ValueError naming a kind that is not one."""
        if kind not in FAULTS:
            raise ValueError(f"no fault {kind!r} (faults: {', '.join(FAULTS)})")
        if kind == "silent":
            self.silent_until = float("inf") if seconds is None else now + seconds
        else:
            self._arm(kind)

    # -- inside --------------------------------------------------------------------------------

    def _hello(self) -> Hello:
        return Hello(self.protocol, self.firmware, self.boot, self.model, self.serial)

    def _send(self, message: Message, seq: int) -> None:
        self._out += encode_message(message, seq)
        self.frames_sent += 1

    def _transmit(self, message: Message, now: float) -> None:
        self.seq = (self.seq + 1) % 256
        if self._take("drop"):
            # Lost inside the shoe: the number is used, the frame never goes out.
            self.acked = self.seq
            return
        wire = encode_message(message, self.seq)
        self._in_flight = (self.seq, wire)
        self._history.append(self._in_flight)
        self._next_retry = now + self.retry_s
        self._emit(wire)  # garbled when armed: the retransmission repairs it
        if self._take("repeat"):
            self._out += wire

    # -- control lines -------------------------------------------------------------------------

    def _verbs(self) -> Mapping[str, Verb]:
        return {
            "draw": Verb(range(2), self._draw_line),
            "discard": Verb(range(1, 2), lambda a, _: self._ok(self.discard, a[0])),
            "sensor": Verb(range(2, 3), self._sensor_line),
            "fault": Verb(range(1, 3), lambda a, now: self._ok(self.inject, a[0], now, float(a[1]) if a[1:] else None)),
            "shuffle": Verb(range(2), lambda a, _: f"ok {self.shuffle(int(a[0]) if a else None)}"),
        }

    def _draw_line(self, args: Sequence[str], now: float) -> str:
        count = int(args[0]) if args else 1
        if not 1 <= count <= 52:
            return "err draw 1 to 52 cards"
        if count > 1 and count > len(self.deck) + self.armed.get("duplicate", 0):
            return f"err shoe empty ({len(self.deck)} left)"
        drawn = [self.draw() for _ in range(count)]
        return "ok " + " ".join(card if read else f"misread:{card}" for card, read in drawn)

    def _sensor_line(self, args: Sequence[str], now: float) -> str:
        if args[1] not in ("on", "off"):
            raise ValueError(f"sensor {args[0]} on or off, not {args[1]!r}")
        self.sensor(args[0], args[1] == "on")
        return "ok"

    def status(self, now: float) -> dict[str, object]:
        return {**super().status(now), "remaining": len(self.deck), "pending": self.pending, "seq": self.seq,
                "acked": self.acked, "held": self.held}


class SimShoeServer(DeviceServer):
    """Runs a `ShoeFirmware` on a pty or a TCP port, and its control port (see `DeviceServer`)."""

    firmware: ShoeFirmware

    def __init__(self, firmware: ShoeFirmware, link: str = "pty", tcp: tuple[str, int] = ("127.0.0.1", 0),
                 control: tuple[str, int] = ("127.0.0.1", 0), clock: Callable[[], float] = time.monotonic,
                 baud: int | None = None) -> None:
        """Raises CannotListen naming the address and its role when a port cannot be listened on."""
        super().__init__(firmware, link, tcp, control, clock, baud, name="sim-shoe", device="the emulated shoe")


class SimShoeClient(LineClient):
    """A dealer's hand on the emulated shoe, through its control port."""

    def draw(self) -> str:
        """The next card; raises DeviceError (`shoe empty`)."""
        return self.request("draw")

    def fault(self, kind: str, seconds: float | None = None) -> None:
        self.request(f"fault {kind}" + ("" if seconds is None else f" {seconds}"))

    def status(self) -> dict[str, object]:
        result: dict[str, object] = json.loads(self.request("status"))
        return result
