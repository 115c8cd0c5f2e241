"""The emulated chip reader board: chips held on each antenna, scans that miss chips in tall stacks, faults on request.

Three parts, as the emulated shoe's (sim/shoe.py):

- `ChipBoardFirmware`: what the board's firmware does, sans-IO (bytes and the time in, bytes out):
  say HELLO with its antenna map, scan every antenna each period and send its INVENTORY, send
  HEARTBEAT when nothing else went out, say its standing faults again every heartbeat. It holds
  the chips physically: each antenna's stack, bottom chip first, changed by control lines.
- `ChipBoardServer`: a `sim.shoe.DeviceServer` carrying it over a pty or a TCP port, with its
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
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from drivers.chip_protocol import (
    BOARD, PROTOCOL_VERSION, Decoder, Fault, FaultCode, Heartbeat, Hello, Identify, Inventory, Message,
    check_antenna, check_uid, decode_message, encode_message,
)
from drivers.errors import DeviceError, FrameError
from drivers.gpio_sim import LineClient
from engine.games import HOUSE_GAMES
from sim.shoe import DeviceServer

log = logging.getLogger(__name__)

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


def miss_chance(height: int, rate: float) -> float:
    """The chance one scan misses the chip with `height` chips below it.

    An HF antenna's field falls off with the distance above it, and the chips' coils, stacked
    close, detune one another: the higher a chip sits in a stack, the weaker the field that wakes
    it and the likelier its answer is lost in the anticollision, so each chip below adds `rate`.
    """
    return min(MAX_MISS, rate * height)


@dataclass
class ChipBoardFirmware:
    """The board's firmware, without I/O. Call `receive(data, now)` and `poll(now)`; send `take_output()`."""

    seed: int | None = None
    antennas: tuple[tuple[int, str], ...] = field(default_factory=layout)
    model: str = "CB-SIM"
    serial: str = "SIM0001"
    firmware: tuple[int, int, int] = (1, 0, 0)
    protocol: int = PROTOCOL_VERSION
    boot: int = 1
    period_s: float = 0.1
    heartbeat_s: float = 0.5
    miss_rate: float = MISS_RATE

    seq: int = 0
    scans: int = 0                      # scans of every antenna made
    frames_sent: int = 0
    stacks: dict[str, list[str]] = field(default_factory=dict)
    armed: dict[str, int] = field(default_factory=dict)
    faults: dict[tuple[FaultCode, int], str] = field(default_factory=dict)  # standing, said every heartbeat
    silent_until: float | None = None
    lost_until: float | None = None
    _misses: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    _numbers: dict[str, int] = field(default_factory=dict, repr=False)
    _rng: random.Random = field(init=False, repr=False)
    _decoder: Decoder = field(default_factory=Decoder, repr=False)
    _out: bytearray = field(default_factory=bytearray, repr=False)
    _next_scan: float | None = None
    _next_heartbeat: float = 0.0
    _next_faults: float = 0.0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
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
        for frame in self._decoder.feed(data):
            try:
                message = decode_message(frame)
            except FrameError as exc:
                log.warning("sim-chips: bad frame from host: %s", exc)
                continue
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
            self._scan_all()
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

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def is_silent(self, now: float) -> bool:
        """Hung or unplugged: nothing goes out, nothing is read."""
        return any(until is not None and now < until for until in (self.silent_until, self.lost_until))

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
        for position, uid in enumerate(self.stacks[antenna]):
            height = position % TRAY_COLUMN if antenna == "tray" else position
            forced = self._misses.get((antenna, uid), 0)
            if forced:
                if forced == 1:
                    del self._misses[(antenna, uid)]
                else:
                    self._misses[(antenna, uid)] = forced - 1
                continue
            if self._rng.random() >= miss_chance(height, self.miss_rate):
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
            self.armed[kind] = self.armed.get(kind, 0) + 1

    def wake(self, now: float) -> None:
        if self.silent_until is not None:
            self.silent_until = now
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

    def _scan_all(self) -> None:
        self.scans += 1
        scan = self.scans % 65536
        for number, name in self.antennas:
            self._send(Inventory(number, scan, self.read(name)))
        if self._take("unknown"):  # a firmware bug: an antenna its HELLO did not name
            self._send(Inventory(max(self._numbers.values(), default=0) + 1, scan, ()))

    def _take(self, kind: str) -> bool:
        if self.armed.get(kind):
            self.armed[kind] -= 1
            if not self.armed[kind]:
                del self.armed[kind]
            return True
        return False

    def _send(self, message: Message) -> None:
        self.seq = (self.seq + 1) % 256
        if self._take("gap"):
            return  # lost inside the board: its number is used, the frame never goes out
        wire = encode_message(message, self.seq)
        self.frames_sent += 1
        if self._take("garble"):
            bad = bytearray(wire)
            bad[len(bad) // 2] ^= 0x5A  # line noise: junk, then the frame with one byte flipped
            self._out += b"\x00\xa5\xff" + bytes(bad)
            return
        self._out += wire

    # -- control lines -------------------------------------------------------------------------

    def control(self, line: str, now: float) -> str:
        """Run one control request line (see the module docstring); return the reply line."""
        words = line.split()
        if not words:
            return "err empty request"
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "place" and len(args) >= 2:
                self.place(args[0], args[1:])
                return "ok"
            if verb == "remove" and len(args) >= 2:
                self.remove(args[0], args[1:])
                return "ok"
            if verb == "move" and len(args) >= 3:
                self.move(args[0], args[1], args[2:])
                return "ok"
            if verb == "clear" and len(args) == 1:
                return " ".join(["ok", *self.clear(args[0])])
            if verb == "show" and len(args) <= 1:
                if args:
                    return "ok " + json.dumps({args[0]: list(self._stack(args[0]))})
                return "ok " + json.dumps({name: list(stack) for name, stack in self.stacks.items() if stack})
            if verb == "miss" and len(args) in (2, 3):
                self.miss(args[0], args[1], int(args[2]) if len(args) == 3 else 1)
                return "ok"
            if verb == "fault" and len(args) in (1, 2):
                self.inject(args[0], now, args[1] if len(args) == 2 else None)
                return "ok"
            if verb == "repair" and not args:
                self.faults.clear()
                return "ok"
            if verb == "wake" and not args:
                self.wake(now)
                return "ok"
            if verb == "status" and not args:
                return "ok " + json.dumps(self.status(now), sort_keys=True)
            if verb == "ping" and not args:
                return "ok pong"
        except (DeviceError, ValueError) as exc:
            return f"err {exc}"
        return (f"err bad request {line!r} (place, remove, move, clear, show, miss, fault, repair, wake, status, "
                f"ping)")

    def status(self, now: float) -> dict[str, object]:
        return {"seq": self.seq, "scans": self.scans, "chips": sum(map(len, self.stacks.values())),
                "silent": self.is_silent(now), "lost": self.is_lost(now), "armed": dict(self.armed),
                "faults": sorted(f"{code.name.lower()}:{antenna}" for code, antenna in self.faults),
                "boot": self.boot, "frames_sent": self.frames_sent}


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
