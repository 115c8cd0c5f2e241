"""The flow of a poker hand: forced bets, each street's dealing order, betting rounds and their raise bounds."""

from __future__ import annotations

from engine.poker.betting import pot_limit_max_to
from engine.poker.core import PlayerState
from engine.poker.records import DealStep, deal_plan, posted as posted_record
from engine.poker.showdown import HandShowdown
from engine.poker.values import (
    BETTING, BRING_IN, DEALING, DRAWING, FIXED_LIMIT, POT_LIMIT, SPREAD_LIMIT, Bounds, CardSlot, RaiseRange, card_slot,
)
from engine.poker.variants import Street, bring_in_key, showing_high_key, showing_low_key
from engine.errors import IllegalAction

__all__ = ["HandStreets", "OWED"]

OWED: tuple[str, ...] = ("small", "big", "both")
"""Missed blinds a player owes: the small blind (dead), the big blind (live), or both."""

_BLIND_KINDS = ("small_blind", "big_blind")   # then straddles
# a street's dealing order by (street, seats dealt in order, burn, common card): values, shared; with the
# slots as `Hand._deal_run` reads them (records.deal_plan)
_QUEUES: dict[tuple[int, tuple[int, ...], bool, bool],
              tuple[Street, tuple[CardSlot, ...], tuple[DealStep, ...]]] = {}


class HandStreets(HandShowdown):
    """Streets and betting rounds of a hand (see engine.poker.state.Hand)."""

    __slots__ = ()

    def _post_forced(self) -> None:
        stakes = self.stakes
        players = self._players
        records = self.records
        order = self.blind_order
        if stakes.antes:
            for place, seat in enumerate(order):
                p = players[seat]
                ante = min(stakes.ante_for(place), p.stack)
                if ante:
                    p.stack -= ante
                    p.total += ante
                    records.append(posted_record(seat, "ante", ante))
        blinds = stakes.blinds
        n = len(order)
        skip = 1 if self.no_small_blind else 0   # a dead small blind: the first to post has the big
        for i in range(skip, len(blinds)):
            amount = blinds[i]
            p = players[order[(i - skip) % n]]
            posted = amount if amount < p.stack else p.stack
            if posted:
                p.stack -= posted
                p.bet += posted
                p.total += posted
                records.append(posted_record(p.seat, _BLIND_KINDS[i] if i < 2 else "straddle", posted))
        if self.owed:
            self._post_owed()
        if blinds:
            self.level = self._last_full = max(blinds)
            self._bet_count = len(blinds) - 1 if len(blinds) > 2 else 1

    def _check_blinds_owed(self) -> None:
        """Raise IllegalAction unless a dead small blind and the owed blinds fit the table."""
        blinds = self.stakes.blinds
        if len(blinds) < 2:
            raise IllegalAction("missed blinds and a dead small blind need a small and a big blind")
        if self.no_small_blind and len(self.order) < 3:
            raise IllegalAction("heads-up the button posts the small blind: no dead small blind")
        posting = len(blinds) - (1 if self.no_small_blind else 0)
        in_turn = set(self.blind_order[:posting])
        for seat, kind in self.owed.items():
            if seat not in self._players:
                raise IllegalAction(f"seat {seat} owes blinds but is not in this hand")
            if kind not in OWED:
                raise IllegalAction(f"seat {seat}: owed blinds are {', '.join(OWED)}, not {kind!r}")
            if seat in in_turn:
                raise IllegalAction(f"seat {seat} posts a blind in turn: it owes none besides")

    def _post_owed(self) -> None:
        """Missed blinds posted on coming back: the small blind dead (into the pot, not a bet),
        the big blind live (his bet, as if he had the big blind)."""
        small, big = self.stakes.blinds[0], self.stakes.blinds[1]
        for seat in self.order:
            kind = self.owed.get(seat)
            if kind is None:
                continue
            p = self._players[seat]
            if kind != "small":
                live = big if big < p.stack else p.stack
                if live:
                    p.stack -= live
                    p.bet += live
                    p.total += live
                    self.records.append(posted_record(seat, "big_blind", live))
            if kind != "big":
                dead = small if small < p.stack else p.stack
                if dead:
                    p.stack -= dead
                    p.total += dead
                    self.records.append(posted_record(seat, "dead_small_blind", dead))

    def _start_street(self) -> None:
        street = self.variant.streets[self.street]
        if self.street > 0:   # the bets were collected at the end of the betting (_end_betting)
            self.level = 0
            self._last_full = 0
            self._bet_count = 0
            self._big_unit = False
        players = self._players
        # the seats dealt to (a street of board cards only deals the same to any seats: none named;
        # on the first street nobody has folded yet)
        live: tuple[int, ...] = ()
        if street.hole:
            live = self._deal_order if self.street == 0 else tuple(
                [s for s in self._deal_order if not players[s].folded and not players[s].mucked])
        stub = 52 - self._cards_seen
        burn = (self.settings.burns and street.burn and (self.street > 0 or self.settings.burn_before_hole)
                and 0 < len(street.hole) * len(live) + street.board < stub)   # no burn when the stub is short
        # stud's last card when the stub is short: one common card, face up, for everyone
        # (from the burns and folded cards shuffled, when the stub is empty)
        common = not street.board and len(live) > stub and street.hole == (False,)
        key = (id(street), live, burn, common)
        found = _QUEUES.get(key)
        if found is None or found[0] is not street:
            queue: list[CardSlot] = []
            if burn:
                queue.append(card_slot("burn", None, False, street.name))
            if common:
                queue.append(card_slot("board", None, True, street.name))
            else:
                for up in street.hole:
                    queue.extend(card_slot("hole", s, up, street.name) for s in live)
            queue.extend(card_slot("board", None, True, street.name) for _ in range(street.board))
            cached = tuple(queue)
            found = _QUEUES[key] = (street, cached, deal_plan(cached))   # the street kept with it: its id stays its own
        queue = list(found[1])
        self._deal_plan = found[2]
        self._queue = queue
        self.phase = DEALING
        self.actor = None
        if not queue:
            self._after_deal()

    def _after_deal(self) -> None:
        street = self.variant.streets[self.street]
        if street.draw:
            self.phase = DRAWING
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
        self.phase = BETTING
        self.actor = None
        seq = self._seq
        able = 0
        for p in seq:
            if not p.folded and p.stack > 0:
                p.pending = True
                able += 1
            else:
                p.pending = False
            p.may_raise = True
        self._able = able
        first = 0   # where the betting starts (index in _seq): the button's left
        if self.street == 0:
            if self.variant.bring_in is not None:
                start = self._bring_in_seat()
                if self.stakes.bring_in > 0 and self._players[start].able:
                    if self._betting_needed():
                        self.phase = BRING_IN
                        self.actor = start
                        return
                first = self._index[start]
            elif self.stakes.blinds:   # the left of the last blind posted
                posting = len(self.stakes.blinds) - (1 if self.no_small_blind else 0)
                first = self._index[self.blind_order[(posting - 1) % len(self.blind_order)]] + 1
        elif self.variant.first_to_act != "button":
            first = self._index[self._best_showing()]
        if able < 2 and not self._betting_needed():   # two players with chips: betting needed
            self._end_betting()
            return
        ring = self._ring
        p = ring[first]
        if p.pending:   # the seat there can bet (looked at without making a slice)
            self.actor = p.seat
            return
        for p in ring[first + 1:first + len(seq)]:   # the first from there who can bet
            if p.pending:
                self.actor = p.seat
                return
        self._end_betting()

    def _betting_needed(self) -> bool:
        alone: PlayerState | None = None
        for p in self._seq:
            if p.stack and not p.folded:
                if alone is not None:
                    return True
                alone = p
        if alone is None:
            return False
        # the only player with chips acts only when facing more than he has put in;
        # an opponent all in for less than the blind leaves nothing to call (docs/rules.md)
        top = max((p.bet for p in self._seq if p.live and p is not alone), default=0)
        return alone.bet < top

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

    def _fixed_target(self, p: PlayerState | None = None) -> int:
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

    def _why_no_raise(self, p: PlayerState) -> str:
        if self.stakes.structure is FIXED_LIMIT and self._capped():
            return "the betting is capped"
        if not p.may_raise:
            return "an all-in short of a full raise does not reopen the betting"
        if p.bet + p.stack <= self.level:
            return "not enough chips to raise"
        return "no opponent can call a raise"

    def _raise_range(self, p: PlayerState) -> Bounds | None:
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
        completing = self.phase is BRING_IN or (self._bet_count == 0 and self.level > 0
                                                      and self.variant.bring_in is not None
                                                      and self.street == 0)
        kind = "complete" if completing else ("bet" if self.level == 0 else "raise")
        choices: tuple[int, ...] | None = None
        if self._structure is FIXED_LIMIT:
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
        if completing and s.small_bet:
            min_to = max(s.small_bet, level + 1)
        else:
            last_full, min_bet = self._last_full, self._min_bet
            min_to = level + (last_full if last_full > min_bet else min_bet)
        structure = self._structure
        if structure is SPREAD_LIMIT:
            max_to = min(level + s.max_bet, all_in_to)
        elif structure is POT_LIMIT:
            max_to = min(pot_limit_max_to(level, self.total_pot, p.bet), all_in_to)
        else:
            max_to = all_in_to
        if min_to > all_in_to:
            min_to = all_in_to
        return kind, min_to, (min_to if min_to > max_to else max_to), None

    def _open_pair(self, p: PlayerState) -> bool:
        ranks = [c.rank for c in p.up_cards()]
        return len(ranks) != len(set(ranks))

    def _after_action(self, actor: PlayerState) -> None:
        """After `actor`'s betting action: the next seat to act, or the end of the round. `_live` counts
        the players who have not folded, `_able` those of them with chips (counted as each betting
        round starts): the actor has just folded or gone all in, or still has chips. Only a
        player in the hand with chips is ever pending (nobody has mucked while the betting goes on)."""
        able = self._able
        if actor.folded:
            self._live -= 1
            if actor.stack:
                able = self._able = able - 1
        elif not actor.stack:
            able = self._able = able - 1
        if self._live == 1 or able == 0:
            self._end_betting()
            return
        if able == 1:
            # the only player with chips acts only when facing more than he has put in
            alone: PlayerState | None = None
            top = 0
            for p in self._seq:
                if not p.folded:
                    if p.stack:
                        alone = p
                    elif p.bet > top:
                        top = p.bet
            assert alone is not None
            if alone.bet >= top or not alone.pending:
                self._end_betting()
            else:
                self.actor = alone.seat
            return
        i = self._index[actor.seat] + 1
        ring = self._ring
        p = ring[i]
        if p.pending:   # the next seat acts (the commonest: looked at without making a slice)
            self.actor = p.seat
            return
        for p in ring[i + 1:i + len(self._seq)]:   # the next player to act: the first pending
            if p.pending:
                self.actor = p.seat
                return
        self._end_betting()

    def _end_betting(self) -> None:
        self.actor = None
        self._return_uncalled()   # the street's bets go to the middle
        if self._live == 1:   # (nobody mucks while the betting goes on)
            self._settle(showdown=False)
            return
        if self.settings.all_in_reveal and not self.revealed:
            self._reveal_if_all_in()
        if self.street + 1 < len(self.variant.streets):
            self.street += 1
            self._start_street()
        else:
            self._start_showdown()

    def _reveal_if_all_in(self) -> None:
        """The tournament's all-in showdown: a player all in and nobody left to bet against him
        (at most one player still in with chips): every hand still in is turned face up now."""
        able = all_in = 0
        for p in self._seq:
            if p.live:
                if p.stack:
                    able += 1
                else:
                    all_in += 1
        if all_in and able <= 1:
            self.revealed = True

    def raise_range(self, seat: int | None = None) -> RaiseRange | None:
        """The legal bet / raise / completion totals for the actor, or None when he may not."""
        try:
            p = self._check_turn(seat, BETTING, BRING_IN)
        except IllegalAction:
            return None
        bounds = self._raise_range(p)
        return None if bounds is None else RaiseRange(*bounds)
