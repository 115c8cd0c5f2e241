"""Card readers (the shoe's card-out reader, the discard rack's reader): readings, interface, backends.

A card reader reports `CardRead`, `Misread` and `SensorChange` (the shoe's own sensors, e.g. `empty`),
plus `DeviceOnline` / `DeviceOffline` / `DeviceFault`, to the `on_reading` callback it was opened
with. Backends register by name; `open_card_reader(backend, ...)` picks one from configuration:

- `sim`: an in-process twin driven by calls (`deal`, `misread`, ...), for unit tests;
- `serial`: the shoe on a serial line (a device path, a pty or `socket://`): `drivers.shoe_link.ShoeLink`,
  imported when chosen (the protocol beside it: drivers/shoe_protocol.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from drivers.errors import DeviceError
from drivers.readings import (
    SOURCES, CardRead, CardSource, DeviceFault, DeviceOffline, DeviceOnline, FaultKind, Misread, OfflineKind,
    RANKS, SUITS, OnReading, Sensor, SensorChange,
)
from drivers.registry import Registry

__all__ = ["BACKENDS", "SOURCES", "CardRead", "CardReader", "CardSource", "Misread", "ResumePoint", "SimCardReader",
           "check_card", "open_card_reader"]

@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where the host left a device: its `boot` (from DeviceOnline) and the last `seq` it kept."""

    boot: int
    seq: int


class CardReader(Protocol):
    """What every card reader backend offers. Readings go to the `on_reading` given when opened."""

    device: str

    @property
    def driven(self) -> bool:
        """Served from the caller's event loop (`fileno()` to poll, `pump()` to turn it) rather
        than by a thread of its own: asked for with `start(driven=True)`, where the backend can."""
        ...

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        """Connect and identify the device. Returns its DeviceOnline, or None when it has not
        answered within `timeout` (it keeps trying, and posts DeviceOnline when it does).
        `driven`: let the caller's loop serve it, where the backend can (see `driven`).
        Raises UnsupportedDevice when the device is one we refuse to run."""
        ...

    def close(self) -> None:
        """Stop reading and release the port. Idempotent."""
        ...


BACKENDS: Registry[CardReader] = Registry("card reader", {
    "sim": "drivers.card_reader:SimCardReader",
    "serial": "drivers.shoe_link:ShoeLink",
})


def open_card_reader(backend: str, on_reading: OnReading, **options: object) -> CardReader:
    """Build (not start) a card reader from configuration.

    Options go to the backend (`serial`: `url`, `device`, `resume`, `baudrate`, ...; `sim`: `device`).
    Raises BackendError naming the backend when it is unknown, or an option the backend refuses.
    """
    return BACKENDS.open(backend, on_reading=on_reading, **options)


def check_card(text: str) -> str:
    """Return `text` when it is a card (`As`, `Td`); raise DeviceError naming it otherwise."""
    if not isinstance(text, str) or len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise DeviceError(f"not a card: {text!r}")
    return text


class SimCardReader:
    """The in-process twin of a card reader: the test (or a simulated dealer) calls `deal`,
    `misread`, `sensor`, `go_offline`; the same readings a real shoe gives reach `on_reading`,
    on the caller's thread, numbered like frames."""

    def __init__(self, on_reading: OnReading, device: str = "shoe", model: str = "SIM-SHOE",
                 serial: str = "SIM0001", firmware: str = "1.0.0", boot: int = 1,
                 resume: ResumePoint | None = None) -> None:
        self.device = device
        self._on_reading = on_reading
        self._online = DeviceOnline(device, model, serial, firmware, boot)
        self._seq = resume.seq if resume is not None and resume.boot == boot else 0
        self._started = False
        self._lock = threading.Lock()

    @property
    def driven(self) -> bool:
        """Never: the twin is driven by calls, not from a loop."""
        return False

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        self._started = True
        self._on_reading(self._online)
        return self._online

    def close(self) -> None:
        self._started = False

    def _next(self) -> int:
        if not self._started:
            raise DeviceError(f"{self.device}: not started")
        with self._lock:
            self._seq = (self._seq + 1) % 256
            return self._seq

    def deal(self, card: str, source: CardSource = "shoe") -> CardRead:
        """Read `card` as if it left the shoe (or passed the discard reader). Raises DeviceError."""
        if source not in SOURCES:
            raise DeviceError(f"not a card source: {source!r}")
        reading = CardRead(check_card(card), source, self._next())
        self._on_reading(reading)
        return reading

    def misread(self, source: CardSource = "shoe") -> Misread:
        """A card the reader could not read."""
        if source not in SOURCES:
            raise DeviceError(f"not a card source: {source!r}")
        reading = Misread(source, self._next())
        self._on_reading(reading)
        return reading

    def sensor(self, name: str, active: bool) -> None:
        """One of the shoe's own sensors changed (e.g. `empty`). Raises DeviceError for an unknown name."""
        self._on_reading(SensorChange(Sensor.parse(name), active, self._next()))

    def go_offline(self, reason: str = "simulated", kind: OfflineKind = OfflineKind.DEVICE_OFFLINE) -> None:
        self._on_reading(DeviceOffline(self.device, reason, kind))

    def go_online(self) -> None:
        self._on_reading(self._online)

    def fault(self, reason: str, kind: FaultKind = FaultKind.DEVICE_FAULT) -> None:
        self._on_reading(DeviceFault(self.device, reason, kind))
