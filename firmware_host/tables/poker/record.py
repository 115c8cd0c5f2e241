"""What a poker hand's view and record spell beside the engine's own: a seat's missed blinds, the hand's rules, a card's text."""

from __future__ import annotations

from typing import Any

from engine.cards import Card
from engine.poker import Hand, SeatState

def owing(state: SeatState | None) -> dict[str, Any]:
    """A seat's missed blinds on the feed: `owes` (None, "small", "big", "both") and whether he
    waits for the big blind."""
    return {"owes": None if state is None else state.owes,
            "waiting_for_big_blind": False if state is None else state.waiting}


def hand_rules(hand: Hand) -> dict[str, Any]:
    """What a hand record needs beside its stakes to be played again exactly: the short all-in
    rules it was dealt under, a dead small blind, the missed blinds posted, a tournament's all-in
    reveal (engine.phh.export)."""
    out: dict[str, Any] = {"short_allin_rule": hand.settings.short_allin_rule,
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
