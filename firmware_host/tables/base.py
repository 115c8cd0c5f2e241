"""What every table shares: the fault kinds, a standing fault, the fault book, and the interface the table state drives.

The house-game table (`firmware_host.tables.house.table`) and the poker table (`firmware_host.tables.poker.table`)
both implement `GameTable`; the table state (`firmware_host.tables.state`) drives either through it
alone. Steps only one kind of table takes (`bet`, `decide` at a house game; `act`, `seat`, `chop`
at a poker table) go through `GameTable.step`, each table naming the steps it takes in `STEPS`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar, cast

from drivers.readings import FaultKind as DeviceFaultKind
from drivers.readings import OfflineKind
from engine.errors import Say
from engine.redact import public_fault
from protocol.refusal import Refused as Refused  # the table's refusals are the protocol's
from protocol import messages
from protocol.signed import Cleared, SignedOff


_Part = TypeVar("_Part")
_Source = TypeVar("_Source")


class ShownParts:
    """The parts of a table's view made from its own changing lists and maps, handed out again as the very
    objects of the view before while they are equal: the redaction (`engine.redact.Redactor`) and the
    feed's changes (`protocol.feed.diff`) then pass them by identity, with no copy and no compare. A part
    given out is a copy, never changed afterwards (a published view's parts never are)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[str, Any] = {}

    def same(self, name: str, now: _Source, copy: Callable[[_Source], _Part]) -> _Part:
        """The part `name` as the last view gave it while it equals `now`; else a `copy` of `now`, kept."""
        last = self._last.get(name, self)
        if last is not self and last == now:
            return cast(_Part, last)
        made = self._last[name] = copy(now)
        return made

    def put(self, name: str, part: _Part) -> _Part:
        """`part`, made by the caller as `same`'s copy would be (equal to the source now), kept as the part `name`."""
        self._last[name] = part
        return part


MAX_STEPS_PER_HAND = 5000
"""Steps one hand may take by default (`[table] max_steps_per_hand`): a real hand takes under 200
(a 10-seat triple draw with every raise); past it the hand faults `step_limit`, so no client can
grow one hand's record without bound."""




class SetupError(ValueError):
    """An `open` body a table cannot be set up from; `field` is the body's key at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class FaultKind(enum.StrEnum):
    """Every kind of fault that stops a hand; `fault.kind` on the feed is one of these values. The
    devices' own (a link's fault, a device gone) are declared by the drivers, which report them on
    their readings (`drivers.readings`: `FaultKind`, `OfflineKind`), and taken from there."""

    DUPLICATE_CARD = "duplicate_card"
    UNEXPECTED_CARD = "unexpected_card"
    NO_BET = "no_bet"
    CARD_COUNT = "card_count"
    SHOE_EMPTY = "shoe_empty"
    LID_OPEN = "lid_open"
    DEVICE_SILENT = OfflineKind.DEVICE_SILENT.value
    DEVICE_OFFLINE = OfflineKind.DEVICE_OFFLINE.value
    SEQUENCE_GAP = DeviceFaultKind.SEQUENCE_GAP.value
    MISREAD = "misread"
    DEVICE_FAULT = DeviceFaultKind.DEVICE_FAULT.value
    REFUSED_READING = "refused_reading"
    JOURNAL_INTEGRITY = "journal_integrity"
    AUDIT_INTEGRITY = "audit_integrity"
    STEP_LIMIT = "step_limit"
    FOREIGN_CHIP = "foreign_chip"  # a chip not of the table's set, or not active (firmware_host/tables/house/chips.py)
    CHIPS_MOVED = "chips_moved"  # chips added to or taken from a circle that must not change
    MISPAY = "mispay"  # a circle does not read its due at the confirm
    TRAY_DIFFERENCE = "tray_difference"  # only with `[table] tray_difference_stops` (docs/tray.md)

    @property
    def critical(self) -> bool:
        """A fault of the table itself, not of one hand: not even a `void` is taken while it stands, only a `clear`."""
        return self in (FaultKind.JOURNAL_INTEGRITY, FaultKind.AUDIT_INTEGRITY)

    @property
    def message(self) -> str:
        """What the fault means, in a dealer's words (public: it names no card)."""
        return _FAULT_MESSAGES[self]


_FAULT_MESSAGES = {
    FaultKind.DUPLICATE_CARD: "a card was read twice in this hand",
    FaultKind.UNEXPECTED_CARD: "a card came out where none was expected",
    FaultKind.NO_BET: "a card went to a spot that has no bet",
    FaultKind.CARD_COUNT: "wrong number of cards at showdown",
    FaultKind.SHOE_EMPTY: "the shoe is empty mid-hand",
    FaultKind.LID_OPEN: "the shoe's lid was opened mid-hand",
    FaultKind.DEVICE_SILENT: "a device went silent",
    FaultKind.DEVICE_OFFLINE: "a device went offline",
    FaultKind.SEQUENCE_GAP: "frames were lost on the shoe's serial line",
    FaultKind.MISREAD: "the shoe could not read a card",
    FaultKind.DEVICE_FAULT: "a device reported a fault",
    FaultKind.REFUSED_READING: "a device reading could not be taken",
    FaultKind.STEP_LIMIT: "the hand took more steps than a hand may: a supervisor must clear or void it",
    FaultKind.FOREIGN_CHIP: "a chip that is not the table's is on the layout",
    FaultKind.CHIPS_MOVED: "chips moved in a circle after the deal",
    FaultKind.MISPAY: "a circle does not read what it is due",
    FaultKind.TRAY_DIFFERENCE: "the chip tray reads other than the game explains: a supervisor counts it and clears",
    FaultKind.JOURNAL_INTEGRITY: "the journal failed its integrity check: a supervisor must clear the table",
    FaultKind.AUDIT_INTEGRITY: "the audit log failed its integrity check: a supervisor must clear the table",
}


FAULT_SAYS = frozenset({
    "fault.duplicate_card", "fault.duplicate_card_card", "fault.unexpected_card", "fault.unexpected_card_card",
    "fault.unexpected_card_deciding", "fault.unexpected_card_deciding_card", "fault.unexpected_card_no_table",
    "fault.unexpected_card_no_table_card", "fault.no_bet", "fault.no_bet_card", "fault.card_count",
    "fault.card_count_too_many", "fault.card_count_too_many_card", "fault.shoe_empty", "fault.lid_open",
    "fault.device_silent", "fault.device_offline", "fault.device_silent_shoe", "fault.device_silent_chips",
    "fault.device_offline_shoe", "fault.device_offline_chips", "fault.sequence_gap", "fault.misread",
    "fault.device_fault", "fault.refused_reading", "fault.journal_integrity", "fault.step_limit",
    "fault.foreign_chip_circle", "fault.foreign_chip_circle_uid", "fault.foreign_chip_tray",
    "fault.foreign_chip_tray_uid", "fault.chips_moved", "fault.mispay", "fault.mispay_more", "fault.tray_difference",
})
"""Every fault's words (`[fault]` in the pages' catalogs): `fault.<kind>[_<situation>]` for everyone,
the same with `_card` for the full feed when the fault names the card (the public never reads it)."""


def fault_says(kind: FaultKind, card: str | None, seat: int | None, situation: str,
               more: Mapping[str, Any] | None = None, uid: str | None = None) -> tuple[Say, Say]:
    """`(public, full)`: a fault's words, with the seat (`seat`: the one deciding), the words' other
    arguments (`more`: a circle, amounts) and, for the full feed only, the card or the chip's UID.
    The next step is in the catalog's sentence."""
    key = f"fault.{kind.value}" + (f"_{situation}" if situation else "")
    args: dict[str, Any] = {"seat": seat} if seat is not None else {}
    args.update(more or {})
    public: Say = {"key": key if key in FAULT_SAYS else f"fault.{kind.value}", "args": dict(args)}
    if uid is not None and f"{public['key']}_uid" in FAULT_SAYS:
        return public, {"key": f"{public['key']}_uid", "args": {**args, "uid": uid}}
    if card is None or f"{public['key']}_card" not in FAULT_SAYS:
        return public, public
    return public, {"key": f"{public['key']}_card", "args": {**args, "card": {"card": card}}}


@dataclass(frozen=True, slots=True)
class Fault:
    """A standing fault. `detail` may name cards: it goes only on the full feed; so does `card`,
    in the full feed's words (`say`); the public's words (`public_say`) never name it."""

    kind: FaultKind
    message: str
    detail: str
    event: int
    card: str | None = None  # the card that raised it, when one did
    seat: int | None = None  # the seat deciding when it came
    situation: str = ""  # `deciding`, `no_table`, `too_many`, a device (`shoe`, `chips`): which of the kind's sentences
    more: Mapping[str, Any] | None = None  # the words' other arguments (a chip fault's circle, amounts)
    uid: str | None = None  # the chip that raised it (full feed only)
    circles: tuple[tuple[int, str], ...] = ()  # the bet circles it names, (seat, circle): the screens mark them

    def public(self) -> messages.Fault:
        """What the public feed shows of it: the one redaction's (`engine.redact.public_fault`)."""
        return cast(messages.Fault, public_fault(self.full()))

    def full(self) -> dict[str, Any]:
        public, full = fault_says(self.kind, self.card, self.seat, self.situation, self.more, self.uid)
        out: dict[str, Any] = {"kind": self.kind.value, "message": self.message, "detail": self.detail, "event": self.event,
                               "say": full, "public_say": public}
        if self.circles:
            out["circles"] = [{"seat": seat, "circle": circle} for seat, circle in self.circles]
        return out


class CardFault(NamedTuple):
    """Why a card from the shoe cannot be dealt: the fault it raises and what the full feed says
    (`card`, `seat`, `situation`: its words, `fault_says`)."""

    kind: FaultKind
    detail: str
    card: str | None = None
    seat: int | None = None
    situation: str = ""


class FaultBook:
    """The faults a hand met, their clearing, and the cards read while one stood (house and poker tables)."""

    faults: list[messages.HandFault]
    ignored: list[messages.IgnoredCard]
    manual: list[messages.ManualCard]

    def note_fault(self, kind: FaultKind, message: str, detail: str, event: int, phase: str,
                   extra: bool = False, said: Say | None = None) -> None:
        """Note a fault met in `phase` (`extra`: raised while another one already stood), with its words
        for the full feed (`said`, `fault_says`), so the recall of the hand says it in the page's language."""
        fault: messages.HandFault = {"kind": kind.value, "message": message, "detail": detail, "event": event,
                                     "during": extra, "phase": phase, "cleared": None}
        if said is not None:
            fault["say"] = {"key": str(said["key"]), "args": dict(said.get("args", {}))}
        self.faults.append(fault)

    def note_clear(self, cleared: Mapping[str, Any]) -> None:
        for fault in self.faults:
            if fault["cleared"] is None:  # the reducer's clearing, of a `clear` the command channel checked
                fault["cleared"] = cast(Cleared, dict(cleared))

    def note_ignored(self, card: str, fault: FaultKind) -> None:
        self.ignored.append({"card": card, "fault": fault.value})

    def note_manual(self, card: str, event: int, signed_off: Mapping[str, Any] | None = None) -> None:
        """A card entered by hand (the `card` command) and dealt: the hand's record and the full feed say so."""
        entry: messages.ManualCard = {"card": card, "event": event}
        if signed_off is not None:
            entry["signed_off"] = cast(SignedOff, dict(signed_off))  # the gate's (`protocol.signoff`), journaled
        self.manual.append(entry)


class GameSetup(Protocol):
    """What `open` sets for one game; journaled as the `open` event's body (`as_body`)."""

    @property
    def game(self) -> str: ...

    def as_body(self) -> dict[str, Any]: ...

    def new_table(self, hand: int) -> GameTable: ...


class GameTable(Protocol):
    """The hand in progress at a table (or just closed, until the next one starts), as the table
    state drives it. Every step raises `EngineError`/`ValueError` when refused and then changes nothing."""

    STEPS: ClassVar[frozenset[str]]
    """The table-specific steps `step` takes (`bet`, `decide`; `act`, `seat`, `chop`)."""

    hand: int
    closed: str | None  # "settled" or "voided" once closed
    faults: list[messages.HandFault]
    ignored: list[messages.IgnoredCard]
    manual: list[messages.ManualCard]

    @property
    def setup(self) -> GameSetup: ...

    @property
    def phase(self) -> str: ...

    @property
    def started(self) -> bool:
        """A hand is under way (bets posted or cards dealt) and not closed."""
        ...

    @property
    def mid_hand(self) -> bool:
        """Between the deal and the end of the hand: where shoe and device faults stop the hand."""
        ...

    @property
    def confirmable(self) -> bool:
        """The hand is over: the dealer pays (pushes the pots) and confirms."""
        ...

    @property
    def waiting_for_dealer(self) -> bool:
        """The tower light's amber: a decision or the payouts are awaited."""
        ...

    @property
    def between_hands(self) -> bool:
        """The `next` button deals (closes the betting, starts the next hand)."""
        ...

    def next_target(self) -> str | None: ...

    def short_of_cards(self) -> bool:
        """Cards are still expected and nothing else is awaited: a showdown called now is short."""
        ...

    def full_view(self) -> dict[str, Any]:
        """The table in full: every card, and per hand the `visible` flags the one redaction
        (`engine.redact.public`) turns into the public view."""
        ...

    def deal_or_fault(self, card: str) -> CardFault | None:
        """Deal the card where the rules say; or the fault it raises instead, nothing changed."""
        ...

    def discard(self, card: str) -> None: ...

    def deal(self) -> None:
        """Close the betting / start the hand."""
        ...

    def step(self, kind: str, body: Mapping[str, Any]) -> None:
        """A table-specific step (one of `STEPS`)."""
        ...

    def settle(self) -> None: ...

    def record(self, status: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Close the hand and return its record (journal, `croupier history`)."""
        ...

    def successor(self, hand: int) -> GameTable:
        """The table for the next hand."""
        ...

    def carry_from(self, record: Mapping[str, Any]) -> None:
        """Take over what a closed hand's record left at the table (a poker table's seats and
        stacks; nothing at a house game, where nothing carries over)."""
        ...

    def shown(self) -> dict[str, Any] | None:
        """The hand, once closed, in public form for the table's `history` of last hands (the
        players' screen); None where the table keeps none (a poker table)."""
        ...

    def carried_seats(self) -> dict[str, Any]:
        """`open` fields that carry the players over to a new game (a poker table's stacks, who
        sits out, the last button); empty where there are no players to keep (a house game)."""
        ...

    def note_fault(self, kind: FaultKind, message: str, detail: str, event: int, phase: str,
                   extra: bool = False, said: Say | None = None) -> None: ...

    def note_clear(self, cleared: Mapping[str, Any]) -> None: ...

    def note_ignored(self, card: str, fault: FaultKind) -> None: ...

    def note_manual(self, card: str, event: int, signed_off: Mapping[str, Any] | None = None) -> None: ...
