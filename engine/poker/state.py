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
Cards go round one at a time from the small blind (docs/rules.md; heads-up the button posts it, so the
button gets the first card), or from the button's left in games without blinds; draws go in turn
from the button's left.

Main attributes: `actor` (seat to act, or None: always None while a card is expected), `phase`,
`street`, `board`, `level` (the bet to call), `records` (everything that happened), `result` (a
HandResult once the hand is over).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.cards import Card
from engine.errors import CardError, DuplicateCard, IllegalAction, money, say
from engine.poker.betting import Stakes
from engine.poker.core import PlayerState, Seating, seating
from engine.poker.records import (
    BetOrRaised, BroughtIn, Called, Checked, Dealt, Drew, Folded, HandResult, Record, called, checked, dealt,
    folded, new_bet_or_raised,
)
from engine.poker.streets import HandStreets
from engine.poker.values import (
    BETTING, BRING_IN, BY_TEXT, DEAD, DEALING, DRAWING, FIXED_LIMIT, LIVE, SHOWDOWN, Bounds, CardInput, CardSlot,
    HandSettings, card_of, card_slot,
)
from engine.poker.variants import Variant
from engine.poker.view import DealerView
from engine.poker.dealer import dealer_view  # re-exported

# The names this module held before the hand was split into floors stay importable from here.
from engine.poker.records import (  # re-exported
    Awarded, Chopped, Mucked, Posted, PotResult, Raked, Returned, Shown, hand_strengths, hand_values,
)
from engine.poker.values import Phase, RaiseRange, Rake  # re-exported

__all__ = [
    "Hand", "dealer_view", "HandSettings", "Rake", "Phase", "CardSlot", "RaiseRange", "HandResult",
    "PotResult", "Record", "Posted", "Dealt", "Folded", "Checked", "Called", "BroughtIn", "BetOrRaised",
    "Drew", "Returned", "Shown", "Mucked", "Chopped", "Awarded", "Raked", "CardInput", "hand_values",
    "hand_strengths",
]

_SEATINGS: dict[tuple[object, int | None], Seating] = {}   # seatings are values: shared


class Hand(HandStreets):
    """One hand of poker, from the forced bets to the settlement.

    `stacks`: seat -> chips for every player dealt in (a list means seats 0..n-1).
    `button`: the button's seat (default: the highest seat, so the lowest seat is first to its
    left); a dead button lies on a seat nobody is dealt in from. Antes and blinds are posted on
    creation; a player short of a forced bet posts all. `no_small_blind`: a dead small blind (the
    seat due to post it is empty): the first player left of the button posts the big blind.
    `owed`: seat -> the missed blinds he posts on coming back (`"big"`: a big blind, live;
    `"small"`: the small blind, dead, into the pot; `"both"`: both), besides the blinds in turn.

    Raises IllegalAction for fewer than two players, too many for the variant, a stack that is
    not a positive integer, more blinds than players, or owed blinds the table cannot take.
    """

    __slots__ = ()

    def __init__(self, variant: Variant, stakes: Stakes, stacks: Mapping[int, int] | Sequence[int],
                 button: int | None = None, settings: HandSettings = HandSettings(),
                 no_small_blind: bool = False, owed: Mapping[int, str] | None = None) -> None:
        table: dict[int, int]
        key: tuple[object, int | None]   # the seating's, by the seats: 0..n-1 from a list, or the mapping's
        if stacks.__class__ is list or stacks.__class__ is tuple or not isinstance(stacks, Mapping):
            table = dict(enumerate(stacks))
            key = (len(table), button)
        else:
            table = dict(stacks)
            key = (tuple(table), button)
        if len(table) < 2:
            raise IllegalAction(f"a hand needs at least two players, got {len(table)}")
        if len(table) > variant.max_players:
            raise IllegalAction(f"{variant.title} deals at most {variant.max_players} players, got {len(table)}")
        for seat, chips in table.items():   # int seats and positive int stacks pass at the first test
            if (seat.__class__ is not int or chips.__class__ is not int or chips <= 0) and (
                    not isinstance(seat, int) or not isinstance(chips, int) or isinstance(chips, bool) or chips <= 0):
                raise IllegalAction(f"seat {seat!r}: a stack must be a positive integer, got {chips!r}")
        if len(stakes.blinds) > len(table):
            raise IllegalAction(f"{len(stakes.blinds)} blinds for {len(table)} players")
        if variant.bring_in is not None and stakes.blinds:
            raise IllegalAction(f"{variant.title} has antes and a bring-in, not blinds: give blinds=()")
        self.variant = variant
        self.stakes = stakes
        self.settings = settings
        self.no_small_blind = no_small_blind
        self.owed = dict(owed) if owed else {}
        self.revealed = False
        self._min_bet = stakes.minimum_bet
        self._structure = stakes.structure
        seated = _SEATINGS.get(key)
        if seated is None:
            seated = seating(table, button)
            if len(_SEATINGS) >= 4096:
                _SEATINGS.clear()
            _SEATINGS[key] = seated
        self.button, self.order, self.blind_order, self._index = seated
        players, seq = PlayerState.seated(self.order, table)
        self._players = players
        # cards go round one at a time from the small blind (docs/rules.md: heads-up the button posts
        # it, so the button gets the first card); without blinds, from the button's left
        self._deal_order: tuple[int, ...] = self.blind_order if stakes.blinds else self.order
        self.board: list[Card | None] = []
        self.burned: list[Card | None] = []
        self.discarded: list[Card | None] = []
        self.records: list[Record] = []
        self.street = 0
        self.phase = DEALING
        self.actor: int | None = None
        self.level = 0
        self._result = None
        self._last_full = 0
        self._bet_count = 0
        self._big_unit = False
        self._aggressor: tuple[int, int] | None = None   # (street, seat) of the last full bet/raise
        self._queue: list[CardSlot] = []
        self._deal_plan = ()
        self._drawers: list[int] = []
        self._draw_burnt = False
        self._showdown_queue: list[int] = []
        self._cards_seen = 0
        self._card_state = [0] * 52   # by card index: LIVE in a hand or on the board, DEAD burnt or discarded (a list: its items are read and set quicker than a bytearray's)
        self._seq = seq
        self._ring = seq * 2
        self._live = self._able = len(seq)
        if no_small_blind or self.owed:
            self._check_blinds_owed()
        self._post_forced()
        self._start_street()

    def view(self) -> DealerView:
        """The dealer view of this moment (see engine.poker.view.DealerView)."""
        return dealer_view(self)

    def verify_deal(self, card: CardInput) -> tuple[CardSlot, Card | None]:
        """Raise IllegalAction when no card is expected, CardError for bad text or a card
        already in play this hand. Returns the slot and the parsed card."""
        if not self._queue:
            raise IllegalAction(f"no card expected now: {self._waiting_for()}")
        parsed = card if card.__class__ is Card else card_of(card)
        if parsed is not None:
            state = self._card_state[parsed.index]
            if state == LIVE:
                raise DuplicateCard(f"duplicate card: {parsed} is already in play")
            if state == DEAD and self._cards_seen < 52:
                raise DuplicateCard(f"duplicate card: {parsed} was already burnt or discarded")
        return self._queue[0], parsed

    def can_deal(self, card: CardInput = None) -> bool:
        return self._can(self.verify_deal, card)

    def deal(self, card: CardInput) -> Dealt:
        """Deal the expected card (see expected_card). Raises as verify_deal."""
        queue = self._queue
        if not queue:
            raise IllegalAction(f"no card expected now: {self._waiting_for()}")
        if card.__class__ is Card:
            parsed: Card | None = card
        elif card.__class__ is str and card in BY_TEXT:
            parsed = BY_TEXT[card]
        else:
            parsed = card_of(card)
        slot = queue[0]
        kind = slot.kind
        if parsed is not None:
            index = parsed.index
            states = self._card_state
            if states[index]:
                self.verify_deal(parsed)    # raises the duplicate's error
            states[index] = DEAD if kind == "burn" else LIVE
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
        record = dealt(slot, index, parsed)
        self.records.append(record)
        if not queue:
            if self.phase is DEALING:
                self._after_deal()
            elif self.phase is DRAWING:
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
            run = self._deal_run(holes, board)   # the hole and board cards it can take in one run
            if run:
                dealt += run
                continue
            slot = self._queue[0]   # what the run left: a burn, a draw, or a card deal itself checks
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
            self.deal(buffer[0])
            del buffer[0]
            dealt += 1
        return dealt

    def _deal_run(self, holes: Sequence[list[CardInput]] | Mapping[int, list[CardInput]],
                  board: list[CardInput]) -> int:
        """deal's own steps for the hole and board cards at the front of the queue that the buffers
        hold, known and not in play, the street finished as deal finishes it; the others are left
        to deal. Returns how many were dealt."""
        queue = self._queue
        plan = self._deal_plan
        place = len(plan) - len(queue)   # the queue is the rest of the street's slots: the first one's place
        if place < 0:   # slots added to the street's (a draw's): deal's
            return 0
        states = self._card_state
        records = self.records
        by_text = BY_TEXT
        k = 0
        steps = plan[place:] if place else plan
        if steps and steps[0][1] == -1:   # board cards
            buffer = board
            cards = self.board
            for slot, seat, up, table in steps:
                if seat != -1 or not buffer:
                    break
                card = buffer[0]
                if card.__class__ is str:
                    card = by_text.get(card)
                if card.__class__ is not Card or states[card.index]:   # unknown, not a card, in play: deal's own checks say
                    break
                index = card.index
                states[index] = LIVE
                del buffer[0]
                cards.append(card)
                record = table[index]
                if record is None or record.card is not card:
                    record = dealt(slot, index, card)
                records.append(record)
                k += 1
        else:   # hole cards
            players = self._players
            try:
                for slot, seat, up, table in steps:
                    if seat is None or seat < 0:   # a burn, a draw or a board card
                        break
                    buffer = holes[seat]   # a seat without a buffer (a mapping's) raises LookupError: the run ends
                    if not buffer:
                        break
                    card = buffer[0]
                    if card.__class__ is str:
                        card = by_text.get(card)
                    if card.__class__ is not Card or states[card.index]:   # as above
                        break
                    index = card.index
                    states[index] = LIVE
                    del buffer[0]
                    p = players[seat]
                    p.cards.append(card)
                    p.up.append(up)
                    record = table[index]
                    if record is None or record.card is not card:
                        record = dealt(slot, index, card)
                    records.append(record)
                    k += 1
            except LookupError:
                pass
        if k:
            del queue[:k]
            self._cards_seen += k
            if not queue:   # the street's last card: as deal goes on
                if self.phase is DEALING:
                    self._after_deal()
                elif self.phase is DRAWING:
                    self._next_drawer()
        return k

    def verify_fold(self, seat: int | None = None, dead: bool = False) -> int:
        """Raise IllegalAction unless the actor may fold (only when facing a bet; `dead`: his hand is
        declared dead, e.g. the clock called on him ran out (000), and is folded even with nothing to call)."""
        p = self._check_turn(seat, BETTING)
        if p.bet >= self.level and not dead:
            raise IllegalAction(f"seat {p.seat} has nothing to call: check instead of folding",
                                say=say("refusal.poker_check_not_fold", seat=p.seat))
        return p.seat

    def can_fold(self, seat: int | None = None) -> bool:
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int | None = None, dead: bool = False) -> Folded:
        """The actor folds (`dead`: his hand is declared dead, folded even with nothing to call)."""
        actor = self.actor
        if (self.phase is not BETTING or self._queue or actor is None or (seat is not None and seat != actor)
                or ((p := self._players[actor]).bet >= self.level and not dead)):
            self.verify_fold(seat, dead)   # raises the reason
        states = self._card_state
        for c in p.cards:
            if c is not None:
                states[c.index] = DEAD
        p.folded = True
        p.pending = False
        record = folded(p.seat)
        self.records.append(record)
        self._after_action(p)
        return record

    def verify_check(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, BETTING)
        if p.bet < self.level:
            raise IllegalAction(f"seat {p.seat} faces a bet of {self.level}: call {self.call_amount()} or fold",
                                say=say("refusal.poker_faces_bet", seat=p.seat, level=money(self.level),
                                        call=money(self.call_amount())))
        return p.seat

    def can_check(self, seat: int | None = None) -> bool:
        return self._can(self.verify_check, seat)

    def check(self, seat: int | None = None) -> Checked:
        p = self._players[self.verify_check(seat)]
        p.pending = False
        p.may_raise = False
        p.acted_at = self.level
        record = Checked(p.seat)
        self.records.append(record)
        self._after_action(p)
        return record

    def verify_call(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, BETTING)
        if p.bet >= self.level:
            raise IllegalAction(f"seat {p.seat} has nothing to call: check", say=say("refusal.poker_nothing_to_call", seat=p.seat))
        return p.seat

    def can_call(self, seat: int | None = None) -> bool:
        return self._can(self.verify_call, seat)

    def call(self, seat: int | None = None) -> Called:
        p = self._players[self.verify_call(seat)]
        amount = min(self.level - p.bet, p.stack)
        self._put(p, amount)
        p.pending = False
        p.may_raise = False
        p.acted_at = self.level
        record = Called(p.seat, amount, p.stack == 0)
        self.records.append(record)
        self._after_action(p)
        return record

    def check_or_call(self, seat: int | None = None) -> Checked | Called:
        """Check when nothing is to be called, else call (PHH `cc`)."""
        actor = self.actor
        if (self.phase is not BETTING or self._queue or actor is None
                or (seat is not None and seat != actor)):
            self._check_turn(seat, BETTING)   # raises the reason
        p = self._players[actor]  # type: ignore[index]
        p.pending = False
        p.may_raise = False
        p.acted_at = self.level
        record: Checked | Called
        if p.bet >= self.level:
            record = checked(actor)  # type: ignore[arg-type]
        else:
            amount = self.level - p.bet
            if amount > p.stack:
                amount = p.stack   # all in for less
            p.stack -= amount
            p.bet += amount
            p.total += amount
            record = called(actor, amount, p.stack == 0)  # type: ignore[arg-type]
        self.records.append(record)
        self._after_action(p)
        return record

    def verify_bet_or_raise(self, to: int, seat: int | None = None) -> int:
        """Raise IllegalAction unless the actor may bet or raise to `to` (street total)."""
        return self._verify_bet_or_raise(to, seat)[0].seat

    def _verify_bet_or_raise(self, to: int, seat: int | None) -> tuple[PlayerState, Bounds]:
        actor = self.actor
        if (self.phase is BETTING and not self._queue and actor is not None   # the commonest: his turn to bet
                and (seat is None or seat == actor)):
            p = self._players[actor]
        else:
            p = self._check_turn(seat, BETTING, BRING_IN)
        if to.__class__ is not int and (not isinstance(to, int) or isinstance(to, bool)):
            raise IllegalAction(f"amount must be an integer, got {to!r}")
        rng = self._raise_range(p)
        if rng is None:
            raise IllegalAction(f"seat {p.seat} may not bet or raise: {self._why_no_raise(p)}",
                                say=say("refusal.poker_no_raise", seat=p.seat))
        kind, min_to, max_to, choices = rng
        if choices is not None:
            if to not in choices:
                allowed = " or ".join(str(c) for c in choices)
                raise IllegalAction(f"seat {p.seat} may {kind} to {allowed} only, not {to}",
                                    say=say("refusal.poker_amount_fixed", seat=p.seat, amount=money(to),
                                            allowed=money(choices[0])))
        elif to < min_to:
            raise IllegalAction(f"seat {p.seat} may {kind} to {min_to}..{max_to}, not {to}", say=say(
                "refusal.poker_below_min_bet" if kind == "bet" else "refusal.poker_below_min_raise",
                seat=p.seat, amount=money(to), minimum=money(min_to)))
        elif to > max_to:
            raise IllegalAction(f"seat {p.seat} may {kind} to {min_to}..{max_to}, not {to}", say=say(
                "refusal.poker_above_max_bet" if kind == "bet" else "refusal.poker_above_max_raise",
                seat=p.seat, amount=money(to), maximum=money(max_to)))
        return p, rng

    def can_bet_or_raise(self, to: int, seat: int | None = None) -> bool:
        return self._can(self.verify_bet_or_raise, to, seat)

    def bet_or_raise(self, to: int, seat: int | None = None) -> BetOrRaised:
        """Bet, raise or complete to `to` (PHH `cbr`). Raises as verify_bet_or_raise."""
        p, (kind, _, _, choices) = self._verify_bet_or_raise(to, seat)
        previous = self.level
        structure = self._structure
        min_bet = self._min_bet
        all_in = to == p.bet + p.stack
        if structure is FIXED_LIMIT:
            full = to >= self._fixed_target(p) or (all_in and self.settings.fixed_limit_half_bet_reopens
                                                   and 2 * (to - previous) >= self._unit())
        else:
            last_full = self._last_full
            full = previous == 0 or to - previous >= (last_full if last_full > min_bet else min_bet)
        if self.phase is BRING_IN:
            self.phase = BETTING
        added = to - p.bet
        p.stack -= added
        p.bet += added
        p.total += added
        if full:
            if structure is not FIXED_LIMIT:
                self._last_full = to - previous if to - previous > min_bet else min_bet
            self._bet_count += 1
            if (structure is FIXED_LIMIT and self.street == self.variant.open_pair_street
                    and choices is not None and len(choices) == 2 and to == choices[1]):
                self._big_unit = True   # the open pair bet the big bet: raises are big bets
            for q in self._seq:
                if q is not p and q.stack and not q.folded:
                    q.pending = True
                    q.may_raise = True
            self._aggressor = (self.street, p.seat)
        else:
            # TDA: short all-ins that together make a full raise over the bet a player faced
            # reopen the betting to him (no limit and pot limit; docs/rules.md "Poker room")
            reopen = (max(self._last_full, self._min_bet)
                      if structure is not FIXED_LIMIT and self.settings.short_allin_rule == "tda" else 0)
            for q in self._seq:
                if q is not p and q.stack and not q.folded and q.bet < to:
                    q.pending = True
                    if reopen and not q.may_raise and to - q.acted_at >= reopen:
                        q.may_raise = True
        if to > previous:
            self.level = to
        p.pending = False
        p.may_raise = False
        p.acted_at = self.level
        record = new_bet_or_raised(p.seat, kind, to, added, p.stack == 0, full)
        self.records.append(record)
        self._after_action(p)
        return record

    def verify_post_bring_in(self, seat: int | None = None) -> int:
        p = self._check_turn(seat, BRING_IN)
        return p.seat

    def can_post_bring_in(self, seat: int | None = None) -> bool:
        return self._can(self.verify_post_bring_in, seat)

    def post_bring_in(self, seat: int | None = None) -> BroughtIn:
        """Post the stud bring-in (the alternative is completing with bet_or_raise)."""
        p = self._players[self.verify_post_bring_in(seat)]
        amount = min(self.stakes.bring_in, p.stack)
        self._put(p, amount)
        self.level = max(self.level, p.bet)
        self.phase = BETTING
        p.pending = False
        p.may_raise = False
        p.acted_at = self.level
        record = BroughtIn(p.seat, amount, p.stack == 0)
        self.records.append(record)
        self._after_action(p)
        return record

    def verify_draw(self, discards: Sequence[CardInput] = (), seat: int | None = None) -> tuple[Card | None, ...]:
        """Raise IllegalAction unless the actor may discard these cards (empty: stand pat);
        CardError for bad card text. None / `??` discards one unknown card."""
        p = self._check_turn(seat, DRAWING)
        parsed = tuple(card_of(c) for c in discards)
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
                self._card_state[card.index] = DEAD
        self.discarded.extend(parsed)
        record = Drew(p.seat, parsed)
        self.records.append(record)
        street = self.variant.streets[self.street]
        if parsed:
            if self.settings.burns and street.burn and not self._draw_burnt:
                self._queue.append(card_slot("burn", None, False, street.name))
                self._draw_burnt = True
            self._queue.extend(card_slot("draw", p.seat, False, street.name) for _ in parsed)
            self._deal_plan = ()   # the queue is no longer the street's slots
            self.actor = None
        else:
            self._next_drawer()
        return record

