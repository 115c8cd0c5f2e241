"""What a poker hand's view and record spell beside the engine's own: a seat's missed blinds, an empty seat, the hand's rules, its shown hands and results, a card's text."""

from __future__ import annotations

from typing import Any

from engine.cards import Card
from engine.poker import Hand, SeatState
from engine.poker.state import Awarded, Returned, Shown
from protocol.messages import PokerResults, PotResult
from protocol.records import HandRules


def owing(state: SeatState | None) -> dict[str, Any]:
    """A seat's missed blinds on the feed: `owes` (None, "small", "big", "both") and whether he
    waits for the big blind. A busted seat (no chips) owes nothing until it rebuys: the engine keeps
    what it missed, which it posts on returning with chips (docs/rules.md, "Poker room")."""
    return {"owes": None if state is None or state.stack == 0 else state.owes,
            "waiting_for_big_blind": False if state is None else state.waiting}


def hand_rules(hand: Hand) -> HandRules:
    """What a hand record needs beside its stakes to be played again exactly: the short all-in
    rules it was dealt under, a dead small blind, the missed blinds posted, a tournament's all-in
    reveal (engine.phh.export)."""
    out: HandRules = {"short_allin_rule": hand.settings.short_allin_rule,
                      "fixed_limit_half_bet_reopens": hand.settings.fixed_limit_half_bet_reopens}
    if hand.no_small_blind:
        out["no_small_blind"] = True
    if hand.settings.all_in_reveal:  # its hands turned up at the all-in are tabled at the showdown, none asked
        out["all_in_reveal"] = True
    if hand.owed:
        out["owed"] = {str(s): kind for s, kind in sorted(hand.owed.items())}
    return out


def card_text(card: Card | None) -> str:
    return "??" if card is None else str(card)


def empty_seat(seat: int, state: SeatState, left_out: frozenset[int] = frozenset()) -> dict[str, Any]:
    """A seat not in the hand, in the table's view: its player (sitting out, or joined since the deal) and stack;
    between hands, `waiting_for_button` when the next hand's seating leaves him out though he sits in with chips
    (`left_out`: between the button and the blinds, he waits for the button to pass him: engine.poker.seats)."""
    return {"seat": seat, "stack": state.stack, "sitting_out": state.sitting_out, "in_hand": False,
            "cards": [], "visible": [], "up": [], "bets": {}, "decision": None, **owing(state),
            **({"waiting_for_button": True} if seat in left_out else {})}


def shown_names(hand: Hand) -> dict[int, list[str]]:
    """Seat -> the names of its shown hand (high, then low when it has one)."""
    return {rec.seat: [v.name for v in rec.values if v is not None] for rec in hand.records if isinstance(rec, Shown)}


def final_stacks(hand: Hand) -> dict[int, int]:
    """Each seat's chips once the hand is over (as it started before its result)."""
    if hand.result is not None:
        return dict(hand.result.final_stacks)
    return hand.starting_stacks


def hand_results(hand: Hand, chopped: bool) -> PokerResults | None:
    """The settled hand: pots with their winners (each a half, of a split high/low pot, or all of it), net per
    seat, the rake, whether the pot was `chopped` by agreement or went to a showdown, the uncalled bets `returned`
    (seat and amount); None before the end."""
    result = hand.result
    if not hand.is_over or result is None:
        return None
    start, finals = hand.starting_stacks, final_stacks(hand)
    halves: dict[tuple[int, int], str] = {}
    for rec in hand.records:
        if isinstance(rec, Awarded):
            halves[(rec.pot, rec.seat)] = rec.half if (rec.pot, rec.seat) not in halves else "all"
    pots: list[PotResult] = [{"amount": p.amount, "eligible": sorted(p.eligible),
             "winners": [{"seat": s, "amount": c, "half": halves.get((i, s), "all")} for s, c in sorted(p.winners.items())]}
            for i, p in enumerate(result.pots)]
    return {"pots": pots, "net": [{"seat": s, "net": finals[s] - start[s]} for s in sorted(start)],
            "rake": result.rake, "chopped": chopped, "showdown": bool(result.showdown),
            "returned": [{"seat": r.seat, "amount": r.amount} for r in hand.records if isinstance(r, Returned)]}
