"""The feed's messages as typed definitions: the table's public and full state and the frames that carry them.

Written once, here; `docs/feed.md` says what each field means and a test holds the two together
(`tests/protocol/test_messages.py`); the pages get the public state's JSON Schema made from these definitions
(`protocol.schema`, served by the display at `/schema/public.json`). On the wire every message stays one msgpack map:
a TypedDict is a dict, so the definitions cost nothing at run time (`docs/feed.md`, "Typed messages", has the measure
that chose them over msgspec's Structs).

One state serves every game: the keys all tables show are required, a house table's or a poker table's own are
`NotRequired`. The full state is the public one plus what only the restricted feed carries (every card with its
`visible` flags, burns, devices, sensors, a fault's detail); the public state is derived from it by
`engine.redact.public`, the one redaction. This module does not use `from __future__ import annotations`: Python 3.11
reads `NotRequired` only from evaluated annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

from protocol.chip_alerts import ChipNote, ChipOverride, FaultCircle, MakeDue
from protocol.signed import Cleared, SignedOff


class Say(TypedDict):
    """Words for a person: a key of the pages' catalogs and its fields (`engine.errors.say`)."""

    key: str
    args: dict[str, Any]


# -- the state's parts ---------------------------------------------------------------------------


class Fault(TypedDict):
    """A standing fault as the public sees it (`engine.redact.public_fault`); `circles`: the bet circles it names."""

    kind: str
    message: str
    event: int
    say: NotRequired[Say]
    circles: NotRequired[list[FaultCircle]]


class FullFault(Fault):
    """A standing fault on the full feed: its `detail` may name a card, its `say` too."""

    detail: str
    public_say: Say


class HandWords(TypedDict):
    """A house hand from the showdown on: its name, category, the ranks its name cites, the kickers that decided."""

    hand_name: NotRequired[str | None]
    hand_category: NotRequired[str | None]
    hand_ranks: NotRequired[list[str] | None]
    hand_kickers: NotRequired[list[str] | None]  # against a hand named alike (engine.kickers)


class Dealer(HandWords):
    """The dealer's hand (no cards at poker)."""

    cards: list[str]
    qualifies: NotRequired[bool | None]


class FullDealer(Dealer):
    visible: list[bool]


class Act(TypedDict):
    """A poker seat's last action as data, for a screen's own words."""

    action: str
    amount: NotRequired[int]
    all_in: NotRequired[bool]
    cards: NotRequired[int]
    clock: NotRequired[bool]


class HandValue(TypedDict):
    """A shown poker hand: `category` (`engine.evaluate`'s key; `no_low`), `ranks` (a low, badugi), `named` (high)."""

    category: str
    ranks: str | None
    named: NotRequired[list[str]]


class Spot(HandWords):
    """A house table's spot or a poker table's seat."""

    seat: int
    cards: list[str]
    bets: dict[str, int]
    decision: str | None
    results: NotRequired[dict[str, int]]
    pays: NotRequired[dict[str, str]]
    net: NotRequired[int]
    stack: NotRequired[int]  # a poker seat's, from here on
    sitting_out: NotRequired[bool]
    in_hand: NotRequired[bool]
    up: NotRequired[list[bool]]
    folded: NotRequired[bool]
    all_in: NotRequired[bool]
    mucked: NotRequired[bool]
    shown: NotRequired[bool]
    owes: NotRequired[Literal["small", "big", "both"] | None]
    waiting_for_big_blind: NotRequired[bool]
    revealed: NotRequired[bool]
    posted: NotRequired[dict[str, int]]
    drew: NotRequired[list[int]]
    act: NotRequired[Act | None]
    hand_values: NotRequired[list[HandValue]]


class FullSpot(Spot):
    visible: list[bool]


class Decision(TypedDict):
    """A house decision: `check`, `play` (with its multiple at UTH), `fold`."""

    decision: str
    multiple: NotRequired[int]


class Correction(TypedDict):
    """A seat's last decision that may still be corrected, and what it may become."""

    seat: int
    was: Decision
    choices: list[Decision]


class BetOrRaise(TypedDict):
    kind: Literal["bet", "raise", "complete"]
    min_to: int
    max_to: int
    choices: list[int] | None


class PokerLegal(TypedDict):
    """What the poker seat to act may do now; amounts are street totals."""

    fold: bool
    check: bool
    call: int | None
    bring_in: int | None
    bet_or_raise: BetOrRaise | None
    all_in: int | None
    draw: bool
    show: bool
    muck: bool


class Stakes(TypedDict, total=False):
    """A poker table's stakes (`engine.games.STAKES_KEYS`); amounts in the table's unit."""

    blinds: list[int]
    antes: int | list[int]
    bring_in: int
    small_bet: int
    big_bet: int
    min_bet: int
    max_bet: int
    raise_cap: int | None
    uncapped_heads_up: bool


class Steps(TypedDict):
    """Which dealer steps the table allows now (`firmware_host/tables/steps.py`)."""

    bet: bool
    deal: bool
    confirm: bool
    void: bool
    correct: bool
    chop: bool
    between_hands: bool
    board: bool


class Hold(TypedDict):
    """The pit's hold: no hand numbered `from_hand` or later begins until it is released."""

    by: str
    reason: str
    from_hand: int


class Session(TypedDict):
    """The table's session since its last `open`."""

    hands: int
    voided: int
    house_net: int


class ChipCircle(TypedDict):
    """A circle's chips as read: value (smallest unit), settled or moving, due at showdown (tables/house/chips.py)."""

    seat: int
    circle: str
    value: int
    stable: bool
    due: NotRequired[int]
    make: NotRequired[MakeDue]  # from the showdown, a circle not reading its due: what makes it so


class Chips(TypedDict):
    """A smart table's circles on every feed: reader online, bets from `chips`, `typed` or None yet; never a UID."""

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


class Limits(TypedDict):
    """A house table's limits sign (0: no such limit)."""

    minimum: int
    maximum: int
    side_minimum: int
    side_maximum: int
    chip: int


class Paytable(TypedDict):
    """A house table's paytables: per bet circle, hand category -> `[win, stake]`."""

    name: str
    sha256: str
    qualifier: str
    pays: dict[str, dict[str, list[int]]]


class RaceSeat(TypedDict):
    seat: int
    stack: int
    odd_chips: int
    cards: list[str]
    after: NotRequired[int]


class Race(TypedDict):
    """A poker table's chip race (`firmware_host/tables/chip_race_step.py`)."""

    colour: int
    into: int
    by: str
    ref: str
    done: bool
    next: int | None
    seats: list[RaceSeat]
    manual: list[str]
    value: NotRequired[int]
    chips_won: NotRequired[int]
    winners: NotRequired[list[int]]
    kept_in: NotRequired[list[int]]
    change: NotRequired[int]


class DrawSeat(TypedDict):
    seat: int
    cards: list[str]


class ButtonDraw(TypedDict):
    """A poker table's draw for the button by high card (`firmware_host/tables/button_draw_step.py`)."""

    by: str
    ref: str
    done: bool
    next: int | None
    seats: list[DrawSeat]
    manual: list[str]
    button: NotRequired[int]


class Expected(TypedDict):
    """The card a poker hand expects next."""

    kind: Literal["burn", "hole", "board", "draw"]
    seat: int | None
    up: bool
    street: str


class Pot(TypedDict):
    amount: int
    eligible: list[int]


class Winner(TypedDict):
    seat: int
    amount: int
    half: str


class PotResult(TypedDict):
    amount: int
    eligible: list[int]
    winners: list[Winner]


class Net(TypedDict):
    seat: int
    net: int


class PokerResults(TypedDict):
    """A poker hand's outcome from `over` on (the nets add up to zero)."""

    pots: list[PotResult]
    net: list[Net]
    rake: int
    chopped: bool
    showdown: bool


class Tournament(TypedDict):
    """The level a tournament director set, in force from the next hand."""

    name: str | None
    level: int | None
    blinds: list[int]
    antes: int | list[int] | None


class Clock(TypedDict):
    """The clock the floor called on the seat to act (`ends_at`: wall-clock seconds)."""

    seat: int
    seconds: int
    ends_at: float


class HistorySpot(HandWords):
    seat: int
    cards: NotRequired[list[str]]
    results: NotRequired[dict[str, int]]
    folded: NotRequired[bool]
    hand_values: NotRequired[list[HandValue]]
    net: NotRequired[int]


class HistoryPot(TypedDict):
    amount: int
    winners: list[Winner]


class HistoryHand(TypedDict):
    """One of the last hands, in public form as it closed (house or poker)."""

    hand: int
    voided: bool
    board: list[str]
    spots: list[HistorySpot]
    dealer: NotRequired[Dealer]
    poker: NotRequired[Literal[True]]
    pots: NotRequired[list[HistoryPot]]
    rake: NotRequired[int]


# -- the full feed's own --------------------------------------------------------------------------


class Device(TypedDict, total=False):
    """What a device said at connection and its last frame (the full feed's `devices`, by device)."""

    online: bool
    model: str
    serial: str
    firmware: str
    boot: int
    seq: int
    last_card: str


class IgnoredCard(TypedDict):
    """A card read while a fault stood: recorded, not dealt."""

    card: str
    fault: str


class ManualCard(TypedDict):
    """A card entered by hand (the `card` command) and dealt."""

    card: str
    event: int
    signed_off: NotRequired[SignedOff]


class HandFault(TypedDict):
    """A fault a hand met (`during`: raised while another stood), and its clearing once cleared."""

    kind: str
    message: str
    detail: str
    event: int
    during: bool
    phase: str
    cleared: Cleared | None
    say: NotRequired[Say]


# -- the state -----------------------------------------------------------------------------------


class TableFields(TypedDict):
    """The keys the public and the full state share with the same type (each state adds its hands and fault)."""

    game: str | None
    hand: int
    phase: str
    board: list[str]
    to_act: int | None
    next: str | None
    currency: str
    decimals: int
    session: Session
    history: list[HistoryHand]
    hold: Hold | None
    steps: Steps
    corrections: list[Correction]
    legal: NotRequired[list[Decision] | PokerLegal | None]
    seats: NotRequired[int]  # the table's seats (a poker table's are numbered 1..seats)
    # a house table's
    circles: NotRequired[list[str]]
    limits: NotRequired[Limits]
    paytable: NotRequired[Paytable]
    chips: NotRequired[Chips]
    tray_alert: NotRequired[TrayAlert]
    gaming_day: NotRequired[dict[str, str] | None]  # `[ratings]` {starts, time_zone} for the pit; a poker table's below:
    structure: NotRequired[str]
    stakes: NotRequired[Stakes]
    street: NotRequired[str | None]
    button: NotRequired[int | None]
    expected: NotRequired[Expected | None]
    prompt: NotRequired[str | None]
    level: NotRequired[int]
    pots: NotRequired[list[Pot]]
    total_pot: NotRequired[int]
    results: NotRequired[PokerResults | None]
    tournament: NotRequired[Tournament | None]
    clock: NotRequired[Clock | None]
    race: NotRequired[Race | None]
    button_draw: NotRequired[ButtonDraw | None]


class PublicState(TableFields):
    """The table as the public feed shows it (an update's and a snapshot's fields after the header)."""

    dealer: Dealer
    spots: list[Spot]
    fault: Fault | None


class SeatPlayer(TypedDict):
    """The player card at a seat, on the full feed only (`firmware_host/tables/players.py`)."""

    card: str
    source: str
    away: bool


class FullState(TableFields):
    """The table on the restricted feed: every card shown, with its `visible` flags, and what only it carries."""

    dealer: FullDealer
    spots: list[FullSpot]
    fault: FullFault | None
    devices: dict[str, Device]
    sensors: dict[str, bool]
    burns: NotRequired[list[str]]
    discards: NotRequired[list[str]]
    mucked: NotRequired[list[str]]
    ignored: NotRequired[list[IgnoredCard]]
    manual: NotRequired[list[ManualCard]]
    corrected: NotRequired[list[dict[str, Any]]]
    sequence: NotRequired[list[dict[str, Any]]]
    chip_reads: NotRequired[ChipReads]
    chip_uids: NotRequired[list[AntennaUids]]
    tray_uids: NotRequired[list[str]]
    players: NotRequired[dict[str, SeatPlayer]]
    dealer_signed_in: NotRequired[str | None]
    tray: NotRequired[TrayReconciliation]


# -- the frames ----------------------------------------------------------------------------------

Kind = Literal["changes", "update", "heartbeat", "snapshot"]


class Header(TypedDict):
    """What every feed frame starts with (`protocol.feed`)."""

    table: str
    boot: str
    seq: int
    kind: Kind


class Heartbeat(Header):
    """Sent when nothing else went out for `heartbeat_s`: the header alone."""


Changes = TypedDict("Changes", {"table": str, "boot": str, "seq": int, "kind": Kind, "set": dict[str, Any],
                                 "del": list[str], "items": NotRequired[dict[str, list[Any]]]})
"""A step: the state's keys changed (`set`), gone (`del`), and the lists changed in places (`items`: key ->
`[length, [[index, value], ...]]`), as `protocol.feed.diff` makes them and `apply_changes` applies them
(the functional form: `del` is a Python keyword)."""


class PublicUpdate(Header, PublicState):
    """A snapshot on the public feed (or a step of a feed sending whole states): the header, then the state."""


class FullUpdate(Header, FullState):
    """A snapshot on the full feed (or a step of a feed sending whole states)."""


class SnapshotRequest(TypedDict):
    """What a late joiner sends the snapshot socket (any one frame is answered; this by convention)."""

    want: Literal["snapshot"]


class Hello(TypedDict):
    """The display's first WebSocket message to a screen: how often the feed beats, then the state follows."""

    kind: Literal["hello"]
    heartbeat_s: float


FeedMessage = Changes | PublicUpdate | FullUpdate | Heartbeat
"""Any frame a subscriber receives."""
