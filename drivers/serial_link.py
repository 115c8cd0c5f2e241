"""A device on a serial line, turned by its own reader thread or by the caller's loop: the I/O under the shoe's and the chip reader's links.

`SerialLink` owns a pyserial port opened with `serial.serial_for_url` (device path, pty,
`socket://host:port`, `loop://`, `spy://`) and drives a sans-IO session (the device's protocol
state machine: `drivers.shoe_link.HostSession`, `drivers.chip_link.ChipSession`): one turn (`pump`)
reads what the port holds, hands the session's readings to `on_reading` and sends what it wants
sent. Either its own reader thread turns it, or (`start(driven=True)`) the caller's event loop
does, polling `fileno()`: the controller serves its devices from its own loop, so a reading costs
no thread hand-off. A link never dies on a bad frame or a failing callback: it logs with the
device's name, counts, and goes on; a lost port is reopened.
"""

from __future__ import annotations

import functools
import logging
import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import serial

from drivers import framing
from drivers.errors import DeviceError, UnsupportedDevice
from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, OnReading, Reading

log = logging.getLogger(__name__)

CONNECTING, ONLINE, REFUSED = "connecting", "online", "refused"
"""A session's states: no device accepted yet on this connection, one accepted, one refused."""


class LinkCounters(Protocol):
    """The counters a link keeps in its session's stats."""

    reconnects: int
    callback_errors: int


class LinkSession(Protocol):
    """A device protocol's host side, sans-IO: what `SerialLink` drives."""

    device: str
    state: str
    refusal: str | None

    @property
    def stats(self) -> LinkCounters: ...

    def connect(self, now: float) -> None:
        """Start (or restart, after the port was reopened) the handshake."""

    def receive(self, data: bytes, now: float) -> None:
        """Bytes the port gave."""

    def poll(self, now: float) -> None:
        """The time passed: silence, retransmissions, timers."""

    def lost(self, reason: str) -> None:
        """The port went away."""

    def take_output(self) -> bytes:
        """What to send."""
        ...

    def take_readings(self) -> list[Reading]:
        """What to report."""
        ...

    def online(self) -> DeviceOnline | None:
        """The device accepted on this connection, or None."""
        ...

    def next_turn(self, now: float) -> float | None:
        """Seconds until a timer is due that no byte from the device brings, or None (turned at the link's pace)."""
        ...


class Greeting(Protocol):
    """What a device's HELLO says of it, as `DeviceSession` reads it (the shoe's and the board's HELLO)."""

    @property
    def protocol(self) -> int: ...
    @property
    def firmware(self) -> tuple[int, int, int]: ...
    @property
    def boot(self) -> int: ...
    @property
    def model(self) -> str: ...
    @property
    def serial(self) -> str: ...
    @property
    def firmware_text(self) -> str: ...


H = TypeVar("H", bound=Greeting)


@dataclass
class SessionStats:
    """The counters every device's link keeps, for logs and health displays."""

    decoder: framing.DecoderStats = field(default_factory=framing.DecoderStats)  # the line's own: garbage, bad CRCs
    frames: int = 0
    bad_messages: int = 0
    unexpected: int = 0
    callback_errors: int = 0
    reconnects: int = 0

    @property
    def garbage_bytes(self) -> int:
        return self.decoder.garbage_bytes

    @property
    def crc_errors(self) -> int:
        return self.decoder.crc_errors


@dataclass
class DeviceSession(Generic[H]):
    """What every device's host session does alike, sans-IO: the handshake (IDENTIFY until a HELLO whose protocol
    and firmware are supported, a device refused otherwise and asked again now and then), a partial frame on a
    quiet line dropped, silence and loss reported once as DeviceOffline, the bytes out and the readings out.

    A device's session (`drivers.shoe_link.HostSession`, `drivers.chip_link.ChipSession`) names its `DECODER`,
    `PROTOCOL` and `WHAT` ("device", "board"), its stats and its HELLO type, and writes what is its device's own:
    `_identify()` (the IDENTIFY's bytes), `_frame()` (one frame heard), `_online_poll()` (its timers while the
    device is online or being asked) and, where it keeps a frame in flight, `_forget_in_flight()`.
    """

    DECODER: ClassVar[type[framing.Decoder]]
    PROTOCOL: ClassVar[int]
    WHAT: ClassVar[str] = "device"

    device: str = "device"
    silence_s: float = 2.0
    identify_s: float = 0.5
    stale_s: float = 0.05               # a partial frame this old on a quiet line is garbage
    supported_majors: frozenset[int] = frozenset({1})

    state: str = CONNECTING
    hello: H | None = None
    refusal: str | None = None          # why the device on this connection was refused, while it is
    stats: SessionStats = field(default_factory=SessionStats)
    _refused: H | None = None           # the HELLO refused on this connection (reported once)
    _decoder: framing.Decoder = field(init=False, repr=False)
    _out: bytearray = field(default_factory=bytearray, repr=False)
    _readings: list[Reading] = field(default_factory=list, repr=False)
    _host_seq: int = 0
    _next_send: float = 0.0
    _last_heard: float = 0.0
    _connecting_since: float = 0.0
    _last_rx: float = 0.0
    _offline_posted: bool = False

    def __post_init__(self) -> None:
        self._decoder = self.DECODER()
        self.stats.decoder = self._decoder.stats  # one set of line counters, the decoder's

    # -- driving -------------------------------------------------------------------------------

    def connect(self, now: float) -> None:
        """Start (or restart, after the port was reopened) the handshake. A device refused on the
        old connection is asked again: the one on this connection may be another."""
        self.state = CONNECTING
        self._refused = None
        self._forget_in_flight()
        self._decoder.reset()
        self._last_heard = self._connecting_since = now
        self._send_identify(now)

    def receive(self, data: bytes, now: float) -> None:
        """Bytes the port gave."""
        if data:
            self._last_rx = now
        self._frames(self._decoder.feed(data), now)

    def poll(self, now: float) -> None:
        """The time passed: a stale partial frame, a refused device asked again, silence, the device's timers."""
        if self._decoder.buffered and now - self._last_rx >= self.stale_s:
            self._frames(self._decoder.idle(), now)
        if self.state == REFUSED:
            # Nothing is taken from a refused device; asking now and then who is there finds a
            # good device put in its place on the same line (its HELLO at power-up may be lost).
            if now >= self._next_send:
                self._out += self._identify()
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
                self._forget_in_flight()
                self._next_send = now
        self._online_poll(now)

    def lost(self, reason: str) -> None:
        """The port went away: drop unsent bytes; post DeviceOffline once if the device was online."""
        self._out.clear()
        self._forget_in_flight()
        if self.state == ONLINE:
            self.state = CONNECTING
            self._offline_posted = True
            self._post(DeviceOffline(self.device, reason, OfflineKind.DEVICE_OFFLINE))
        self._connecting_since = self._last_heard

    def take_output(self) -> bytes:
        """What to send."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_readings(self) -> list[Reading]:
        """What to report."""
        out = self._readings
        self._readings = []
        return out

    def online(self) -> DeviceOnline | None:
        """The device accepted on this connection, or None."""
        if self.state != ONLINE or self.hello is None:
            return None
        return self._online_reading(self.hello)

    def next_turn(self, now: float) -> float | None:
        """Seconds until the session has something to do that no byte from the device brings (its silence, and
        the device's own timers: `_timers_due`), while it is online and no partial frame waits; None otherwise
        (then it is turned at the link's pace)."""
        if self.state != ONLINE or self._decoder.buffered:
            return None
        wait = self._last_heard + self.silence_s - now
        later = self._timers_due(now)
        if later is not None and later < wait:
            wait = later
        return wait if wait > 0.0 else 0.0

    def _timers_due(self, now: float) -> float | None:
        """Seconds until the device's own earliest timer (a retransmission, a stable flag), or None: none here."""
        return None

    # -- for the device's session ---------------------------------------------------------------

    def _identify(self) -> bytes:
        """The bytes of an IDENTIFY (the device's own message in its own framing)."""
        raise NotImplementedError

    def _frame(self, frame: framing.Frame, now: float) -> None:
        """One frame heard from the device."""
        raise NotImplementedError

    def _online_poll(self, now: float) -> None:
        """The device's own timers, once silence is dealt with (never while it is refused)."""

    def _forget_in_flight(self) -> None:
        """The connection changed: a frame kept in flight for it is no longer awaited."""

    def _post(self, reading: Reading) -> None:
        self._readings.append(reading)

    def _send_identify(self, now: float) -> None:
        self._out += self._identify()
        self._next_send = now + self.identify_s

    def _frames(self, frames: list[framing.Frame], now: float) -> None:
        for frame in frames:
            self.stats.frames += 1
            self._last_heard = now
            self._frame(frame, now)

    def _online_reading(self, hello: H) -> DeviceOnline:
        return DeviceOnline(self.device, hello.model, hello.serial, hello.firmware_text, hello.boot)

    def _accept(self, hello: H, now: float) -> bool:
        """A HELLO heard: True when its device is one we run (then it is this connection's, and online, and
        the caller goes on with its own handshake); refused otherwise (`_refuse`)."""
        if hello.protocol != self.PROTOCOL or hello.firmware[0] not in self.supported_majors:
            self._refuse(hello, now)
            return False
        self.hello = hello
        self.state = ONLINE
        self.refusal = self._refused = None
        self._offline_posted = False
        return True

    def _refuse(self, hello: H, now: float) -> None:
        """The device on this line is one we do not run: report it (once per device), take nothing
        more from it, and count it gone, so a hand cannot go on as if it were there."""
        was_online = self.state == ONLINE
        self.state = REFUSED
        self._forget_in_flight()
        self._next_send = now + max(self.silence_s, self.identify_s)
        if hello == self._refused:
            return  # the same device answering again
        self._refused = hello
        self.refusal = (f"{self.device}: unsupported {hello.model} firmware {hello.firmware_text}, protocol "
                        f"{hello.protocol} (supported: protocol {self.PROTOCOL}, firmware major "
                        f"{', '.join(map(str, sorted(self.supported_majors)))})")
        log.error("%s", self.refusal)
        self._post(DeviceFault(self.device, self.refusal, FaultKind.DEVICE_FAULT))
        if was_online or not self._offline_posted:
            self._offline_posted = True
            self._post(DeviceOffline(self.device, f"refused: {self.refusal}", OfflineKind.DEVICE_OFFLINE))

    def _unreadable(self, frame: framing.Frame, exc: Exception) -> None:
        """A frame with a good CRC whose message cannot be read: counted and logged."""
        self.stats.bad_messages += 1
        log.warning("%s: bad message (type 0x%02x, seq %d): %s", self.device, frame.kind, frame.seq, exc)

    def _unexpected(self, message: object) -> None:
        self.stats.unexpected += 1
        log.warning("%s: unexpected %s from the %s", self.device, type(message).__name__, self.WHAT)


_CHUNK = 16384
"""The most bytes one read takes: a turn's worth of frames and more (a shoe's frame is a few dozen bytes, a
chip reader's scan of every antenna a few kilobytes; what is left is taken at the next turn)."""


def _descriptor(port: Any) -> int | None:
    """The open port's descriptor by pyserial's `fileno()` (a device or a pty, `socket://`, `spy://`),
    for the caller's poller and for waiting on; None for a port without one (`loop://`, a test double).

    A port with a descriptor is made non-blocking by pyserial's documented `timeout = 0` ("return
    immediately, returning zero or more, up to the requested number of bytes"): once the descriptor
    is readable, one `read(_CHUNK)` takes every byte already there, on every kind of port. (Its
    `in_waiting` would not do: on `socket://` it says only 0 or 1, `serial/urlhandler/protocol_socket.py`.)"""
    try:
        fd = int(port.fileno())
    except (AttributeError, OSError, ValueError, TypeError):  # io.UnsupportedOperation is both of the last two
        return None
    port.timeout = 0
    return fd


@functools.cache
def _plain_methods() -> frozenset[tuple[Any, Any]]:
    """The `(read, write)` of pyserial's classes whose bytes are their descriptor's own: a device or a pty
    (`serialposix.Serial`: select, then `os.read`; `os.write`) and `socket://` (select, then `recv`; `send`).
    None off POSIX, where a socket's descriptor is no file's."""
    if os.name != "posix":
        return frozenset()
    from serial import serialposix
    from serial.urlhandler import protocol_socket
    return frozenset((cls.read, cls.write) for cls in (serialposix.Serial, protocol_socket.Serial))


def _plain(port: Any) -> bool:
    """Whether the port's line is its descriptor's bytes as they are, read and written by pyserial with one
    `select` more each way (its read waits on the descriptor, its write on room after the send): then the
    link reads and writes the descriptor itself, as the controller's loop has waited on it already. A
    class that reads or writes its own way (`spy://` logs what passes, `PosixPollSerial`, `VTIMESerial`)
    keeps pyserial's calls; `rfc2217://` and `loop://` have no descriptor (`_descriptor`)."""
    cls = type(port)
    return (getattr(cls, "read", None), getattr(cls, "write", None)) in _plain_methods()


def _lingers(port: Any) -> bool:
    """Whether closing the port pauses: pyserial's `socket://` sleeps 0.3 s after closing its socket ("in case of
    quick reconnects, give the server some time", `serial/urlhandler/protocol_socket.py`), which would stall the
    controller's loop at each lost simulated device and each stop. The link waits its own delay before a reopen."""
    if os.name != "posix":
        return False
    from serial.urlhandler import protocol_socket
    return getattr(type(port), "close", None) is protocol_socket.Serial.close


def _close(port: Any, device: str) -> None:
    """Close the port; closing a dead port must not stop anything."""
    try:
        port.close()
    except Exception:
        log.debug("%s: error closing port", device, exc_info=True)


def _read_available(port: Any, fd: int | None, timeout: float, plain: bool = False) -> bytes:
    """What the port holds, in one go: wait up to `timeout` for a first byte, then take every byte
    already there (`plain`: read from the descriptor itself, see `_plain`). Raises what the port
    raises (the link is lost): pyserial's read of a readable descriptor that gives nothing (a hung-up
    pty, a closed socket) raises SerialException."""
    if fd is None:
        data = bytes(port.read(1))  # waits up to the port's own timeout
        waiting = port.in_waiting if data else 0  # exact where there is no descriptor (loop://)
        return data + bytes(port.read(waiting)) if waiting > 0 else data
    if timeout > 0:  # (a driven link's caller has waited on the descriptor already: its turns wait 0)
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return b""
    if not plain:
        return bytes(port.read(_CHUNK))  # non-blocking (`_descriptor`): what is there, nothing, or the loss raised
    try:
        data = os.read(fd, _CHUNK)  # pyserial opens both kinds non-blocking
    except BlockingIOError:
        return b""  # a turn when due, with nothing there (a socket)
    # Nothing (a tty with nothing there, or hung up; a socket closed): pyserial's read tells a quiet
    # line (nothing) from a lost one (SerialException), as it does on every turn without `plain`.
    return data if data else bytes(port.read(_CHUNK))


def _write(port: Any, fd: int | None, data: bytes, plain: bool = False) -> None:
    """Send `data` (`plain`: to the descriptor itself, see `_plain`; what it has no room for, through
    pyserial's write, which waits up to the port's write timeout). Raises what the port raises."""
    sent = 0
    if plain and fd is not None:
        try:
            sent = os.write(fd, data)
        except BlockingIOError:
            sent = 0
    if sent < len(data):
        port.write(data[sent:])


S = TypeVar("S", bound=LinkSession)


class SerialLink(Generic[S]):
    """A device on a serial line driven through its `session`. `url` is anything
    `serial.serial_for_url` opens; readings reach `on_reading` on the link's reader thread (or, driven,
    on the caller's). A device's link (`ShoeLink`, `ChipLink`) makes its session from its own options
    and passes the link's (`baudrate`, `reconnect_s`, `clock`, `open_port`) on."""

    session: S

    def __init__(self, on_reading: OnReading, url: str, session: S, baudrate: int = 115200,
                 reconnect_s: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 open_port: Callable[..., Any] = serial.serial_for_url) -> None:
        self.device = session.device
        self.url = url
        self._on_reading = on_reading
        self._baudrate = baudrate
        self._reconnect_s = reconnect_s
        self._clock = clock
        self._open_port = open_port
        self.session = session
        self._port: Any = None
        self._fd: int | None = None  # the port's descriptor, waited on (see _descriptor)
        self._plain = False  # read and written on the descriptor itself (see _plain)
        self._read_timeout = 0.02
        self._reopen_at = 0.0  # when a closed port is (re)opened next
        self._thread: threading.Thread | None = None
        self._driven = False  # turned by the caller's loop (`pump`) rather than by the thread
        self._stop = threading.Event()
        self._settled = threading.Event()  # online or refused

    @property
    def stats(self) -> LinkCounters:
        """The session's counters (the line's, the device's)."""
        return self.session.stats

    @property
    def refusal(self) -> str | None:
        """Why the device was refused (unsupported protocol or firmware), or None."""
        return self.session.refusal

    @property
    def driven(self) -> bool:
        """Whether the caller's loop turns the link (`fileno()`, `pump()`) rather than its thread."""
        return self._driven and self._thread is None

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        """Open the port and wait up to `timeout` for the handshake.

        Without `driven`, a reader thread turns the link from then on. With `driven`, the caller
        does: it calls `pump()` whenever `fileno()` is readable and at the latest when the delay
        `pump()` returned has passed (a port with no descriptor of its own, e.g. `loop://` or
        `spy://`, gets the reader thread all the same: see `driven`).

        Returns the DeviceOnline, or None if the device has not answered yet (the link keeps
        trying; DeviceOnline is posted when it does). Raises UnsupportedDevice (and closes) when the
        device's protocol or firmware is not supported; DeviceError when already started.
        """
        if self._thread is not None or self._driven:
            raise DeviceError(f"{self.device}: link already started")
        self._driven = driven
        if driven:
            deadline = self._clock() + timeout
            due = self.pump()
            while self.driven and not self._settled.is_set():
                left = deadline - self._clock()
                if left <= 0:
                    break
                if self._port is None:  # not there (yet): wait for the next try, do not spin
                    self._stop.wait(min(left, due))
                    due = self.pump()
                else:
                    due = self.pump(min(left, self._read_timeout))
            if not self.driven:  # a port without a descriptor: its thread took over
                self._settled.wait(max(0.0, deadline - self._clock()))
        else:
            self._start_thread()
            self._settled.wait(timeout)
        if self.session.state == REFUSED:
            self.close()
            raise UnsupportedDevice(self.session.refusal or f"{self.device}: refused")
        return self.session.online() if self.session.state == ONLINE else None

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"link-{self.device}", daemon=True)
        self._thread.start()

    def fileno(self) -> int | None:
        """The port's descriptor for the caller's poller while the link is driven and its port is
        open; None otherwise (then `pump()` is due only when its delay has passed)."""
        return self._fd if self.driven else None

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        self._close_port()

    # -- turning the link -------------------------------------------------------------------------

    def _close_port(self) -> None:
        port, self._port, self._fd, self._plain = self._port, None, None, False
        if port is None:
            return
        if _lingers(port):  # its socket shut and closed at once, then pyserial's pause off the caller's thread
            threading.Thread(target=_close, args=(port, self.device), name=f"{self.device}-close", daemon=True).start()
        else:
            _close(port, self.device)

    def _open(self) -> bool:
        try:
            self._port = self._open_port(self.url, baudrate=self._baudrate, timeout=self._read_timeout,
                                         write_timeout=0.5)
            self._port.reset_input_buffer()
            self._fd = _descriptor(self._port)
            self._plain = self._fd is not None and _plain(self._port)
        except Exception as exc:
            log.warning("%s: cannot open %s: %s", self.device, self.url, exc)
            self._close_port()
            return False
        self.session.connect(self._clock())
        return True

    def pump(self, wait: float = 0.0) -> float:
        """One turn: (re)open the port when due, read what it holds (waiting up to `wait` seconds
        for a first byte), drive the session, hand its readings to `on_reading` (before their
        acks leave), send what it has to send. Returns the seconds until the next turn is due at
        the latest (retransmissions, silence, reopening). Never raises: a lost port is closed,
        reported (DeviceOffline) and reopened after `reconnect_s`.

        A driven link whose port turns out to have no descriptor hands itself to its reader thread
        here (and its turns from the caller do nothing from then on)."""
        if self._driven and self._thread is not None and threading.current_thread() is not self._thread:
            return 1.0  # the reader thread turns it
        session = self.session
        if self._port is None:
            now = self._clock()
            if now < self._reopen_at:
                return self._reopen_at - now
            if not self._open():
                session.poll(now)
                session.take_output()  # nowhere to send it
                self._dispatch()
                self._reopen_at = now + self._reconnect_s
                return self._reconnect_s
            if self._driven and self._fd is None and self._thread is None:
                self._start_thread()
                return 1.0
        try:
            data = _read_available(self._port, self._fd, wait, self._plain)
            now = self._clock()
            if data:
                session.receive(data, now)
            session.poll(now)
            self._dispatch()  # readings reach on_reading before their ACKs leave
            out = session.take_output()
            if out:
                _write(self._port, self._fd, out, self._plain)  # waits up to the port's write timeout when full
        except Exception as exc:  # port gone (socket closed, pty hung up): reopen
            if self._stop.is_set():
                return self._reconnect_s
            log.warning("%s: link lost on %s: %s", self.device, self.url, exc)
            self.session.stats.reconnects += 1
            self._close_port()
            session.lost(f"link lost: {exc}")
            self._dispatch()
            self._reopen_at = self._clock() + self._reconnect_s
            return self._reconnect_s
        if session.state == REFUSED:
            self._settled.set()
        # the next turn: the port's bytes wake a driven link's loop (a card, a scan, a heartbeat); between them only
        # a timer of the session's can want a turn (`next_turn`: its silence, a retransmission, a stable flag),
        # not every 20 ms (an idle table's loop ~680 -> ~13 system calls a second)
        later = session.next_turn(now)
        return self._read_timeout if later is None or later < self._read_timeout else later

    def _run(self) -> None:
        while not self._stop.is_set():
            due = self.pump(self._read_timeout)
            if self._port is None:
                self._stop.wait(due)

    def _dispatch(self) -> None:
        for reading in self.session.take_readings():
            if isinstance(reading, DeviceOnline):
                self._settled.set()
            try:
                self._on_reading(reading)
            except Exception:
                self.session.stats.callback_errors += 1
                log.exception("%s: on_reading failed for %r", self.device, reading)
