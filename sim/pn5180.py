"""The emulated PN5180: its host interface answered at the SPI frame level, its BUSY, RST and mux lines on gpiozero's mock pins, chips on its antennas.

`Pn5180Emulator.transfer` is the `transfer` the `pn5180` backend (drivers/pn5180.py) is given in
place of a spidev: every frame the backend sends is decoded as the datasheet's host interface and
answered as the front end would, so the backend's tests run its real code path. It is strict where
a real PN5180 would fail quietly, so a backend that forgets a step reads nothing:

- a command answers only in the frame after it (READ_REGISTER, READ_EEPROM, READ_DATA);
- SEND_DATA transmits only with the field on, the ISO 15693 configuration loaded (LOAD_RF_CONFIG
  0x0D/0x8D) and the transceiver newly set to transceive (SYSTEM_CONFIG's command set to idle, then
  to 3); otherwise GENERAL_ERROR_IRQ;
- an Inventory request (16 slots, or 1) opens slot 0; an EOF alone (SEND_DATA of no byte, with
  TX_CONFIG's data bits cleared) opens the next; each slot's RX_STATUS and IRQ_STATUS say silence,
  one answer (flags, DSFID, UID least significant byte first) or a collision: two chips or more in
  one slot set the collision bit or, `garbled_collisions` of the time (a half by default), show as
  one answer failing its CRC;
- the antenna is the one the mux lines select as the inventory starts (read off the mock pins:
  channel = the lines' levels in binary, lowest line first);
- a pulse on RST (read off the RST pin's recorded states) restarts it: registers cleared,
  IDLE_IRQ set.

Each chip answers an inventory unless missed, by `sim.chips.board.miss_chance` of its height in its
stack (the emulated board's rule, `miss_rate` the same default). Faults: `stick_busy()` (BUSY held
high: the front end hung), `garble(n)` (the next n answers fail their CRC: RX_DATA_INTEGRITY_ERROR),
`storm(antenna)` (every slot of that antenna collides, chips or none: interference, a broken tag;
`garbled=True`: every slot fails its CRC, a receiver that hears only noise), `neighbour(antenna)`
(another reader's field there: RF_ON with collision avoidance leaves the field off),
`unplug(miso)` (the board gone: MISO floats high or low, BUSY pulled low), `refuse_transmit()` (every
SEND_DATA answered GENERAL_ERROR_IRQ: a front end in a state the backend did not expect).

Given a `clock`, it keeps ISO/IEC 15693's time: a slot's answer (or its silence, or its collision) is
in RX_STATUS and IRQ_STATUS only once the request or EOF, t1 and the answer have gone through the air,
and chips asked less than 1 ms after RF_ON are still powering up and answer nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from drivers.chip_protocol import check_antenna, check_uid
from drivers.errors import DeviceError, FrameError
from drivers.iso15693 import POWER_UP_S, SLOTS, T1_S, VCD_EOF_S, request_air_s
from drivers.pn5180_front_end import (
    GENERAL_ERROR_IRQ, IDLE_IRQ, ISO15693_RX, ISO15693_TX, RX_COLLISION_DETECTED, RX_DATA_INTEGRITY_ERROR, RX_IRQ,
    RF_ACTIVE_ERROR_IRQ, RF_ON_NO_COLLISION_AVOIDANCE, RFON_DET_IRQ, RX_SOF_DET_IRQ, TX_IRQ, TX_RFOFF_IRQ, TX_RFON_IRQ,
    Command, Register,
)
from sim.chips.board import MISS_RATE, chip_height, miss_chance

__all__ = ["Pn5180Emulator"]

TX_CONFIG_ISO15693 = 0x000007CF
"""TX_CONFIG as the emulator's LOAD_RF_CONFIG 0x0D leaves it: the data and start symbol bits (0x4C0) set.
(The emulator's value: the real one comes from the front end's EEPROM.)"""
TX_DATA_BITS = 0x000004C0
FIRMWARE = bytes([0x00, 0x04])  # 4.0, least significant byte first as the EEPROM holds it
PRODUCT = bytes([0x00, 0x04])
GARBLED_COLLISIONS = 0.5
"""Of the slots two chips or more answer in, those that show as one answer failing its CRC rather than as
the collision bit (a stack's chips answer in step; which the receiver sees is measured on a board only)."""
ANSWER_S = 151.04e-6 + 96 * 37.76e-6 + 151.04e-6
"""An Inventory answer in the air: SOF, flags, DSFID, UID and CRC at 26.48 kbit/s, EOF (about 3.9 ms)."""


class Pn5180Emulator:
    """A PN5180 behind an antenna mux. `antennas` in channel order; the pins on `pin_factory` (a gpiozero
    MockFactory) are the backend's own: `busy_pin` is driven here, `reset_pin` and `mux_pins` read."""

    registers: dict[int, int]
    _answer: bytes | None  # what the next frame reads, after a command that answers
    _slots: list[list[str]]

    def __init__(self, pin_factory: Any, antennas: Sequence[str], busy_pin: int = 16, reset_pin: int = 12,
                 mux_pins: Sequence[int] = (), miss_rate: float = MISS_RATE, seed: int | None = None,
                 die: bytes = bytes(range(0x10, 0x20)), clock: Callable[[], float] | None = None,
                 garbled_collisions: float = GARBLED_COLLISIONS) -> None:
        self.antennas = [check_antenna(name) for name in antennas]
        self.stacks: dict[str, list[str]] = {name: [] for name in self.antennas}
        self.miss_rate = miss_rate
        self.garbled_collisions = garbled_collisions
        self._rng = random.Random(seed)
        self._busy = pin_factory.pin(busy_pin)
        self._reset = pin_factory.pin(reset_pin)
        self._mux = [pin_factory.pin(pin) for pin in mux_pins]
        self._reset_seen = len(self._reset.states)
        self.eeprom = bytearray(b"\xff" * 255)
        self.eeprom[0:16] = die
        self.eeprom[0x10:0x12] = PRODUCT
        self.eeprom[0x12:0x14] = FIRMWARE
        self.busy_stuck = False
        self.miso: int | None = None  # unplugged: what MISO floats to
        self.refusing = False
        self._clock = clock
        self._rf_on_at = 0.0
        self._landing: tuple[float, bytes, int, int] | None = None  # a slot's outcome still in the air
        self.garbled = 0          # answers still to garble
        self.storms: dict[str, int] = {}  # antenna: the RX_STATUS error bit its every slot shows
        self.neighbours: set[str] = set()  # antennas another reader's field reaches
        self.frames = 0
        self.misses = 0           # chips that did not answer an inventory asking for them (their height)
        self.log: list[tuple[str, ...]] = []  # the commands taken, by name (and the antenna of each inventory)
        self.boots = 0
        self._boot()
        self._busy.drive_low()

    # -- the chips and the faults ----------------------------------------------------------------

    def place(self, antenna: str, *uids: str) -> None:
        """Chips on top of `antenna`'s stack. Raises DeviceError (no such antenna, not a UID, one placed already)."""
        stack = self._stack(antenna)
        try:
            chips = [check_uid(uid.upper()) for uid in uids]
        except FrameError as exc:
            raise DeviceError(str(exc)) from None
        placed = {uid for s in self.stacks.values() for uid in s}
        if placed & set(chips) or len(set(chips)) != len(chips):
            raise DeviceError("a chip lies on an antenna already")
        stack.extend(chips)

    def remove(self, antenna: str, *uids: str) -> None:
        stack = self._stack(antenna)
        for uid in uids:
            stack.remove(uid.upper())

    def clear(self, antenna: str) -> list[str]:
        stack = self._stack(antenna)
        taken, stack[:] = list(stack), []
        return taken

    def stick_busy(self, stuck: bool = True) -> None:
        """BUSY held high (the front end hung) until released; a reset does not cure it."""
        self.busy_stuck = stuck
        (self._busy.drive_high if stuck else self._busy.drive_low)()

    def unplug(self, miso: int | None = 0xFF) -> None:
        """The board gone (`miso` the byte MISO floats to, None: plugged back): BUSY pulled low, nothing answers."""
        self.miso = miso
        self._busy.drive_low()

    def refuse_transmit(self, on: bool = True) -> None:
        """Every SEND_DATA refused (GENERAL_ERROR_IRQ) while on; a reset does not cure it."""
        self.refusing = on

    def garble(self, answers: int = 1) -> None:
        """The next `answers` chips' answers fail their CRC."""
        self.garbled += answers

    def storm(self, antenna: str, on: bool = True, *, garbled: bool = False) -> None:
        """Every slot of `antenna`'s inventories collides while on (`garbled`: fails its CRC instead)."""
        self._stack(antenna)
        if on:
            self.storms[antenna] = RX_DATA_INTEGRITY_ERROR if garbled else RX_COLLISION_DETECTED
        else:
            self.storms.pop(antenna, None)

    def neighbour(self, antenna: str, on: bool = True) -> None:
        """Another reader's field on `antenna` while on: RF_ON with collision avoidance (its parameter's bit 0
        clear) does not switch the field on, RF_ACTIVE_ERROR_IRQ and RFON_DET_IRQ say why."""
        self._stack(antenna)
        (self.neighbours.add if on else self.neighbours.discard)(antenna)

    def _stack(self, antenna: str) -> list[str]:
        stack = self.stacks.get(antenna)
        if stack is None:
            raise DeviceError(f"no antenna {antenna!r} on this mux")
        return stack

    # -- the SPI side ----------------------------------------------------------------------------

    def transfer(self, frame: bytes) -> bytes:
        """One SPI frame in, the bytes on MISO out."""
        self.frames += 1
        if self.miso is not None:
            return bytes([self.miso]) * len(frame)
        if len(self._reset.states) != self._reset_seen:
            changes = self._reset.states[self._reset_seen:]
            self._reset_seen = len(self._reset.states)
            if any(not change.state for change in changes):
                self._boot()
        if not self._reset.state or self.busy_stuck or not frame:
            return b"\xff" * len(frame)  # held in reset or hung: MISO floats high
        answer, self._answer = self._answer, None
        if answer is not None:
            return (answer + b"\xff" * len(frame))[:len(frame)]
        self._command(frame)
        return b"\xff" * len(frame)

    def _boot(self) -> None:
        self.boots += 1
        self.registers = {}
        self.irq = IDLE_IRQ
        self.rx_status = 0
        self.rx = b""
        self.rf = False
        self.rf_config: tuple[int, int] | None = None
        self._wait_transmit = False
        self._answer = None
        self._slots = []
        self._slot = 0
        self._antenna = ""
        self._landing = None

    def _command(self, frame: bytes) -> None:
        try:
            command = Command(frame[0])
        except ValueError:
            self._error(f"unknown command 0x{frame[0]:02x}")
            return
        self.log.append((command.name,))
        if command in (Command.WRITE_REGISTER, Command.WRITE_REGISTER_OR_MASK, Command.WRITE_REGISTER_AND_MASK):
            if len(frame) != 6:
                self._error("a register write takes 6 bytes")
                return
            self._write(command, frame[1], int.from_bytes(frame[2:6], "little"))
        elif command == Command.READ_REGISTER and len(frame) == 2:
            self._answer = self._read(frame[1]).to_bytes(4, "little")
        elif command == Command.READ_EEPROM and len(frame) == 3:
            self._answer = bytes(self.eeprom[frame[1]:frame[1] + frame[2]])
        elif command == Command.READ_DATA and len(frame) == 2:
            self._land()
            self._answer = self.rx
        elif command == Command.LOAD_RF_CONFIG and len(frame) == 3:
            self.rf_config = (frame[1], frame[2])
            self.registers[Register.TX_CONFIG] = TX_CONFIG_ISO15693
        elif command == Command.RF_ON and len(frame) == 2:
            if not frame[1] & RF_ON_NO_COLLISION_AVOIDANCE and self._selected() in self.neighbours:
                self.irq |= RF_ACTIVE_ERROR_IRQ | RFON_DET_IRQ  # a field is there already: ours stays off
                return
            self.rf, self.irq = True, self.irq | TX_RFON_IRQ
            self._rf_on_at = self._now()
        elif command == Command.RF_OFF:
            self.rf, self.irq, self._slots, self._landing = False, self.irq | TX_RFOFF_IRQ, [], None
        elif command == Command.SEND_DATA and len(frame) >= 2:
            self._send(frame[2:])
        else:
            self._error(f"{command.name} with {len(frame) - 1} parameter bytes")

    def _error(self, what: str) -> None:
        self.log.append(("error", what))
        self.irq |= GENERAL_ERROR_IRQ

    def _write(self, command: Command, register: int, value: int) -> None:
        if register == Register.IRQ_CLEAR:
            self.irq &= ~value
            return
        old = self.registers.get(register, 0)
        new = {Command.WRITE_REGISTER: value, Command.WRITE_REGISTER_OR_MASK: old | value,
               Command.WRITE_REGISTER_AND_MASK: old & value}[command]
        self.registers[register] = new
        if register == Register.SYSTEM_CONFIG and new & 7 == 3 and old & 7 != 3:
            self._wait_transmit = True  # transceive newly commanded: waits to transmit

    def _now(self) -> float:
        return self._clock() if self._clock is not None else 0.0

    def _land(self) -> None:
        """The slot's outcome in the registers once it has gone through the air."""
        if self._landing is not None and self._now() >= self._landing[0]:
            _, self.rx, self.rx_status, irq = self._landing
            self.irq |= irq
            self._landing = None

    def _read(self, register: int) -> int:
        self._land()
        if register == Register.IRQ_STATUS:
            return self.irq
        if register == Register.RX_STATUS:
            return self.rx_status
        return self.registers.get(register, 0)

    def _send(self, data: bytes) -> None:
        if self.refusing or not (self.rf and self.rf_config == (ISO15693_TX, ISO15693_RX) and self._wait_transmit):
            self._error("SEND_DATA with the field off, another RF configuration, or not set to transceive")
            return
        self._wait_transmit = False
        self.irq |= TX_IRQ
        data_on = self.registers.get(Register.TX_CONFIG, 0) & TX_DATA_BITS == TX_DATA_BITS
        if not data and not data_on:
            self._slot += 1  # an EOF alone: the next slot
            self._present(VCD_EOF_S)
        elif data and data_on:
            self._request(data)
        else:
            self._error("SEND_DATA of no byte with TX_CONFIG sending data, or of data with it cleared")

    def _request(self, data: bytes) -> None:
        """An ISO 15693 request: Inventory (16 slots or 1) is answered; anything else is not (no chip is addressed)."""
        self._slots, self._slot, self._landing = [], 0, None
        if len(data) < 3 or data[1] != 0x01 or not data[0] & 0x04:
            self.rx_status = 0
            return
        flags, bits = data[0], data[2]
        mask = int.from_bytes(data[3:3 + (bits + 7) // 8], "little") & ((1 << bits) - 1)
        self._antenna = self._selected()
        self.log.append(("inventory", self._antenna, str(bits)))
        stack = self.stacks.get(self._antenna, [])
        asked = [(position, uid) for position, uid in enumerate(stack) if int(uid, 16) & ((1 << bits) - 1) == mask]
        powered = self._clock is None or self._now() - self._rf_on_at >= POWER_UP_S - 1e-9  # float sums
        awake = [uid for position, uid in asked if powered
                 and self._rng.random() >= miss_chance(chip_height(self._antenna, position), self.miss_rate)]
        self.misses += len(asked) - len(awake)
        count = 1 if flags & 0x20 else SLOTS
        self._slots = [[] for _ in range(count)]
        for uid in awake:
            self._slots[(int(uid, 16) >> bits) % count if count > 1 else 0].append(uid)
        self._present(request_air_s(len(data)))

    def _selected(self) -> str:
        """The antenna the mux lines select ("" for a channel with none)."""
        channel = sum(1 << bit for bit, line in enumerate(self._mux) if line.state)
        return self.antennas[channel] if channel < len(self.antennas) else ""

    def _present(self, sent_s: float) -> None:
        """The current slot's answer in RX_STATUS, IRQ_STATUS and the reception buffer, once the request
        or EOF (`sent_s` in the air), t1 and the answer have passed (at once without a clock)."""
        self.rx, self.rx_status = b"", 0
        rx, rx_status, irq = b"", 0, 0
        answering = self._slots[self._slot] if self._slot < len(self._slots) else []  # none: silence
        if self._slot < len(self._slots) and (self._antenna in self.storms or len(answering) > 1):
            rx, rx_status, irq = self._collide(answering)
        elif answering:
            rx = bytes([0x00, 0x00]) + bytes.fromhex(answering[0])[::-1]
            rx_status, irq = len(rx), RX_IRQ | RX_SOF_DET_IRQ
            if self.garbled:
                self.garbled -= 1
                rx_status |= RX_DATA_INTEGRITY_ERROR
        at = self._now() + sent_s + T1_S + ANSWER_S if self._clock is not None else 0.0
        self._landing = (at, rx, rx_status, irq)
        self._land()

    def _collide(self, answering: list[str]) -> tuple[bytes, int, int]:
        """Two answers or more at once (or a storm): the collision bit, or, `garbled_collisions` of the
        time, one answer's bytes failing their CRC (the subcarriers summed into one garbled frame)."""
        error = self.storms.get(self._antenna, RX_COLLISION_DETECTED)
        if len(answering) > 1 and self._rng.random() < self.garbled_collisions:
            error = RX_DATA_INTEGRITY_ERROR
        if error == RX_COLLISION_DETECTED:
            return b"", RX_COLLISION_DETECTED | 2, RX_IRQ | RX_SOF_DET_IRQ
        rx = bytes([0x00, 0x00]) + bytes(8)
        return rx, len(rx) | RX_DATA_INTEGRITY_ERROR, RX_IRQ | RX_SOF_DET_IRQ

    def inventories(self) -> list[tuple[str, ...]]:
        """The inventories asked for, in order: (antenna, mask bits)."""
        return [entry[1:] for entry in self.log if entry[0] == "inventory"]


def stack_uids(prefix: str, count: int, start: int = 1) -> list[str]:
    """`count` UIDs from `prefix` (hex digits) numbered from `start`: a demo or test stack.

    >>> stack_uids("E00401", 2)
    ['E004010000000001', 'E004010000000002']
    """
    width = 16 - len(prefix)
    return [f"{prefix}{n:0{width}X}" for n in range(start, start + count)]


def one_of_each(antennas: Iterable[str]) -> dict[str, str]:
    """A chip for each antenna, distinct UIDs (tests tell the antennas apart by them)."""
    return {name: f"E0040100{n:08X}" for n, name in enumerate(antennas, 1)}
