"""The state a poker hand keeps (seats, players, cards, bets) and what may be read of it; the base of `Hand`.

`Hand` (engine/poker/state.py) is built in floors, each a module: this one holds the state and the
readers; `showdown` the end of a hand (uncalled bets, shows, mucks, chops, the settlement);
`streets` the flow of a hand (forced bets, dealing orders, betting rounds, raise bounds); `state`
the actions of the table (deal, fold, check, call, bet or raise, draw) and the dealer view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.cards import Card
from engine.errors import CardError, IllegalAction, say
from engine.poker.betting import Stakes
from engine.poker.pots import Pot, build_pots, with_dead_money
from engine.poker.records import DealStep, HandResult, Record
from engine.poker.values import OVER, CardSlot, HandSettings, Phase
from engine.poker.variants import Structure, Variant

__all__ = ["HandCore", "PlayerState", "seating"]


class PlayerState:
    """A player's mutable state within one hand (private to the engine's Hand)."""

    __slots__ = ("seat", "starting_stack", "stack", "bet", "total", "folded", "mucked", "shown",
                 "pending", "may_raise", "acted_at", "cards", "up")

    seat: int
    starting_stack: int
    stack: int
    bet: int
    total: int
    folded: bool
    mucked: bool
    shown: bool
    pending: bool
    may_raise: bool
    acted_at: int
    cards: list[Card | None]
    up: list[bool]

    @classmethod
    def seated(cls, order: tuple[int, ...], stacks: Mapping[int, int]) -> tuple[dict[int, PlayerState], list[PlayerState]]:
        """The players of `order` with their `stacks` (their state as a hand starts), by seat and
        in that order; made in one loop (a class called a player runs its `__init__` from C, in a
        frame of its own; `cls.__new__` is `object.__new__` here, and the compiled class's own allocator
        where mypyc built it)."""
        players: dict[int, PlayerState] = {}
        seq: list[PlayerState] = []
        new = cls.__new__
        for seat in order:
            p = players[seat] = new(cls)
            stack = stacks[seat]
            p.seat = seat
            p.starting_stack = stack
            p.stack = stack
            p.bet = 0
            p.total = 0
            p.folded = False
            p.mucked = False
            p.shown = False
            p.pending = False
            p.may_raise = True
            p.acted_at = 0      # the bet to call when he last acted on this street (short all-ins)
            p.cards = []
            p.up = []
            seq.append(p)
        return players, seq

    @property
    def live(self) -> bool:
        return not self.folded and not self.mucked

    @property
    def able(self) -> bool:
        """Can still bet: in the hand with chips behind."""
        return not self.folded and self.stack > 0

    def up_cards(self) -> list[Card]:
        return [c for c, u in zip(self.cards, self.up) if u and c is not None]


Seating = tuple[int, tuple[int, ...], tuple[int, ...], dict[int, int]]


def seating(table: Mapping[int, int], button: int | None) -> Seating:
    """(button, seats clockwise from the button's left, blind order, index of each seat in that order)."""
    seats = sorted(table)
    button = seats[-1] if button is None else button
    after = [s for s in seats if s > button] + [s for s in seats if s <= button]
    order = tuple(after)   # clockwise from the button's left
    blind_order = (after[-1], after[0]) if len(after) == 2 else order   # heads-up: the button first
    return button, order, blind_order, {s: i for i, s in enumerate(order)}


class HandCore:
    """The state of one hand and its readers (see engine.poker.state.Hand for the whole)."""

    __slots__ = ("variant", "stakes", "settings", "button", "order", "blind_order", "board", "burned",
                 "discarded", "records", "street", "phase", "actor", "level", "_result", "_min_bet",
                 "_structure", "_index", "_players", "_deal_order", "_last_full", "_bet_count",
                 "_big_unit", "_aggressor", "_queue", "_drawers", "_draw_burnt", "_showdown_queue",
                 "_cards_seen", "_card_state", "_seq", "_ring", "no_small_blind", "owed", "revealed",
                 "_deal_plan", "_live", "_able")

    variant: Variant
    stakes: Stakes
    settings: HandSettings
    button: int
    order: tuple[int, ...]
    blind_order: tuple[int, ...]
    board: list[Card | None]
    burned: list[Card | None]
    discarded: list[Card | None]
    records: list[Record]
    street: int
    phase: Phase
    actor: int | None
    level: int
    _result: HandResult | None
    _min_bet: int
    _structure: Structure
    _index: dict[int, int]
    _players: dict[int, PlayerState]
    _deal_order: tuple[int, ...]
    _last_full: int
    _bet_count: int
    _big_unit: bool
    _aggressor: tuple[int, int] | None
    _queue: list[CardSlot]
    _deal_plan: tuple[DealStep, ...]   # the street's slots with their shared records (_start_street)
    _drawers: list[int]
    _draw_burnt: bool
    _showdown_queue: list[int]
    _cards_seen: int
    _card_state: list[int]
    _seq: list[PlayerState]
    _ring: list[PlayerState]   # _seq twice over: a pass round the table from any seat is one slice
    no_small_blind: bool
    owed: dict[int, str]
    revealed: bool
    _live: int   # players who have not folded (streets._after_action)
    _able: int   # of them, those with chips, counted as a betting round starts (streets._after_action)

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
        out: dict[int, int] = {}
        for p in self._seq:   # in the order of _players (a plain loop: a comprehension is a call of its own)
            out[p.seat] = p.stack
        return out

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
        live = [s for s, p in self._players.items() if p.live]
        pots, uncalled = build_pots(collected, live)
        return with_dead_money(pots, uncalled, live) if uncalled else pots

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    def expected_card(self) -> CardSlot | None:
        """The card the shoe must give next, or None when the hand waits for an action."""
        return self._queue[0] if self._queue else None

    def call_amount(self) -> int:
        """Chips the actor adds to call (all in for less when short); 0 when nothing to call."""
        if self.actor is None:
            return 0
        p = self._players[self.actor]
        return max(0, min(self.level - p.bet, p.stack))

    # ---- internals ----------------------------------------------------------------------
    def _can(self, verify: Callable[..., object], *args: object) -> bool:
        try:
            verify(*args)
        except (IllegalAction, CardError):
            return False
        return True

    def _player(self, seat: int) -> PlayerState:
        try:
            return self._players[seat]
        except KeyError:
            raise IllegalAction(f"seat {seat} is not in this hand", say=say("refusal.poker_not_in_hand", seat=seat)) from None

    def _waiting_for(self) -> str:
        if self.phase is OVER:
            return "the hand is over"
        if self._queue:
            slot = self._queue[0]
            return f"the shoe must deal a {slot.kind} card" + (f" to seat {slot.seat}" if slot.seat is not None else "")
        return f"seat {self.actor} to act ({self.phase.value})"

    def _check_turn(self, seat: int | None, *phases: Phase) -> PlayerState:
        if self.phase is OVER:
            raise IllegalAction("the hand is over", say=say("refusal.poker_hand_over"))
        if self._queue or self.actor is None:
            raise IllegalAction(f"not now: {self._waiting_for()}", say=say("refusal.poker_deal_first"))
        if self.phase not in phases:
            raise IllegalAction(f"not now: {self._waiting_for()}", say=say("refusal.poker_not_now", seat=self.actor))
        if seat is not None and seat != self.actor:
            raise IllegalAction(f"seat {seat} acts out of turn: seat {self.actor} to act",
                                say=say("refusal.not_to_act", seat=seat, to_act=self.actor))
        return self._players[self.actor]

    def _put(self, p: PlayerState, amount: int) -> None:
        p.stack -= amount
        p.bet += amount
        p.total += amount
