"""The end of a poker hand: uncalled bets returned, the showdown's shows and mucks, chops, the settlement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.errors import DuplicateCard, IllegalAction
from engine.poker.core import HandCore, PlayerState
from engine.poker.pots import Pot, final_pots, split, split_hi_lo
from engine.poker.records import (
    Awarded, Chopped, HandResult, Mucked, PotResult, Raked, Returned, Shown, hand_strengths, new_awarded,
    new_pot_result, new_returned, new_shown,
)
from engine.poker.values import LIVE, OVER, SHOWDOWN, CardInput, card_of
from engine.cards import Card

__all__ = ["HandShowdown"]



class HandShowdown(HandCore):
    """The showdown and the settlement of a hand (see engine.poker.state.Hand)."""

    __slots__ = ()

    @property
    def result(self) -> HandResult | None:
        """The settled hand (None until the hand is over). A hand won uncontested, without rake,
        has its result made when first read: nothing moves once a hand is over."""
        result = self._result
        if result is None and self.phase is OVER:
            result = self._result = self._uncontested_result()
        return result

    def _return_uncalled(self) -> None:
        """Give back the part of the highest bet of the street that nobody matched, and collect
        the street's bets (each already in his total: every bet 0 after)."""
        top: PlayerState | None = None
        high = second = 0
        for p in self._seq:   # the first of the highest bets, and the next highest
            bet = p.bet
            if bet:
                if bet > high:
                    second = high
                    high = bet
                    top = p
                elif bet > second:
                    second = bet
                p.bet = 0
        excess = high - second
        if excess:
            assert top is not None
            top.stack += excess
            top.total -= excess
            self.records.append(new_returned(top.seat, excess))

    def _start_showdown(self) -> None:
        for p in self._players.values():
            p.bet = 0
        self.phase = SHOWDOWN
        last = len(self.variant.streets) - 1
        start = self.order[0]
        if self._aggressor is not None and self._aggressor[0] == last and self._players[self._aggressor[1]].live:
            start = self._aggressor[1]
        i = self.order.index(start)
        n = len(self.order)
        players = self._players
        self._showdown_queue = [seat for seat in (self.order[(i + k) % n] for k in range(n))
                                if not players[seat].folded and not players[seat].mucked]
        self.actor = None
        if self.revealed and all(c is not None for s in self._showdown_queue for c in players[s].cards):
            self._table_revealed()
            return
        self._next_shower()

    def _table_revealed(self) -> None:
        """The tournament's all-in showdown: every hand still in was turned face up at the all-in
        (`revealed`), so they are tabled: shown at once in showdown order, none asked, none mucked
        (docs/rules.md, "All-in showdown"), and the hand settles."""
        board = tuple(c for c in self.board if c is not None)
        for seat in self._showdown_queue:
            p = self._players[seat]
            p.shown = True
            self.records.append(Shown(seat, tuple(c for c in p.cards if c is not None), board, self.variant.evaluators))
        self._showdown_queue = []
        self._settle(showdown=True)

    def _next_shower(self) -> None:
        if self._showdown_queue:
            seat = self._showdown_queue.pop(0)
            for p in self._seq:
                if p.seat != seat and not p.folded and not p.mucked:
                    self.actor = seat   # another hand still in: he shows or mucks
                    return
            # everyone else mucked: he wins without showing
        self.actor = None
        self._settle(showdown=True)

    def _final_pots(self) -> list[Pot]:
        return final_pots({s: p.total for s, p in self._players.items()},
                          [p.seat for p in self._seq if not p.folded and not p.mucked])

    def _settle(self, showdown: bool, chop: Mapping[int, int] | None = None, chop_equal: bool = False) -> None:
        self.phase = OVER
        self.actor = None
        self._queue = []
        rk = self.settings.rake
        if not showdown and chop is None and rk is None and self._settle_uncontested():
            return   # uncontested, no rake: one pot, all his
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
                    self.records.append(new_awarded(seat, chips, index, half))
            for seat, chips in won.items():
                self._players[seat].stack += chips
            winners_all.update(won)
            results.append(new_pot_result(pot.amount, pot.eligible, won))
        for p in self._players.values():
            p.bet = 0
        finals = {s: p.stack for s, p in self._players.items()}
        starts = {s: p.starting_stack for s, p in self._players.items()}
        self._result = HandResult(
            starting_stacks=starts, final_stacks=finals,
            payoffs={s: finals[s] - starts[s] for s in finals}, pots=tuple(results), rake=rake,
            showdown=showdown, winners=frozenset(winners_all),
        )

    def _settle_uncontested(self) -> bool:
        """_settle when one player is left and no rake is taken (the same records): True; False,
        and nothing done, when more are left. Its result is made when first read (`result`,
        `_uncontested_result`)."""
        winner: PlayerState | None = None
        for p in self._seq:
            if not p.folded and not p.mucked:
                if winner is not None:
                    return False
                winner = p
        if winner is None:
            return False
        total = 0
        for p in self._seq:
            total += p.total
            p.bet = 0
        winner.stack += total
        if total:
            self.records.append(new_awarded(winner.seat, total, 0, "all"))
        return True

    def _uncontested_result(self) -> HandResult:
        """The result of a hand settled by _settle_uncontested: one pot, all the winner's (plain
        loops: on CPython 3.11 they beat `map(attrgetter(...))` and comprehensions here)."""
        total = 0
        seat = -1
        finals: dict[int, int] = {}
        starts: dict[int, int] = {}
        payoffs: dict[int, int] = {}
        for p in self._seq:   # in the order of _players
            s, stack, start = p.seat, p.stack, p.starting_stack
            total += p.total
            if not p.folded and not p.mucked:
                seat = s
            finals[s] = stack
            starts[s] = start
            payoffs[s] = stack - start
        pot = PotResult(total, frozenset((seat,)), {seat: total} if total else {})
        return HandResult(starts, finals, payoffs, (pot,), 0, False, frozenset((seat,)) if total else frozenset())

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

    def verify_show(self, cards: Sequence[CardInput] | None = None, seat: int | None = None) -> tuple[Card, ...]:
        """Raise IllegalAction unless the actor may show. `cards` are needed when some of the
        hand is unknown (hand-history replay) and must then cover every card of the hand."""
        p = self._check_turn(seat, SHOWDOWN)
        if cards is None:
            if any(c is None for c in p.cards):
                raise IllegalAction(f"seat {p.seat}'s cards are not all known: show them with their cards")
            return tuple(c for c in p.cards if c is not None)
        parsed = tuple([card_of(c) for c in cards])
        if None in parsed or len(parsed) != len(p.cards):
            raise IllegalAction(f"seat {p.seat} must show all {len(p.cards)} cards")
        # by card index (ints hash quicker than cards)
        shown = {c.index for c in parsed}  # type: ignore[union-attr]
        known = {c.index for c in p.cards if c is not None}
        if not known <= shown:
            raise IllegalAction(f"seat {p.seat} shows cards that differ from the ones dealt")
        others = {c.index for c in self.board if c is not None}
        for q in self._seq:
            if q is not p:
                others.update([c.index for c in q.cards if c is not None])
        dead: set[int] | None = None
        for c in parsed:
            index = c.index  # type: ignore[union-attr]
            if index in others:
                raise DuplicateCard(f"duplicate card: {c} is already in play")
            if index not in known:
                if dead is None:
                    dead = {d.index for d in (*self.burned, *self.discarded) if d is not None}
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
                self._card_state[c.index] = LIVE
        p.shown = True
        record = new_shown(p.seat, shown, tuple(c for c in self.board if c is not None), self.variant.evaluators)
        self.records.append(record)
        self._next_shower()
        return record

    def verify_muck(self, seat: int | None = None) -> int:
        """Raise IllegalAction unless the actor may muck: not when every other contender for a
        pot he can win has already mucked or folded (he wins it; show instead)."""
        p = self._check_turn(seat, SHOWDOWN)
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
        if self.phase is OVER:
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
        while self.phase is SHOWDOWN:
            out.append(self.show())
        return out
