"""The emulated card-reading shoe: the device side of the protocol on a pty or TCP port, a seeded deck, faults on request.

Three parts:

- `ShoeFirmware`: what a shoe's firmware does, sans-IO (bytes and the time in, bytes out): say
  HELLO, hold numbered frames until the host says CONTINUE, keep one frame in flight and
  retransmit it until acknowledged, send HEARTBEAT when idle; deal from a shuffled deck; inject
  faults (garbled bytes, a dropped frame, a repeated frame, a misread, a duplicate card, silence).
- `SimShoeServer` (a `DeviceServer`, as the chip board's server is): one thread with a select loop
  that carries the firmware's bytes over a pty (the host opens the printed path) or a TCP port
  (the host opens `socket://host:port`), and serves the control port.
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

import errno
import json
import logging
import os
import random
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, Self
from dataclasses import dataclass, field

from drivers.errors import DeviceError, FrameError
from drivers.gpio_sim import LineClient
from drivers.readings import RANKS, SUITS, Sensor
from drivers.shoe_protocol import (
    PROTOCOL_VERSION, Ack, CardMsg, Continue, Decoder, Frame, Heartbeat, Hello, Identify, Message,
    MisreadMsg, SensorMsg, Source, check_card_text, decode_message, encode_message, seq_delta,
)

log = logging.getLogger(__name__)

FRESH_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
HISTORY = 64  # numbered frames kept for replay after a host restart
FAULTS = ("garble", "drop", "repeat", "misread", "duplicate", "silent")


class ShoeEmpty(DeviceError, LookupError):
    """No card is left in the shoe."""


class CannotListen(DeviceError, OSError):
    """The emulated shoe cannot listen on an address (in use, or not this machine's).

    `role` says which: `link` (the TCP port the host connects to) or `control`."""

    def __init__(self, role: str, address: tuple[str, int], reason: str, device: str = "the emulated shoe") -> None:
        self.role, self.address = role, address
        what = "its link" if role == "link" else "its control port"
        super().__init__(f"{device} cannot listen on {address[0]}:{address[1]} for {what}: {reason}")


def _listen(role: str, address: tuple[str, int], device: str = "the emulated shoe") -> socket.socket:
    try:
        sock = socket.create_server(address)
    except OSError as exc:
        raise CannotListen(role, address, exc.strerror or str(exc), device) from None
    sock.setblocking(False)
    return sock


@dataclass
class ShoeFirmware:
    """The shoe's firmware, without I/O. Call `receive(data, now)` and `poll(now)`; send `take_output()`."""

    seed: int | None = None
    model: str = "CR-SIM"
    serial: str = "SIM0001"
    firmware: tuple[int, int, int] = (1, 0, 0)
    protocol: int = PROTOCOL_VERSION
    boot: int = 1
    heartbeat_s: float = 0.5
    retry_s: float = 0.2

    held: bool = True            # after boot or IDENTIFY, until CONTINUE
    seq: int = 0                 # last numbered frame assigned
    acked: int = 0               # last numbered frame acknowledged (or given up for lost)
    deck: list[str] = field(default_factory=list)
    armed: dict[str, int] = field(default_factory=dict)
    silent_until: float | None = None
    last_dealt: str | None = None
    frames_sent: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _queue: deque[Message] = field(default_factory=deque, repr=False)
    _in_flight: tuple[int, bytes] | None = field(default=None, repr=False)
    _history: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=HISTORY), repr=False)
    _replay: deque[tuple[int, bytes]] = field(default_factory=deque, repr=False)
    _next_retry: float = 0.0
    _next_heartbeat: float = 0.0
    _decoder: Decoder = field(default_factory=Decoder, repr=False)
    _last_rx: float = 0.0
    _out: bytearray = field(default_factory=bytearray, repr=False)
    _host_seen: int | None = None  # last CONTINUE number taken
    _empty_reported: bool = False

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
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

    def _frames(self, frames: list[Frame], now: float) -> None:
        for frame in frames:
            try:
                message = decode_message(frame)
            except FrameError as exc:
                log.warning("sim-shoe: bad frame from host: %s", exc)
                continue
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

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def is_silent(self, now: float) -> bool:
        return self.silent_until is not None and now < self.silent_until

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
            self.armed[kind] = self.armed.get(kind, 0) + 1

    def wake(self, now: float) -> None:
        if self.silent_until is not None:
            self.silent_until = now

    # -- inside --------------------------------------------------------------------------------

    def _hello(self) -> Hello:
        return Hello(self.protocol, self.firmware, self.boot, self.model, self.serial)

    def _take(self, kind: str) -> bool:
        if self.armed.get(kind):
            self.armed[kind] -= 1
            if not self.armed[kind]:
                del self.armed[kind]
            return True
        return False

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
        self.frames_sent += 1
        if self._take("garble"):
            # Line noise: junk, then the frame with one byte flipped. The retransmission repairs it.
            bad = bytearray(wire)
            bad[len(bad) // 2] ^= 0x5A
            self._out += b"\x00\xa5\xff" + bytes(bad)
            return
        self._out += wire
        if self._take("repeat"):
            self._out += wire

    # -- control lines -------------------------------------------------------------------------

    def control(self, line: str, now: float) -> str:
        """Run one control request line (see the module docstring); return the reply line."""
        words = line.split()
        if not words:
            return "err empty request"
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "draw" and len(args) <= 1:
                count = int(args[0]) if args else 1
                if not 1 <= count <= 52:
                    return "err draw 1 to 52 cards"
                if count > 1 and count > len(self.deck) + self.armed.get("duplicate", 0):
                    return f"err shoe empty ({len(self.deck)} left)"
                drawn = [self.draw() for _ in range(count)]
                return "ok " + " ".join(card if read else f"misread:{card}" for card, read in drawn)
            if verb == "discard" and len(args) == 1:
                self.discard(args[0])
                return "ok"
            if verb == "sensor" and len(args) == 2 and args[1] in ("on", "off"):
                self.sensor(args[0], args[1] == "on")
                return "ok"
            if verb == "fault" and len(args) in (1, 2):
                self.inject(args[0], now, float(args[1]) if len(args) == 2 else None)
                return "ok"
            if verb == "wake" and not args:
                self.wake(now)
                return "ok"
            if verb == "shuffle" and len(args) <= 1:
                return f"ok {self.shuffle(int(args[0]) if args else None)}"
            if verb == "status" and not args:
                return "ok " + json.dumps(self.status(now), sort_keys=True)
            if verb == "ping" and not args:
                return "ok pong"
        except (DeviceError, ValueError) as exc:
            return f"err {exc}"
        return f"err bad request {line!r} (draw, discard, sensor, fault, wake, shuffle, status, ping)"

    def status(self, now: float) -> dict[str, object]:
        return {"remaining": len(self.deck), "pending": self.pending, "seq": self.seq, "acked": self.acked,
                "held": self.held, "silent": self.is_silent(now), "armed": dict(self.armed),
                "boot": self.boot, "frames_sent": self.frames_sent}


class Firmware(Protocol):
    """A device's firmware without I/O, as `DeviceServer` runs it (the shoe's, the chip board's)."""

    def boot_hello(self) -> None:
        """Say who it is unprompted (power-up, a host connecting)."""

    def receive(self, data: bytes, now: float) -> None:
        """Bytes from the host."""

    def poll(self, now: float) -> None:
        """The time passed."""

    def take_output(self) -> bytes:
        """Bytes for the host."""
        ...

    def control(self, line: str, now: float) -> str:
        """One control request line; its reply line."""
        ...


class DeviceServer:
    """Runs a device's `Firmware` on a pty or a TCP port, and its control port, from one thread.

    `link`: `"pty"` or `"tcp"`. `port_url` is what the host opens (`/dev/pts/N` or
    `socket://host:port`); `control_address` is the control port's (host, port). `name` is the
    device's in the thread's name and the log, `device` its name in words.
    """

    firmware: Firmware

    def __init__(self, firmware: Firmware, link: str = "pty", tcp: tuple[str, int] = ("127.0.0.1", 0),
                 control: tuple[str, int] = ("127.0.0.1", 0), clock: Callable[[], float] = time.monotonic,
                 baud: int | None = None, name: str = "sim-shoe", device: str = "the emulated shoe") -> None:
        """Raises CannotListen naming the address and its role when a port cannot be listened on."""
        if link not in ("pty", "tcp"):
            raise ValueError(f"link must be pty or tcp, not {link!r}")
        self.firmware = firmware
        self.name = name
        self.device = device  # in words, for a port it cannot listen on
        self.clock = clock
        self.link = link
        self.baud = baud
        self._line = bytearray()          # with `baud`: bytes waiting for the line
        self._chunk: bytes = b""           # on the line now, arriving whole at `_chunk_due`
        self._chunk_due = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._listen: socket.socket | None = None
        self._client: socket.socket | None = None
        if link == "pty":
            import pty
            import tty
            self._master, self._slave = pty.openpty()
            tty.setraw(self._slave)  # keep the slave open: the master never sees a hang-up
            os.set_blocking(self._master, False)
            self.port_url = os.ttyname(self._slave)
        else:
            self._listen = _listen("link", tcp, self.device)
            host, port = self._listen.getsockname()[:2]
            self.port_url = f"socket://{host}:{port}"
        try:
            self._control = _listen("control", control, self.device)
        except CannotListen:  # give back the link already opened
            if self._listen is not None:
                self._listen.close()
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            raise
        self.control_address: tuple[str, int] = self._control.getsockname()[:2]
        self._control_clients: dict[socket.socket, bytearray] = {}

    @property
    def connected(self) -> bool:
        return self.link == "pty" or self._client is not None

    def start(self) -> Self:
        """Serve from a background thread (for tests and the demo). Returns self."""
        self._thread = threading.Thread(target=self.serve, name=self.name, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        for sock in [self._client, self._listen, self._control, *self._control_clients]:
            if sock is not None:
                sock.close()
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self._client = self._listen = None
        self._control_clients.clear()

    def serve(self) -> None:
        """The loop: until `close()`."""
        fw = self.firmware
        fw.boot_hello()
        while not self._stop.is_set():
            now = self.clock()
            fw.poll(now)
            self._turn(now)
            self._write(fw.take_output())
            wait = self._pace(now)
            readers: list[Any] = [self._control, *self._control_clients]
            if self._master is not None:
                readers.append(self._master)
            if self._listen is not None:
                readers.append(self._listen)
            if self._client is not None:
                readers.append(self._client)
            try:
                ready, _, _ = select.select(readers, [], [], wait)
            except (OSError, ValueError):
                continue
            for r in ready:
                try:
                    self._ready(r)
                except Exception:  # the loop never dies on one bad peer
                    log.exception("%s: error serving %r", self.name, r)

    def _turn(self, now: float) -> None:
        """Once a turn of the loop, after the firmware's poll: a device's own doings on its line."""

    def _ready(self, r: object) -> None:
        fw = self.firmware
        now = self.clock()
        if r is self._master:
            assert self._master is not None
            try:
                data = os.read(self._master, 4096)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EIO):
                    raise
                return
            fw.receive(data, now)
        elif r is self._listen:
            assert self._listen is not None
            client, _ = self._listen.accept()
            client.setblocking(False)
            if self._client is not None:
                self._client.close()  # a new host (the controller restarted) replaces the old one
            self._client = client  # it will send IDENTIFY; the HELLO answers that
        elif r is self._client:
            assert self._client is not None
            try:
                data = self._client.recv(4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                self._client.close()
                self._client = None
                return
            fw.receive(data, now)
        elif r is self._control:
            client, _ = self._control.accept()
            client.setblocking(False)
            self._control_clients[client] = bytearray()
        elif isinstance(r, socket.socket) and r in self._control_clients:
            self._control_line(r, now)
        self._write(fw.take_output())

    def _control_line(self, client: socket.socket, now: float) -> None:
        try:
            data = client.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            del self._control_clients[client]
            client.close()
            return
        buf = self._control_clients[client]
        buf += data
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            try:
                reply = self.firmware.control(line.decode("utf-8", "replace"), now)
            except Exception as exc:
                log.exception("%s: control request %r failed", self.name, line)
                reply = f"err {exc}"
            client.setblocking(True)
            try:
                client.sendall(reply.encode() + b"\n")
            finally:
                client.setblocking(False)

    def _write(self, data: bytes) -> None:
        if not data:
            return
        if self.baud is not None:
            self._line += data
            self._pace(self.clock())
            return
        self._emit(data)

    def _pace(self, now: float) -> float:
        """With `baud`, let out what the line has carried by `now`; return how long to wait next."""
        if self.baud is None:
            return 0.01
        if self._chunk and now >= self._chunk_due:
            self._emit(self._chunk)
            self._chunk = b""
        if not self._chunk and self._line:
            self._chunk = bytes(self._line)
            self._line.clear()
            self._chunk_due = max(now, self._chunk_due) + len(self._chunk) * 10 / self.baud  # 8N1
        return min(0.01, max(0.0, self._chunk_due - now)) if self._chunk else 0.01

    def _emit(self, data: bytes) -> None:
        # A line with nobody listening loses what is sent; the protocol's retransmission covers it.
        if self._master is not None:
            try:
                os.write(self._master, data)
            except OSError:
                pass
        elif self._client is not None:
            try:
                self._client.send(data)
            except OSError:
                pass


class SimShoeServer(DeviceServer):
    """Runs a `ShoeFirmware` on a pty or a TCP port, and its control port (see `DeviceServer`)."""

    firmware: ShoeFirmware

    def __init__(self, firmware: ShoeFirmware, link: str = "pty", tcp: tuple[str, int] = ("127.0.0.1", 0),
                 control: tuple[str, int] = ("127.0.0.1", 0), clock: Callable[[], float] = time.monotonic,
                 baud: int | None = None) -> None:
        """Raises CannotListen naming the address and its role when a port cannot be listened on."""
        super().__init__(firmware, link, tcp, control, clock, baud, name="sim-shoe")


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
