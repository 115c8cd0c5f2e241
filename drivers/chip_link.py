"""The host side of the chip reader board's serial link: handshake, the antenna map, debounced inventories, faults, silence.

Two layers, as the shoe's (drivers/shoe_link.py):

- `ChipSession`, the protocol's host side with no I/O and no clock of its own: feed it bytes and
  the time, take the bytes it wants sent (IDENTIFY) and the readings it produced: `DeviceOnline`
  when a board is accepted, a `ChipsRead` for each change of an antenna's debounced chips and of
  its stable flag (drivers/chip_debounce.py), `DeviceFault` for what the board says is wrong with
  it (an antenna, its front end), an unknown antenna or an unreadable frame, and `DeviceOffline`
  when the line is lost or the board silent past its heartbeat.
- `ChipLink`, a `drivers.serial_link.SerialLink` driving the session: the `serial` chip reader
  backend (drivers/chip_reader.py), on a device path, a pty, `socket://` or `loop://`.

The debounce lives as long as the link: a board that is lost and comes back (or restarts) goes on
from the chips last reported, each antenna's scans counted afresh.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from drivers import framing
from drivers.chip_debounce import CONFIRM, SETTLE_S, AntennaDebounce
from drivers.chip_protocol import (
    ANTENNA_AT, BOARD, HEADER_SIZE, INVENTORY_HEAD, INVENTORY_UIDS, LEN_AT, MAX_PAYLOAD, PROTOCOL_VERSION, SCAN_AT,
    SEQ_AT, SYNC, TYPE_AT, UID_SIZE, UIDS_AT, Decoder, Fault, FaultCode, Heartbeat, Hello, Identify, Inventory, MsgType,
    decode_message, encode_message, seq_delta, uid_texts,
)
from drivers.errors import FrameError
from drivers.framing import CRC_SIZE, crc16
from drivers.readings import ChipsRead, DeviceFault, FaultKind, OnReading, Reading
from drivers.serial_link import CONNECTING, ONLINE, DeviceSession, SerialLink, SessionStats

log = logging.getLogger(__name__)

SUPPORTED_FIRMWARE_MAJORS = frozenset({1})
_INVENTORY_MIN = UIDS_AT + CRC_SIZE
"""The shortest INVENTORY frame: header, antenna and scan, CRC (no UID)."""
_INVENTORY = int(MsgType.INVENTORY)
FAULT_WORDS: dict[FaultCode, str] = {
    FaultCode.ANTENNA: "antenna fault", FaultCode.RF: "reader front end fault",
    FaultCode.OVERFLOW: "too many chips to read", FaultCode.OTHER: "board fault",
}


def _whole_frame(data: bytes, at: int = 0) -> int:
    """Where the frame at offset `at` of `data` ends when its sync, its length and all its bytes are there (its
    CRC is the decoder's to check); 0 when no such frame begins there.

    >>> frame = encode_message(Heartbeat(), 7)
    >>> _whole_frame(frame + b"rest") == len(frame), _whole_frame(frame[:-1]), _whole_frame(b"x" + frame)
    (True, 0, 0)
    >>> _whole_frame(b"x" + frame, 1) == 1 + len(frame)
    True
    """
    if len(data) - at < HEADER_SIZE or not data.startswith(SYNC, at):
        return 0
    length = data[at + LEN_AT] << 8 | data[at + LEN_AT + 1]
    end = at + HEADER_SIZE + length + CRC_SIZE
    return end if length <= MAX_PAYLOAD and end <= len(data) else 0


@dataclass
class ChipLinkStats(SessionStats):
    """Counters of what the board's link saw, for logs and health displays."""

    inventories: int = 0
    gaps: int = 0               # times frame numbers were skipped
    lost_frames: int = 0        # frames lost on the line (the numbers skipped)
    unknown_antennas: int = 0
    faults: int = 0
    repeats: int = 0            # inventories the same as their antenna's one before, taken undecoded (`_repeated`)
    reread: int = 0             # such inventories while chips were counted in or out: debounced, not decoded again


@dataclass
class ChipSession(DeviceSession[Hello]):
    """The host's half of the chip reader's protocol (drivers/chip_protocol.py, docs/protocol.md).

    Call `connect(now)` once, then `receive(data, now)` with whatever the port gave and `poll(now)`
    regularly; after each, send `take_output()` and dispatch `take_readings()`. `confirm` and
    `settle_s` are the debounce's (K and the settle time); `silence_s` how long the board may say
    nothing before it is reported silent. What every device's session does alike (handshake,
    refusal, silence, loss) is `drivers.serial_link.DeviceSession`'s.
    """

    DECODER = Decoder
    PROTOCOL = PROTOCOL_VERSION
    WHAT = "board"

    device: str = "chips"
    confirm: int = CONFIRM
    settle_s: float = SETTLE_S
    supported_majors: frozenset[int] = SUPPORTED_FIRMWARE_MAJORS
    stats: ChipLinkStats = field(default_factory=ChipLinkStats)
    antennas: dict[str, AntennaDebounce] = field(default_factory=dict)  # by name, kept across connections
    _names: dict[int, str] = field(default_factory=dict)  # this connection's map: number -> name
    _last_seq: int | None = None
    _faults: dict[tuple[FaultCode, int], float] = field(default_factory=dict)  # standing: last said at
    _unknown: set[int] = field(default_factory=set)   # antenna numbers reported unknown on this connection
    _unreadable_said: bool = False                    # an unreadable frame reported on this connection
    _last_read: dict[int, bytes] = field(default_factory=dict)  # antenna number -> its last INVENTORY's UID bytes
    _last_uids: dict[int, frozenset[str]] = field(default_factory=dict)  # antenna number -> those bytes' UIDs
    _unsettled: dict[str, None] = field(default_factory=dict)  # antennas whose reading was reported, its stable flag
    # not yet, in the order they changed: the settle's polls look at them alone, not at every antenna

    def __post_init__(self) -> None:
        if self.confirm < 1 or self.settle_s < 0 or self.silence_s <= 0:
            raise ValueError(f"{self.device}: confirm must be at least 1, settle_s at least 0 and silence_s over 0")
        super().__post_init__()

    def due(self, now: float) -> float | None:
        """Seconds until a stable flag is due on some antenna, None when none is coming."""
        if not self._unsettled:
            return None
        antennas = self.antennas
        waits = [w for name in self._unsettled if (w := antennas[name].due(now)) is not None]
        return min(waits) if waits else None

    def _timers_due(self, now: float) -> float | None:
        """Seconds until a stable flag is due or a fault no longer said ends (`DeviceSession.next_turn`), or None."""
        waits = [said + self.silence_s - now for said in self._faults.values()]
        flag = self.due(now)
        if flag is not None:
            waits.append(flag)
        return min(waits) if waits else None

    # -- inside --------------------------------------------------------------------------------

    def _identify(self) -> bytes:
        self._host_seq = (self._host_seq + 1) % 256
        return encode_message(Identify(PROTOCOL_VERSION), self._host_seq)

    def _online_poll(self, now: float) -> None:
        if self.state == CONNECTING:
            if now >= self._next_send:
                self._send_identify(now)
            return
        if self._unsettled:  # stable only while the board is heard
            for name in list(self._unsettled):
                if (reading := self.antennas[name].poll(now)) is not None:
                    self._post(reading)
        for key, said in list(self._faults.items()):
            if now - said >= self.silence_s:
                del self._faults[key]  # no longer said: cleared on the board (reported again if it returns)

    def _frame(self, frame: framing.Frame, now: float) -> None:
        if frame.kind == MsgType.INVENTORY and self.state == ONLINE and self._repeated(frame, now):
            return
        try:
            message = decode_message(frame)
        except FrameError as exc:
            self._unreadable(frame, exc)
            if self.state == ONLINE:
                self._count_seq(frame.seq)
                if not self._unreadable_said:  # a CRC-valid frame we cannot read: the firmware's bug
                    self._unreadable_said = True
                    self._post(DeviceFault(self.device, f"unreadable frame {frame.seq}: {exc}", FaultKind.DEVICE_FAULT))
            return
        if isinstance(message, Hello):
            self._hello(message, frame.seq, now)
            return
        if self.state != ONLINE:
            self.stats.unexpected += 1  # before the handshake, or from a refused board: not taken
            return
        self._count_seq(frame.seq)
        if isinstance(message, Inventory):
            self._inventory(message, frame.payload[INVENTORY_UIDS:], now)
        elif isinstance(message, Fault):
            self._fault(message, now)
        elif not isinstance(message, Heartbeat):
            self._unexpected(message)

    def _repeated(self, frame: framing.Frame, now: float) -> bool:
        """Take an INVENTORY that carries its antenna's last one's UIDs, byte for byte (`AntennaDebounce.quiet_scan`):
        nearly every scan, as a circle changes a few times a hand and is scanned ten times a second. It costs the
        compare: its UIDs are not decoded nor debounced again; while its debounce counts chips in or out (the K
        scans of a stack placed) the runs go on from the scan's number alone (a reread). After a gap, or while a
        reading is being confirmed, it is debounced with the UIDs those bytes were decoded to before (`_reread`).
        False when its UIDs are not its antenna's last ones (the frame is then decoded and taken as any other)."""
        payload = frame.payload
        if len(payload) < INVENTORY_UIDS:
            return False
        antenna, scan = INVENTORY_HEAD.unpack_from(payload)
        if self._last_read.get(antenna) != payload[INVENTORY_UIDS:]:
            return False
        debounce = self.antennas[self._names[antenna]]  # a read is kept for named antennas only
        counting = debounce.counting
        taken = debounce.quiet_scan(scan, now)
        self._count_seq(frame.seq)
        self.stats.inventories += 1
        if taken is False:
            self._reread(antenna, scan, now)
            return True
        if counting:
            self.stats.reread += 1
        else:
            self.stats.repeats += 1
        if taken is not True:
            self._post(taken)
        return True

    def _reread(self, antenna: int, scan: int, now: float) -> None:
        """Antenna `antenna`'s scan `scan` read the bytes of its last INVENTORY but `quiet_scan` could not take it
        (it follows a gap, or a reading is being confirmed): debounced with the UIDs those bytes were decoded to
        (`_inventory`, `_changed`), as the frame decoded again would be."""
        self.stats.reread += 1
        reading = self.antennas[self._names[antenna]].inventory(self._last_uids[antenna], now, scan)
        if reading is not None:
            self._post(reading)

    def receive(self, data: bytes, now: float) -> None:
        """Bytes the port gave: the quiet scans taken at the compare (`_quiet_frames`), each other whole frame
        between them as every device's (`DeviceSession.receive`), and the quiet ones after it at the compare
        again: a scan in which circles changed is their UIDs read where they lie (`_changed`) and the others
        compared, no frame made of any. What is not a whole frame (garbage, a frame cut short) and all after it
        go to the decoder as they came."""
        at, size = 0, len(data)
        while at < size and self.state == ONLINE and not self._decoder.buffered:
            at = self._quiet_frames(data, now, at)
            end = _whole_frame(data, at)
            if not end:
                break
            super().receive(data[at:end], now)  # a change, a fault, a heartbeat: taken as any frame
            at = end
        if at < size:
            super().receive(data[at:] if at else data, now)

    def _quiet_frames(self, data: bytes, now: float, at: int = 0) -> int:
        """Take the whole INVENTORY frames at the head of `data`, from offset `at`, without making a frame of
        each: the sync, the number and the CRC checked where they lie; one with its antenna's last UIDs (a quiet
        scan is 29 such frames ten times a second, the same bytes as the scan before but for their numbers and
        CRCs) as `_repeated` takes it, one with other UIDs read there (`_changed`). Returns the offset of the
        first frame that is neither (a fault, a heartbeat, a gap, an antenna not named, UIDs not whole, a frame
        cut short, garbage), for the decoder to take as it takes any."""
        start, size, taken_n, reread, changed, last_seq = at, len(data), 0, 0, 0, self._last_seq
        last_read, names, antennas = self._last_read, self._names, self.antennas
        view = memoryview(data)
        # the frame's fields where `chip_protocol` names them (its property test holds this to the decoder), as locals
        len_at, seq_at, type_at, antenna_at, scan_at, uids_at = LEN_AT, SEQ_AT, TYPE_AT, ANTENNA_AT, SCAN_AT, UIDS_AT
        while size - at >= _INVENTORY_MIN and data.startswith(SYNC, at) and data[at + type_at] == _INVENTORY:
            end = at + HEADER_SIZE + (data[at + len_at] << 8 | data[at + len_at + 1]) + CRC_SIZE
            antenna, seq = data[at + antenna_at], data[at + seq_at]
            last = last_read.get(antenna)
            if (end > size or (last_seq is not None and (seq - last_seq) % 256 != 1)  # a gap: `_count_seq` counts it
                    or crc16(view[at + len_at:end - CRC_SIZE]) != (data[end - 2] << 8 | data[end - 1])):
                break
            scan = data[at + scan_at] << 8 | data[at + scan_at + 1]
            if last is None or end - at - _INVENTORY_MIN != len(last) or not data.startswith(last, at + uids_at):
                if not self._changed(antenna, scan, data[at + uids_at:end - CRC_SIZE], now):
                    break  # not ours to read here (an antenna not named, a malformed list): the decoder's
                last_seq, taken_n, changed, at = seq, taken_n + 1, changed + 1, end
                continue
            debounce = antennas[names[antenna]]
            counting = debounce.next_end  # its runs counted on from this scan alone (`quiet_scan`): a reread
            taken = debounce.quiet_scan(scan, now)
            if taken is False:
                self._reread(antenna, scan, now)
                reread += 1
            else:
                if counting:
                    self.stats.reread += 1
                    reread += 1
                if taken is not True:
                    self._post(taken)
            last_seq, taken_n, at = seq, taken_n + 1, end
        if at == start:
            return at
        self._last_seq = last_seq
        self.stats.frames += taken_n
        self._decoder.stats.frames += taken_n
        self.stats.inventories += taken_n
        self.stats.repeats += taken_n - reread - changed
        self._last_heard = self._last_rx = now
        return at

    def _changed(self, antenna: int, scan: int, read: bytes, now: float) -> bool:
        """A whole INVENTORY frame, its CRC and number good, whose UIDs are not its antenna's last ones: its UIDs
        decoded in one go (`uid_texts`) and debounced (`_inventory`), with no frame nor
        message made of it. False (nothing taken) when its antenna is not named or its UIDs are not whole 8-byte
        UIDs each once: the decoder then takes it and says what is wrong, as `Inventory.decode` does."""
        name = self._names.get(antenna)
        if name is None or len(read) % UID_SIZE:
            return False
        uids = frozenset(uid_texts(read))
        if len(uids) * UID_SIZE != len(read):
            return False
        self._last_read[antenna] = read
        self._last_uids[antenna] = uids
        reading = self.antennas[name].inventory(uids, now, scan)
        if reading is not None:
            self._post(reading)
        return True

    def _post(self, reading: Reading) -> None:
        if isinstance(reading, ChipsRead):  # the antennas whose stable flag is to come (`_online_poll`, `due`)
            if reading.stable:
                self._unsettled.pop(reading.antenna, None)
            else:
                self._unsettled[reading.antenna] = None
        super()._post(reading)

    def _count_seq(self, seq: int) -> None:
        if self._last_seq is not None and seq_delta(seq, self._last_seq) != 1:
            # Frames lost on the line: nothing to ask again (each scan says all; a fault is said
            # again); the debounce sees which scans it missed from their own numbers.
            self.stats.gaps += 1
            self.stats.lost_frames += (seq - self._last_seq - 1) % 256
            log.info("%s: frames lost: after %d came %d", self.device, self._last_seq, seq)
        self._last_seq = seq

    def _hello(self, hello: Hello, seq: int, now: float) -> None:
        again = self.state == ONLINE and self.hello == hello
        if not self._accept(hello, now):
            return
        self._last_seq = seq
        if again:
            return  # asked twice: the same board, the same connection
        self._names = dict(hello.antennas)
        self._unknown.clear()
        self._last_read.clear()
        self._last_uids.clear()
        self._unreadable_said = False
        self._faults.clear()
        for name in self._names.values():
            debounce = self.antennas.get(name)
            if debounce is None:
                self.antennas[name] = AntennaDebounce(name, self.confirm, self.settle_s, self.device)
            else:
                debounce.reconnected()
        self._post(self._online_reading(hello))

    def _inventory(self, inventory: Inventory, read: bytes, now: float) -> None:
        """An antenna's scan (`read`: its UIDs as the frame carried them) to its debounce."""
        name = self._names.get(inventory.antenna)
        if name is None:
            self.stats.unknown_antennas += 1
            if inventory.antenna not in self._unknown:  # a firmware that reads an antenna it did not name
                self._unknown.add(inventory.antenna)
                self._post(DeviceFault(self.device, f"inventory of antenna {inventory.antenna}, which the board's "
                                                    f"HELLO does not name", FaultKind.DEVICE_FAULT))
            return
        self.stats.inventories += 1
        self._last_read[inventory.antenna] = read
        self._last_uids[inventory.antenna] = uids = frozenset(inventory.uids)
        reading = self.antennas[name].inventory(uids, now, inventory.scan)
        if reading is not None:
            self._post(reading)

    def _fault(self, fault: Fault, now: float) -> None:
        key = (fault.code, fault.antenna)
        standing = key in self._faults
        self._faults[key] = now
        if standing:
            return  # said again while it stands
        self.stats.faults += 1
        where = "board" if fault.antenna == BOARD else self._names.get(fault.antenna, f"antenna {fault.antenna}")
        self._post(DeviceFault(self.device, f"{where}: {FAULT_WORDS[fault.code]}: {fault.text}",
                               FaultKind.DEVICE_FAULT))


class ChipLink(SerialLink[ChipSession]):
    """The chip reader board on a serial line: the `serial` chip reader backend.

    `url` is anything `serial.serial_for_url` opens. Readings (ChipsRead, DeviceOnline,
    DeviceOffline, DeviceFault) reach `on_reading` on the link's reader thread, or on the caller's
    when it is driven (`start(driven=True)`).
    """

    def __init__(self, on_reading: OnReading, url: str, device: str = "chips", confirm: int = CONFIRM,
                 settle_s: float = SETTLE_S, silence_s: float = 2.0, identify_s: float = 0.5, **link: Any) -> None:
        super().__init__(on_reading, url, ChipSession(device=device, confirm=confirm, settle_s=settle_s,
                                                      silence_s=silence_s, identify_s=identify_s), **link)

