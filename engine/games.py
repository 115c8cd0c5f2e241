"""Every name a table speaks, declared once: the games, bet circles, decisions, Play multiples, betting structures, actions, stakes keys and seat bounds.

The house-banked games are declared here and their engines (`engine.ultimate_holdem`,
`engine.three_card_poker`, `engine.paytables`) check against these declarations; the poker names
come from `engine.poker` (`VARIANTS`, `Structure`, `Stakes`, `ACTIONS`, `SEAT_ACTIONS`, the room rules, the
seat bounds) and are only gathered here. The dealer command channel and the configuration derive
their checks and their refusals from this module, so a name added to the engine is accepted by
both and a name they refuse is one the engine does not know.

>>> HOUSE_GAMES["uth"].play_multiples["preflop"], HOUSE_GAMES["3cp"].decisions
((4, 3), ('play', 'fold'))
>>> PLAY_MULTIPLES, DECISIONS
((1, 2, 3, 4), ('check', 'play', 'fold', 'dead'))
>>> GAMES[:3], STRUCTURES[-1], HOUSE_SEATS, POKER_SEATS
(('uth', '3cp', 'holdem'), 'no-limit', (1, 7), (2, 10))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.poker.betting import Stakes
from engine.poker.session import SEAT_ACTIONS
from engine.poker.values import TABLE_RULES
from engine.poker.variants import ACTIONS, MAX_SEATS, MIN_SEATS, VARIANTS, Structure

__all__ = [
    "HouseGame", "UTH", "THREE_CARD_POKER", "HOUSE_GAMES", "MAX_SPOTS", "HOUSE_SEATS", "DEAD", "DECISIONS",
    "PLAY_MULTIPLES", "POKER_GAMES", "STRUCTURES", "POKER_ACTIONS", "SEAT_ACTIONS", "STAKES_KEYS", "POKER_RULES",
    "POKER_SEATS", "GAMES", "TABLE_SEATS", "is_poker",
]


@dataclass(frozen=True, slots=True)
class HouseGame:
    """A house-banked game's names.

    `bets`: every bet circle a spot may post (a profile may leave an optional one out: 3CP's
    `bonus`). `decisions`: what a spot decides when it is to act. `play_multiples`: for each
    decision street in order, the Play bet's multiples of the Ante the game allows, largest
    first (a profile offers some of them; 3CP's Play equals the Ante).
    """

    code: str
    title: str
    bets: tuple[str, ...]
    decisions: tuple[str, ...]
    play_multiples: Mapping[str, tuple[int, ...]]

    @property
    def streets(self) -> tuple[str, ...]:
        """The streets on which spots decide, in order."""
        return tuple(self.play_multiples)


UTH = HouseGame("uth", "Ultimate Texas Hold'em", ("ante", "blind", "trips"), ("check", "play", "fold"),
                MappingProxyType({"preflop": (4, 3), "flop": (2,), "river": (1,)}))
"""docs/rules.md: Play 4x or 3x the Ante before the flop, 2x on the flop, 1x or fold at the river, once."""

THREE_CARD_POKER = HouseGame("3cp", "Three Card Poker", ("ante", "pair_plus", "bonus"), ("play", "fold"),
                             MappingProxyType({"decide": (1,)}))
"""docs/rules.md: each spot with an Ante plays (Play equal to the Ante) or folds."""

HOUSE_GAMES: Mapping[str, HouseGame] = MappingProxyType({g.code: g for g in (UTH, THREE_CARD_POKER)})
"""Code -> the house-banked game."""

MAX_SPOTS = 7
"""The most spots at a house-banked table (a profile's `max_spots` is at most this)."""
HOUSE_SEATS = (1, MAX_SPOTS)
"""The spot numbers of a house-banked table, first and last."""

DEAD = "dead"
"""The decision that declares a spot's hand dead (every bet of the spot loses), in either game."""
DECISIONS: tuple[str, ...] = tuple(dict.fromkeys(d for g in HOUSE_GAMES.values() for d in g.decisions)) + (DEAD,)
"""Every decision of a house-banked game."""
PLAY_MULTIPLES: tuple[int, ...] = tuple(sorted({m for g in HOUSE_GAMES.values()
                                                for ms in g.play_multiples.values() for m in ms}))
"""Every Play multiple some house game allows on some street, smallest first."""

POKER_GAMES: tuple[str, ...] = tuple(VARIANTS)
"""The poker games: the codes of `engine.poker.VARIANTS`."""
STRUCTURES: tuple[str, ...] = tuple(s.value for s in Structure)
"""The betting structures: the values of `engine.poker.Structure`."""
POKER_ACTIONS: tuple[str, ...] = ACTIONS
"""A player's actions in a poker hand (`engine.poker.variants.ACTIONS`)."""
STAKES_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Stakes) if f.name != "structure")
"""The fields of `engine.poker.Stakes` a table's stakes give (the structure is given beside them)."""
POKER_RULES: Mapping[str, tuple[Any, ...]] = TABLE_RULES
"""A poker table's room rules (`engine.poker.values.TABLE_RULES`): each rule's values, the default first."""
POKER_SEATS = (MIN_SEATS, MAX_SEATS)
"""The fewest and the most seats of a poker table; seats are numbered 1..the table's seats."""

GAMES: tuple[str, ...] = tuple(HOUSE_GAMES) + POKER_GAMES
"""Every game a table opens with."""
TABLE_SEATS = (1, max(MAX_SPOTS, MAX_SEATS))
"""Seat numbers of any table, first and last (a game narrows them: `HOUSE_SEATS`, `POKER_SEATS`)."""


def is_poker(game: str) -> bool:
    """Whether `game` is one of the poker games (else a house-banked game, or unknown)."""
    return game in VARIANTS

CLOCK_SECONDS = (5, 600)
"""The bounds of the seconds a poker dealer may give a player put on the clock (a `clock` request's `seconds`)."""
