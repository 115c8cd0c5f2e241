"""The rated demo's people (`croupier demo --rated`): who carries a player card at which seat and hand, and which bot dealer deals."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

PLAYER_HANDS = 12
"""A carded seat has a new player every this many hands; the one before leaves a hand earlier (that hand unrated)."""
DEALER_HANDS = 25
"""The bot dealers rotate every this many hands (the dealer figures)."""
BOT_DEALERS = ("bot-dealer-ana", "bot-dealer-bo")
BREAKS = 0.08
"""How often a player is away (on a break) for a hand."""


def cards_at(count: int, seed: int, rated: float) -> dict[int, str]:
    """Seat -> the card number base of the seats, of `count`, that carry player cards: a share `rated`, drawn from the seed."""
    rng = random.Random(f"{seed}:rated")
    return {seat: f"60{seed % 1000:03d}{seat:02d}" for seat in sorted(rng.sample(range(1, count + 1), round(count * rated)))}


def at_seat(card: str, seed: int, seat: int, hand: int) -> tuple[str | None, bool]:
    """`(card, away)` at the seat whose card base is `card` at `hand`: None between two players."""
    if hand % PLAYER_HANDS == PLAYER_HANDS - 1:
        return None, False
    away = random.Random(f"{seed}:{hand}:{seat}:away").random() < BREAKS
    return f"{card}{hand // PLAYER_HANDS:02d}", away


def dealer_on_duty(hand: int) -> str:
    """The bot dealer who deals `hand`."""
    return BOT_DEALERS[(hand - 1) // DEALER_HANDS % len(BOT_DEALERS)]


def seat_steps(card: str | None, away: bool, here: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The `player` commands (their `action` and `card`) that take a seat from `here` (the full feed's
    `players` entry, or None) to `card` and `away`.

    >>> seat_steps("600", True, None)
    [{'action': 'in', 'card': '600'}, {'action': 'away'}]
    >>> seat_steps(None, False, {"card": "600", "away": True}), seat_steps("600", False, {"card": "600", "away": True})
    ([{'action': 'out'}], [{'action': 'back'}])
    """
    if card is None:
        return [{"action": "out"}] if here is not None else []
    steps: list[dict[str, Any]] = []
    if here is None or here["card"] != card:
        steps.append({"action": "in", "card": card})
        here = {"away": False}
    if bool(here["away"]) != away:
        steps.append({"action": "away" if away else "back"})
    return steps
