"""The command channel's requests and replies as typed definitions: one TypedDict a command's arguments, and the replies.

A request is one msgpack map: the envelope's keys (`Request`: `cmd`, `id`, `hand`, `auth`) and the
command's arguments (`REQUESTS[cmd]`). `protocol.commands` checks every argument (its `_ARGS` table,
which a test holds to these definitions: the same names, the same required ones); `docs/feed.md`
lists them (the same test reads its command tables). The journal keeps a command's arguments as
checked, spelt out where they depend on the table (`protocol.records`).

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated
annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

from protocol.messages import Fault, Limits, PublicState, Say, Stakes


class Auth(TypedDict):
    """A supervisor's sign-off (checked and dropped: never journaled)."""

    user: str
    pin: str
    at: NotRequired[str]


class Request(TypedDict):
    """The envelope every request carries besides its command's arguments."""

    cmd: str
    id: NotRequired[str | int]
    hand: NotRequired[int]
    auth: NotRequired[Auth]


class Rake(TypedDict, total=False):
    rate_bp: int
    cap: int
    no_flop_no_drop: bool


class Open(TypedDict):
    game: str
    profile: NotRequired[str]
    limits: NotRequired[Limits]
    seats: NotRequired[int]
    structure: NotRequired[str]
    stakes: NotRequired[Stakes]
    stacks: NotRequired[dict[str, int]]
    button: NotRequired[int]
    sitting_out: NotRequired[list[int]]
    keep_seats: NotRequired[bool]
    rake: NotRequired[Rake]
    rules: NotRequired[dict[str, Any]]
    last_button: NotRequired[int]


class Bet(TypedDict):
    seat: int
    bets: dict[str, int]


class Decide(TypedDict):
    seat: int
    decision: str
    multiple: NotRequired[int]


class Correct(TypedDict):
    seat: int
    decision: str
    multiple: NotRequired[int]


class CardEntered(TypedDict):
    card: str


class Void(TypedDict):
    reason: str


class Clear(TypedDict):
    reason: str
    then: NotRequired[Literal["continue", "void"]]


class Act(TypedDict):
    seat: int
    action: str
    amount: NotRequired[int]
    cards: NotRequired[list[str]]


class SeatChange(TypedDict):
    seat: int
    action: str
    amount: NotRequired[int]


class Chop(TypedDict):
    reason: NotRequired[str]
    shares: NotRequired[dict[str, int]]


class History(TypedDict):
    after: NotRequired[int]
    limit: NotRequired[int]
    newest: NotRequired[bool]
    events: NotRequired[bool]


class Level(TypedDict):
    stakes: Stakes
    level: NotRequired[int]
    tournament: NotRequired[str]


class ClockCall(TypedDict):
    seat: NotRequired[int]
    seconds: NotRequired[int]


class HoldTable(TypedDict):
    reason: NotRequired[str]
    by: NotRequired[str]
    from_hand: NotRequired[int]
    release: NotRequired[bool]


class ChipRace(TypedDict):
    colour: int
    into: int
    by: NotRequired[str]
    ref: NotRequired[str]


class DrawForButton(TypedDict):
    by: NotRequired[str]
    ref: NotRequired[str]


class BuyIn(TypedDict):
    """Cash for chips at a seat: the tray gives chips worth `amount` (`engine/tray.py`)."""

    seat: int
    amount: int


class ColourUp(TypedDict):
    """A player's chips worth `amount` changed for bigger ones at the tray (value in = value out)."""

    seat: int
    amount: int


class TrayTransfer(TypedDict):
    """A fill (chips to the tray) or a credit (chips from it), signed off: the slip's `amount` and number (`slip`)."""

    amount: int
    slip: NotRequired[str]


class PlayerAtSeat(TypedDict):
    """A player card at a seat (`firmware_host/tables/players.py`): `in` with the card's number, `out`, `away`, `back`."""

    seat: int
    action: str
    card: NotRequired[str]
    source: NotRequired[str]


class DealerSignIn(TypedDict):
    """A dealer signs in at the table (relieving the dealer before) or out."""

    dealer: str
    action: str


class RatingSession(TypedDict):
    """The pit's signed-off rating step at a seat: `open` (a card, or none: the player declined it), `close` (its
    `end` entered), `adjust` (the unrated play entered: `hands` at an `average_bet` on the Ante; its `start`; of the
    session open at the seat, or of the one closed there that `session`, its start, names, checked against the gaming
    day `day_starts` in `time_zone` when the pit sends the floor's: `service/bodies.py`)."""

    seat: int
    action: str
    card: NotRequired[str]
    hands: NotRequired[int]
    average_bet: NotRequired[int]
    start: NotRequired[int]
    end: NotRequired[int]
    reason: NotRequired[str]
    session: NotRequired[float]
    day_starts: NotRequired[str]
    time_zone: NotRequired[str]


class NoArguments(TypedDict):
    """A command that takes none (`close`, `deal`, `confirm`, `state`)."""


REQUESTS: dict[str, type] = {
    "open": Open, "close": NoArguments, "bet": Bet, "deal": NoArguments, "decide": Decide, "correct": Correct,
    "card": CardEntered, "confirm": NoArguments, "void": Void, "clear": Clear, "state": NoArguments, "act": Act,
    "seat": SeatChange, "chop": Chop, "history": History, "level": Level, "clock": ClockCall, "hold": HoldTable,
    "race": ChipRace, "button-draw": DrawForButton, "player": PlayerAtSeat, "dealer": DealerSignIn,
    "buy_in": BuyIn, "colour_up": ColourUp, "fill": TrayTransfer, "credit": TrayTransfer,
    "rating": RatingSession,
}
"""Each command's arguments, by its `cmd`."""

TableOrder = Open | SeatChange | HoldTable | ChipRace | Level | DrawForButton | NoArguments
"""The arguments of a command the tournament director orders a table to take (`floor.director.seating.Order`)."""

REQUIRED: dict[str, frozenset[str]] = {cmd: getattr(args, "__required_keys__") for cmd, args in REQUESTS.items()}
"""The arguments each command needs (the others it may take: `REQUESTS`)."""


# -- replies ---------------------------------------------------------------------------------------


class Status(TypedDict):
    """The table's status, in every reply to a request it took."""

    hand: int
    seq: int
    boot: str | None
    phase: str
    fault: Fault | None


class Done(Status):
    """A request taken (or recognised as one already taken: `duplicate`)."""

    id: str | int | None
    ok: Literal[True]
    event: NotRequired[int]
    duplicate: NotRequired[Literal[True]]


class StateReply(Status):
    """The reply to `state`: the public state as the feed last showed it."""

    id: str | int | None
    ok: Literal[True]
    state: PublicState


class Refusal(TypedDict):
    """A request refused: nothing changed, nothing journaled."""

    id: str | int | None
    ok: Literal[False]
    code: str
    error: str
    say: Say
    retry_s: NotRequired[float]
    throttled_s: NotRequired[float]  # a failed sign-off that began or slowed its relaying key's throttle: the spacing
