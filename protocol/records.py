"""The journal's event bodies and the closed hands' records as typed definitions (the floor's archive reads the records).

Every event is `(kind, body)`: a device's reading (`firmware_host/service/events.py`), a fault or a
refused reading the controller journals itself, or a command as checked (`protocol.requests`), spelt
out where it depends on the table (an `open`'s profile text and limits, a `hold`'s hand, a `clock`'s
start, a `correct`'s `was`), and signed off (`signed_off`) when a supervisor's sign-off came with it.
`EVENT_BODIES` names each kind's body; a test holds every event and every closed hand of played
house and poker hands to them (`tests/protocol/test_messages.py`).

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated
annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

from engine.house_values import RoundLine, SettlementLine
from protocol.chip_alerts import ChipNote, ChipOverride, MakeDue
from protocol.messages import (ChipCounts, Device, HandFault, HistoryHand, IgnoredCard, Limits,
                               ManualCard, PokerResults, Stakes, Tournament, TrayFlag)
from protocol.signed import SignedOff
from protocol import requests as r

# -- the devices' readings -----------------------------------------------------------------------


class CardBody(TypedDict):
    """A card read by the shoe or the discard reader, or entered by hand (`source` `manual`, signed off). A card
    the shoe read is journaled with its card and frame (`seq`) alone: no `source` is the shoe's, no `device` the
    shoe (the rows of journals written before 2026-12-05 say both, and replay alike)."""

    card: str
    source: NotRequired[str]
    seq: int
    device: NotRequired[str]
    signed_off: NotRequired[SignedOff]


class MisreadBody(TypedDict):
    source: str
    seq: int


class SensorBody(TypedDict):
    """A shoe sensor's change; `seq` and `device` when it came over the shoe's link."""

    name: str
    active: bool
    seq: NotRequired[int]
    device: NotRequired[str]


class ButtonBody(TypedDict):
    name: str


class DeviceBody(TypedDict):
    """A device online (what it said it is) or offline (why, and the kind of it)."""

    device: str
    online: bool
    model: NotRequired[str]
    serial: NotRequired[str]
    firmware: NotRequired[str]
    boot: NotRequired[int]
    reason: NotRequired[str]
    kind: NotRequired[str]


class DeviceFaultBody(TypedDict):
    device: str
    reason: str
    kind: str


class ChipRead(TypedDict):
    """A chip reader's antenna and the chips it holds now: all of them (`uids`, sorted) or, when that is shorter,
    what changed since the antenna's reading before (`added`, `removed`, sorted, each only when not empty: neither
    when only `stable` changed; journals written before hold `[]` and `[]` then); `stable` once settled
    (`firmware_host.tables.house.chips.chip_read`, `uids_after`)."""

    antenna: str
    uids: NotRequired[list[str]]
    added: NotRequired[list[str]]
    removed: NotRequired[list[str]]
    stable: bool


class ChipScanBody(TypedDict):
    """The chip readings of one reader taken together (what one scan changed, each antenna once, as the link
    posted them): one event, one step of the table, applied antenna by antenna in their order."""

    device: str
    reads: list[ChipRead]


class ChipsBody(ChipRead):
    """One antenna's reading as its own event: what journals written before `chip_scan` hold (replayed as ever)."""

    device: str


class ChipSetBody(TypedDict):
    """The chip set a smart table values chips with, journaled when the table starts with it: the journal alone
    values every chip (`[chips] set`; `engine.chips.ChipSet.from_csv` reads `text`, `sha256` is its digest)."""

    name: str
    sha256: str
    text: str


class PlayerBody(r.PlayerAtSeat):
    """A `player` event: from the dealer's or the pit's command (`source` `dealer`, `pit`), or a seat's card
    reader (`source` `reader`, its `device`). The card number is kept here and on the full feed only."""

    device: NotRequired[str]
    signed_off: NotRequired[SignedOff]


ReadingBody = (CardBody | MisreadBody | SensorBody | ButtonBody | DeviceBody | DeviceFaultBody | ChipScanBody
               | PlayerBody)
"""What a device's reading is journaled as."""


# -- what the controller journals itself -----------------------------------------------------------


class FaultBody(TypedDict):
    """A fault the controller found itself (a silent device, the hand's step limit)."""

    kind: str
    detail: NotRequired[str]


class RefusedBody(TypedDict):
    """A reading the table could not apply: journaled as it came, with why (a fault)."""

    kind: str
    body: dict[str, Any]
    error: str


# -- the commands, as journaled ----------------------------------------------------------------------


class Signed(TypedDict):
    signed_off: NotRequired[SignedOff]


class ProfileText(TypedDict):
    """A house table's profile as its `open` journals it: the text the hands are played under."""

    name: str
    content: str
    sha256: str
    source: str


class OpenBody(Signed):
    """An `open` as journaled: a house table's profile text and limits spelt out; a poker table's seats
    spelt out instead of `keep_seats`."""

    game: str
    profile: NotRequired[str | ProfileText]
    limits: NotRequired[Limits]
    seats: NotRequired[int]
    structure: NotRequired[str]
    stakes: NotRequired[Stakes]
    stacks: NotRequired[dict[str, int]]
    button: NotRequired[int | None]
    sitting_out: NotRequired[list[int]]
    rake: NotRequired[r.Rake]
    rules: NotRequired[dict[str, Any]]
    last_button: NotRequired[int | None]


class CorrectBody(r.Correct, Signed):
    """A `correct` with the decision it replaced."""

    was: NotRequired[dict[str, Any]]  # the round's step it replaced (`seat`, `do`, `action`, ...)


class ClockBody(r.ClockCall, Signed):
    """A `clock` with when it started (the clock runs from there, on replay too)."""

    at: float


class ConfirmBody(Signed):
    """A `confirm` (the `confirm` button's says `by`)."""

    by: NotRequired[str]


class BetBody(r.Bet, Signed):
    pass


class DecideBody(r.Decide, Signed):
    pass


class VoidBody(r.Void, Signed):
    pass


class ClearBody(r.Clear, Signed):
    by: NotRequired[str]  # a journal of before sign-offs: who cleared it, in free text


class ActBody(r.Act, Signed):
    pass


class SeatBody(r.SeatChange, Signed):
    pass


class ChopBody(r.Chop, Signed):
    pass


class LevelBody(r.Level, Signed):
    pass


class HoldBody(r.HoldTable, Signed):
    pass


class RaceBody(r.ChipRace, Signed):
    pass


class DrawBody(r.DrawForButton, Signed):
    pass


class BuyInBody(r.BuyIn, Signed):
    pass


class ColourUpBody(r.ColourUp, Signed):
    pass


class TrayTransferBody(r.TrayTransfer, Signed):
    pass


class DealerBody(r.DealerSignIn, Signed):
    pass


class EnteredBefore(TypedDict):
    """What the pit had entered for the session at a seat (its `rating` steps): unrated play, `hands` at an
    `average_bet` on the Ante, and its rated `start`."""

    hands: NotRequired[int]
    average_bet: NotRequired[int]
    start: NotRequired[int]


class RatingWas(TypedDict):
    """What a `rating` step replaced at its seat: the card there (null: nobody rated), how it came, and what was
    entered for its session (`tables/players.py` `Seated.rating_was`); for an `adjust` of a session closed there
    (`service/bodies.py` `closed_was`), that session's start (`session`) and end, and its rated `start`."""

    card: str | None
    source: NotRequired[str]
    entered: NotRequired[EnteredBefore]
    session: NotRequired[float]
    end: NotRequired[float | None]
    start: NotRequired[float]


class RatingBody(r.RatingSession, Signed):
    """The pit's `rating` step, signed off, with what it replaced at the seat (`was`)."""

    was: RatingWas


class Nothing(Signed):
    """A command with no arguments (`deal`, `close`)."""


EVENT_BODIES: dict[str, type] = {
    "card": CardBody, "misread": MisreadBody, "sensor": SensorBody, "button": ButtonBody, "device": DeviceBody,
    "device_fault": DeviceFaultBody, "fault": FaultBody, "refused": RefusedBody,
    "open": OpenBody, "close": Nothing, "bet": BetBody, "deal": Nothing, "decide": DecideBody,
    "correct": CorrectBody, "confirm": ConfirmBody, "void": VoidBody, "clear": ClearBody, "act": ActBody,
    "seat": SeatBody, "chop": ChopBody, "level": LevelBody, "clock": ClockBody, "hold": HoldBody,
    "race": RaceBody, "button-draw": DrawBody, "player": PlayerBody, "dealer": DealerBody,
    "rating": RatingBody, "chip_scan": ChipScanBody, "chips": ChipsBody, "chip_set": ChipSetBody,
    "buy_in": BuyInBody, "colour_up": ColourUpBody, "fill": TrayTransferBody, "credit": TrayTransferBody,
}
"""Each event kind's body (`state` and `history` are never journaled; a `card` command is a card event)."""


# -- the closed hands ------------------------------------------------------------------------------


class TrayMovement(TypedDict):
    """A buy-in, colour-up, fill or credit as a hand's record carries it: recorded `amount`, what the tray
    `read` of it (null: the reading cannot tell), its event, a seat, a slip."""

    kind: str
    amount: int
    read: int | None
    event: int
    seat: NotRequired[int]
    slip: NotRequired[str]


class HandTray(TypedDict):
    """The chips moved at the tray between the hand before and this one's cards (`engine/tray.py`)."""

    movements: list[TrayMovement]
    tray_change: int | None
    difference: int | None
    flags: NotRequired[list[TrayFlag]]  # the tray's differences flagged since the hand before closed, this one's


HandStatus = Literal["settled", "voided"]
"""How a hand closed (a closed hand's record's, its line's and the journal's `hands.status`)."""


class Closing(TypedDict):
    """What every closed hand's record carries, house or poker."""

    hand: int
    game: str
    status: HandStatus
    burns: list[str]
    deals: list[list[str]]
    board: list[str]
    faults: list[HandFault]
    ignored: list[IgnoredCard]
    manual: list[ManualCard]
    discards: list[str]
    reason: str | None
    by: str | None
    signed_off: SignedOff | None
    devices: dict[str, Device]
    sensors: dict[str, bool]
    last_hand: NotRequired[HistoryHand]
    level: NotRequired[Stakes]  # a tournament level's stakes the hand was played at (`tables/levels.py`)
    tournament: NotRequired[Tournament]
    tray: NotRequired[HandTray]  # with a chip set: the chips moved at the tray before the hand (`engine/tray.py`)


class HouseSpotRecord(TypedDict):
    seat: int
    bets: dict[str, int]
    cards: list[str]
    decision: str | None
    street: str | None
    multiple: int | None


class AntennaRead(TypedDict):
    uids: list[str]
    stable: bool


class HandChips(TypedDict):
    """A smart table's hand record's `chips` (`TableChips.close_hand`): where the bets came from and those read
    at the Deal (seat -> circle -> value), each circle's due and what it read at the confirm, a mispay accepted,
    the hand's alerts, the set, and what the table carries on (the counts, every antenna holding chips)."""

    source: str | None
    bets_read: dict[str, dict[str, int]]
    dues: dict[str, int]
    paid: dict[str, int] | None
    override: ChipOverride | None
    notes: list[ChipNote]
    set_sha256: str
    counts: ChipCounts
    reads: dict[str, AntennaRead]
    make: NotRequired[dict[str, MakeDue]]  # each circle whose reading at the confirm was not its due (`paid` against
    # `dues`): what made it so, `engine.chip_circles.to_due` (hands journaled before it have none: `to_due` says it)


class HouseHandRecord(Closing):
    """A house hand as journaled when it closed (`croupier history --json` re-settles it)."""

    profile: str
    profile_sha256: str | None
    limits: Limits
    spots: list[HouseSpotRecord]
    dealer: list[str]
    steps: list[dict[str, Any]]
    round: RoundLine
    settlement: SettlementLine | None
    corrected: list[CorrectBody]  # the decisions corrected, each as its `correct` journaled it
    chips: NotRequired[HandChips]  # a smart table's: bets read, dues, paid, override, moved/foreign chips


class HandRules(TypedDict):
    """What a poker hand record needs beside its stakes to be played again exactly (`tables/poker/record.py`
    `hand_rules`): the short all-in rule it was dealt under, a dead small blind, a tournament's all-in reveal,
    the blinds owed and posted (seat -> kind)."""

    short_allin_rule: str
    fixed_limit_half_bet_reopens: bool
    no_small_blind: NotRequired[bool]
    all_in_reveal: NotRequired[bool]
    owed: NotRequired[dict[str, str]]


class PhhRecord(TypedDict):
    """A poker hand in `engine.phh.hand_from_record`'s format (`croupier phh export` reads it): each event a list,
    its verb first (`["deal", "As"]`, `["raise", 1, 20]`, `["draw", 3, ["As", "Kd"]]`)."""

    variant: str
    structure: str
    stakes: Stakes
    stacks: dict[str, int]
    button: int | None
    burns: bool
    events: list[list[Any]]
    rules: HandRules
    fields: dict[str, int]
    rake: NotRequired[r.Rake]


class SeatStack(TypedDict):
    """A seat between hands: its stack, sitting out, its player's name, the blinds it owes, waiting for the big blind."""

    stack: int
    out: bool
    name: NotRequired[str]
    owes: NotRequired[str]
    waiting: NotRequired[bool]


class Seating(TypedDict):
    """The poker table's seating after a hand (`engine.poker.Session.to_dict`): seat -> its stack, the last hand's
    button and blinds' positions (the next hand moves on from them)."""

    seats: dict[str, SeatStack]
    button: int | None
    small_blind: NotRequired[int | None]
    big_blind: NotRequired[int | None]


class PokerHandRecord(Closing):
    """A poker hand as journaled when it closed; `hand_record` is `engine.phh.hand_from_record`'s."""

    poker: Literal[True]
    structure: str
    stakes: Stakes
    button: int | None
    stacks: dict[str, int]
    cards: dict[str, list[str]]
    actions: list[str]
    shown: dict[str, list[str]]
    results: PokerResults | None
    chopped: bool
    hand_record: PhhRecord | None
    session: Seating


HandRecord = HouseHandRecord | PokerHandRecord
"""A closed hand's record."""

