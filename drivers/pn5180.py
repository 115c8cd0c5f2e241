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
   rounds are drivers/iso15693.py `Anticollision`'s, this module is the PN5180's registers;
4. RF_OFF; the UIDs (16 hex digits, most significant byte first: `E004...`) go to the antenna's
   debounce (drivers/chip_debounce.py AntennaDebounce), which reports ChipsRead as the serial
   backend's does.

Every host interface command follows the datasheet's BUSY handshake: wait for BUSY low, one SPI
frame (chip select held for the frame: Linux spidev does that per transfer), and, for a command
that answers, wait for BUSY low again and read the answer in a second frame. Register values are
4 bytes little endian. BUSY not low within `busy_timeout_s`, or the EEPROM read as 0xFF (no front
end on the bus), is `DeviceNotResponding`: the reader posts DeviceOffline and resets the front end
(RST low, high, IDLE_IRQ awaited) every `retry_s` until it answers, then posts DeviceOnline and the
debounce restates each antenna's chips once K scans confirm them. An antenna whose collisions are
not resolved within the budget (drivers/iso15693.py: 256 rounds, or a round of noise), or on which
another reader's field kept RF_ON from switching ours on (collision avoidance is kept), is not
given a partial inventory (the chips not read would be taken as removed): its scan is skipped and
one DeviceFault names it while it lasts.

The host interface (commands WRITE_REGISTER 0x00, WRITE_REGISTER_OR_MASK 0x01,
WRITE_REGISTER_AND_MASK 0x02, READ_REGISTER 0x04, READ_EEPROM 0x07, SEND_DATA 0x09, READ_DATA 0x0A,
LOAD_RF_CONFIG 0x11, RF_ON 0x16, RF_OFF 0x17; the registers and bits below) is the one in NXP's
public PN5180 datasheet (PN5180A0XX-C1/C2/C3/C4, section 11.4 "Host interface"). The sequences
were checked against the open libraries that drive it: ATrappmann/PN5180-Library (LGPL-2.1,
`PN5180.cpp`: the BUSY handshake, `PN5180ISO15693.cpp`: the RF set-up and a one-slot inventory)
and its ESP-IDF fork by Dirk Carstensen (`iso15693Poll`: 16 slots, EOF-only slot changes, the
mask extended on collision). No code was taken from them. What was and was not tested:
docs/protocol.md, "A commodity reader: the PN5180".
"""

from __future__ import annotations

import enum
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.chip_debounce import CONFIRM, SETTLE_S, SCANS, AntennaDebounce
from drivers.chip_protocol import check_antenna
from drivers.errors import BackendError, DeviceError, DeviceNotResponding, FrameError
from drivers.iso15693 import (
    MAX_ROUNDS, POWER_UP_S, SLOTS, Anticollision, Scan, inventory_request, request_air_s, uid_text,
)
from drivers.readings import DeviceFault, DeviceOffline, DeviceOnline, FaultKind, OfflineKind, OnReading

__all__ = ["Command", "ExternalField", "Pn5180", "Pn5180Reader", "Register", "SpiDev"]

log = logging.getLogger(__name__)

Transfer = Callable[[bytes], bytes]
"""One full-duplex SPI frame: the bytes sent out (MOSI), the same number read back (MISO)."""


class ExternalField(DeviceError):
    """RF_ON refused: another reader's field is on the antenna (the front end itself answers)."""


class Command(enum.IntEnum):
    """The host interface's commands used here (the datasheet's 11.4.3.3)."""

    WRITE_REGISTER = 0x00
    WRITE_REGISTER_OR_MASK = 0x01
    WRITE_REGISTER_AND_MASK = 0x02
    READ_REGISTER = 0x04
    READ_EEPROM = 0x07
    SEND_DATA = 0x09
    READ_DATA = 0x0A
    LOAD_RF_CONFIG = 0x11
    RF_ON = 0x16
    RF_OFF = 0x17


class Register(enum.IntEnum):
    """The registers used here (the datasheet's 11.5)."""

    SYSTEM_CONFIG = 0x00
    IRQ_STATUS = 0x02
    IRQ_CLEAR = 0x03
    RX_STATUS = 0x13
    TX_CONFIG = 0x18
    RF_STATUS = 0x1D


# IRQ_STATUS bits
RX_IRQ = 1 << 0
TX_IRQ = 1 << 1
IDLE_IRQ = 1 << 2
RFON_DET_IRQ = 1 << 7                 # an external field detected
TX_RFOFF_IRQ = 1 << 8
TX_RFON_IRQ = 1 << 9
RF_ACTIVE_ERROR_IRQ = 1 << 10         # RF_ON refused: collision avoidance found a field there already
EXTERNAL_FIELD_IRQS = RFON_DET_IRQ | RF_ACTIVE_ERROR_IRQ
RX_SOF_DET_IRQ = 1 << 14
GENERAL_ERROR_IRQ = 1 << 17
ALL_IRQS = 0x000FFFFF
# RX_STATUS fields
RX_BYTES = 0x1FF                      # RX_NUM_BYTES_RECEIVED
RX_DATA_INTEGRITY_ERROR = 1 << 16     # the CRC did not match
RX_PROTOCOL_ERROR = 1 << 17
RX_COLLISION_DETECTED = 1 << 18
# SYSTEM_CONFIG's COMMAND field (bits 0-2): 0 idle/StopCom, 3 transceive
COMMAND_IDLE_MASK = 0xFFFFFFF8
COMMAND_TRANSCEIVE = 0x00000003
RF_ON_NO_COLLISION_AVOIDANCE = 0x01   # RF_ON's parameter bit 0 (not used: see Pn5180.rf_on)
TX_EOF_ONLY_MASK = 0xFFFFFB3F         # TX_CONFIG: no start symbol, no data: SEND_DATA sends an EOF alone
# LOAD_RF_CONFIG: ISO 15693, ASK 100 %, 26 kbit/s (transmitter 0x0D, receiver 0x8D)
ISO15693_TX, ISO15693_RX = 0x0D, 0x8D
# EEPROM addresses
DIE_IDENTIFIER, PRODUCT_VERSION, FIRMWARE_VERSION = 0x00, 0x10, 0x12
SLOT_S = 0.005
"""A slot's wait after its EOF (the EOF, t1, an Inventory answer: ~4.3 ms); slot 0's adds the request's `request_air_s`."""
BUSY_TIMEOUT_S = 0.05
PERIOD_S = 0.1
RETRY_S = 1.0
MODEL = "PN5180"


class Pn5180:
    """The PN5180's host interface over a `transfer` function, BUSY read by `busy()` (True when high).

    `clock` and `sleep` are the time (tests give a fake clock whose sleep advances it). Every command
    raises DeviceNotResponding when BUSY stays high past `busy_timeout_s`.
    """

    def __init__(self, transfer: Transfer, busy: Callable[[], bool], clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, busy_timeout_s: float = BUSY_TIMEOUT_S,
                 slot_s: float = SLOT_S) -> None:
        self._transfer = transfer
        self._busy = busy
        self._clock = clock
        self._sleep = sleep
        self.busy_timeout_s = busy_timeout_s
        self.slot_s = slot_s

    # -- the host interface ----------------------------------------------------------------------

    def _ready(self) -> None:
        deadline = self._clock() + self.busy_timeout_s
        while self._busy():
            if self._clock() >= deadline:
                raise DeviceNotResponding(f"front end not answering: BUSY high for {self.busy_timeout_s * 1000:g} ms")
            self._sleep(0.0001)

    def _frame(self, data: bytes) -> bytes:
        try:
            return self._transfer(data)
        except OSError as exc:  # the spidev gone (unbound, its controller failed): the reader is lost
            raise DeviceNotResponding(f"SPI transfer failed: {exc.strerror or exc}") from None

    def command(self, frame: bytes, answer: int = 0) -> bytes:
        """One host interface command; for one that answers, its `answer` bytes read in a second frame.
        Raises DeviceNotResponding (BUSY stuck, the SPI transfer failed, a short answer)."""
        self._ready()
        self._frame(frame)
        if not answer:
            return b""
        self._ready()
        reply = self._frame(b"\xff" * answer)
        if len(reply) != answer:
            raise DeviceNotResponding(f"front end answered {len(reply)} bytes, not {answer}")
        return reply

    def write_register(self, register: int, value: int) -> None:
        self.command(bytes([Command.WRITE_REGISTER, register]) + value.to_bytes(4, "little"))

    def or_mask(self, register: int, mask: int) -> None:
        self.command(bytes([Command.WRITE_REGISTER_OR_MASK, register]) + mask.to_bytes(4, "little"))

    def and_mask(self, register: int, mask: int) -> None:
        self.command(bytes([Command.WRITE_REGISTER_AND_MASK, register]) + mask.to_bytes(4, "little"))

    def read_register(self, register: int) -> int:
        return int.from_bytes(self.command(bytes([Command.READ_REGISTER, register]), 4), "little")

    def read_eeprom(self, address: int, length: int) -> bytes:
        return self.command(bytes([Command.READ_EEPROM, address, length]), length)

    def load_rf_config(self, tx: int, rx: int) -> None:
        self.command(bytes([Command.LOAD_RF_CONFIG, tx, rx]))

    def rf_on(self) -> None:
        """The field on, collision avoidance kept (the parameter's bit 0 clear): never over another reader's."""
        self.command(bytes([Command.RF_ON, 0x00]))

    def rf_off(self) -> None:
        self.command(bytes([Command.RF_OFF, 0x00]))

    def transceive(self) -> None:
        """SYSTEM_CONFIG's command to idle, then to transceive: the transceiver waits to transmit."""
        self.and_mask(Register.SYSTEM_CONFIG, COMMAND_IDLE_MASK)
        self.or_mask(Register.SYSTEM_CONFIG, COMMAND_TRANSCEIVE)

    def send_data(self, data: bytes, last_bits: int = 0) -> None:
        self.command(bytes([Command.SEND_DATA, last_bits]) + data)

    def read_data(self, length: int) -> bytes:
        return self.command(bytes([Command.READ_DATA, 0x00]), length)

    def clear_irqs(self, mask: int = ALL_IRQS) -> None:
        self.write_register(Register.IRQ_CLEAR, mask)

    def irq_status(self) -> int:
        """IRQ_STATUS. Its bits 20 to 31 are reserved and read 0: set, MISO floats high (a board unplugged or
        unpowered, BUSY pulled low), which would read as every slot in collision. Raises DeviceNotResponding."""
        irq = self.read_register(Register.IRQ_STATUS)
        if irq & ~ALL_IRQS:
            raise DeviceNotResponding(f"no PN5180 answering on the SPI bus (IRQ_STATUS reads 0x{irq:08X})")
        return irq

    # -- what the reader does with it -------------------------------------------------------------

    def wait_irq(self, bits: int, what: str) -> int:
        """Wait for one of IRQ_STATUS's `bits` (as long as BUSY may last): IRQ_STATUS. Raises DeviceNotResponding."""
        deadline = self._clock() + self.busy_timeout_s
        while not (irq := self.irq_status()) & bits:
            if self._clock() >= deadline:
                raise DeviceNotResponding(f"front end not answering: {what} not signalled")
            self._sleep(0.0005)
        return irq

    def identify(self) -> tuple[str, str]:
        """The front end's firmware version and die identifier (its serial), from its EEPROM.
        Raises DeviceNotResponding when nothing answers (every byte 0xFF: no PN5180 on the bus)."""
        product = self.read_eeprom(PRODUCT_VERSION, 2)
        firmware = self.read_eeprom(FIRMWARE_VERSION, 2)
        die = self.read_eeprom(DIE_IDENTIFIER, 16)
        if product == b"\xff\xff" or firmware == b"\xff\xff":
            raise DeviceNotResponding("no PN5180 on the SPI bus (its EEPROM reads 0xFF)")
        return f"{firmware[1]}.{firmware[0]}", die.hex().upper()

    def rf_field(self, on: bool) -> None:
        """The ISO 15693 configuration loaded and the field switched on, or the field switched off."""
        if on:
            self.load_rf_config(ISO15693_TX, ISO15693_RX)
            self.clear_irqs(TX_RFON_IRQ | EXTERNAL_FIELD_IRQS)
            self.rf_on()
            if not self.wait_irq(TX_RFON_IRQ | EXTERNAL_FIELD_IRQS, "RF on") & TX_RFON_IRQ:
                self.clear_irqs(EXTERNAL_FIELD_IRQS)
                raise ExternalField("another reader's field is on this antenna: the PN5180 kept its own off")
            self._sleep(POWER_UP_S)  # the chips powered up before the first request
        else:
            self.rf_off()
            self.clear_irqs(TX_RFOFF_IRQ)

    def inventory(self, max_rounds: int = MAX_ROUNDS) -> Scan:
        """An ISO 15693 Inventory of the chips in the field (which must be on), 16 slots a round, the rounds
        those drivers.iso15693.Anticollision asks for. Raises DeviceNotResponding."""
        tx_config = self.read_register(Register.TX_CONFIG)  # as LOAD_RF_CONFIG left it: restored each round
        rounds = Anticollision(max_rounds)
        while (asked := rounds.next_round()) is not None:
            self.write_register(Register.TX_CONFIG, tx_config)
            for slot in range(SLOTS):
                rx_status, irq = self._slot(slot, *asked)
                if irq & GENERAL_ERROR_IRQ:  # nothing went out: the slots' silence says nothing of the chips
                    raise DeviceNotResponding("front end error in an inventory (GENERAL_ERROR_IRQ)")
                if rx_status & RX_COLLISION_DETECTED:
                    rounds.collision(slot)
                elif not irq & RX_IRQ or not rx_status & RX_BYTES:
                    continue  # no chip in this slot
                elif rx_status & (RX_DATA_INTEGRITY_ERROR | RX_PROTOCOL_ERROR):
                    rounds.garbled(slot)  # two chips answering at once, as often as one garbled answer
                else:
                    try:
                        rounds.answer(uid_text(self.read_data(rx_status & RX_BYTES)))
                    except FrameError:
                        rounds.garbled(slot)
        return rounds.scan()

    def _slot(self, slot: int, mask: int, bits: int) -> tuple[int, int]:
        """Slot `slot` opened (slot 0 by the request, each next by an EOF alone) and waited for: its
        RX_STATUS and IRQ_STATUS."""
        self.clear_irqs()
        self.transceive()
        if slot == 0:
            request = inventory_request(mask, bits)
            self.send_data(request)
            self._sleep(request_air_s(len(request)) + self.slot_s)
        else:
            self.and_mask(Register.TX_CONFIG, TX_EOF_ONLY_MASK)
            self.send_data(b"")
            self._sleep(self.slot_s)
        return self.read_register(Register.RX_STATUS), self.irq_status()


# -- Linux spidev -------------------------------------------------------------------------------------

def _iow(kind: str, number: int, size: int) -> int:
    """An ioctl request number that writes `size` bytes (Linux's _IOW)."""
    return (1 << 30) | (size << 16) | (ord(kind) << 8) | number


SPI_TRANSFER = struct.Struct("<QQIIHBBBBBB")
"""struct spi_ioc_transfer (linux/spi/spidev.h): tx_buf, rx_buf, len, speed_hz, delay_usecs, bits_per_word,
cs_change, tx_nbits, rx_nbits, word_delay_usecs, pad: 32 bytes."""
SPI_IOC_MESSAGE_1 = _iow("k", 0, SPI_TRANSFER.size)
SPI_IOC_WR_MODE = _iow("k", 1, 1)
SPI_IOC_WR_BITS_PER_WORD = _iow("k", 3, 1)
SPI_IOC_WR_MAX_SPEED_HZ = _iow("k", 4, 4)
SPEED_HZ = 7_000_000
"""The PN5180's SPI at most (7 Mbit/s, mode 0: CPOL 0, CPHA 0, most significant bit first)."""


class SpiDev:
    """A Linux spidev device (`/dev/spidevB.C`), mode 0, 8 bits a word, one frame a `transfer`
    (chip select held for the frame). Raises BackendError (option `spi`) when it cannot be opened."""

    def __init__(self, path: str, speed_hz: int = SPEED_HZ) -> None:
        import fcntl

        self._fcntl = fcntl
        self.speed_hz = speed_hz
        try:
            self._fd = os.open(path, os.O_RDWR)
        except OSError as exc:
            raise BackendError(f"cannot open {path}: {exc.strerror}", option="spi") from None
        try:
            fcntl.ioctl(self._fd, SPI_IOC_WR_MODE, struct.pack("B", 0))
            fcntl.ioctl(self._fd, SPI_IOC_WR_BITS_PER_WORD, struct.pack("B", 8))
            fcntl.ioctl(self._fd, SPI_IOC_WR_MAX_SPEED_HZ, struct.pack("<I", speed_hz))
        except OSError as exc:
            os.close(self._fd)
            raise BackendError(f"{path} is not an SPI device: {exc.strerror}", option="spi") from None

    def transfer(self, data: bytes) -> bytes:
        import ctypes

        tx = ctypes.create_string_buffer(bytes(data), len(data))
        rx = ctypes.create_string_buffer(len(data))
        message = SPI_TRANSFER.pack(ctypes.addressof(tx), ctypes.addressof(rx), len(data), self.speed_hz,
                                    0, 8, 0, 0, 0, 0, 0)
        self._fcntl.ioctl(self._fd, SPI_IOC_MESSAGE_1, message)
        return rx.raw

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


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
