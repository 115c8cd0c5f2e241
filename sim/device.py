"""What the emulated devices (the shoe, the chip reader board) share: their firmware's common doings and control lines, and the server that carries them.

- `DeviceFirmware`: the part of an emulated device's firmware, sans-IO, that is every device's: who it
  says it is, its armed faults, its silence, the bytes it has to send, and its control lines: one
  request a line, one reply line each, `ok ...` or `err <reason>`; each device adds its own verbs
  (`_verbs`) to the ones every device answers: `wake` (end a silence), `status` (`ok <json>`) and
  `ping` (`ok pong`).
- `DeviceServer`: one thread with a select loop that carries a firmware's bytes over a pty (the host
  opens the printed path) or a TCP port (the host opens `socket://host:port`), and serves its control
  port.
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, TypeVar

from drivers import framing
from drivers.errors import DeviceError, FrameError

log = logging.getLogger(__name__)

M = TypeVar("M")

GARBLE_JUNK = b"\x00\xa5\xff"
"""Line noise before a garbled frame: a false first sync byte among junk."""


class CannotListen(DeviceError, OSError):
    """The emulated shoe cannot listen on an address (in use, or not this machine's).

    `role` says which: `link` (the TCP port the host connects to) or `control`."""

    def __init__(self, role: str, address: tuple[str, int], reason: str, device: str = "the emulated device") -> None:
        self.role, self.address = role, address
        what = "its link" if role == "link" else "its control port"
        super().__init__(f"{device} cannot listen on {address[0]}:{address[1]} for {what}: {reason}")


def _listen(role: str, address: tuple[str, int], device: str = "the emulated device") -> socket.socket:
    try:
        sock = socket.create_server(address)
    except OSError as exc:
        raise CannotListen(role, address, exc.strerror or str(exc), device) from None
    sock.setblocking(False)
    return sock


@dataclass(frozen=True, slots=True)
class Verb:
    """One control request: how many words may follow it, and what runs it (the words after it and the time in,
    the reply line out; a DeviceError or ValueError raised is replied `err <reason>`)."""

    args: range
    run: Callable[[Sequence[str], float], str]


@dataclass
class DeviceFirmware:
    """What every emulated device's firmware does alike, without I/O; a device's firmware is a subclass (the
    shoe's, the chip reader board's) that adds its protocol, its control verbs (`_verbs`) and its `status`."""

    NAME: ClassVar[str] = "sim-device"

    seed: int | None = None
    model: str = "SIM"
    serial: str = "SIM0001"
    firmware: tuple[int, int, int] = (1, 0, 0)
    protocol: int = 1
    boot: int = 1
    heartbeat_s: float = 0.5

    armed: dict[str, int] = field(default_factory=dict)
    silent_until: float | None = None
    frames_sent: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _out: bytearray = field(default_factory=bytearray, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def take_output(self) -> bytes:
        """Bytes for the host."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def is_silent(self, now: float) -> bool:
        """Hung: nothing goes out, nothing is read."""
        return self.silent_until is not None and now < self.silent_until

    def wake(self, now: float) -> None:
        """End a silence early."""
        if self.silent_until is not None:
            self.silent_until = now

    def status(self, now: float) -> dict[str, object]:
        """What the control line `status` says (the device's own fields beside these)."""
        return {"silent": self.is_silent(now), "armed": dict(self.armed), "boot": self.boot,
                "frames_sent": self.frames_sent}

    # -- control lines -------------------------------------------------------------------------

    def control(self, line: str, now: float) -> str:
        """Run one control request line (the device's module docstring lists its verbs); return the reply line."""
        words = line.split()
        if not words:
            return "err empty request"
        verbs: dict[str, Verb] = {**self._verbs(), "wake": Verb(range(1), self._wake),
                                  "status": Verb(range(1), self._status), "ping": Verb(range(1), lambda _, __: "ok pong")}
        verb = verbs.get(words[0].lower())
        if verb is None or len(words) - 1 not in verb.args:
            return f"err bad request {line!r} ({', '.join(verbs)})"
        try:
            return verb.run(words[1:], now)
        except (DeviceError, ValueError) as exc:
            return f"err {exc}"

    def _verbs(self) -> Mapping[str, Verb]:
        """The device's own control verbs, in the order its error reply lists them."""
        return {}

    @staticmethod
    def _ok(do: Callable[..., object], *args: object) -> str:
        """`do(*args)`, replied `ok`."""
        do(*args)
        return "ok"

    def _wake(self, _: Sequence[str], now: float) -> str:
        self.wake(now)
        return "ok"

    def _status(self, _: Sequence[str], now: float) -> str:
        return "ok " + json.dumps(self.status(now), sort_keys=True)

    # -- for the device ------------------------------------------------------------------------

    def _from_host(self, frames: list[framing.Frame],
                   decode: Callable[[framing.Frame], M]) -> Iterator[tuple[framing.Frame, M]]:
        """Each frame from the host with its message; one that cannot be read is logged and skipped."""
        for frame in frames:
            try:
                message = decode(frame)
            except FrameError as exc:
                log.warning("%s: bad frame from host: %s", self.NAME, exc)
                continue
            yield frame, message

    def _take(self, kind: str) -> bool:
        """Whether fault `kind` is armed; if so, it is used up (once)."""
        if self.armed.get(kind):
            self.armed[kind] -= 1
            if not self.armed[kind]:
                del self.armed[kind]
            return True
        return False

    def _arm(self, kind: str) -> None:
        self.armed[kind] = self.armed.get(kind, 0) + 1

    def _emit(self, wire: bytes) -> None:
        """A frame goes out, garbled when `garble` is armed: line noise, then the frame with one byte flipped."""
        self.frames_sent += 1
        if self._take("garble"):
            bad = bytearray(wire)
            bad[len(bad) // 2] ^= 0x5A
            self._out += GARBLE_JUNK + bytes(bad)
            return
        self._out += wire


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
                 baud: int | None = None, *, name: str, device: str) -> None:
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
