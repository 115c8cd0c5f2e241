"""Bot players for the simulated house table: seeded stakes, and a decision from their own cards and the board."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.evaluate import high, three_card
from sim import rated
from sim.bots.table import SimLimits


def _cards(texts: Sequence[str]) -> list[Card]:
    return [Card.parse(t) for t in texts]


def uth_decision(street: str, hole: Sequence[str], board: Sequence[str]) -> tuple[str, int | None]:
    """A plain Ultimate Texas Hold'em strategy: 4x with good starting cards, 2x on a hand made
    with a hole card on the flop, 1x at the river with a pair or better of one's own, else fold."""
    a, b = _cards(hole)
    hi, lo = max(a.rank, b.rank), min(a.rank, b.rank)
    suited = a.suit == b.suit
    if street == "preflop":
        good = (hi == lo and hi >= 3) or hi == 14 or (hi == 13 and (lo >= 5 or suited)) or \
            (hi == 12 and (lo >= 8 or (suited and lo >= 6))) or (hi == 11 and lo >= 10)
        return ("play", 4) if good else ("check", None)
    board_ranks = {c.rank for c in _cards(board)}
    own = hi == lo or a.rank in board_ranks or b.rank in board_ranks
    if street == "flop":
        return ("play", 2) if own and max(a.rank, b.rank) >= 4 else ("check", None)
    value = high([a, b, *_cards(board)])
    board_value = high(_cards(board))
    if (own or value.strength > board_value.strength and value.category != "high_card") or hi == 14:
        return "play", 1
    return "fold", None


def tcp_decision(hole: Sequence[str]) -> str:
    """Three Card Poker: play Q-6-4 or better, fold the rest."""
    value = three_card(_cards(hole))
    if value.category != "high_card":
        return "play"
    ranks = sorted((c.rank for c in _cards(hole)), reverse=True)
    return "play" if ranks >= [12, 6, 4] else "fold"


@dataclass(frozen=True, slots=True)
class BotPlayer:
    """A seated bot: its stakes come from its seed and the hand number, its decisions from its cards."""

    seat: int
    seed: int = 0
    side_bets: float = 0.4  # how often it adds Trips / Pair Plus
    card: str | None = None  # a player card (`croupier demo --rated`): its players come and go (`sim/rated.py`)

    def bets(self, game: str, hand: int, limits: SimLimits) -> dict[str, int]:
        """The spot's stakes for `hand` (the same on every call: a re-sent bet is the same bet)."""
        rng = random.Random(f"{self.seed}:{hand}:{self.seat}")
        units = rng.choice((1, 1, 2, 3))
        main = min(limits.minimum * units, limits.maximum or limits.minimum * units)
        bets = {"ante": main, "blind": main} if game == "uth" else {"ante": main}
        if rng.random() < self.side_bets:
            bets["trips" if game == "uth" else "pair_plus"] = limits.side_minimum or limits.chip
        return bets

    def decide(self, game: str, street: str, hole: Sequence[str], board: Sequence[str]) -> tuple[str, int | None]:
        """`(decision, multiple)` for the street (UTH: preflop, flop, river; 3CP: decide)."""
        if game == "uth":
            return uth_decision(street, hole, board)
        return tcp_decision(hole), None


def seat_players(count: int, seed: int, rated_share: float = 0.0) -> list[BotPlayer]:
    """`count` bots in seats 1..count; a share `rated_share` of them (drawn from the seed) carry player cards."""
    cards = rated.cards_at(count, seed, rated_share)
    return [BotPlayer(seat, seed, card=cards.get(seat)) for seat in range(1, count + 1)]
