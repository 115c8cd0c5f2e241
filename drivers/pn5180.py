"""The `pn5180` chip reader backend: an NXP PN5180 ISO 15693 front end on the Pi's SPI, the table's antennas taken in turn through a GPIO multiplexer.

One PN5180 serves N antennas: an RF multiplexer (an analogue switch whose select lines are GPIO
outputs, channel number in binary, lowest line first) puts one antenna on the front end at a time.
Each pass, for each antenna in turn (`Pn5180Reader.turn`):

1. select its channel on the mux lines;
2. LOAD_RF_CONFIG 0x0D/0x8D (ISO 15693, ASK 100 %, 26 kbit/s both ways), RF_ON;
3. an ISO 15693 Inventory with 16 slots (`Pn5180.inventory`): the request (flags 0x06, command
   0x01, mask length, mask) opens slot 0; each next slot is opened by an EOF alone (TX_CONFIG's
   data and start symbol bits cleared, SEND_DATA with no byte). Each slot's RX_STATUS says nothing
   came, one chip's answer (flags, DSFID, its UID least significant byte first), a collision, or
   an answer garbled (data integrity or protocol error). A slot in collision or garbled (two chips
   of a stack answering at once show as either) is inventoried again with the mask one nibble
   longer, as ISO/IEC 15693-3's anticollision does, until none is left or a budget is spent: the
   rounds are drivers/iso15693.py `Anticollision`'s, drivers/pn5180_front_end.py the PN5180's registers;
4. RF_OFF; the UIDs (16 hex digits, most significant byte first: `E004...`) go to the antenna's
   debounce (drivers/chip_debounce.py AntennaDebounce), which reports ChipsRead as the serial
   backend's does.

The front end itself, its host interface and its Inventory, is drivers/pn5180_front_end.py; the SPI bus,
drivers/spidev.py. A front end not answering (`DeviceNotResponding`): the reader posts DeviceOffline and
resets the front end (RST low, high, IDLE_IRQ awaited) every `retry_s` until it answers, then posts DeviceOnline and the
debounce restates each antenna's chips once K scans confirm them. An antenna whose collisions are
not resolved within the budget (drivers/iso15693.py: 256 rounds, or a round of noise), or on which
another reader's field kept RF_ON from switching ours on (collision avoidance is kept), is not
given a partial inventory (the chips not read would be taken as removed): its scan is skipped and
one DeviceFault names it while it lasts. What was and was not tested:
docs/protocol.md, "A commodity reader: the PN5180".
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.chip_debounce import CONFIRM, SETTLE_S, SCANS, AntennaDebounce
from drivers.chip_protocol import check_antenna
from drivers.errors import BackendError, DeviceError, DeviceNotResponding, FrameError
from drivers.iso15693 import MAX_ROUNDS, Scan
from drivers.pn5180_front_end import BUSY_TIMEOUT_S, IDLE_IRQ, SLOT_S, ExternalField, Pn5180, Transfer
from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, OnReading
from drivers.spidev import SPEED_HZ, SpiDev

__all__ = ["Pn5180Reader"]

log = logging.getLogger(__name__)

PERIOD_S = 0.1
RETRY_S = 1.0
MODEL = "PN5180"


# -- the backend ---------------------------------------------------------------------------------------

@dataclass
class Pn5180Stats:
    """What the reader saw, for logs and health displays."""

    passes: int = 0
    scans: int = 0
    rounds: int = 0
    collisions: int = 0
    rx_errors: int = 0
    incomplete: int = 0   # scans skipped: collisions not resolved within the budget
    fields: int = 0       # scans skipped: another reader's field on the antenna
    resets: int = 0
    errors: int = 0       # passes broken by an unexpected error (logged)


@dataclass
class _Antenna:
    name: str
    channel: int
    debounce: AntennaDebounce
    scan: int = 0
    fault: str = ""  # a standing fault's kind ("collisions", "field"), said once while it lasts
    lines: tuple[bool, ...] = ()  # the mux lines' levels that select it, lowest line first


class Pn5180Reader:
    """The `pn5180` chip reader backend (drivers/chip_reader.py): one PN5180 on `spi` (a spidev path; or
    `transfer`, a function doing the SPI frames, e.g. the emulator's `sim.pn5180.Pn5180Emulator.transfer`),
    BUSY on `busy_pin`, RST on `reset_pin`, the mux's select lines on `mux_pins` (BCM), `antennas` the
    antennas' names in channel order (channel 0 first). Readings go to `on_reading` from the reader's
    thread, or from whoever calls `turn()` when built with `thread=False` (tests, with a fake `clock`
    whose `sleep` advances it)."""

    def __init__(self, on_reading: OnReading, antennas: Sequence[str], spi: str = "/dev/spidev0.0",
                 busy_pin: int = 16, reset_pin: int = 12, mux_pins: Sequence[int] = (), device: str = "chips",
                 confirm: int = CONFIRM, settle_s: float = SETTLE_S, period_s: float = PERIOD_S,
                 retry_s: float = RETRY_S, pin_factory: Any = None, transfer: Transfer | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 speed_hz: int = SPEED_HZ, thread: bool = True, busy_timeout_s: float = BUSY_TIMEOUT_S,
                 slot_s: float = SLOT_S, max_rounds: int = MAX_ROUNDS) -> None:
        """Raises BackendError naming the option at fault (`antennas`, `mux_pins`, `spi`, a pin)."""
        if pin_factory is None:
            raise BackendError(f"{device}: a pin factory must be given (none is taken from the environment)")
        names = list(antennas)
        if not names:
            raise BackendError(f"{device}: no antenna named", option="antennas")
        try:
            for name in names:
                check_antenna(name)
        except FrameError as exc:
            raise BackendError(str(exc), option="antennas") from None
        if len(set(names)) != len(names):
            raise BackendError("an antenna named twice", option="antennas")
        if len(names) > 1 << len(mux_pins):
            raise BackendError(f"{len(mux_pins)} mux lines select at most {1 << len(mux_pins)} antennas, "
                               f"not {len(names)}", option="mux_pins")
        self.device = device
        self.stats = Pn5180Stats()
        self._on_reading = on_reading
        self._clock = clock
        self._sleep = sleep
        self.period_s = period_s
        self.max_rounds = max_rounds
        self.retry_s = retry_s
        self.antennas = [_Antenna(name, channel, AntennaDebounce(name, confirm, settle_s, device), lines=lines)
                         for (channel, name), lines in zip(enumerate(names), antenna_lines(len(names), len(mux_pins)))]
        self._pins: list[Any] = []
        self._spi: SpiDev | None = None
        self._open_pins(pin_factory, busy_pin, reset_pin, mux_pins)
        if transfer is None:
            try:
                self._spi = SpiDev(spi, speed_hz)
            except BackendError:
                self._close_pins()
                raise
            transfer = self._spi.transfer
        self.front_end = Pn5180(transfer, lambda: bool(self._busy.value), clock, sleep, busy_timeout_s, slot_s)
        self.online: DeviceOnline | None = None
        self._boot = 0
        self._said_offline = False
        self._next_try = 0.0
        self._threaded = thread
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _open_pins(self, factory: Any, busy_pin: int, reset_pin: int, mux_pins: Sequence[int]) -> None:
        from gpiozero import DigitalInputDevice, DigitalOutputDevice

        pins = [busy_pin, reset_pin, *mux_pins]
        if len(set(pins)) != len(pins):
            raise BackendError(f"a pin used twice among BUSY, RST and the mux lines: {pins}", option="mux_pins")
        try:
            self._busy = DigitalInputDevice(busy_pin, pull_up=False, pin_factory=factory)
            self._pins.append(self._busy)
            self._reset = DigitalOutputDevice(reset_pin, initial_value=True, pin_factory=factory)  # RST is low-active
            self._pins.append(self._reset)
            self._mux = [DigitalOutputDevice(pin, initial_value=False, pin_factory=factory) for pin in mux_pins]
            self._pins.extend(self._mux)
        except Exception as exc:
            self._close_pins()
            raise BackendError(f"{self.device}: GPIO: {exc}", option="busy_pin") from exc

    @property
    def driven(self) -> bool:
        """Never: the SPI transfers block, so the reader runs on a thread of its own."""
        return False

    def start(self, timeout: float = 3.0, *, driven: bool = False) -> DeviceOnline | None:
        """Reset and identify the front end. Returns its DeviceOnline, or None when it does not answer
        (DeviceOffline is posted; it is tried again every `retry_s`). Starts the reader's thread."""
        self._connect()
        if self._threaded and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"{self.device}-pn5180", daemon=True)
            self._thread.start()
        return self.online

    def close(self) -> None:
        """Stop the thread, switch the field off, release the pins and the SPI device. Idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        self._thread = None
        if self.online is not None:
            try:
                self.front_end.rf_off()
            except DeviceError:
                pass
            self.online = None
        self._close_pins()
        if self._spi is not None:
            self._spi.close()
            self._spi = None

    def _close_pins(self) -> None:
        for pin in reversed(self._pins):
            pin.close()
        self._pins.clear()

    def _run(self) -> None:
        due = self._clock()
        while not self._stop.is_set():
            self.turn()
            due = max(due + self.period_s, self._clock())
            self._stop.wait(max(0.0, due - self._clock()))

    def turn(self) -> None:
        """One pass: every antenna scanned in turn and its readings posted, then the stable flags due; while
        the front end is away, a reset and identification every `retry_s`. Never raises: an unexpected
        error is logged and counted, and the pass ends."""
        try:
            if self.online is None:
                if self._clock() >= self._next_try:
                    self._connect()
                return
            self.stats.passes += 1
            for antenna in self.antennas:
                self._scan(antenna)
            now = self._clock()
            for antenna in self.antennas:
                reading = antenna.debounce.poll(now)
                if reading is not None:
                    self._on_reading(reading)
        except DeviceNotResponding as exc:
            self._lost(str(exc))
        except Exception:  # the loop goes on: a failing handler or a bug must not stop the reads
            self.stats.errors += 1
            log.exception("%s: a pass of the PN5180 failed", self.device)

    def _connect(self) -> None:
        try:
            self._reset_front_end()
            firmware, serial = self.front_end.identify()
        except DeviceNotResponding as exc:
            self._lost(str(exc))
            return
        self._boot += 1
        for antenna in self.antennas:
            antenna.debounce.reconnected()
        self.online = DeviceOnline(self.device, MODEL, serial, firmware, self._boot)
        self._said_offline = False
        self._on_reading(self.online)

    def _reset_front_end(self) -> None:
        self.stats.resets += 1
        self._reset.off()
        self._sleep(0.001)   # RST low at least 10 us
        self._reset.on()
        self._sleep(0.003)   # 2 ms to boot
        self.front_end.wait_irq(IDLE_IRQ, "start-up")
        self.front_end.clear_irqs()

    def _lost(self, reason: str) -> None:
        self._next_try = self._clock() + self.retry_s
        if not self._said_offline:  # once a loss (or a start with no front end answering)
            self._said_offline = True
            self._on_reading(DeviceOffline(self.device, reason, OfflineKind.DEVICE_OFFLINE))
        self.online = None

    def _inventory(self, antenna: _Antenna) -> Scan:
        """Antenna `antenna`'s channel selected, the field on, one inventory, the field off."""
        for line, high in zip(self._mux, antenna.lines):
            line.value = high
        self.front_end.rf_field(True)
        try:
            return self.front_end.inventory(self.max_rounds)
        finally:
            self.front_end.rf_field(False)

    def _scan(self, antenna: _Antenna) -> None:
        try:
            scan = self._inventory(antenna)
        except ExternalField as exc:
            self.stats.fields += 1
            self._skip(antenna, "field", str(exc))
            return
        self.stats.scans += 1
        self.stats.rounds += scan.rounds
        self.stats.collisions += scan.collisions
        self.stats.rx_errors += scan.rx_errors
        if not scan.complete:
            self.stats.incomplete += 1
            self._skip(antenna, "collisions", f"collisions not resolved in {scan.rounds} inventory rounds")
            return
        antenna.fault = ""
        antenna.scan = (antenna.scan + 1) % SCANS
        reading = antenna.debounce.inventory(scan.uids, self._clock(), antenna.scan)
        if reading is not None:
            self._on_reading(reading)

    def _skip(self, antenna: _Antenna, fault: str, reason: str) -> None:
        """A scan not taken: a part said as the whole would tell the controller the chips not read were taken
        away. Its number is skipped too, so the debounce's runs start again. One DeviceFault while it lasts."""
        antenna.scan = (antenna.scan + 1) % SCANS
        if antenna.fault != fault:
            antenna.fault = fault
            self._on_reading(DeviceFault(self.device, f"{antenna.name}: {reason}", FaultKind.DEVICE_FAULT))

    def scan(self, name: str) -> Scan:
        """One inventory of antenna `name`, outside the debounce (for a technician's check). Raises
        DeviceError for an antenna the reader has not, DeviceNotResponding when the front end is away."""
        antenna = next((a for a in self.antennas if a.name == name), None)
        if antenna is None:
            raise DeviceError(f"{self.device}: no antenna {name!r}")
        return self._inventory(antenna)


def antenna_lines(channels: int, lines: int) -> Iterable[tuple[bool, ...]]:
    """The mux lines' levels for each channel, lowest line first.

    >>> list(antenna_lines(3, 2))
    [(False, False), (True, False), (False, True)]
    """
    return (tuple(bool(channel >> bit & 1) for bit in range(lines)) for channel in range(channels))
