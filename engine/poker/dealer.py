"""The dealer view of a poker hand made from it: the legal actions, the prompt, each seat (`Hand.view`)."""

from __future__ import annotations

from engine.poker.streets import HandStreets as Hand   # every reader the view asks of `engine.poker.Hand`
from engine.poker.values import BRING_IN, DRAWING, SHOWDOWN
from engine.poker.view import DealerView, LegalActions, SeatView

__all__ = ["dealer_view"]


def _legal(hand: Hand) -> LegalActions:
    seat = hand.actor
    if seat is None or hand.expected_card() is not None:
        return LegalActions()
    if hand.phase is DRAWING:
        return LegalActions(draw=True)
    if hand.phase is SHOWDOWN:
        return LegalActions(show=True, muck=hand.can_muck())
    rng = hand.raise_range()
    stack, bet = hand.stack(seat), hand.bet(seat)
    all_in_to = bet + stack
    if hand.phase is BRING_IN:
        shove = all_in_to if (rng is not None and rng.allows(all_in_to)) or stack <= hand.stakes.bring_in else None
        return LegalActions(bring_in=min(hand.stakes.bring_in, stack), bet_or_raise=rng, all_in=shove)
    facing = hand.level > bet
    call = hand.call_amount() if facing else None
    all_in: int | None = None
    if rng is not None and rng.allows(all_in_to):
        all_in = all_in_to
    elif facing and stack <= hand.level - bet:
        all_in = all_in_to          # calling puts him all in
    return LegalActions(fold=facing, check=not facing, call=call, bet_or_raise=rng, all_in=all_in)


def dealer_view(hand: Hand) -> DealerView:
    """Snapshot of `hand` for the dealer screen and the feed."""
    legal = _legal(hand)
    slot = hand.expected_card()
    seats = tuple(
        SeatView(
            seat=s, stack=hand.stack(s), bet=hand.bet(s), contributed=hand.contributed(s),
            folded=hand.folded(s), all_in=hand.all_in(s), mucked=hand.mucked(s), shown=hand.shown(s),
            cards=tuple("??" if c is None else str(c) for c in hand.cards(s)), up=hand.faces(s),
            revealed=hand.revealed and hand.in_hand(s),
        )
        for s in hand.seats
    )
    if hand.is_over:
        prompt = "hand over"
    elif slot is not None:
        prompt = f"deal {slot.kind} card" + (f" to seat {slot.seat}" if slot.seat is not None else "")
        if slot.kind == "hole":
            prompt += " face up" if slot.up else " face down"
    else:
        prompt = f"seat {hand.actor}: " + ", ".join(legal.describe())
    return DealerView(
        variant=hand.variant.code, street=hand.street_name, phase=hand.phase.value, button=hand.button,
        actor=hand.actor, expected_card=slot, level=hand.level, legal=legal, pots=tuple(hand.pots()),
        total_pot=hand.total_pot, board=tuple("??" if c is None else str(c) for c in hand.board),
        seats=seats, prompt=prompt,
    )
