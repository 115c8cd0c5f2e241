"""The value types of a poker hand shared by the engine and its views: phases, card slots, raise ranges, settings, card input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, Union

from engine.cards import DECK, Card
from engine.errors import IllegalAction
from engine.frozen import quick_init, quick_new
from engine.poker.variants import Structure

__all__ = ["quick_init", "quick_new", "Phase", "CardSlot", "RaiseRange", "Rake", "HandSettings", "SHORT_ALLIN_RULES", "TABLE_RULES", "table_rules", "CardInput", "card_of", "card_slot"]

CardInput = Union[Card, str, None]
Bounds = tuple[str, int, int, Union[tuple[int, ...], None]]   # a RaiseRange's fields


class Phase(Enum):
    """What the hand waits for."""

    DEALING = "dealing"      # a card from the shoe (see expected_card)
    DRAWING = "drawing"      # a player's discards, or a replacement card
    BRING_IN = "bring_in"    # the stud bring-in: post it or complete
    BETTING = "betting"      # the actor's betting action
    SHOWDOWN = "showdown"    # the actor shows or mucks
    OVER = "over"            # settled; see result


# enum members as module constants: a global is read faster than a member of an Enum class
DEALING = Phase.DEALING
DRAWING = Phase.DRAWING
BRING_IN = Phase.BRING_IN
BETTING = Phase.BETTING
SHOWDOWN = Phase.SHOWDOWN
OVER = Phase.OVER
FIXED_LIMIT = Structure.FIXED_LIMIT
SPREAD_LIMIT = Structure.SPREAD_LIMIT
POT_LIMIT = Structure.POT_LIMIT
NO_LIMIT = Structure.NO_LIMIT


@dataclass(frozen=True, slots=True)
class Rake:
    """House rake: `rate_bp` basis points (500 = 5 %) of the pot, at most `cap`, rounded down.

    `no_flop_no_drop`: no rake when the hand ends on its first street.
    """

    rate_bp: int
    cap: int
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.rate_bp <= 10000 or self.cap < 0:
            raise IllegalAction(f"rake rate must be 0..10000 basis points and cap >= 0: {self}")


@dataclass(frozen=True, slots=True)
class HandSettings:
    """Table settings of a hand. `burns`: burn cards at all (off for hand histories, which do
    not record burns); `burn_before_hole`: burn before the first street's cards (003; default on).

    Short all-ins (docs/rules.md, "Poker room"): `short_allin_rule` `"tda"` (default: in no limit
    and pot limit, several all-ins short of a full raise that together make a full raise over the
    bet a player faced reopen the betting to him) or `"simple"` (a short all-in never reopens it:
    pokerkit's reading, kept for the PHH replay); `fixed_limit_half_bet_reopens` (default on): in
    fixed limit an all-in of at least half a bet counts as a full raise, less is a call.
    `all_in_reveal` (tournament tables; default off): once a player is all in and no more betting
    is possible, every hand still in is turned face up (`Hand.revealed`)."""

    burns: bool = True
    burn_before_hole: bool = True
    rake: Rake | None = None
    short_allin_rule: str = "tda"
    fixed_limit_half_bet_reopens: bool = True
    all_in_reveal: bool = False

    def __post_init__(self) -> None:
        if self.short_allin_rule not in SHORT_ALLIN_RULES:
            raise IllegalAction(f"short_allin_rule must be one of {', '.join(SHORT_ALLIN_RULES)}, "
                                f"not {self.short_allin_rule!r}")


SHORT_ALLIN_RULES: tuple[str, ...] = ("tda", "simple")
"""How all-ins short of a full raise reopen the betting (see HandSettings)."""

TABLE_RULES: Mapping[str, tuple[Any, ...]] = MappingProxyType({
    "button": ("dead", "moving"),
    "short_allin_rule": SHORT_ALLIN_RULES,
    "fixed_limit_half_bet_reopens": (True, False),
    "all_in_reveal": (False, True),
})
"""A poker table's room rules and their values, the default first (docs/poker.md, "Seats, blinds and
short all-ins"): the dead or moving `button`, the short all-in rules of `HandSettings`, and the
tournament's all-in showdown."""


def table_rules(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Every rule of `TABLE_RULES`, from `raw` or its default.

    >>> table_rules({"button": "moving"})["button"], table_rules({})["short_allin_rule"]
    ('moving', 'tda')

    Raises IllegalAction naming an unknown rule or a value the rule does not take.
    """
    unknown = sorted(set(raw) - set(TABLE_RULES))
    if unknown:
        raise IllegalAction(f"unknown rule(s) {', '.join(unknown)} (known: {', '.join(TABLE_RULES)})")
    out: dict[str, Any] = {}
    for name, values in TABLE_RULES.items():
        value = raw.get(name, values[0])
        if not any(type(value) is type(v) and value == v for v in values):
            raise IllegalAction(f"rule {name}: one of {', '.join(str(v).lower() for v in values)}, not {value!r}")
        out[name] = value
    return out


@dataclass(frozen=True, slots=True)
class CardSlot:
    """The card the shoe should give next: `kind` is `burn`, `hole`, `board` or `draw`
    (a replacement); `seat` receives it (None for burn and board); `up` when dealt face up."""

    kind: str
    seat: int | None
    up: bool
    street: str


@dataclass(frozen=True, slots=True)
class RaiseRange:
    """Legal bet or raise totals for the street: any amount from `min_to` to `max_to`, or,
    when `choices` is set (fixed limit), only those. `kind` is `bet`, `raise` or `complete`."""

    kind: str
    min_to: int
    max_to: int
    choices: tuple[int, ...] | None = None

    def allows(self, to: int) -> bool:
        if self.choices is not None:
            return to in self.choices
        return self.min_to <= to <= self.max_to


# the 52 cards and `??` by their text: a constant table
BY_TEXT: dict[str, Card | None] = {str(c): c for c in DECK}
BY_TEXT["??"] = None
LIVE, DEAD = 1, 2   # card states, by card index


def card_of(card: CardInput) -> Card | None:
    """A card from a Card, its text, or None / `??` (unknown). Raises CardError for bad text."""
    if card is None or card.__class__ is Card:
        return card
    if isinstance(card, str) and card in BY_TEXT:
        return BY_TEXT[card]
    if isinstance(card, Card):
        return card
    return Card.parse(card)


_SLOTS: dict[tuple[str, int | None, bool, str], CardSlot] = {}


def card_slot(kind: str, seat: int | None, up: bool, street: str) -> CardSlot:
    """Card slots are values: one shared instance each."""
    key = (kind, seat, up, street)
    slot = _SLOTS.get(key)
    if slot is None:
        if len(_SLOTS) >= 4096:
            _SLOTS.clear()
        slot = _SLOTS[key] = CardSlot(kind, seat, up, street)
    return slot
