"""A casino's chip set as data: each RFID chip's UID, denomination, set and status, and what a pile of chips is worth.

A smart table reads chips, not amounts: a betting circle's antenna reports the UIDs of the chips it
holds (`drivers.readings.ChipsRead`), and the chip set says what each is worth. Only an *active*
chip is money at the table; a chip whose UID is not in the set, or is retired, a sample or void
(stolen, destroyed) is *foreign*: the table faults naming the circle and the UID.

The set's file is CSV, one chip a line (`uid,value,set,status`, a header line first), the value in
the table's smallest unit; `#` starts a comment line. Parsing is pure: the caller reads the file.

>>> chips = ChipSet.from_csv('''uid,value,set,status
... E004015000000001,500,demo-2026,active
... E004015000000002,2500,demo-2026,active
... E004015000000003,500,demo-2026,retired
... ''')
>>> chips.value(["E004015000000001", "E004015000000002"])
3000
>>> chips.foreign(["E004015000000001", "E004015000000003", "E0040150000000FF"])
('E004015000000003', 'E0040150000000FF')
>>> chips.why_foreign("E004015000000003"), chips.why_foreign("E0040150000000FF")
('retired', 'unknown')
"""

from __future__ import annotations

import csv
import enum
import hashlib
import io
from itertools import repeat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.errors import EngineError

__all__ = ["Chip", "ChipSet", "ChipSetError", "ChipStatus", "parse_uid"]

UID_DIGITS = 16
"""An ISO 15693 UID is 8 bytes: 16 hex digits, written upper-case."""

HEADER = ("uid", "value", "set", "status")


class ChipSetError(EngineError):
    """A chip set that cannot be read: names the line and what is wrong with it."""


class ChipStatus(enum.StrEnum):
    """Where a chip stands in the casino's inventory: only an active chip plays."""

    ACTIVE = "active"    # in play
    RETIRED = "retired"  # withdrawn from play (a set being replaced)
    SAMPLE = "sample"    # a sample or training chip: never money
    VOID = "void"        # reported stolen, destroyed or counterfeit-marked


@dataclass(frozen=True, slots=True)
class Chip:
    """One chip of the set: its UID, its value in the table's smallest unit, its set's name and its status."""

    uid: str
    value: int
    set: str
    status: ChipStatus


def parse_uid(text: str) -> str:
    """A UID in its one written form (16 upper-case hex digits), from any case and `:`/space separated bytes.

    >>> parse_uid("e0:04:01:50:00:00:00:01")
    'E004015000000001'

    Raises ChipSetError naming the text when it is not 8 bytes of hex.
    """
    digits = text.replace(":", "").replace(" ", "").replace("-", "").upper()
    if len(digits) != UID_DIGITS or any(c not in "0123456789ABCDEF" for c in digits):
        raise ChipSetError(f"chip UID {text!r} is not 8 bytes in hex (16 digits, e.g. E004015000000001)")
    return digits


class ChipSet:
    """The chips a table accepts, by UID. Build with `from_csv` or from `Chip`s."""

    def __init__(self, chips: Iterable[Chip], name: str = "") -> None:
        self.name = name
        self._chips: dict[str, Chip] = {}
        for chip in chips:
            if chip.uid in self._chips:
                raise ChipSetError(f"chip {chip.uid} is listed twice")
            self._chips[chip.uid] = chip
        self._values = {uid: c.value for uid, c in self._chips.items() if c.status is ChipStatus.ACTIVE}  # active only

    def __len__(self) -> int:
        return len(self._chips)

    def __iter__(self) -> Iterator[Chip]:
        return iter(self._chips.values())

    def __contains__(self, uid: object) -> bool:
        return uid in self._chips

    def get(self, uid: str) -> Chip | None:
        """The chip of `uid`, or None when the set does not know it."""
        return self._chips.get(uid)

    def why_foreign(self, uid: str) -> str | None:
        """None for an active chip; else why it is not money here: `unknown` or its status."""
        chip = self._chips.get(uid)
        if chip is None:
            return "unknown"
        return None if chip.status is ChipStatus.ACTIVE else str(chip.status)

    def foreign(self, uids: Iterable[str]) -> tuple[str, ...]:
        """The UIDs among `uids` that are not active chips of the set, sorted (a reading's 20 UIDs at every reading:
        looked up in the active chips' map at once, not one by one)."""
        return tuple(sorted(frozenset(uids).difference(self._values)))

    def value(self, uids: Iterable[str]) -> int:
        """What the active chips among `uids` are worth together (a foreign chip counts nothing)."""
        return sum(map(self._values.get, uids, repeat(0)))  # each UID looked up in C, none by a Python loop

    def denominations(self) -> tuple[int, ...]:
        """The values of the set's active chips, highest first (what a dealer pays with)."""
        return tuple(sorted({c.value for c in self._chips.values() if c.status is ChipStatus.ACTIVE}, reverse=True))

    def sha256(self) -> str:
        """A digest of the set's content, whatever the order of its lines: recorded with what it valued."""
        lines = sorted(f"{c.uid},{c.value},{c.set},{c.status}" for c in self._chips.values())
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    @classmethod
    def from_csv(cls, text: str, where: str = "chip set") -> ChipSet:
        """The set a CSV text lists (`uid,value,set,status`, header first; `#` comment lines).

        Raises ChipSetError naming `where`, the line and the field for any bad line: an unknown
        status, a value that is not a positive whole number, a UID twice.
        """
        rows = [(n, row) for n, row in enumerate(csv.reader(io.StringIO(text)), start=1)
                if row and not row[0].lstrip().startswith("#")]
        if not rows or tuple(f.strip().lower() for f in rows[0][1]) != HEADER:
            raise ChipSetError(f"{where}: the first line must be the header {','.join(HEADER)}")
        chips: list[Chip] = []
        seen: dict[str, int] = {}
        for n, row in rows[1:]:
            chip = _chip_of(row, f"{where}, line {n}")
            if chip.uid in seen:
                raise ChipSetError(f"{where}, line {n}: chip {chip.uid} is already on line {seen[chip.uid]}")
            seen[chip.uid] = n
            chips.append(chip)
        return cls(chips, name=where)


def _chip_of(row: list[str], where: str) -> Chip:
    """One CSV line's chip; raises ChipSetError naming `where` and the field."""
    if len(row) != len(HEADER):
        raise ChipSetError(f"{where}: {len(row)} fields, expected {len(HEADER)} ({','.join(HEADER)})")
    uid_text, value_text, set_name, status_text = (f.strip() for f in row)
    try:
        uid = parse_uid(uid_text)
    except ChipSetError as exc:
        raise ChipSetError(f"{where}: {exc}") from None
    if not value_text.isdigit() or int(value_text) <= 0:
        raise ChipSetError(f"{where}: value {value_text!r} is not a positive whole number of the smallest unit")
    try:
        status = ChipStatus(status_text.lower())
    except ValueError:
        raise ChipSetError(f"{where}: status {status_text!r} is not one of {', '.join(ChipStatus)}") from None
    if not set_name:
        raise ChipSetError(f"{where}: the chip's set is empty")
    return Chip(uid, int(value_text), set_name, status)
