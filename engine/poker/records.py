"""What happened in a poker hand, as frozen records (the journal and the feed carry them), and its result."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, Union

from engine import evaluate
from engine.cards import Card
from engine.evaluate import HandValue
from engine.poker.values import CardSlot, quick_init, quick_new
from engine.poker.variants import EVALUATOR_SIGNATURES

__all__ = [
    "Record", "Posted", "Dealt", "Folded", "Checked", "Called", "BroughtIn", "BetOrRaised", "Drew",
    "Returned", "Shown", "Mucked", "Chopped", "Awarded", "Raked", "PotResult", "HandResult",
    "hand_values", "hand_strengths",
]


@quick_init
@dataclass(frozen=True, slots=True)
class Posted:
    """A forced bet: `kind` is `ante`, `small_blind`, `big_blind` or `straddle`."""

    seat: int
    kind: str
    amount: int


@quick_init
@dataclass(frozen=True, slots=True)
class Dealt:
    """A card dealt (`card` None when unknown). `kind` as CardSlot.kind."""

    kind: str
    seat: int | None
    card: Card | None
    up: bool
    street: str


@quick_init
@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Checked:
    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Called:
    """A call; `amount` is the chips added, `all_in` when it took the last chip."""

    seat: int
    amount: int
    all_in: bool


@quick_init
@dataclass(frozen=True, slots=True)
class BroughtIn:
    seat: int
    amount: int
    all_in: bool


@quick_init
@dataclass(frozen=True, slots=True)
class BetOrRaised:
    """A bet, raise or completion to `to` (the street total); `amount` the chips added;
    `full` False for an all-in short of a full bet or raise (it does not reopen the betting)."""

    seat: int
    kind: str
    to: int
    amount: int
    all_in: bool
    full: bool


@quick_init
@dataclass(frozen=True, slots=True)
class Drew:
    """Discards of a draw (empty: stood pat); None entries are unknown cards."""

    seat: int
    discards: tuple[Card | None, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class Returned:
    """An uncalled bet given back."""

    seat: int
    amount: int


@quick_init
@dataclass(frozen=True, slots=True)
class Shown:
    """Cards shown at showdown. `values` (computed when read): one `engine.evaluate.HandValue`
    per evaluator of the variant, None where no low qualifies."""

    seat: int
    cards: tuple[Card, ...]
    board: tuple[Card, ...] = ()
    evaluators: tuple[str, ...] = ()

    @property
    def values(self) -> tuple[HandValue | None, ...]:
        return hand_values(self.evaluators, self.cards, self.board)


def hand_values(evaluators: Sequence[str], hole: Sequence[Card], board: Sequence[Card]) -> tuple[HandValue | None, ...]:
    """The values of a hand by each named evaluator of `engine.evaluate`."""
    out: list[HandValue | None] = []
    for name in evaluators:
        fn = getattr(evaluate, name)
        out.append(fn(hole, board) if EVALUATOR_SIGNATURES[name] else fn(tuple(hole) + tuple(board)))
    return tuple(out)


def hand_strengths(evaluators: Sequence[str], hole: Sequence[Card], board: Sequence[Card]) -> tuple[int | None, ...]:
    """The strengths only (greater is better; None: no qualifying low), by the fast path where
    `engine.evaluate` has one (five- to seven-card high)."""
    out: list[int | None] = []
    for name in evaluators:
        if name == "high":
            out.append(evaluate.high_strength([c.index for c in hole] + [c.index for c in board]))
            continue
        fn = getattr(evaluate, name)
        value = fn(hole, board) if EVALUATOR_SIGNATURES[name] else fn(tuple(hole) + tuple(board))
        out.append(None if value is None else value.strength)
    return tuple(out)


@quick_init
@dataclass(frozen=True, slots=True)
class Chopped:
    """The players still in agreed to share the pot(s): `shares` seat -> chips (after rake)."""

    shares: Mapping[int, int]


@quick_init
@dataclass(frozen=True, slots=True)
class Mucked:
    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class Raked:
    amount: int


@quick_init
@dataclass(frozen=True, slots=True)
class Awarded:
    """Chips won from pot `pot` (0 main); `half` is `all`, `high` or `low`."""

    seat: int
    amount: int
    pot: int
    half: str


Record = Union[Posted, Dealt, Folded, Checked, Called, BroughtIn, BetOrRaised, Drew, Returned,
               Shown, Mucked, Chopped, Raked, Awarded]


@quick_init
@dataclass(frozen=True, slots=True)
class PotResult:
    amount: int
    eligible: frozenset[int]
    winners: Mapping[int, int]


@quick_init
@dataclass(frozen=True, slots=True)
class HandResult:
    """A settled hand. `payoffs` (final minus starting stack) plus `rake` add up to zero."""

    starting_stacks: Mapping[int, int]
    final_stacks: Mapping[int, int]
    payoffs: Mapping[int, int]
    pots: tuple[PotResult, ...]
    rake: int
    showdown: bool
    winners: frozenset[int]


# the records a hand makes most, made without a class call (values.quick_new: the same fields and checks)
new_bet_or_raised: Callable[[int, str, int, int, bool, bool], BetOrRaised] = quick_new(BetOrRaised)
new_returned: Callable[[int, int], Returned] = quick_new(Returned)
new_awarded: Callable[[int, int, int, str], Awarded] = quick_new(Awarded)
new_shown: Callable[[int, tuple[Card, ...], tuple[Card, ...], tuple[str, ...]], Shown] = quick_new(Shown)
new_pot_result: Callable[[int, frozenset[int], Mapping[int, int]], PotResult] = quick_new(PotResult)

_Seat = TypeVar("_Seat", "Checked", "Folded")
# ---- shared instances: records are values, so the commonest are built once (bounded tables) ----
_DEALT: dict[int, tuple[CardSlot, list[Dealt | None]]] = {}   # by id(slot): its records by card index
_POSTED: dict[tuple[int, str, int], Posted] = {}
_CALLED: dict[tuple[int, int, bool], Called] = {}


class _Shared(dict[int, _Seat]):
    """The records of one kind by seat, made when first asked for (a bounded table)."""

    __slots__ = ("kind",)

    def __init__(self, kind: Callable[[int], _Seat]) -> None:
        super().__init__()
        self.kind: Callable[[int], _Seat] = kind

    def __missing__(self, seat: int) -> _Seat:
        if len(self) >= 4096:
            self.clear()
        record: _Seat = self.kind(seat)
        self[seat] = record
        return record


# a seat's check and fold: a dict lookup in C, without a Python call, once the seat has one
checked: Callable[[int], Checked] = _Shared(Checked).__getitem__
folded: Callable[[int], Folded] = _Shared(Folded).__getitem__


def called(seat: int, amount: int, all_in: bool) -> Called:
    key = (seat, amount, all_in)
    record = _CALLED.get(key)
    if record is None:
        if len(_CALLED) >= 4096:
            _CALLED.clear()
        record = _CALLED[key] = Called(seat, amount, all_in)
    return record


def posted(seat: int, kind: str, amount: int) -> Posted:
    key = (seat, kind, amount)
    record = _POSTED.get(key)
    if record is None:
        if len(_POSTED) >= 4096:
            _POSTED.clear()
        record = _POSTED[key] = Posted(seat, kind, amount)
    return record


DealStep = tuple[CardSlot, int | None, bool, list[Dealt | None]]
"""One slot of a street as `Hand._deal_run` reads it: (the slot, the seat dealt to (-1: a board card; None:
a burn or a draw, left to `deal`), face up, the slot's shared records by card index (52: unknown))."""


def deal_plan(slots: Sequence[CardSlot]) -> tuple[DealStep, ...]:
    """Each slot of `slots` as a DealStep: a street's cards find their shared records (the table
    `dealt` keeps for the slot) by their place in it."""
    out: list[DealStep] = []
    for slot in slots:
        shared = _DEALT.get(id(slot))
        if shared is None or shared[0] is not slot:
            if len(_DEALT) >= 4096:
                _DEALT.clear()
            shared = _DEALT[id(slot)] = (slot, [None] * 53)
        kind = slot.kind
        seat = slot.seat if kind == "hole" else -1 if kind == "board" else None
        out.append((slot, seat, slot.up, shared[1]))
    return tuple(out)


def dealt(slot: CardSlot, index: int, card: Card | None) -> Dealt:
    """The record of `card` (index 52: unknown) dealt to `slot`: slots are shared instances,
    and the records of a deal are values too, one per slot and card."""
    shared = _DEALT.get(id(slot))
    if shared is None or shared[0] is not slot:
        if len(_DEALT) >= 4096:
            _DEALT.clear()
        shared = _DEALT[id(slot)] = (slot, [None] * 53)
    record = shared[1][index]
    if record is None or record.card is not card:
        record = shared[1][index] = Dealt(slot.kind, slot.seat, card, slot.up, slot.street)
    return record
