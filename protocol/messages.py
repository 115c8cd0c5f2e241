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

from protocol.chip_alerts import FaultCircle
# the poker table's and the smart table's parts, named here too (`X as X`): importers keep `protocol.messages`
from protocol.poker_state import (Act as Act, BetOrRaise as BetOrRaise, ButtonDraw as ButtonDraw, Clock as Clock,
                                  DrawSeat as DrawSeat, Expected as Expected, HandValue as HandValue, Net as Net,
                                  PokerLegal as PokerLegal, PokerResults as PokerResults, Pot as Pot,
                                  PotResult as PotResult, Race as Race, RaceSeat as RaceSeat, Stakes as Stakes,
                                  Tournament as Tournament, Winner as Winner)
from protocol.smart_table import (AntennaUids as AntennaUids, ChipCircle as ChipCircle, ChipCounts as ChipCounts,
                                  ChipReads as ChipReads, ChipSetSign as ChipSetSign, Chips as Chips, Tray as Tray,
                                  TrayAlert as TrayAlert, TrayFlag as TrayFlag,
                                  TrayMovementShown as TrayMovementShown, TrayReconciliation as TrayReconciliation,
                                  TrayStack as TrayStack, TrayTrailLine as TrayTrailLine)
from protocol.signed import Cleared, SignedOff
from protocol.signoff_holds import SignoffAlert as SignoffAlert


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
    waiting_for_button: NotRequired[bool]
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
    signoff_alert: NotRequired[SignoffAlert]  # a relaying key's sign-offs slowed down (`protocol.signoff_holds`)
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
