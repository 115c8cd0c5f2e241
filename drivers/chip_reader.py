"""Chip readers (RFID antennas under each betting circle and the tray): interface, backends by name, the in-process twin.

A chip reader reports `ChipsRead` (an antenna's debounced chips and whether they are stable) and
`DeviceOnline` / `DeviceOffline` / `DeviceFault` to the `on_reading` callback it was opened with.
Backends register by name; `open_chip_reader(backend, ...)` picks one from configuration:

- `serial`: the reader board on a serial line (a device path, a pty or `socket://`, e.g. the
  emulated board `croupier sim-chips`): `drivers.chip_link.ChipLink`, imported when chosen (the
  protocol beside it: drivers/chip_protocol.py);
- `pn5180`: an NXP PN5180 ISO 15693 front end on the Pi's SPI, the antennas taken in turn through a
  GPIO multiplexer: `drivers.pn5180.Pn5180Reader`, imported when chosen (its emulator:
  sim/pn5180.py);
- `sim`: an in-process twin for unit tests: the test calls `scan(antenna, uids)` for each
  inventory and `poll()`, and the same debounce (drivers/chip_debounce.py) turns them into readings,
  on the caller's thread, with the clock the test gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from drivers.chip_debounce import CONFIRM, SETTLE_S, AntennaDebounce
from drivers.chip_protocol import check_antenna, check_uid
from drivers.errors import DeviceError, FrameError
from drivers.readings import (
    ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, OnReading,
)
from drivers.registry import Registry

__all__ = ["BACKENDS", "ChipReader", "SimChipReader", "open_chip_reader"]


class ChipReader(Protocol):
    """What every chip reader backend offers. Readings go to the `on_reading` given when opened."""

    device: str

    @property
    def driven(self) -> bool:
        """Served from the caller's event loop (`fileno()`, `pump()`) rather than a thread of its own."""
        ...

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        """Connect and identify the reader. Returns its DeviceOnline, or None when it has not answered
        within `timeout` (it keeps trying, and posts DeviceOnline when it does). Raises
        UnsupportedDevice when the reader is one we refuse to run."""
        ...

    def close(self) -> None:
        """Stop reading and release the port. Idempotent."""
        ...


BACKENDS: Registry[ChipReader] = Registry("chip reader", {
    "sim": "drivers.chip_reader:SimChipReader",
    "serial": "drivers.chip_link:ChipLink",
    "pn5180": "drivers.pn5180:Pn5180Reader",
})


def open_chip_reader(backend: str, on_reading: OnReading, **options: object) -> ChipReader:
    """Build (not start) a chip reader from configuration.

    Options go to the backend (`serial`: `url`, `device`, `baudrate`, `confirm`, `settle_s`,
    `silence_s`, ...; `pn5180`: `antennas`, `spi`, `busy_pin`, `reset_pin`, `mux_pins`, `pin_factory`,
    `device`, `confirm`, `settle_s`, ...; `sim`: `antennas`, `device`, `confirm`, `settle_s`, `clock`). Raises
    BackendError naming the backend when it is unknown, or an option the backend refuses.
    """
    return BACKENDS.open(backend, on_reading=on_reading, **options)


class SimChipReader:
    """The in-process twin of a chip reader: `scan` one antenna's inventory (as a board's scan would
    read it), `poll` for the stable flags, `go_offline`, `go_online`, `fault`."""

    def __init__(self, on_reading: OnReading, antennas: Iterable[str] = ("tray",), device: str = "chips",
                 confirm: int = CONFIRM, settle_s: float = SETTLE_S, clock: Callable[[], float] = time.monotonic,
                 model: str = "SIM-CHIPS", serial: str = "SIM0001", firmware: str = "1.0.0", boot: int = 1) -> None:
        self.device = device
        self._on_reading = on_reading
        self._clock = clock
        self._online = DeviceOnline(device, model, serial, firmware, boot)
        try:
            self.antennas = {name: AntennaDebounce(check_antenna(name), confirm, settle_s, device)
                             for name in antennas}
        except FrameError as exc:
            raise DeviceError(str(exc)) from None
        self._started = False

    @property
    def driven(self) -> bool:
        """Never: the twin is driven by calls."""
        return False

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        self._started = True
        self._on_reading(self._online)
        return self._online

    def close(self) -> None:
        self._started = False

    def scan(self, antenna: str, uids: Iterable[str]) -> ChipsRead | None:
        """One inventory of `antenna`; returns (and reports) the reading it changes, if any.
        Raises DeviceError for an antenna the reader has not, a UID that is not one, or before `start`."""
        if not self._started:
            raise DeviceError(f"{self.device}: not started")
        debounce = self.antennas.get(antenna)
        if debounce is None:
            raise DeviceError(f"{self.device}: no antenna {antenna!r} (antennas: {', '.join(self.antennas)})")
        try:
            read = [check_uid(uid) for uid in uids]
        except FrameError as exc:
            raise DeviceError(str(exc)) from None
        reading = debounce.inventory(read, self._clock())
        if reading is not None:
            self._on_reading(reading)
        return reading

    def poll(self) -> list[ChipsRead]:
        """Report the stable flags now due."""
        now = self._clock()
        due = [r for d in self.antennas.values() if (r := d.poll(now)) is not None]
        for reading in due:
            self._on_reading(reading)
        return due

    def go_offline(self, reason: str = "simulated", kind: OfflineKind = OfflineKind.DEVICE_OFFLINE) -> None:
        self._on_reading(DeviceOffline(self.device, reason, kind))

    def go_online(self) -> None:
        for debounce in self.antennas.values():
            debounce.reconnected()
        self._on_reading(self._online)

    def fault(self, reason: str, kind: FaultKind = FaultKind.DEVICE_FAULT) -> None:
        self._on_reading(DeviceFault(self.device, reason, kind))
