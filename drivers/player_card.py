"""Player card readers at the seats (magnetic stripe or NFC, on a serial line or as a USB keyboard): interface and backends.

A player card reader reports `PlayerCardRead(seat, card)` when a card is swiped or tapped at a seat, and
`DeviceOnline` / `DeviceOffline` / `DeviceFault`, to the `on_reading` it was opened with. What a reader
sends is one line a card, as the commodity readers send it:

- a magnetic stripe's track 2 (`;6001234567890=2512101?`) or track 1 (`%B6001234567890^NAME/ANA^2512?`):
  the account number is the card number, the rest (name, expiry) is dropped at once;
- an NFC reader's UID as hex digits (`04A224B2C35E80`), or any plain run of letters and digits;
- optionally led by the seat and a colon (`3:;6001234567=...?`) when one reader serves several seats;
  otherwise the reader's own `seat` (one reader a seat).

Backends (`BACKENDS`, chosen by name from the configuration):

- `serial`: a reader on a serial line, opened by URL (`/dev/ttyUSB0`, `socket://`, `loop://` in the tests);
- `keyboard`: a reader that types its line as a USB keyboard (HID), read from its Linux input device
  (`/dev/input/by-id/...-event-kbd`, opened for the reader alone: `EVIOCGRAB`), the key codes decoded here;
- `sim`: the simulated twin the tests and the demo drive (`swipe(seat, card)`).

A reader thread never dies on a bad line: it is counted (`bad_lines`) and logged without the line (it may
hold a card number).
"""

from __future__ import annotations

import logging
import os
import struct
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from drivers.errors import BackendError
from drivers.readings import DeviceOffline, DeviceOnline, OfflineKind, OnReading, PlayerCardRead
from drivers.registry import Registry

log = logging.getLogger("croupier.drivers.player_card")

MAX_LINE = 128
"""The longest line a reader sends (track 1 is at most 79 characters); a longer one is dropped."""

MAX_CARD_CHARS = 40
"""The longest card number taken (track 2's account number is at most 19 digits, an NFC UID 20 hex digits)."""

SEATS = (1, 7)
"""The seats a reader may name (a house table's spots; `engine.games.HOUSE_SEATS`, which drivers do not import)."""


class PlayerCardReader(Protocol):
    """What every player card reader backend offers. Readings go to the `on_reading` given when opened."""

    device: str

    def start(self) -> None:
        """Begin reading (a thread of the backend's own, where it needs one)."""
        ...

    def close(self) -> None:
        """Stop reading and release the device. Idempotent."""
        ...


BACKENDS: Registry[PlayerCardReader] = Registry("player card reader", {
    "sim": "drivers.player_card:SimPlayerCardReader",
    "serial": "drivers.player_card:SerialPlayerCardReader",
    "keyboard": "drivers.player_card:KeyboardPlayerCardReader",
})


def open_player_card_reader(backend: str, on_reading: OnReading, **options: Any) -> PlayerCardReader:
    """Build a player card reader from configuration. Raises BackendError for an unknown backend or option."""
    return BACKENDS.open(backend, on_reading=on_reading, **options)


def parse_line(line: str, seat: int | None = None) -> tuple[int, str] | None:
    """`(seat, card number)` of one line a reader sent, or None when it holds no card number (a stripe
    read badly, an empty line, a seat out of range, no seat known).

    >>> parse_line(";6001234567890=2512101?", seat=2)
    (2, '6001234567890')
    >>> parse_line("4:%B6001234567890^NAME/ANA^2512?")
    (4, '6001234567890')
    >>> parse_line("04a224b2c35e80", seat=1), parse_line(";E?", seat=1), parse_line("12345678")
    ((1, '04A224B2C35E80'), None, None)
    """
    text = line.strip()
    if len(text) > 2 and text[1] == ":" and text[0].isdigit():
        seat, text = int(text[0]), text[2:]
    if seat is None or not SEATS[0] <= seat <= SEATS[1]:
        return None
    if text.startswith(";") and text.endswith("?"):  # track 2: ;PAN=...?
        card = text[1:-1].split("=", 1)[0]
    elif text.startswith("%B") and text.endswith("?"):  # track 1: %BPAN^NAME^...?
        card = text[2:-1].split("^", 1)[0]
    else:
        card = text.upper()
    if not 4 <= len(card) <= MAX_CARD_CHARS or not card.isascii() or not card.isalnum():
        return None
    return seat, card


class _Lines:
    """Bytes in, lines out, one reader's worth; a line past MAX_LINE is dropped whole."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.overlong = False

    def feed(self, data: bytes) -> list[str]:
        lines: list[str] = []
        for byte in data:
            if byte in b"\r\n":
                if self.buffer and not self.overlong:
                    lines.append(self.buffer.decode("ascii", "replace"))
                self.buffer.clear()
                self.overlong = False
            elif len(self.buffer) >= MAX_LINE:
                self.overlong = True
            else:
                self.buffer.append(byte)
        return lines


class _LineReader:
    """The shared part of the backends that read lines: one line a card, posted as a reading."""

    def __init__(self, on_reading: OnReading, device: str, seat: int | None) -> None:
        if seat is not None and not SEATS[0] <= seat <= SEATS[1]:
            raise BackendError(f"{device}: seat {seat} is not a seat ({SEATS[0]} to {SEATS[1]})", option="seat")
        self.on_reading, self.device, self.seat = on_reading, device, seat
        self.bad_lines = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def take_line(self, line: str) -> None:
        parsed = parse_line(line, self.seat)
        if parsed is None:
            self.bad_lines += 1
            log.warning("%s: a line with no card number was dropped (%d so far)", self.device, self.bad_lines)
            return
        self.on_reading(PlayerCardRead(parsed[0], parsed[1], self.device))

    def _run(self, chunks: Iterable[bytes], lines: _Lines) -> None:
        for chunk in chunks:
            for line in lines.feed(chunk):
                try:
                    self.take_line(line)
                except Exception:  # a failing handler never stops the reader (STYLE.md)
                    log.exception("%s: the reading could not be posted", self.device)

    def _spawn(self, target: Callable[[], object]) -> None:
        self._thread = threading.Thread(target=target, name=self.device, daemon=True)
        self._thread.start()

    def _join(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)


class SimPlayerCardReader(_LineReader):
    """The simulated reader: `swipe(seat, card)` sends the track-2 line a real stripe reader would,
    through the same parsing; `send(line)` any line. Readings are posted on the caller's thread."""

    def __init__(self, on_reading: OnReading, device: str = "player_cards", seat: int | None = None) -> None:
        super().__init__(on_reading, device, seat)

    def start(self) -> None:
        self.on_reading(DeviceOnline(self.device, "sim player card reader", "sim", "1.0", 1))

    def swipe(self, seat: int, card: str) -> None:
        self.send(f"{seat}:;{card}=2912101?")

    def send(self, line: str) -> None:
        self.take_line(line)

    def close(self) -> None:
        pass


class SerialPlayerCardReader(_LineReader):
    """A reader on a serial line (`url`: a device path, `socket://host:port`, `loop://`): one line a card."""

    def __init__(self, on_reading: OnReading, url: str, device: str = "player_cards", seat: int | None = None,
                 baudrate: int = 9600) -> None:
        super().__init__(on_reading, device, seat)
        import serial

        try:
            self.port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.2)
        except (serial.SerialException, ValueError) as exc:
            raise BackendError(f"{device}: cannot open {url}: {exc}", option="url") from exc

    def start(self) -> None:
        self.on_reading(DeviceOnline(self.device, "serial player card reader", str(self.port.name), "-", 1))
        self._spawn(lambda: self._run(self._chunks(), _Lines()))

    def _chunks(self) -> Iterable[bytes]:
        while not self._stop.is_set():
            try:
                data = self.port.read(max(1, self.port.in_waiting))
            except Exception as exc:  # the port went away: offline, the thread ends
                if not self._stop.is_set():
                    self.on_reading(DeviceOffline(self.device, f"serial port lost: {exc}", OfflineKind.DEVICE_OFFLINE))
                return
            if data:
                yield data

    def close(self) -> None:
        self._join()
        self.port.close()


# -- a USB keyboard reader: Linux input events ------------------------------------------------------

EVENT = struct.Struct("llHHi")
"""Linux's `struct input_event` (time seconds and microseconds, type, code, value) on this machine's ABI."""
EV_KEY, KEY_DOWN = 1, 1
KEY_LEFTSHIFT, KEY_RIGHTSHIFT, KEY_ENTER = 42, 54, 28
_KEYS = {**{2 + i: c for i, c in enumerate("1234567890")}, 12: "-", 13: "=", 39: ";", 53: "/",
         **{code: c for c, code in zip("qwertyuiop", range(16, 26))},
         **{code: c for c, code in zip("asdfghjkl", range(30, 39))},
         **{code: c for c, code in zip("zxcvbnm", range(44, 51))}}
_SHIFTED = {"/": "?", "5": "%", "6": "^", ";": ":"}
EVIOCGRAB = 0x40044590  # take the device's keys for this reader alone (they never reach a console)


def keys_to_text(events: Iterable[tuple[int, int, int]]) -> str:
    """The text a keyboard reader typed, from `(type, code, value)` input events (key downs only, Enter a newline).

    >>> down = lambda code: (EV_KEY, code, KEY_DOWN)
    >>> keys_to_text([(EV_KEY, KEY_LEFTSHIFT, 1), down(39), (EV_KEY, KEY_LEFTSHIFT, 0), down(2), down(11), down(KEY_ENTER)])
    ':10\\n'
    """
    out, shift = [], False
    for kind, code, value in events:
        if kind != EV_KEY:
            continue
        if code in (KEY_LEFTSHIFT, KEY_RIGHTSHIFT):
            shift = value != 0
        elif value == KEY_DOWN and code == KEY_ENTER:
            out.append("\n")
        elif value == KEY_DOWN and code in _KEYS:
            char = _KEYS[code]
            out.append(_SHIFTED.get(char, char.upper()) if shift else char)
    return "".join(out)


class KeyboardPlayerCardReader(_LineReader):
    """A reader that types as a USB keyboard, read from its input device `path` (grabbed: its keys reach no one else)."""

    def __init__(self, on_reading: OnReading, path: str, device: str = "player_cards", seat: int | None = None,
                 grab: bool = True) -> None:
        super().__init__(on_reading, device, seat)
        try:
            self.fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            raise BackendError(f"{device}: cannot open {path}: {exc.strerror or exc}", option="path") from exc
        self.path = path
        if grab:
            import fcntl

            try:
                fcntl.ioctl(self.fd, EVIOCGRAB, 1)
            except OSError as exc:  # not an input device: refused rather than read as one
                os.close(self.fd)
                raise BackendError(f"{device}: {path} is not an input device to grab: {exc.strerror}",
                                   option="path") from exc

    def start(self) -> None:
        self.on_reading(DeviceOnline(self.device, "keyboard player card reader", self.path, "-", 1))
        self._spawn(lambda: self._run(self._chunks(), _Lines()))

    def _chunks(self) -> Iterable[bytes]:
        pending = b""
        while not self._stop.is_set():
            try:
                data = os.read(self.fd, EVENT.size * 64)
            except OSError as exc:
                if not self._stop.is_set():
                    self.on_reading(DeviceOffline(self.device, f"input device lost: {exc.strerror}"))
                return
            if not data:
                return
            pending += data
            whole = len(pending) - len(pending) % EVENT.size
            events = [EVENT.unpack_from(pending, at)[2:] for at in range(0, whole, EVENT.size)]
            pending = pending[whole:]
            yield keys_to_text(events).encode("ascii")

    def close(self) -> None:
        self._stop.set()
        try:
            os.close(self.fd)
        except OSError:
            pass
        self._join()
