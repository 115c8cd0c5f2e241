"""The state machine of one poker hand: forced bets, cards from the shoe, actions, draws, showdown, settlement.

Create a hand for a variant and stakes, then feed it what happens at the table:

>>> from engine.poker import Hand, Stakes, VARIANTS
>>> hand = Hand(VARIANTS["holdem"], Stakes.no_limit(1, 2), stacks=[200, 200, 200], button=2)
>>> hand.expected_card()                      # burn before the hole cards (table setting)
CardSlot(kind='burn', seat=None, up=False, street='preflop')

Every action is verify / can / do: `verify_x(...)` raises IllegalAction with the reason,
`can_x(...)` answers True/False, `x(...)` does it and returns a frozen record; a refused step
leaves the hand unchanged. Cards come in one at a time with `deal(card)` in the order
`expected_card()` names (burn, hole card for a seat, board, draw replacement); an unknown card
(`None` or `"??"`) may be dealt for hand-history replay, and such a hand is shown at showdown
with `show(cards=...)` or settled without a showdown.

Seats are table seat numbers; clockwise is increasing seat number, wrapping round. Amounts are
integers in the table's smallest unit; a "to" amount is the player's total bet on the street.
Cards go round one at a time from the small blind (RULES.md; heads-up the button posts it, so the
button gets the first card), or from the button's left in games without blinds; draws go in turn
from the button's left.

Main attributes: `actor` (seat to act, or None), `phase`, `street`, `board`, `level` (the bet
to call), `records` (everything that happened), `result` (a HandResult once the hand is over).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Union

from engine import evaluate
from engine.cards import DECK, Card
from engine.evaluate import HandValue
from engine.errors import CardError, DuplicateCard, IllegalAction
from engine.poker.betting import Stakes, pot_limit_max_to
from engine.poker.pots import Pot, build_pots, final_pots, split, split_hi_lo
from engine.poker.variants import (
    EVALUATOR_SIGNATURES, Street, Structure, Variant, bring_in_key, showing_high_key, showing_low_key,
)

__all__ = [
    "Hand", "HandSettings", "Rake", "Phase", "CardSlot", "RaiseRange", "HandResult", "PotResult",
    "Record", "Posted", "Dealt", "Folded", "Checked", "Called", "BroughtIn", "BetOrRaised", "Drew",
    "Returned", "Shown", "Mucked", "Chopped", "Awarded", "Raked", "CardInput",
    "hand_values", "hand_strengths",
]

CardInput = Union[Card, str, None]
_Bounds = tuple[str, int, int, Union[tuple[int, ...], None]]   # a RaiseRange's fields


class Phase(Enum):
    """What the hand waits for."""

    DEALING = "dealing"      # a card from the shoe (see expected_card)
    DRAWING = "drawing"      # a player's discards, or a replacement card
    BRING_IN = "bring_in"    # the stud bring-in: post it or complete
    BETTING = "betting"      # the actor's betting action
    SHOWDOWN = "showdown"    # the actor shows or mucks
    OVER = "over"            # settled; see result


# enum members as module constants: a global is read faster than a member of an Enum class
_DEALING = Phase.DEALING
_DRAWING = Phase.DRAWING
_BRING_IN = Phase.BRING_IN
_BETTING = Phase.BETTING
_SHOWDOWN = Phase.SHOWDOWN
_OVER = Phase.OVER
_FIXED_LIMIT = Structure.FIXED_LIMIT
_SPREAD_LIMIT = Structure.SPREAD_LIMIT
_POT_LIMIT = Structure.POT_LIMIT
_NO_LIMIT = Structure.NO_LIMIT


@dataclass(frozen=True, slots=True)
class Rake:
    """House rake: `rate_bp` basis points (500 = 5 %) of the pot, at most `cap`, rounded down.

    `no_flop_no_drop`: no rake when the hand ends on its first street.
    """

    rate_bp: int
    cap: int
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.rate_bp <= 10000 or self.cap < 0:
            raise IllegalAction(f"rake rate must be 0..10000 basis points and cap >= 0: {self}")


@dataclass(frozen=True, slots=True)
class HandSettings:
    """Table settings of a hand. `burns`: burn cards at all (off for hand histories, which do
    not record burns); `burn_before_hole`: burn before the first street's cards (003; default on)."""

    burns: bool = True
    burn_before_hole: bool = True
    rake: Rake | None = None


@dataclass(frozen=True, slots=True)
class CardSlot:
    """The card the shoe should give next: `kind` is `burn`, `hole`, `board` or `draw`
    (a replacement); `seat` receives it (None for burn and board); `up` when dealt face up."""

    kind: str
    seat: int | None
    up: bool
    street: str


@dataclass(frozen=True, slots=True)
class RaiseRange:
    """Legal bet or raise totals for the street: any amount from `min_to` to `max_to`, or,
    when `choices` is set (fixed limit), only those. `kind` is `bet`, `raise` or `complete`."""

    kind: str
    min_to: int
    max_to: int
    choices: tuple[int, ...] | None = None

    def allows(self, to: int) -> bool:
        if self.choices is not None:
            return to in self.choices
        return self.min_to <= to <= self.max_to


# ---- records: what happened, frozen ------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Posted:
    """A forced bet: `kind` is `ante`, `small_blind`, `big_blind` or `straddle`."""

    seat: int
    kind: str
    amount: int


@dataclass(frozen=True, slots=True)
class Dealt:
    """A card dealt (`card` None when unknown). `kind` as CardSlot.kind."""

    kind: str
    seat: int | None
    card: Card | None
    up: bool
    street: str


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class Checked:
    seat: int


@dataclass(frozen=True, slots=True)
class Called:
    """A call; `amount` is the chips added, `all_in` when it took the last chip."""

    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class BroughtIn:
    seat: int
    amount: int
    all_in: bool


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


@dataclass(frozen=True, slots=True)
class Drew:
    """Discards of a draw (empty: stood pat); None entries are unknown cards."""

    seat: int
    discards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class Returned:
    """An uncalled bet given back."""

    seat: int
    amount: int


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


@dataclass(frozen=True, slots=True)
class Chopped:
    """The players still in agreed to share the pot(s): `shares` seat -> chips (after rake)."""

    shares: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Mucked:
    seat: int


@dataclass(frozen=True, slots=True)
class Raked:
    amount: int


@dataclass(frozen=True, slots=True)
class Awarded:
    """Chips won from pot `pot` (0 main); `half` is `all`, `high` or `low`."""

    seat: int
    amount: int
    pot: int
    half: str


Record = Union[Posted, Dealt, Folded, Checked, Called, BroughtIn, BetOrRaised, Drew, Returned,
               Shown, Mucked, Chopped, Raked, Awarded]


@dataclass(frozen=True, slots=True)
class PotResult:
    amount: int
    eligible: frozenset[int]
    winners: Mapping[int, int]


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


class _Player:
    """A player's mutable state within one hand (private to Hand)."""

    __slots__ = ("seat", "starting_stack", "stack", "bet", "total", "folded", "mucked", "shown",
                 "pending", "may_raise", "cards", "up")

    def __init__(self, seat: int, stack: int) -> None:
        self.seat = seat
        self.starting_stack = stack
        self.stack = stack
        self.bet = 0
        self.total = 0
        self.folded = False
        self.mucked = False
        self.shown = False
        self.pending = False
        self.may_raise = True
        self.cards: list[Card | None] = []
        self.up: list[bool] = []

    @property
    def live(self) -> bool:
        return not self.folded and not self.mucked

    @property
    def able(self) -> bool:
        """Can still bet: in the hand with chips behind."""
        return not self.folded and self.stack > 0

    def up_cards(self) -> list[Card]:
        return [c for c, u in zip(self.cards, self.up) if u and c is not None]


_SLOTS: dict[tuple[str, int | None, bool, str], CardSlot] = {}
# a street's dealing order by (street, seats dealt in order, burn, common card): values, shared
_QUEUES: dict[tuple[int, tuple[int, ...], bool, bool], tuple[Street, tuple[CardSlot, ...]]] = {}


def _slot(kind: str, seat: int | None, up: bool, street: str) -> CardSlot:
    """Card slots are values: one shared instance each."""
    key = (kind, seat, up, street)
    slot = _SLOTS.get(key)
    if slot is None:
        slot = _SLOTS[key] = CardSlot(kind, seat, up, street)
    return slot


_DEALT: dict[int, tuple[CardSlot, list[Dealt | None]]] = {}   # by id(slot): its records by card index
_POSTED: dict[tuple[int, str, int], Posted] = {}
_CHECKED: dict[int, Checked] = {}
_CALLED: dict[tuple[int, int, bool], Called] = {}


def _checked(seat: int) -> Checked:
    record = _CHECKED.get(seat)
    if record is None:
        record = _CHECKED[seat] = Checked(seat)
    return record


def _called(seat: int, amount: int, all_in: bool) -> Called:
    key = (seat, amount, all_in)
    record = _CALLED.get(key)
    if record is None:
        if len(_CALLED) >= 4096:
            _CALLED.clear()
        record = _CALLED[key] = Called(seat, amount, all_in)
    return record


def _posted(seat: int, kind: str, amount: int) -> Posted:
    """Records are values: one shared instance each (up to a bound)."""
    key = (seat, kind, amount)
    record = _POSTED.get(key)
    if record is None:
        if len(_POSTED) >= 4096:
            _POSTED.clear()
        record = _POSTED[key] = Posted(seat, kind, amount)
    return record
_FOLDED: dict[int, Folded] = {}    # records are values: one per seat

_BY_TEXT: dict[str, Card | None] = {str(c): c for c in DECK}
_BY_TEXT["??"] = None
_LIVE, _DEAD = 1, 2   # card states, by card index


def _dealt(slot: CardSlot, index: int, card: Card | None) -> Dealt:
    """The record of `card` (index 52: unknown) dealt to `slot`: slots are shared instances,
    and the records of a deal are values too, one per slot and card."""
    dealt = _DEALT.get(id(slot))
    if dealt is None or dealt[0] is not slot:
        dealt = _DEALT[id(slot)] = (slot, [None] * 53)
    record = dealt[1][index]
    if record is None or record.card is not card:
        record = dealt[1][index] = Dealt(slot.kind, slot.seat, card, slot.up, slot.street)
    return record


def _card_of(card: CardInput) -> Card | None:
    """A card from a Card, its text, or None / `??` (unknown). Raises CardError for bad text."""
    if card is None or card.__class__ is Card:
        return card
    if isinstance(card, str) and card in _BY_TEXT:
        return _BY_TEXT[card]
    if isinstance(card, Card):
        return card
    return Card.parse(card)


# seats in the order given and the button -> (button, order clockwise from the button's left,
# blind order, index in the order): values, shared
_SEATINGS: dict[tuple[tuple[int, ...], int | None], tuple[int, tuple[int, ...], tuple[int, ...], dict[int, int]]] = {}


def _seating(table: Mapping[int, int], button: int | None) -> tuple[int, tuple[int, ...], tuple[int, ...], dict[int, int]]:
    seats = sorted(table)
    button = seats[-1] if button is None else button
    after = [s for s in seats if s > button] + [s for s in seats if s <= button]
    order = tuple(after)   # clockwise from the button's left
    blind_order = (after[-1], after[0]) if len(after) == 2 else order   # heads-up: the button first
    return button, order, blind_order, {s: i for i, s in enumerate(order)}


class Hand:
    """One hand of poker, from the forced bets to the settlement.

    `stacks`: seat -> chips for every player dealt in (a list means seats 0..n-1).
    `button`: the button's seat (default: the highest seat, so the lowest seat is first to its
    left). Antes and blinds are posted on creation; a player short of a forced bet posts all.

    Raises IllegalAction for fewer than two players, too many for the variant, a stack that is
    not a positive integer, or more blinds than players.
    """

    __slots__ = ("variant", "stakes", "settings", "button", "order", "blind_order", "board", "burned",
                 "discarded", "records", "street", "phase", "actor", "level", "result", "_min_bet",
                 "_structure", "_index", "_players", "_deal_order", "_last_full", "_bet_count",
                 "_big_unit", "_aggressor", "_queue", "_drawers", "_draw_burnt", "_showdown_queue",
                 "_cards_seen", "_card_state", "_seq")

    def __init__(self, variant: Variant, stakes: Stakes, stacks: Mapping[int, int] | Sequence[int],
                 button: int | None = None, settings: HandSettings = HandSettings()) -> None:
        table: dict[int, int]
        if stacks.__class__ is list or stacks.__class__ is tuple or not isinstance(stacks, Mapping):
            table = dict(enumerate(stacks))
        else:
            table = dict(stacks)
        if len(table) < 2:
            raise IllegalAction(f"a hand needs at least two players, got {len(table)}")
        if len(table) > variant.max_players:
            raise IllegalAction(f"{variant.title} deals at most {variant.max_players} players, got {len(table)}")
        for seat, chips in table.items():
            if type(seat) is int and type(chips) is int and chips > 0:
                continue
            if not isinstance(seat, int) or not isinstance(chips, int) or isinstance(chips, bool) or chips <= 0:
                raise IllegalAction(f"seat {seat!r}: a stack must be a positive integer, got {chips!r}")
        if len(stakes.blinds) > len(table):
            raise IllegalAction(f"{len(stakes.blinds)} blinds for {len(table)} players")
        if variant.bring_in is not None and stakes.blinds:
            raise IllegalAction(f"{variant.title} has antes and a bring-in, not blinds: give blinds=()")
        self.variant = variant
        self.stakes = stakes
        self.settings = settings
        self._min_bet = stakes.minimum_bet
        self._structure = stakes.structure
        key = (tuple(table), button)
        seating = _SEATINGS.get(key)
        if seating is None:
            seating = _seating(table, button)
            if len(_SEATINGS) >= 4096:
                _SEATINGS.clear()
            _SEATINGS[key] = seating
        self.button, self.order, self.blind_order, self._index = seating
        self._players: dict[int, _Player] = {s: _Player(s, table[s]) for s in self.order}
        # cards go round one at a time from the small blind (RULES.md: heads-up the button posts
        # it, so the button gets the first card); without blinds, from the button's left
        self._deal_order: tuple[int, ...] = self.blind_order if stakes.blinds else self.order
        self.board: list[Card | None] = []
        self.burned: list[Card | None] = []
        self.discarded: list[Card | None] = []
        self.records: list[Record] = []
        self.street = 0
        self.phase = _DEALING
        self.actor: int | None = None
        self.level = 0
        self.result: HandResult | None = None
        self._last_full = 0
        self._bet_count = 0
        self._big_unit = False
        self._aggressor: tuple[int, int] | None = None   # (street, seat) of the last full bet/raise
        self._queue: list[CardSlot] = []
        self._drawers: list[int] = []
        self._draw_burnt = False
        self._showdown_queue: list[int] = []
        self._cards_seen = 0
        self._card_state = bytearray(52)      # by card index: _LIVE in a hand or on the board, _DEAD burnt or discarded
        self._seq: list[_Player] = list(self._players.values())
        self._post_forced()
        self._start_street()

    # ---- public read-only helpers -------------------------------------------------------
    @property
    def seats(self) -> tuple[int, ...]:
        """Seats in the hand, clockwise from the button's left."""
        return self.order

    def stack(self, seat: int) -> int:
        return self._player(seat).stack

    def bet(self, seat: int) -> int:
        """Chips in front of `seat` on this street."""
        return self._player(seat).bet

    def contributed(self, seat: int) -> int:
        """Chips `seat` has put in this hand (antes and every bet)."""
        return self._player(seat).total

    def cards(self, seat: int) -> tuple[Card | None, ...]:
        return tuple(self._player(seat).cards)

    def faces(self, seat: int) -> tuple[bool, ...]:
        """For each of `seat`'s cards, True when it lies face up."""
        return tuple(self._player(seat).up)

    def folded(self, seat: int) -> bool:
        return self._player(seat).folded

    def mucked(self, seat: int) -> bool:
        return self._player(seat).mucked

    def shown(self, seat: int) -> bool:
        return self._player(seat).shown

    def in_hand(self, seat: int) -> bool:
        """Still contending (neither folded nor mucked)."""
        return self._player(seat).live

    def all_in(self, seat: int) -> bool:
        p = self._player(seat)
        return p.stack == 0 and not p.folded

    @property
    def stacks(self) -> dict[int, int]:
        return {s: p.stack for s, p in self._players.items()}

    @property
    def starting_stacks(self) -> dict[int, int]:
        return {s: p.starting_stack for s, p in self._players.items()}

    @property
    def street_name(self) -> str:
        return self.variant.streets[min(self.street, len(self.variant.streets) - 1)].name

    @property
    def total_pot(self) -> int:
        """Every chip in the middle, bets on this street included."""
        return sum(p.total for p in self._players.values())

    def pots(self) -> list[Pot]:
        """Pots as collected so far (this street's bets not yet included), main first."""
        collected = {s: p.total - p.bet for s, p in self._players.items()}
        pots, uncalled = build_pots(collected, [s for s, p in self._players.items() if p.live])
        if uncalled:  # antes only, one live contributor: still his to win
            for seat, amount in uncalled.items():
                pots.append(Pot(amount, frozenset({seat})))
        return pots

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    def expected_card(self) -> CardSlot | None:
        """The card the shoe must give next, or None when the hand waits for an action."""
        return self._queue[0] if self._queue else None

    def view(self) -> object:
        """The dealer view of this moment (see engine.poker.view.DealerView)."""
        from engine.poker.view import dealer_view
        return dealer_view(self)

    # ---- cards --------------------------------------------------------------------------
    def verify_deal(self, card: CardInput) -> tuple[CardSlot, Card | None]:
        """Raise IllegalAction when no card is expected, CardError for bad text or a card
        already in play this hand. Returns the slot and the parsed card."""
        if not self._queue:
            raise IllegalAction(f"no card expected now: {self._waiting_for()}")
        parsed = card if card.__class__ is Card else _card_of(card)
        if parsed is not None:
            state = self._card_state[(parsed.rank - 2) * 4 + parsed.suit]
            if state == _LIVE:
                raise DuplicateCard(f"duplicate card: {parsed} is already in play")
            if state == _DEAD and self._cards_seen < 52:
                raise DuplicateCard(f"duplicate card: {parsed} was already burnt or discarded")
        return self._queue[0], parsed

    def can_deal(self, card: CardInput = None) -> bool:
        return self._can(self.verify_deal, card)

    def deal(self, card: CardInput) -> Dealt:
        """Deal the expected card (see expected_card). Raises as verify_deal."""
        queue = self._queue
        if not queue:
            raise IllegalAction(f"no card expected now: {self._waiting_for()}")
        parsed = card if card.__class__ is Card else _card_of(card)
        slot = queue[0]
        kind = slot.kind
        if parsed is not None:
            index = (parsed.rank - 2) * 4 + parsed.suit
            states = self._card_state
            if states[index]:
                self.verify_deal(parsed)    # raises the duplicate's error
            states[index] = _DEAD if kind == "burn" else _LIVE
        else:
            index = 52
        del queue[0]
        self._cards_seen += 1
        if kind == "hole" or kind == "draw":
            p = self._players[slot.seat]  # type: ignore[index]
            p.cards.append(parsed)
            p.up.append(slot.up)
        elif kind == "board":
            self.board.append(parsed)
        else:
            self.burned.append(parsed)
        record = _dealt(slot, index, parsed)
        self.records.append(record)
        if not queue:
            if self.phase is _DEALING:
                self._after_deal()
            elif self.phase is _DRAWING:
                self._next_drawer()
        return record

    def deal_from(self, holes: Sequence[list[CardInput]] | Mapping[int, list[CardInput]],
                  board: list[CardInput], burns: list[CardInput] | None = None) -> int:
        """Deal the expected cards from buffers, each as `deal` would: a hole card or a draw
        replacement off the front of `holes[seat]`, a board card off `board`, a burn off `burns`.
        Stops when no card is expected or the buffer of the expected card is empty (or None).
        Returns how many cards were dealt. Raises as deal: the refused card stays at the front
        of its buffer, the cards before it stay dealt."""
        dealt = 0
        while self._queue:   # a new street brings a new queue
            slot = self._queue[0]
            kind = slot.kind
            if kind == "board":
                buffer = board
            elif kind == "burn":
                if burns is None:
                    break
                buffer = burns
            else:
                try:
                    buffer = holes[slot.seat]  # type: ignore[index]
                except LookupError:
                    break
            if not buffer:
                break
            if kind == "hole" and len(self._queue) > 1:
                run = self._deal_hole_run(holes)
                if run:
                    dealt += run
                    continue
            self.deal(buffer[0])
            del buffer[0]
            dealt += 1
        return dealt

    def _deal_hole_run(self, holes: Sequence[list[CardInput]] | Mapping[int, list[CardInput]]) -> int:
        """deal's own steps for the hole cards at the front of the queue that the buffers hold,
        known and not in play, short of the street's last card (deal finishes a street); the
        others are left to deal. Returns how many were dealt."""
        queue = self._queue
        states = self._card_state
        players = self._players
        records = self.records
        last = len(queue) - 1
        k = 0
        while k < last:
            slot = queue[k]
            if slot.kind != "hole":
                break
            seat = slot.seat
            try:
                buffer = holes[seat]  # type: ignore[index]
            except LookupError:
                break
            if not buffer:
                break
            card = buffer[0]
            if card.__class__ is str:
                card = _BY_TEXT.get(card)
            if not isinstance(card, Card) or card.__class__ is not Card:
                break
            index = (card.rank - 2) * 4 + card.suit
            if states[index]:
                break
            states[index] = _LIVE
            del buffer[0]
            p = players[seat]  # type: ignore[index]
            p.cards.append(card)
            p.up.append(slot.up)
            shared = _DEALT.get(id(slot))   # as _dealt does
            record = shared[1][index] if shared is not None and shared[0] is slot else None
            if record is None or record.card is not card:
                record = _dealt(slot, index, card)
            records.append(record)
            k += 1
        if k:
            del queue[:k]
            self._cards_seen += k
        return k

    # ---- betting ------------------------------------------------------------------------
    def verify_fold(self, seat: int | None = None) -> int:
        """Raise IllegalAction unless the actor may fold (only when facing a bet)."""
        p = self._check_turn(seat, _BETTING)
        if p.bet >= self.level:
            raise IllegalAction(f"seat {p.seat} has nothing to call: check instead of folding")
        return p.seat

    def can_fold(self, seat: int | None = None) -> bool:
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int | None = None) -> Folded:
        actor = self.actor
        if (self.phase is not _BETTING or self._queue or actor is None
                or (seat is not None and seat != actor) or self._players[actor].bet >= self.level):
            self.verify_fold(seat)   # raises the reason
        p = self._players[actor]  # type: ignore[index]
        states = self._card_state
        for c in p.cards:
            if c is not None:
                states[(c.rank - 2) * 4 + c.suit] = _DEAD
        p.folded = True
        p.pending = False
        record = _FOLDED.get(p.seat)
        if record is None:
            record = _FOLDED[p.seat] = Folded(p.seat)
        self.records.append(record)
        self._after_action()
        return record

    def verify_check(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, _BETTING)
        if p.bet < self.level:
            raise IllegalAction(f"seat {p.seat} faces a bet of {self.level}: call {self.call_amount()} or fold")
        return p.seat

    def can_check(self, seat: int | None = None) -> bool:
        return self._can(self.verify_check, seat)

    def check(self, seat: int | None = None) -> Checked:
        p = self._players[self.verify_check(seat)]
        p.pending = False
        p.may_raise = False
        record = Checked(p.seat)
        self.records.append(record)
        self._after_action()
        return record

    def call_amount(self) -> int:
        """Chips the actor adds to call (all in for less when short); 0 when nothing to call."""
        if self.actor is None:
            return 0
        p = self._players[self.actor]
        return max(0, min(self.level - p.bet, p.stack))

    def verify_call(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, _BETTING)
        if p.bet >= self.level:
            raise IllegalAction(f"seat {p.seat} has nothing to call: check")
        return p.seat

    def can_call(self, seat: int | None = None) -> bool:
        return self._can(self.verify_call, seat)

    def call(self, seat: int | None = None) -> Called:
        p = self._players[self.verify_call(seat)]
        amount = min(self.level - p.bet, p.stack)
        self._put(p, amount)
        p.pending = False
        p.may_raise = False
        record = Called(p.seat, amount, p.stack == 0)
        self.records.append(record)
        self._after_action()
        return record

    def check_or_call(self, seat: int | None = None) -> Checked | Called:
        """Check when nothing is to be called, else call (PHH `cc`)."""
        actor = self.actor
        if (self.phase is not _BETTING or self._queue or actor is None
                or (seat is not None and seat != actor)):
            self._check_turn(seat, _BETTING)   # raises the reason
        p = self._players[actor]  # type: ignore[index]
        p.pending = False
        p.may_raise = False
        record: Checked | Called
        if p.bet >= self.level:
            record = _checked(actor)  # type: ignore[arg-type]
        else:
            amount = min(self.level - p.bet, p.stack)
            p.stack -= amount
            p.bet += amount
            p.total += amount
            record = _called(actor, amount, p.stack == 0)  # type: ignore[arg-type]
        self.records.append(record)
        self._after_action()
        return record

    def raise_range(self, seat: int | None = None) -> RaiseRange | None:
        """The legal bet / raise / completion totals for the actor, or None when he may not."""
        try:
            p = self._check_turn(seat, _BETTING, _BRING_IN)
        except IllegalAction:
            return None
        bounds = self._raise_range(p)
        return None if bounds is None else RaiseRange(*bounds)

    def verify_bet_or_raise(self, to: int, seat: int | None = None) -> int:
        """Raise IllegalAction unless the actor may bet or raise to `to` (street total)."""
        return self._verify_bet_or_raise(to, seat)[0].seat

    def _verify_bet_or_raise(self, to: int, seat: int | None) -> tuple[_Player, _Bounds]:
        p = self._check_turn(seat, _BETTING, _BRING_IN)
        if to.__class__ is not int and (not isinstance(to, int) or isinstance(to, bool)):
            raise IllegalAction(f"amount must be an integer, got {to!r}")
        rng = self._raise_range(p)
        if rng is None:
            raise IllegalAction(f"seat {p.seat} may not bet or raise: {self._why_no_raise(p)}")
        kind, min_to, max_to, choices = rng
        if choices is not None:
            if to not in choices:
                allowed = " or ".join(str(c) for c in choices)
                raise IllegalAction(f"seat {p.seat} may {kind} to {allowed} only, not {to}")
        elif not min_to <= to <= max_to:
            raise IllegalAction(f"seat {p.seat} may {kind} to {min_to}..{max_to}, not {to}")
        return p, rng

    def can_bet_or_raise(self, to: int, seat: int | None = None) -> bool:
        return self._can(self.verify_bet_or_raise, to, seat)

    def bet_or_raise(self, to: int, seat: int | None = None) -> BetOrRaised:
        """Bet, raise or complete to `to` (PHH `cbr`). Raises as verify_bet_or_raise."""
        p, (kind, _, _, choices) = self._verify_bet_or_raise(to, seat)
        previous = self.level
        structure = self._structure
        if structure is _FIXED_LIMIT:
            full = to >= self._fixed_target(p)
        else:
            full = previous == 0 or to - previous >= max(self._last_full, self._min_bet)
        if self.phase is _BRING_IN:
            self.phase = _BETTING
        added = to - p.bet
        p.stack -= added
        p.bet += added
        p.total += added
        if full:
            if structure is not _FIXED_LIMIT:
                self._last_full = max(to - previous, self._min_bet)
            self._bet_count += 1
            if (structure is _FIXED_LIMIT and self.street == self.variant.open_pair_street
                    and choices is not None and len(choices) == 2 and to == choices[1]):
                self._big_unit = True   # the open pair bet the big bet: raises are big bets
            for q in self._seq:
                if q is not p and q.stack and not q.folded:
                    q.pending = True
                    q.may_raise = True
            self._aggressor = (self.street, p.seat)
        else:
            for q in self._seq:
                if q is not p and q.stack and not q.folded and q.bet < to:
                    q.pending = True
        self.level = max(self.level, to)
        p.pending = False
        p.may_raise = False
        record = BetOrRaised(p.seat, kind, to, added, p.stack == 0, full)
        self.records.append(record)
        self._after_action()
        return record

    def verify_post_bring_in(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, _BRING_IN)
        return p.seat

    def can_post_bring_in(self, seat: int | None = None) -> bool:
        return self._can(self.verify_post_bring_in, seat)

    def post_bring_in(self, seat: int | None = None) -> BroughtIn:
        """Post the stud bring-in (the alternative is completing with bet_or_raise)."""
        p = self._players[self.verify_post_bring_in(seat)]
        amount = min(self.stakes.bring_in, p.stack)
        self._put(p, amount)
        self.level = max(self.level, p.bet)
        self.phase = _BETTING
        p.pending = False
        p.may_raise = False
        record = BroughtIn(p.seat, amount, p.stack == 0)
        self.records.append(record)
        self._after_action()
        return record

    # ---- draws --------------------------------------------------------------------------
    def verify_draw(self, discards: Sequence[CardInput] = (), seat: int | None = None) -> tuple[Card | None, ...]:
        """Raise IllegalAction unless the actor may discard these cards (empty: stand pat);
        CardError for bad card text. None / `??` discards one unknown card."""
        p = self._check_turn(seat, _DRAWING)
        parsed = tuple(_card_of(c) for c in discards)
        hand = list(p.cards)
        for card in parsed:
            if card not in hand:
                what = "an unknown card" if card is None else str(card)
                raise IllegalAction(f"seat {p.seat} cannot discard {what}: not in the hand")
            hand.remove(card)
        return parsed

    def can_draw(self, discards: Sequence[CardInput] = (), seat: int | None = None) -> bool:
        return self._can(self.verify_draw, discards, seat)

    def draw(self, discards: Sequence[CardInput] = (), seat: int | None = None) -> Drew:
        """Discard `discards` (stand pat with none); the replacements are then expected."""
        parsed = self.verify_draw(discards, seat)
        assert self.actor is not None
        p = self._players[self.actor]
        for card in parsed:
            i = p.cards.index(card)
            del p.cards[i]
            del p.up[i]
            if card is not None:
                self._card_state[card.index] = _DEAD
        self.discarded.extend(parsed)
        record = Drew(p.seat, parsed)
        self.records.append(record)
        street = self.variant.streets[self.street]
        if parsed:
            if self.settings.burns and street.burn and not self._draw_burnt:
                self._queue.append(_slot("burn", None, False, street.name))
                self._draw_burnt = True
            self._queue.extend(_slot("draw", p.seat, False, street.name) for _ in parsed)
            self.actor = None
        else:
            self._next_drawer()
        return record

    # ---- showdown -----------------------------------------------------------------------
    def verify_show(self, cards: Sequence[CardInput] | None = None, seat: int | None = None) -> tuple[Card, ...]:
        """Raise IllegalAction unless the actor may show. `cards` are needed when some of the
        hand is unknown (hand-history replay) and must then cover every card of the hand."""
        p = self._check_turn(seat, _SHOWDOWN)
        if cards is None:
            if any(c is None for c in p.cards):
                raise IllegalAction(f"seat {p.seat}'s cards are not all known: show them with their cards")
            return tuple(c for c in p.cards if c is not None)
        parsed = tuple([_card_of(c) for c in cards])
        if None in parsed or len(parsed) != len(p.cards):
            raise IllegalAction(f"seat {p.seat} must show all {len(p.cards)} cards")
        # by card index (ints hash quicker than cards)
        shown = {(c.rank - 2) * 4 + c.suit for c in parsed}  # type: ignore[union-attr]
        known = {(c.rank - 2) * 4 + c.suit for c in p.cards if c is not None}
        if not known <= shown:
            raise IllegalAction(f"seat {p.seat} shows cards that differ from the ones dealt")
        others = {(c.rank - 2) * 4 + c.suit for c in self.board if c is not None}
        for q in self._seq:
            if q is not p:
                others.update([(c.rank - 2) * 4 + c.suit for c in q.cards if c is not None])
        dead: set[int] | None = None
        for c in parsed:
            index = (c.rank - 2) * 4 + c.suit  # type: ignore[union-attr]
            if index in others:
                raise DuplicateCard(f"duplicate card: {c} is already in play")
            if index not in known:
                if dead is None:
                    dead = {(d.rank - 2) * 4 + d.suit for d in (*self.burned, *self.discarded) if d is not None}
                if index in dead:
                    raise DuplicateCard(f"duplicate card: {c} is already in play")
        return parsed  # type: ignore[return-value]

    def can_show(self, cards: Sequence[CardInput] | None = None, seat: int | None = None) -> bool:
        return self._can(self.verify_show, cards, seat)

    def show(self, cards: Sequence[CardInput] | None = None, seat: int | None = None) -> Shown:
        """Show the hand at showdown; its values are computed by the variant's evaluators."""
        shown = self.verify_show(cards, seat)
        assert self.actor is not None
        p = self._players[self.actor]
        if cards is not None:
            p.cards = list(shown)
            for c in shown:
                self._card_state[c.index] = _LIVE
        p.shown = True
        record = Shown(p.seat, shown, tuple(c for c in self.board if c is not None), self.variant.evaluators)
        self.records.append(record)
        self._next_shower()
        return record

    def verify_muck(self, seat: int | None = None) -> int:
        """Raise IllegalAction unless the actor may muck: not when every other contender for a
        pot he can win has already mucked or folded (he wins it; show instead)."""
        p = self._check_turn(seat, _SHOWDOWN)
        for pot in self._final_pots():
            if p.seat in pot.eligible and all(not self._players[s].live for s in pot.eligible if s != p.seat):
                raise IllegalAction(f"seat {p.seat} is the last hand in contention for a pot: show it")
        return p.seat

    def can_muck(self, seat: int | None = None) -> bool:
        return self._can(self.verify_muck, seat)

    def muck(self, seat: int | None = None) -> Mucked:
        p = self._players[self.verify_muck(seat)]
        p.mucked = True
        record = Mucked(p.seat)
        self.records.append(record)
        self._next_shower()
        return record

    def chop_amount(self) -> int:
        """What a chop now would share: the pot less an uncalled bet and the rake."""
        bets = sorted((p.bet for p in self._seq), reverse=True)
        uncalled = bets[0] - bets[1] if len(bets) > 1 else 0
        total = self.total_pot - uncalled
        rk = self.settings.rake
        if rk is not None and not (rk.no_flop_no_drop and self.street == 0):
            total -= min(rk.cap, total * rk.rate_bp // 10000)
        return total

    def verify_chop(self, shares: Mapping[int, int] | None = None) -> dict[int, int]:
        """Raise IllegalAction unless the pot can be chopped now (any time before the
        settlement; no more cards are dealt) with these `shares` (seat -> chips, only players still in, adding up to
        `chop_amount()`). `None`: every pot shared equally between its players still in, odd
        chips clockwise from the button. Returns the shares."""
        if self.phase is _OVER:
            raise IllegalAction("the hand is over")
        if shares is None:
            return {}
        live = {p.seat for p in self._seq if p.live}
        out: dict[int, int] = {}
        for seat, chips in shares.items():
            if seat not in live:
                raise IllegalAction(f"seat {seat} is not in the hand: cannot share the pot")
            if not isinstance(chips, int) or isinstance(chips, bool) or chips < 0:
                raise IllegalAction(f"seat {seat}: a share is a non-negative integer, got {chips!r}")
            out[seat] = chips
        if sum(out.values()) != self.chop_amount():
            raise IllegalAction(f"shares add up to {sum(out.values())}, the pot to share is {self.chop_amount()}")
        return out

    def can_chop(self, shares: Mapping[int, int] | None = None) -> bool:
        return self._can(self.verify_chop, shares)

    def chop(self, shares: Mapping[int, int] | None = None) -> Chopped:
        """Share the pot by agreement and settle the hand (see verify_chop)."""
        agreed = self.verify_chop(shares)
        self._return_uncalled()
        self._settle(showdown=False, chop=agreed if shares is not None else None, chop_equal=shares is None)
        assert self.result is not None
        record = Chopped({s: sum(pot.winners.get(s, 0) for pot in self.result.pots)
                          for s in self.order if self._players[s].live})
        self.records.append(record)
        return record

    def showdown(self) -> list[Shown]:
        """Show every remaining hand in showdown order (all cards known). Raises as verify_show."""
        out: list[Shown] = []
        while self.phase is _SHOWDOWN:
            out.append(self.show())
        return out

    # ---- internals ----------------------------------------------------------------------
    def _can(self, verify: Callable[..., object], *args: object) -> bool:
        try:
            verify(*args)
        except (IllegalAction, CardError):
            return False
        return True

    def _player(self, seat: int) -> _Player:
        try:
            return self._players[seat]
        except KeyError:
            raise IllegalAction(f"seat {seat} is not in this hand") from None

    def _waiting_for(self) -> str:
        if self.phase is _OVER:
            return "the hand is over"
        if self._queue:
            slot = self._queue[0]
            return f"the shoe must deal a {slot.kind} card" + (f" to seat {slot.seat}" if slot.seat is not None else "")
        return f"seat {self.actor} to act ({self.phase.value})"

    def _check_turn(self, seat: int | None, *phases: Phase) -> _Player:
        if self.phase is _OVER:
            raise IllegalAction("the hand is over")
        if self._queue or self.actor is None:
            raise IllegalAction(f"not now: {self._waiting_for()}")
        if self.phase not in phases:
            raise IllegalAction(f"not now: {self._waiting_for()}")
        if seat is not None and seat != self.actor:
            raise IllegalAction(f"seat {seat} acts out of turn: seat {self.actor} to act")
        return self._players[self.actor]

    def _put(self, p: _Player, amount: int) -> None:
        p.stack -= amount
        p.bet += amount
        p.total += amount

    def _post_forced(self) -> None:
        for place, seat in enumerate(self.blind_order if self.stakes.antes else ()):
            p = self._players[seat]
            ante = min(self.stakes.ante_for(place), p.stack)
            if ante:
                p.stack -= ante
                p.total += ante
                self.records.append(_posted(seat, "ante", ante))
        kinds = ("small_blind", "big_blind")
        n = len(self.blind_order)
        for i, amount in enumerate(self.stakes.blinds):
            p = self._players[self.blind_order[i % n]]
            posted = amount if amount < p.stack else p.stack
            if posted:
                p.stack -= posted
                p.bet += posted
                p.total += posted
                self.records.append(_posted(p.seat, kinds[i] if i < 2 else "straddle", posted))
        if self.stakes.blinds:
            self.level = max(self.stakes.blinds)
            self._last_full = self.level
            self._bet_count = max(1, len(self.stakes.blinds) - 1)

    def _start_street(self) -> None:
        street = self.variant.streets[self.street]
        if self.street > 0:
            for p in self._players.values():
                p.bet = 0
            self.level = 0
            self._last_full = 0
            self._bet_count = 0
            self._big_unit = False
        players = self._players
        live = tuple([s for s in self._deal_order if not players[s].folded and not players[s].mucked])
        stub = 52 - self._cards_seen
        needed = len(street.hole) * len(live) + street.board
        burn = street.burn and (self.street > 0 or self.settings.burn_before_hole)
        burn = self.settings.burns and burn and needed > 0 and stub > needed   # no burn when the stub is short
        # stud's last card when the stub is short: one common card, face up, for everyone
        # (from the burns and folded cards shuffled, when the stub is empty)
        common = street.hole == (False,) and not street.board and len(live) > stub
        key = (id(street), live, burn, common)
        found = _QUEUES.get(key)
        cached = found[1] if found is not None and found[0] is street else None
        if cached is None:
            queue: list[CardSlot] = []
            if burn:
                queue.append(_slot("burn", None, False, street.name))
            if common:
                queue.append(_slot("board", None, True, street.name))
            else:
                for up in street.hole:
                    queue.extend(_slot("hole", s, up, street.name) for s in live)
            queue.extend(_slot("board", None, True, street.name) for _ in range(street.board))
            cached = tuple(queue)
            _QUEUES[key] = (street, cached)   # the street kept with it: its id stays its own
        queue = list(cached)
        self._queue = queue
        self.phase = _DEALING
        self.actor = None
        if not queue:
            self._after_deal()

    def _after_deal(self) -> None:
        street = self.variant.streets[self.street]
        if street.draw:
            self.phase = _DRAWING
            self._drawers = [s for s in self.order if self._players[s].live]
            self._draw_burnt = False
            self.actor = None
            self._next_drawer()
        else:
            self._start_betting()

    def _next_drawer(self) -> None:
        if self._drawers:
            self.actor = self._drawers.pop(0)
        else:
            self._start_betting()

    def _start_betting(self) -> None:
        self.phase = _BETTING
        self.actor = None
        able = 0
        for p in self._seq:
            if not p.folded and p.stack > 0:
                p.pending = True
                able += 1
            else:
                p.pending = False
            p.may_raise = True
        start = self.order[0]
        if self.street == 0:
            if self.variant.bring_in is not None:
                start = self._bring_in_seat()
                if self.stakes.bring_in > 0 and self._players[start].able:
                    if self._betting_needed():
                        self.phase = _BRING_IN
                        self.actor = start
                        return
            elif self.stakes.blinds:
                last = self.blind_order[(len(self.stakes.blinds) - 1) % len(self.blind_order)]
                start = self._next_seat(last)
        elif self.variant.first_to_act != "button":
            start = self._best_showing()
        if able < 2 and not self._betting_needed():   # two players with chips: betting needed
            self._end_betting()
            return
        self.actor = self._first_pending(start)
        if self.actor is None:
            self._end_betting()

    def _betting_needed(self) -> bool:
        alone: _Player | None = None
        for p in self._seq:
            if p.stack and not p.folded:
                if alone is not None:
                    return True
                alone = p
        if alone is None:
            return False
        # the only player with chips acts only when facing more than he has put in;
        # an opponent all in for less than the blind leaves nothing to call (RULES.md)
        top = max((p.bet for p in self._seq if p.live and p is not alone), default=0)
        return alone.bet < top

    def _next_seat(self, seat: int) -> int:
        return self.order[(self._index[seat] + 1) % len(self.order)]

    def _first_pending(self, start: int) -> int | None:
        seq = self._seq
        i = self._index[start]
        n = len(seq)
        for k in range(n):
            p = seq[(i + k) % n]
            if p.pending and p.stack and not p.folded:
                return p.seat
        return None

    def _bring_in_seat(self) -> int:
        rule = self.variant.bring_in
        assert rule is not None
        best: tuple[tuple[int, int], int] | None = None
        for s in self.order:
            p = self._players[s]
            ups = p.up_cards()
            if p.live and ups:
                key = (bring_in_key(ups[-1], rule), s)
                if best is None or key[0] < best[0]:
                    best = key
        return best[1] if best is not None else self.order[0]

    def _best_showing(self) -> int:
        keyf = showing_high_key if self.variant.first_to_act == "showing_high" else showing_low_key
        best: tuple[tuple[int, ...], int] | None = None
        for s in self.order:
            p = self._players[s]
            if p.live:
                key = keyf(p.up_cards())
                if best is None or key > best[0]:
                    best = (key, s)
        return best[1] if best is not None else self.order[0]

    def _unit(self) -> int:
        street = self.variant.streets[self.street]
        return self.stakes.bet_unit(street.big_bet or self._big_unit)

    def _fixed_target(self, p: _Player | None = None) -> int:
        unit = self._unit()
        if self._bet_count == 0 and self.level < unit:
            return unit
        return self.level + unit

    def _capped(self) -> bool:
        cap = self.stakes.raise_cap
        if cap is None:
            return False
        if self.stakes.uncapped_heads_up and sum(1 for p in self._players.values() if p.live) == 2:
            return False
        return self._bet_count >= 1 + cap

    def _why_no_raise(self, p: _Player) -> str:
        if self.stakes.structure is _FIXED_LIMIT and self._capped():
            return "the betting is capped"
        if not p.may_raise:
            return "an all-in short of a full raise does not reopen the betting"
        if p.bet + p.stack <= self.level:
            return "not enough chips to raise"
        return "no opponent can call a raise"

    def _raise_range(self, p: _Player) -> _Bounds | None:
        """RaiseRange's fields (kind, min_to, max_to, choices), or None when he may not raise."""
        all_in_to = p.bet + p.stack
        if not p.may_raise or all_in_to <= self.level:
            return None
        level = self.level
        for q in self._seq:    # a raise needs an opponent who could put in more than the bet now
            if q is not p and q.stack and not q.folded and q.bet + q.stack > level:
                break
        else:
            return None
        s = self.stakes
        completing = self.phase is _BRING_IN or (self._bet_count == 0 and self.level > 0
                                                      and self.variant.bring_in is not None
                                                      and self.street == 0)
        kind = "complete" if completing else ("bet" if self.level == 0 else "raise")
        choices: tuple[int, ...] | None = None
        if self._structure is _FIXED_LIMIT:
            if self._capped():
                return None
            target = self._fixed_target(p)
            if (self.street == self.variant.open_pair_street and self._bet_count == 0
                    and not self.variant.streets[self.street].big_bet and self._open_pair(p)):
                # the open pair's big bet: completes a short all-in to the big bet like the small one
                big = s.big_bet if self.level < s.big_bet else self.level + s.big_bet
                choices = (target, big)
            else:
                choices = (target,)
            choices = tuple(sorted({min(c, all_in_to) for c in choices}))
            return kind, choices[0], choices[-1], choices
        increment = max(self._last_full, self._min_bet)
        if completing and s.small_bet:
            min_to = max(s.small_bet, self.level + 1)
        else:
            min_to = self.level + increment
        if s.structure is _SPREAD_LIMIT:
            max_to = self.level + s.max_bet
        elif s.structure is _POT_LIMIT:
            max_to = pot_limit_max_to(self.level, self.total_pot, p.bet)
        else:
            max_to = all_in_to
        max_to = min(max_to, all_in_to)
        min_to = min(min_to, all_in_to)
        return kind, min_to, max(min_to, max_to), None

    def _open_pair(self, p: _Player) -> bool:
        ranks = [c.rank for c in p.up_cards()]
        return len(ranks) != len(set(ranks))

    def _after_action(self) -> None:
        """After a betting action: the next seat to act, or the end of the round (one pass)."""
        seq = self._seq
        n = len(seq)
        i = self._index[self.actor] + 1  # type: ignore[index]
        live = able = 0
        alone: _Player | None = None
        nxt: _Player | None = None
        for p in (seq[i:] + seq[:i] if i < n else seq):
            if p.folded or p.mucked:
                continue
            live += 1
            if p.stack:
                able += 1
                alone = p
                if nxt is None and p.pending:
                    nxt = p
                if nxt is not None and able > 1:   # the rest of the pass cannot change the answer
                    self.actor = nxt.seat
                    return
        if live == 1 or able == 0:
            self._end_betting()
            return
        if able == 1:
            assert alone is not None
            # the only player with chips acts only when facing more than he has put in
            top = max((p.bet for p in seq if not p.folded and not p.mucked and p is not alone), default=0)
            if alone.bet >= top:
                self._end_betting()
                return
        if nxt is None:
            self._end_betting()
        else:
            self.actor = nxt.seat

    def _end_betting(self) -> None:
        self.actor = None
        self._return_uncalled()
        live = 0
        for p in self._seq:
            if not p.folded and not p.mucked:
                live += 1
        if live == 1:
            self._settle(showdown=False)
            return
        if self.street + 1 < len(self.variant.streets):
            self.street += 1
            self._start_street()
        else:
            self._start_showdown()

    def _return_uncalled(self) -> None:
        """Give back the part of the highest bet of the street that nobody matched."""
        top: _Player | None = None
        second = 0
        for p in self._seq:
            if top is None or p.bet > top.bet:
                if top is not None:
                    second = top.bet
                top = p
            elif p.bet > second:
                second = p.bet
        if top is not None and top.bet > second:
            excess = top.bet - second
            top.stack += excess
            top.bet -= excess
            top.total -= excess
            self.records.append(Returned(top.seat, excess))

    def _start_showdown(self) -> None:
        for p in self._players.values():
            p.bet = 0
        self.phase = _SHOWDOWN
        last = len(self.variant.streets) - 1
        start = self.order[0]
        if self._aggressor is not None and self._aggressor[0] == last and self._players[self._aggressor[1]].live:
            start = self._aggressor[1]
        i = self.order.index(start)
        n = len(self.order)
        self._showdown_queue = [self.order[(i + k) % n] for k in range(n) if self._players[self.order[(i + k) % n]].live]
        self.actor = None
        self._next_shower()

    def _next_shower(self) -> None:
        while self._showdown_queue:
            seat = self._showdown_queue.pop(0)
            others = [p for p in self._players.values() if p.live and p.seat != seat]
            if all(p.mucked or p.folded for p in others) or not others:
                break   # everyone else mucked: wins without showing
            self.actor = seat
            return
        self.actor = None
        self._settle(showdown=True)

    def _final_pots(self) -> list[Pot]:
        return final_pots({s: p.total for s, p in self._players.items()}, [p.seat for p in self._seq if p.live])

    def _settle(self, showdown: bool, chop: Mapping[int, int] | None = None, chop_equal: bool = False) -> None:
        self.phase = _OVER
        self.actor = None
        self._queue = []
        rk = self.settings.rake
        if not showdown and chop is None and rk is None:
            live = [p for p in self._seq if not p.folded and not p.mucked]
            if len(live) == 1:   # uncontested, no rake: one pot, all his
                self._settle_uncontested(live[0])
                return
        pots = self._final_pots()
        rake = 0
        if rk is not None and not (rk.no_flop_no_drop and self.street == 0):
            rake = min(rk.cap, sum(p.amount for p in pots) * rk.rate_bp // 10000)
        if rake:
            self.records.append(Raked(rake))
            left = rake
            reduced: list[Pot] = []
            for pot in pots:
                take = min(left, pot.amount)
                left -= take
                reduced.append(Pot(pot.amount - take, pot.eligible))
            pots = reduced
        values: dict[int, tuple[int | None, ...]] = {}
        if showdown:
            for rec in self.records:
                if isinstance(rec, Shown):
                    values[rec.seat] = hand_strengths(rec.evaluators, rec.cards, rec.board)
        results: list[PotResult] = []
        winners_all: set[int] = set()
        if chop is not None:
            total = sum(p.amount for p in pots)
            shared = {s: c for s, c in chop.items() if c}
            for seat, chips in shared.items():
                self._players[seat].stack += chips
                self.records.append(Awarded(seat, chips, 0, "chop"))
            winners_all.update(shared)
            results.append(PotResult(total, frozenset(chop), shared))
            pots = []
        for index, pot in enumerate(pots):
            won: dict[int, int] = {}
            eligible = [s for s in self.order if s in pot.eligible]
            if pot.amount == 0:
                results.append(PotResult(0, pot.eligible, {}))
                continue
            if len(eligible) == 1:
                halves = [("all", pot.amount, eligible)]
            elif chop_equal:
                halves = [("chop", pot.amount, eligible)]
            else:
                high = self._best(eligible, values, 0)
                low: list[int] = []
                if self.variant.hi_lo:
                    low = self._best(eligible, values, 1)
                if low:
                    hi_amount, lo_amount = split_hi_lo(pot.amount)
                    halves = [("high", hi_amount, high), ("low", lo_amount, low)]
                else:
                    halves = [("all", pot.amount, high)]
            for half, amount, seats in halves:
                for seat, chips in split(amount, seats, self.order).items():
                    won[seat] = won.get(seat, 0) + chips
                    self.records.append(Awarded(seat, chips, index, half))
            for seat, chips in won.items():
                self._players[seat].stack += chips
            winners_all.update(won)
            results.append(PotResult(pot.amount, pot.eligible, won))
        for p in self._players.values():
            p.bet = 0
        finals = {s: p.stack for s, p in self._players.items()}
        starts = {s: p.starting_stack for s, p in self._players.items()}
        self.result = HandResult(
            starting_stacks=starts, final_stacks=finals,
            payoffs={s: finals[s] - starts[s] for s in finals}, pots=tuple(results), rake=rake,
            showdown=showdown, winners=frozenset(winners_all),
        )

    def _settle_uncontested(self, winner: _Player) -> None:
        """_settle's result when one player is left and no rake is taken (the same records)."""
        total = 0
        finals = {}
        starts = {}
        payoffs = {}
        for p in self._seq:
            total += p.total
            p.bet = 0
        winner.stack += total
        seat = winner.seat
        if total:
            self.records.append(Awarded(seat, total, 0, "all"))
            pot = PotResult(total, frozenset((seat,)), {seat: total})
        else:
            pot = PotResult(0, frozenset((seat,)), {})
        for s, p in self._players.items():
            finals[s] = p.stack
            starts[s] = p.starting_stack
            payoffs[s] = p.stack - p.starting_stack
        self.result = HandResult(starts, finals, payoffs, (pot,), 0, False,
                                 frozenset((seat,)) if total else frozenset())

    def _best(self, eligible: list[int], values: dict[int, tuple[int | None, ...]], half: int) -> list[int]:
        scored: list[tuple[int, int]] = []
        for s in eligible:
            if s not in values:
                if half == 0:
                    raise IllegalAction(f"seat {s} reached the settlement without showing")
                continue
            value = values[s][half]
            if value is not None:
                scored.append((value, s))
        if not scored:
            return []
        top = max(v for v, _ in scored)
        return [s for v, s in scored if v == top]
