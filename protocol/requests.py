"""The command channel's requests and replies as typed definitions: one TypedDict a command, and the replies.

`protocol.commands` checks a request's every argument (its `_ARGS` table, which a test holds to these
definitions: the same names, the same required ones); `docs/feed.md` lists them (a test reads its
command tables). A request is one msgpack map: `Request`'s keys, then the command's arguments.

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated
annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

from protocol.messages import Fault, Limits, PublicState, Say


class Auth(TypedDict):
    """A supervisor's sign-off (checked and dropped: never journaled)."""

    user: str
    pin: str
    at: NotRequired[str]


class Request(TypedDict):
    """What every request may carry besides its command's arguments."""

    cmd: str
    id: NotRequired[str | int]
    hand: NotRequired[int]
    auth: NotRequired[Auth]


class Rake(TypedDict, total=False):
    rate_bp: int
    cap: int
    no_flop_no_drop: bool


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


class Open(Request):
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


class Bet(Request):
    seat: int
    bets: dict[str, int]


class Decide(Request):
    seat: int
    decision: str
    multiple: NotRequired[int]


class Correct(Request):
    seat: int
    decision: str
    multiple: NotRequired[int]


class CardEntered(Request):
    card: str


class Void(Request):
    reason: str


class Clear(Request):
    reason: str
    then: NotRequired[Literal["continue", "void"]]


class Act(Request):
    seat: int
    action: str
    amount: NotRequired[int]
    cards: NotRequired[list[str]]


class SeatChange(Request):
    seat: int
    action: str
    amount: NotRequired[int]


class Chop(Request):
    reason: NotRequired[str]
    shares: NotRequired[dict[str, int]]


class History(Request):
    after: NotRequired[int]
    limit: NotRequired[int]
    newest: NotRequired[bool]
    events: NotRequired[bool]


class Level(Request):
    stakes: Stakes
    level: NotRequired[int]
    tournament: NotRequired[str]


class ClockCall(Request):
    seat: NotRequired[int]
    seconds: NotRequired[int]


class HoldTable(Request):
    reason: NotRequired[str]
    by: NotRequired[str]
    from_hand: NotRequired[int]
    release: NotRequired[bool]


class ChipRace(Request):
    colour: int
    into: int
    by: NotRequired[str]
    ref: NotRequired[str]


class DrawForButton(Request):
    by: NotRequired[str]
    ref: NotRequired[str]


REQUESTS: dict[str, type] = {
    "open": Open, "close": Request, "bet": Bet, "deal": Request, "decide": Decide, "correct": Correct,
    "card": CardEntered, "confirm": Request, "void": Void, "clear": Clear, "state": Request, "act": Act,
    "seat": SeatChange, "chop": Chop, "history": History, "level": Level, "clock": ClockCall, "hold": HoldTable,
    "race": ChipRace, "button-draw": DrawForButton,
}
"""Each command's request, by its `cmd`."""


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


class HistoryPage(TypedDict):
    """A page of closed hands (`history`), each its `croupier history --json` line."""

    id: str | int | None
    ok: Literal[True]
    hands: list[dict[str, Any]]
    more: bool
    last: int


class TableEvent(TypedDict):
    """An `open` or a `close` event of the journal, for the floor's open time."""

    event: int
    kind: Literal["open", "close"]
    at: str
    hand: int
    game: str | None


class EventsPage(TypedDict):
    """A page of the table's open and close events (`history` with `events`)."""

    id: str | int | None
    ok: Literal[True]
    events: list[TableEvent]
    more: bool
    last: int


Reply = Done | StateReply | Refusal | HistoryPage | EventsPage
"""Any reply of the command channel."""
