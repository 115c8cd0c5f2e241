"""A smart table's chip alerts and a supervisor's override of a mispay, as typed definitions.

The full feed's `chip_reads` and a hand record's `chips` carry them (`protocol.messages`, `protocol.records`); a
fault names its circles with `FaultCircle`; a circle not reading its due says what makes it so with `MakeDue`.

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated annotations.
"""

from typing import Literal, NotRequired, TypedDict

from engine.chip_circles import ToDue
from protocol.signed import SignedOff


class ForeignChipNote(TypedDict):
    """A chip of no set (or retired) read in a circle or the tray: where, its UID, why it is foreign."""

    kind: Literal["foreign_chip"]
    antenna: str
    uid: str
    why: str | None


class ChipsMovedNote(TypedDict):
    """Chips added to or taken from a circle that must not change: the UIDs, the value's change, when."""

    kind: Literal["chips_moved"]
    antenna: str
    added: list[str]
    taken: list[str]
    change: int
    phase: str
    cards_out: int


class MispaidCircle(TypedDict):
    """A circle not reading its due at the confirm, and what makes it so (`make`: notes journaled before it have none,
    `engine.chip_circles.to_due` of `due` and `reads` says it)."""

    antenna: str
    due: int
    reads: int
    make: NotRequired["MakeDue"]


class MispayNote(TypedDict):
    """The circles that did not read their due at the confirm."""

    kind: Literal["mispay"]
    circles: list[MispaidCircle]


ChipNote = ForeignChipNote | ChipsMovedNote | MispayNote
"""A hand's chip alert (`firmware_host/tables/house/chips.py`), told by its `kind`."""


class AcceptedCircle(TypedDict):
    due: int
    reads: int


class ChipOverride(TypedDict):
    """A mispay a supervisor accepted as read: each circle's due and reading, and the clear that accepted it."""

    accepted: dict[str, AcceptedCircle]
    reason: str
    event: int
    signed_off: NotRequired[SignedOff]
    by: NotRequired[str]


class FaultCircle(TypedDict):
    """A bet circle a chip fault names (chips moved, a foreign chip, a mispay): the feed's `fault.circles`."""

    seat: int
    circle: str


class MakeDue(TypedDict):
    """What makes a circle read its due at the showdown (`engine.chip_circles.to_due`): `take` a lost bet, `pay` what
    is short, `take_back` what was paid over, and the amount (smallest unit): every feed's circle `make`."""

    do: ToDue
    amount: int
