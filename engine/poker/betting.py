"""Betting structures and stakes: fixed limit with its raise cap, spread limit, pot limit, no limit.

`Stakes` holds a table's forced bets and limits; the sizing rules here are pure functions the
hand state machine calls. All amounts are integers in the table's smallest unit, and every
"to" amount is the player's total bet on the current street (as a dealer says "raise to 45").

Pot-limit maximum (docs/rules.md): the pot after the caller's call, i.e. a raise to at most
`current bet + (pot + all bets on the table + the call)`:

>>> pot_limit_max_to(level=10, pot_with_bets=25, own_bet=0)   # pot 15, facing a bet of 10
45
>>> pot_limit_max_to(level=2, pot_with_bets=3, own_bet=0)     # blinds 1/2, first raise
7
>>> pot_limit_max_to(level=7, pot_with_bets=10, own_bet=0)    # the pot re-raise
24
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalAction
from engine.poker.values import quick_init
from engine.poker.variants import Structure

__all__ = ["Stakes", "Structure", "pot_limit_max_to"]

_INT_ONLY = frozenset({int})
_FIXED_LIMIT = Structure.FIXED_LIMIT   # read as globals: quicker than members of the Enum class
_SPREAD_LIMIT = Structure.SPREAD_LIMIT


@quick_init
@dataclass(frozen=True, slots=True)
class Stakes:
    """Forced bets and limits of a table.

    `blinds`: posted in blind order: small blind, big blind, then straddles. Blind order starts
    left of the button; heads-up the button posts the small blind (docs/rules.md).
    `antes`: one amount for every player, or one per player in blind order (a big-blind ante is
    `(0, 500)` with blinds `(250, 500)`: the player at the second place posts it).
    `bring_in`: stud's forced bet of the lowest (razz: highest) upcard.
    `small_bet`, `big_bet`: fixed limit bet sizes (first and later streets; stud: 3rd-4th, 5th-7th).
    `min_bet`, `max_bet`: spread limit range per bet or raise; `min_bet` is also the minimum bet
    in pot and no limit (default: the largest blind, else the small bet, else the bring-in).
    `raise_cap`: fixed-limit raises after the bet (default 3: a bet and three raises; `None`
    uncapped); `uncapped_heads_up`: no cap when only two players remain in the hand.
    """

    structure: Structure
    blinds: tuple[int, ...] = ()
    antes: int | tuple[int, ...] = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0
    max_bet: int = 0
    raise_cap: int | None = 3
    uncapped_heads_up: bool = False

    def __post_init__(self) -> None:
        antes = self.antes
        amounts = (*self.blinds, *(antes if antes.__class__ is tuple else (antes,)),
                   self.bring_in, self.small_bet, self.big_bet, self.min_bet, self.max_bet)
        if not (set(map(type, amounts)) <= _INT_ONLY and min(amounts) >= 0):   # else each looked at
            for a in amounts:
                if not isinstance(a, int) or a < 0:
                    raise IllegalAction(f"stakes must be non-negative integers: {self}")
        if self.structure is _FIXED_LIMIT and (self.small_bet <= 0 or self.big_bet <= 0):
            raise IllegalAction("fixed limit needs a small bet and a big bet")
        if self.structure is _SPREAD_LIMIT and not 0 < self.minimum_bet <= self.max_bet:
            raise IllegalAction("spread limit needs 0 < min_bet <= max_bet")
        if self.raise_cap is not None and self.raise_cap < 0:
            raise IllegalAction("raise_cap must be >= 0 or None")

    # ---- named constructors -------------------------------------------------------------
    @classmethod
    def no_limit(cls, small_blind: int, big_blind: int, ante: int | Sequence[int] = 0,
                 straddles: Sequence[int] = ()) -> Stakes:
        return cls(Structure.NO_LIMIT, (small_blind, big_blind, *straddles), _antes(ante))

    @classmethod
    def pot_limit(cls, small_blind: int, big_blind: int, ante: int | Sequence[int] = 0,
                  straddles: Sequence[int] = ()) -> Stakes:
        return cls(Structure.POT_LIMIT, (small_blind, big_blind, *straddles), _antes(ante))

    @classmethod
    def fixed_limit(cls, small_bet: int, big_bet: int, blinds: Sequence[int] | None = None,
                    ante: int | Sequence[int] = 0, bring_in: int = 0, raise_cap: int | None = 3,
                    uncapped_heads_up: bool = False) -> Stakes:
        """Fixed limit; blinds default to half the small bet and the small bet ($10/$20: 5/10).

        Stud tables give `blinds=()`, an ante and a bring-in.
        """
        if blinds is None:
            blinds = (small_bet // 2, small_bet)
        return cls(Structure.FIXED_LIMIT, tuple(blinds), _antes(ante), bring_in, small_bet, big_bet,
                   raise_cap=raise_cap, uncapped_heads_up=uncapped_heads_up)

    @classmethod
    def spread_limit(cls, min_bet: int, max_bet: int, blinds: Sequence[int] = (),
                     ante: int | Sequence[int] = 0, bring_in: int = 0) -> Stakes:
        return cls(Structure.SPREAD_LIMIT, tuple(blinds), _antes(ante), bring_in,
                   min_bet=min_bet, max_bet=max_bet)

    # ---- derived ------------------------------------------------------------------------
    @property
    def minimum_bet(self) -> int:
        """Smallest opening bet (and smallest raise increment) outside fixed limit."""
        if self.min_bet:
            return self.min_bet
        if self.blinds:
            return max(self.blinds)
        return self.small_bet or self.bring_in or 1

    def ante_for(self, place: int) -> int:
        """The ante of the player at `place` in blind order (0 = first left of the button)."""
        if isinstance(self.antes, int):
            return self.antes
        return self.antes[place] if place < len(self.antes) else 0

    def bet_unit(self, big: bool) -> int:
        """Fixed-limit bet size on a small-bet or big-bet street."""
        return self.big_bet if big else self.small_bet


def _antes(ante: int | Sequence[int]) -> int | tuple[int, ...]:
    return ante if isinstance(ante, int) else tuple(ante)


def pot_limit_max_to(level: int, pot_with_bets: int, own_bet: int) -> int:
    """Largest pot-limit bet or raise, as a total for the street.

    `level` is the bet to call, `pot_with_bets` every chip in the middle including all bets on
    the table, `own_bet` what this player already has in front of him. The call is
    `level - own_bet`; the raise is the pot after that call.
    """
    call = level - own_bet
    return level + pot_with_bets + call
