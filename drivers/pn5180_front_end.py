"""The PN5180 itself: its host interface over SPI (commands, registers, the BUSY handshake) and an ISO 15693 Inventory.

Every host interface command follows the datasheet's BUSY handshake: wait for BUSY low, one SPI
frame (chip select held for the frame: Linux spidev does that per transfer), and, for a command
that answers, wait for BUSY low again and read the answer in a second frame. Register values are
4 bytes little endian. BUSY not low within `busy_timeout_s`, or the EEPROM read as 0xFF (no front
end on the bus), is `DeviceNotResponding` (the reader, drivers/pn5180.py, resets the
front end then).

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
import time
from collections.abc import Callable

from drivers.errors import DeviceError, DeviceNotResponding, FrameError
from drivers.iso15693 import (
    MAX_ROUNDS, POWER_UP_S, SLOTS, Anticollision, Scan, inventory_request, request_air_s, uid_text,
)

__all__ = ["Command", "ExternalField", "Pn5180", "Register", "Transfer"]

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
