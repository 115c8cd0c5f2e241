"""A smart table's chips and chip tray as the feed shows them: the circles, the reads, the tray's reconciliation.

Part of the feed's state (`protocol.messages`, which names them all too): `chips` and `tray_alert` on every feed,
`chip_reads`, `chip_uids` and `tray` on the full feed only. Never a UID on the public feed.
No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated annotations.
"""

from typing import NotRequired, TypedDict

from protocol.chip_alerts import ChipNote, ChipOverride, MakeDue


class ChipCircle(TypedDict):
    """A circle's chips as read: value (smallest unit), settled or moving, due at showdown (tables/house/chips.py)."""

    seat: int
    circle: str
    value: int
    stable: bool
    due: NotRequired[int]
    make: NotRequired[MakeDue]  # from the showdown, a circle not reading its due: what makes it so


class Chips(TypedDict):
    """A smart table's circles on every feed: the reader online, where the hand's bets came from
    (`chips`, `typed` with the reader offline, None before the Deal), each circle's value. Never a UID."""

    online: bool
    source: str | None
    circles: list[ChipCircle]


class ChipSetSign(TypedDict):
    """The chip set a smart table values chips with: its name and the sha256 of its content."""

    name: str | None
    sha256: str


class Tray(TypedDict):
    """The chip tray as read: its value and whether its chips have settled."""

    value: int
    stable: bool


class ChipCounts(TypedDict):
    """A smart table's alerts since it started: foreign chips, moved chips, mispays, mispays accepted."""

    foreign: int
    moved: int
    mispays: int
    overrides: int


class ChipReads(TypedDict):
    """A smart table's chips on the full feed only: the tray's value, the set, the foreign chips (`antenna UID`),
    the hand's alerts (`notes`: foreign chips, moved chips, mispays), the counts, an override. The UIDs are the
    full state's `chip_uids` and `tray_uids`, apart: a circle's change sends its own chips, not the tray's."""

    set: ChipSetSign
    tray: Tray
    foreign: list[str]
    notes: list[ChipNote]
    counts: ChipCounts
    override: ChipOverride | None


class AntennaUids(TypedDict):
    """A betting circle's chips on the full feed only (`chip_uids`, one a circle read): its antenna and UIDs, sorted."""

    antenna: str
    uids: list[str]


class TrayFlag(TypedDict):
    """A tray difference nothing recorded explains: its value, the hand (or the last one closed: `between`), the event."""

    value: int
    hand: int
    between: bool
    event: int


class TrayStack(TypedDict):
    """The tray's chips of one denomination, as last read stable: the chip's value and how many."""

    value: int
    count: int


class TrayMovementShown(TypedDict):
    """A buy-in, colour-up, fill or credit in the tray's trail (`seat` of a buy-in or colour-up, `slip` when given)."""

    kind: str
    amount: int
    event: int
    seat: NotRequired[int]
    slip: NotRequired[str]


class TrayTrailLine(TypedDict):
    """One line of the tray's trail as `croupier tray` prints it: a hand (`hand`, its `house_net`) or the time between
    hands (`after_hand`: 0 before the shift's first), the movements recorded in it, the tray's change and the
    difference nothing explains (None: the tray was not read at both ends)."""

    event: int
    hand: NotRequired[int]
    house_net: NotRequired[int]
    after_hand: NotRequired[int]
    movements: list[TrayMovementShown]
    tray_change: int | None
    difference: int | None


class TrayAlert(TypedDict):
    """The shift's tray differences once one is flagged, on every feed (the pit follows the public one): how many,
    their sum (the shift's difference so far) and the latest; never the tray's chips. Until the table opens again."""

    flagged: int
    difference: int | None
    last: TrayFlag | None


class TrayReconciliation(TypedDict):
    """The chip tray read all shift (`engine/tray.py`), on the full feed only: what it reads and should read,
    the shift's line so far and its latest flags (`flagged`: how many in all); the tray's chips by denomination
    (`inventory`, highest first) and the latest lines of its trail (`trail`, oldest first)."""

    reads: int | None
    settled: bool
    expected: int | None
    opening: int | None
    closing: int | None
    fills: int
    credits: int
    chips_sold: int
    house_net: int
    difference: int | None
    flags: list[TrayFlag]
    flagged: int
    inventory: list[TrayStack]
    trail: list[TrayTrailLine]
