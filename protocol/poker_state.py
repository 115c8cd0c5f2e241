"""A poker table's own parts of the feed's state: the seat's legal actions, stakes, pots, results, race, draw, clock.

What the seat to act may do, the stakes, the pots and the results, the chip race, the draw for the button, a
tournament's level and the clock the floor called. Part of the feed's state (`protocol.messages`, which names them
all too); a house table's parts are there. No `from __future__ import annotations` here: Python 3.11 reads
`NotRequired` only from evaluated annotations.
"""

from typing import Literal, NotRequired, TypedDict


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


class ReturnedBet(TypedDict):
    """An uncalled bet handed back to the seat that made it (public: it is money on the table)."""

    seat: int
    amount: int


class PokerResults(TypedDict):
    """A poker hand's outcome from `over` on (the nets add up to zero); `returned`: the uncalled bets handed back
    (absent from a hand journaled before it was added)."""

    pots: list[PotResult]
    net: list[Net]
    rake: int
    chopped: bool
    showdown: bool
    returned: NotRequired[list[ReturnedBet]]


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
