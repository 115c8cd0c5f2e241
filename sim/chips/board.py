"""The emulated chip reader board: chips held on each antenna, scans that miss chips in tall stacks, faults on request.

Three parts, as the emulated shoe's (sim/shoe.py):

- `ChipBoardFirmware`: what the board's firmware does, sans-IO (bytes and the time in, bytes out):
  say HELLO with its antenna map, scan every antenna each period and send its INVENTORY, send
  HEARTBEAT when nothing else went out, say its standing faults again every heartbeat. It holds
  the chips physically: each antenna's stack, bottom chip first, changed by control lines.
- `ChipBoardServer`: a `sim.device.DeviceServer` carrying it over a pty or a TCP port, with its
  control port; a board "lost" drops its TCP connection (or goes quiet on a pty) until it is back.
- The control port, for a (bot) dealer or player in another process, one request per line, one
  reply line each, `ok ...` or `err <reason>`; `ChipBoardClient` is a Python client for it:

      place ANTENNA UID...      ok         chips put on top of ANTENNA's stack
      remove ANTENNA UID...     ok         chips taken off ANTENNA (from wherever they are in it)
      move FROM TO UID...       ok         chips taken off FROM and put on top of TO
      clear ANTENNA             ok <uids>  every chip taken off ANTENNA; the UIDs taken
      show [ANTENNA]            ok <json>  {antenna: [uids, bottom first]} of every antenna holding chips
      miss ANTENNA UID [N]      ok         the next N scans (default 1) of ANTENNA miss UID
      fault KIND [ARG]          ok         garble, gap, silent [S], lost [S], antenna ANTENNA, rf, unknown
      repair                    ok         the board's standing faults (antenna, rf) are over
      wake                      ok         end a silence or a loss early
      status                    ok <json>  seq, scans, chips, silent, lost, armed, faults, boot, frames_sent
      ping                      ok pong

  A UID is 16 hex digits (upper-cased); a chip is in one place at a time, so placing one that lies
  on some antenna already is refused (`move` it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from drivers.chip_protocol import (
    BOARD, MAX_UIDS, PROTOCOL_VERSION, Decoder, Fault, FaultCode, Heartbeat, Hello, Identify, Inventory, Message,
    check_antenna, check_uid, decode_message, encode_message,
)
from drivers.errors import DeviceError, FrameError
from drivers.gpio_sim import LineClient
from engine.games import HOUSE_GAMES
from sim.device import DeviceFirmware, DeviceServer, Verb

FAULTS = ("garble", "gap", "silent", "lost", "antenna", "rf", "unknown")
MISS_RATE = 0.005
"""The default chance a scan misses a chip, for each chip below it in its stack (the 20th chip of a
stack is missed one scan in ten)."""
MAX_MISS = 0.5
TRAY_COLUMN = 20
"""A tray's chips lie in columns of about this many: its heights are counted within a column."""


def layout(game: str = "uth", spots: int = 7) -> tuple[tuple[int, str], ...]:
    """A board's antennas for `game`'s table of `spots` spots: each spot's bet circles and its Play
    circle, spot by spot, then the tray. Raises ValueError for a game that is not a house game.

    >>> layout("3cp", 1)
    ((0, 'spot1.ante'), (1, 'spot1.pair_plus'), (2, 'spot1.bonus'), (3, 'spot1.play'), (4, 'tray'))
    """
    house = HOUSE_GAMES.get(game)
    if house is None:
        raise ValueError(f"no house game {game!r} (games: {', '.join(HOUSE_GAMES)})")
    names = [f"spot{spot}.{circle}" for spot in range(1, spots + 1) for circle in (*house.bets, "play")]
    return tuple(enumerate([*names, "tray"]))


def chip_height(antenna: str, position: int) -> int:
    """The chips below the one at `position` of `antenna`'s stack (bottom chip first): a tray's are counted
    within its column of TRAY_COLUMN."""
    return position % TRAY_COLUMN if antenna == "tray" else position


def miss_chance(height: int, rate: float) -> float:
    """The chance one scan misses the chip with `height` chips below it.

    An HF antenna's field falls off with the distance above it, and the chips' coils, stacked
    close, detune one another: the higher a chip sits in a stack, the weaker the field that wakes
    it and the likelier its answer is lost in the anticollision, so each chip below adds `rate`.
    """
    return min(MAX_MISS, rate * height)


@dataclass
class ChipBoardFirmware(DeviceFirmware):
    """The board's firmware, without I/O. Call `receive(data, now)` and `poll(now)`; send `take_output()`."""

    NAME = "sim-chips"
    antennas: tuple[tuple[int, str], ...] = field(default_factory=layout)
    model: str = "CB-SIM"
    protocol: int = PROTOCOL_VERSION
    period_s: float = 0.1
    miss_rate: float = MISS_RATE
    missed_on: frozenset[str] | None = None
    """The antennas whose scans miss chips at `miss_rate` (None: every antenna; a forced `miss` on any)."""

    seq: int = 0
    scans: int = 0                      # scans of every antenna made
    stacks: dict[str, list[str]] = field(default_factory=dict)
    faults: dict[tuple[FaultCode, int], str] = field(default_factory=dict)  # standing, said every heartbeat
    lost_until: float | None = None
    _misses: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    _numbers: dict[str, int] = field(default_factory=dict, repr=False)
    _decoder: Decoder = field(default_factory=Decoder, repr=False)
    _next_scan: float | None = None
    _next_heartbeat: float = 0.0
    _next_faults: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self._numbers = {name: number for number, name in self.antennas}
        for name in self._numbers:
            check_antenna(name)
            self.stacks.setdefault(name, [])

    # -- I/O side ------------------------------------------------------------------------------

    def boot_hello(self) -> None:
        """Say HELLO unprompted (at power-up, or when a host connects to the TCP port)."""
        self._send(self._hello())

    def receive(self, data: bytes, now: float) -> None:
        if self.is_silent(now):
            return  # a hung (or unplugged) board reads nothing
        for _, message in self._from_host(self._decoder.feed(data), decode_message):
            if isinstance(message, Identify):
                self._send(self._hello())

    def poll(self, now: float) -> None:
        if self.lost_until is not None and now >= self.lost_until:
            self.lost_until = None
            self._send(self._hello())  # plugged back in: it boots and says who it is
        if self.silent_until is not None and now >= self.silent_until:
            self.silent_until = None
        if self.is_silent(now):
            self._next_scan = None  # it scans again from when it comes back
            return
        if self._next_scan is None or now >= self._next_scan:
            self._scan_all(now)
            due = self._next_scan
            self._next_scan = (now if due is None or now - due > self.period_s else due) + self.period_s
            self._next_heartbeat = now + self.heartbeat_s
        if self.faults and now >= self._next_faults:
            for (code, antenna), text in self.faults.items():
                self._send(Fault(code, antenna, text))
            self._next_faults = now + self.heartbeat_s
        if now >= self._next_heartbeat:
            self._send(Heartbeat())
            self._next_heartbeat = now + self.heartbeat_s

    def is_silent(self, now: float) -> bool:
        """Hung or unplugged: nothing goes out, nothing is read."""
        return super().is_silent(now) or self.is_lost(now)

    def is_lost(self, now: float) -> bool:
        return self.lost_until is not None and now < self.lost_until

    # -- the chips -----------------------------------------------------------------------------

    def place(self, antenna: str, uids: Iterable[str]) -> None:
        """Put chips on top of `antenna`'s stack. Raises DeviceError (no such antenna, not a UID, a
        chip that lies somewhere already: nothing is placed)."""
        stack = self._stack(antenna)
        chips = self._uids(uids)
        for uid in chips:
            where = self.where(uid)
            if where is not None:
                raise DeviceError(f"chip {uid} lies on {where} already (move it)")
        stack.extend(chips)

    def remove(self, antenna: str, uids: Iterable[str]) -> None:
        """Take chips off `antenna`. Raises DeviceError (one not there: nothing is taken)."""
        stack = self._stack(antenna)
        chips = self._uids(uids)
        missing = [uid for uid in chips if uid not in stack]
        if missing:
            raise DeviceError(f"not on {antenna}: {' '.join(missing)}")
        for uid in chips:
            stack.remove(uid)

    def move(self, source: str, target: str, uids: Iterable[str]) -> None:
        """Take chips off `source` and put them on top of `target`. Raises DeviceError."""
        chips = self._uids(uids)
        self._stack(target)
        self.remove(source, chips)
        self._stack(target).extend(chips)

    def clear(self, antenna: str) -> list[str]:
        """Take every chip off `antenna`; return them. Raises DeviceError for no such antenna."""
        stack = self._stack(antenna)
        taken, stack[:] = list(stack), []
        return taken

    def where(self, uid: str) -> str | None:
        return next((name for name, stack in self.stacks.items() if uid in stack), None)

    def read(self, antenna: str) -> tuple[str, ...]:
        """One scan of `antenna`: the chips it reads (each missed by `miss_chance` of its height, or
        by a miss asked for), sorted."""
        read = []
        rate = self.miss_rate if self.missed_on is None or antenna in self.missed_on else 0.0
        for position, uid in enumerate(self.stacks[antenna]):
            height = chip_height(antenna, position)
            forced = self._misses.get((antenna, uid), 0)
            if forced:
                if forced == 1:
                    del self._misses[(antenna, uid)]
                else:
                    self._misses[(antenna, uid)] = forced - 1
                continue
            if self._rng.random() >= miss_chance(height, rate):
                read.append(uid)
        return tuple(sorted(read))

    def miss(self, antenna: str, uid: str, scans: int = 1) -> None:
        """The next `scans` scans of `antenna` miss chip `uid`. Raises DeviceError."""
        self._stack(antenna)
        if scans < 1:
            raise DeviceError("miss at least 1 scan")
        self._misses[(antenna, self._uids([uid])[0])] = scans

    def inject(self, kind: str, now: float, arg: str | None = None) -> None:
        """Arm fault `kind` (one of FAULTS). Raises ValueError naming a kind that is not one, or a bad argument."""
        if kind not in FAULTS:
            raise ValueError(f"no fault {kind!r} (faults: {', '.join(FAULTS)})")
        if kind in ("silent", "lost"):
            until = float("inf") if arg is None else now + float(arg)
            if kind == "silent":
                self.silent_until = until
            else:
                self.lost_until = until
        elif kind == "antenna":
            if arg is None or arg not in self._numbers:
                raise ValueError(f"fault antenna needs one of the board's antennas, not {arg!r}")
            self.faults[(FaultCode.ANTENNA, self._numbers[arg])] = "antenna open"
            self._next_faults = now
        elif kind == "rf":
            self.faults[(FaultCode.RF, BOARD)] = "front end not answering"
            self._next_faults = now
        else:
            self._arm(kind)

    def wake(self, now: float) -> None:
        super().wake(now)
        if self.lost_until is not None:
            self.lost_until = now

    # -- inside --------------------------------------------------------------------------------

    def _stack(self, antenna: str) -> list[str]:
        stack = self.stacks.get(antenna)
        if stack is None:
            raise DeviceError(f"no antenna {antenna!r} on this board")
        return stack

    @staticmethod
    def _uids(uids: Iterable[str]) -> list[str]:
        chips = [uid.upper() for uid in uids]
        if not chips:
            raise DeviceError("no chip named")
        try:
            for uid in chips:
                check_uid(uid)
        except FrameError as exc:
            raise DeviceError(str(exc)) from None
        if len(set(chips)) != len(chips):
            raise DeviceError("a chip named twice")
        return chips

    def _hello(self) -> Hello:
        return Hello(self.protocol, self.firmware, self.boot, round(self.period_s * 1000), self.model, self.serial,
                     self.antennas)

    def _scan_all(self, now: float) -> None:
        self.scans += 1
        scan = self.scans % 65536
        for number, name in self.antennas:
            read = self.read(name)
            overflow = (FaultCode.OVERFLOW, number)
            if len(read) > MAX_UIDS:
                # More than one INVENTORY carries: a part said as the whole would tell the host the rest was
                # taken away. The antenna's scan is not sent; its OVERFLOW fault stands (docs/protocol.md).
                if overflow not in self.faults:
                    self._next_faults = now
                self.faults[overflow] = f"{len(read)} chips, at most {MAX_UIDS}"
                continue
            self.faults.pop(overflow, None)
            self._send(Inventory(number, scan, read))
        if self._take("unknown"):  # a firmware bug: an antenna its HELLO did not name
            self._send(Inventory(max(self._numbers.values(), default=0) + 1, scan, ()))

    def _send(self, message: Message) -> None:
        self.seq = (self.seq + 1) % 256
        if self._take("gap"):
            return  # lost inside the board: its number is used, the frame never goes out
        self._emit(encode_message(message, self.seq))

    # -- control lines -------------------------------------------------------------------------

    def _verbs(self) -> Mapping[str, Verb]:
        many = range(2, 1 << 16)  # an antenna and its chips
        return {
            "place": Verb(many, lambda a, _: self._ok(self.place, a[0], a[1:])),
            "remove": Verb(many, lambda a, _: self._ok(self.remove, a[0], a[1:])),
            "move": Verb(range(3, 1 << 16), lambda a, _: self._ok(self.move, a[0], a[1], a[2:])),
            "clear": Verb(range(1, 2), lambda a, _: " ".join(["ok", *self.clear(a[0])])),
            "show": Verb(range(2), self._show_line),
            "miss": Verb(range(2, 4), lambda a, _: self._ok(self.miss, a[0], a[1], int(a[2]) if a[2:] else 1)),
            "fault": Verb(range(1, 3), lambda a, now: self._ok(self.inject, a[0], now, a[1] if a[1:] else None)),
            "repair": Verb(range(1), lambda _, __: self._ok(self.faults.clear)),
        }

    def _show_line(self, args: Sequence[str], now: float) -> str:
        if args:
            return "ok " + json.dumps({args[0]: list(self._stack(args[0]))})
        return "ok " + json.dumps({name: list(stack) for name, stack in self.stacks.items() if stack})

    def status(self, now: float) -> dict[str, object]:
        return {**super().status(now), "seq": self.seq, "scans": self.scans,
                "chips": sum(map(len, self.stacks.values())), "lost": self.is_lost(now),
                "faults": sorted(f"{code.name.lower()}:{antenna}" for code, antenna in self.faults)}


class ChipBoardServer(DeviceServer):
    """Runs a `ChipBoardFirmware` on a pty or a TCP port, and its control port (see `sim.shoe.DeviceServer`).

    A board `lost` is unplugged: on TCP its connection is dropped and new ones are closed at once
    until it is back; on a pty it goes quiet (the pty itself stays)."""

    firmware: ChipBoardFirmware

    def __init__(self, firmware: ChipBoardFirmware, link: str = "pty", tcp: tuple[str, int] = ("127.0.0.1", 0),
                 control: tuple[str, int] = ("127.0.0.1", 0), clock: Callable[[], float] = time.monotonic,
                 baud: int | None = None) -> None:
        """Raises CannotListen naming the address and its role when a port cannot be listened on."""
        super().__init__(firmware, link, tcp, control, clock, baud, name="sim-chips",
                         device="the emulated chip reader board")

    def _turn(self, now: float) -> None:
        if self.firmware.is_lost(now) and self._client is not None:
            self._client.close()
            self._client = None

    def _ready(self, r: object) -> None:
        if r is self._listen and self._listen is not None and self.firmware.is_lost(self.clock()):
            client, _ = self._listen.accept()
            client.close()  # nothing is plugged in
            return
        super()._ready(r)


class ChipBoardClient(LineClient):
    """A dealer's or a player's hand on the emulated board's chips, through its control port."""

    def place(self, antenna: str, *uids: str) -> None:
        """Raises DeviceError with the board's reason (a chip that lies elsewhere, no such antenna)."""
        self.request(" ".join(("place", antenna, *uids)))

    def remove(self, antenna: str, *uids: str) -> None:
        self.request(" ".join(("remove", antenna, *uids)))

    def move(self, source: str, target: str, *uids: str) -> None:
        self.request(" ".join(("move", source, target, *uids)))

    def clear(self, antenna: str) -> list[str]:
        """Every chip taken off `antenna`."""
        return self.request(f"clear {antenna}").split()

    def show(self, antenna: str | None = None) -> dict[str, list[str]]:
        """Each antenna holding chips (or `antenna` alone): its UIDs, bottom first."""
        shown: dict[str, list[str]] = json.loads(self.request("show" if antenna is None else f"show {antenna}"))
        return shown

    def miss(self, antenna: str, uid: str, scans: int = 1) -> None:
        self.request(f"miss {antenna} {uid} {scans}")

    def fault(self, kind: str, arg: str | float | None = None) -> None:
        self.request(f"fault {kind}" + ("" if arg is None else f" {arg}"))

    def repair(self) -> None:
        self.request("repair")

    def wake(self) -> None:
        self.request("wake")

    def status(self) -> dict[str, object]:
        result: dict[str, object] = json.loads(self.request("status"))
        return result
