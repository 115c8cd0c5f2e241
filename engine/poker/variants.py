"""Poker games declared as data: streets, hole and board cards, draws, evaluators, who brings in.

A `Variant` is a table of `Street`s walked by one state machine (`engine.poker.state.Hand`);
adding a game is adding a declaration to `VARIANTS`, never new control flow.

Each street is played in this order: burn (when `burn` and the table burns), the hole cards
(`hole`: one entry per round of dealing, each round one card to every player still in the hand,
`True` face up), the board cards (`board`), the draw (`draw`: each player in turn from the
button's left discards and is dealt replacements), then a betting round.

Evaluators are named after the functions of `engine.evaluate`: the first names the high half
(or the only half), a second one the low half of a hi-lo split (`None` from it: no qualifying low).

>>> VARIANTS["holdem"].hole_count, VARIANTS["holdem"].board_count
(2, 5)
>>> [s.name for s in VARIANTS["stud"].streets]
['third', 'fourth', 'fifth', 'sixth', 'seventh']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.cards import Card

__all__ = [
    "Street", "Variant", "VARIANTS", "Structure", "EVALUATOR_SIGNATURES", "ACTIONS", "MIN_SEATS", "MAX_SEATS",
    "showing_high_key", "showing_low_key", "bring_in_key",
]

MIN_SEATS = 2
"""The fewest seats a poker table has (and the fewest players a hand deals)."""
MAX_SEATS = 10
"""The most seats a poker table has; a variant deals at most its `max_players` of them."""

ACTIONS: tuple[str, ...] = ("fold", "check", "call", "bet", "raise", "complete", "all_in", "bring_in", "draw",
                            "stand_pat", "show", "muck")
"""A player's actions in a hand, in the dealer's words: `bet`, `raise` and `complete` name the street
total ("raise to 45"); `all_in` is whichever of call, bring-in, bet or raise the stacks make it;
`draw` names the discards, `stand_pat` draws none; `show` and `muck` at the showdown."""


class Structure(Enum):
    """Betting structure of a table."""

    FIXED_LIMIT = "fixed-limit"
    SPREAD_LIMIT = "spread-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


@dataclass(frozen=True, slots=True)
class Street:
    """One street: cards dealt, an optional draw, then a betting round.

    `hole`: one entry per dealing round, `True` when that card is dealt face up (stud).
    `big_bet`: fixed and spread limit bet the big bet on this street.
    `burn`: a card is burnt before this street's cards (the first street's burn also depends on
    the table setting `burn_before_hole`; a draw street burns before its first replacement).
    """

    name: str
    hole: tuple[bool, ...] = ()
    board: int = 0
    draw: bool = False
    big_bet: bool = False
    burn: bool = True


# evaluator name -> True when it takes (hole, board) separately (Omaha), False for (cards)
EVALUATOR_SIGNATURES: dict[str, bool] = {
    "high": False,
    "omaha_high": True,
    "low8": False,
    "omaha_low8": True,
    "ace_five_low": False,
    "deuce_seven_low": False,
    "badugi": False,
}


@dataclass(frozen=True, slots=True)
class Variant:
    """A poker game as data.

    `evaluators`: `engine.evaluate` function names, high half first (see EVALUATOR_SIGNATURES).
    `bring_in`: `None` (blinds and antes only), `"lowest_up"` (stud: lowest upcard, ace high,
    clubs lowest) or `"highest_up"` (razz: highest upcard, king high, ace low, spades highest).
    `first_to_act`: after the first street, `"button"` (first active left of the button),
    `"showing_high"` (best high hand showing) or `"showing_low"` (best low hand showing).
    `open_pair_street`: the street index where an open pair may bet the big bet (stud 4th).
    """

    code: str
    title: str
    streets: tuple[Street, ...]
    evaluators: tuple[str, ...]
    bring_in: str | None = None
    first_to_act: str = "button"
    open_pair_street: int | None = None
    max_players: int = MAX_SEATS

    @property
    def hole_count(self) -> int:
        """Cards each player holds after the deal (draws replace, never add)."""
        return sum(len(s.hole) for s in self.streets)

    @property
    def board_count(self) -> int:
        return sum(s.board for s in self.streets)

    @property
    def hi_lo(self) -> bool:
        return len(self.evaluators) > 1

    @property
    def uses_board(self) -> bool:
        return self.board_count > 0


def _flop_game(code: str, title: str, hole: int, evaluators: tuple[str, ...]) -> Variant:
    return Variant(
        code=code,
        title=title,
        streets=(
            Street("preflop", hole=(False,) * hole),
            Street("flop", board=3),
            Street("turn", board=1, big_bet=True),
            Street("river", board=1, big_bet=True),
        ),
        evaluators=evaluators,
        max_players=MAX_SEATS,
    )


def _stud_game(code: str, title: str, evaluators: tuple[str, ...], bring_in: str, first: str,
               open_pair: int | None) -> Variant:
    return Variant(
        code=code,
        title=title,
        streets=(
            Street("third", hole=(False, False, True)),
            Street("fourth", hole=(True,)),
            Street("fifth", hole=(True,), big_bet=True),
            Street("sixth", hole=(True,), big_bet=True),
            Street("seventh", hole=(False,), big_bet=True),
        ),
        evaluators=evaluators,
        bring_in=bring_in,
        first_to_act=first,
        open_pair_street=open_pair,
        max_players=8,
    )


def _draw_game(code: str, title: str, hole: int, draws: int, evaluator: str) -> Variant:
    streets = [Street("predraw", hole=(False,) * hole)]
    names = ("first draw", "second draw", "third draw")
    for i in range(draws):
        # single draw: the small bet before, the big bet after; triple draw: small, small, big, big
        big = True if draws == 1 else i >= 1
        streets.append(Street(names[i] if draws > 1 else "draw", draw=True, big_bet=big))
    return Variant(code=code, title=title, streets=tuple(streets), evaluators=(evaluator,),
                   max_players=6 if draws > 1 else 8)


VARIANTS: dict[str, Variant] = {
    v.code: v
    for v in (
        _flop_game("holdem", "Texas Hold'em", 2, ("high",)),
        _flop_game("omaha", "Omaha", 4, ("omaha_high",)),
        _flop_game("omaha_hilo8", "Omaha Hi-Lo 8-or-better", 4, ("omaha_high", "omaha_low8")),
        _stud_game("stud", "7-card Stud", ("high",), "lowest_up", "showing_high", 1),
        _stud_game("stud_hilo8", "7-card Stud Hi-Lo 8-or-better", ("high", "low8"), "lowest_up",
                   "showing_high", None),
        _stud_game("razz", "Razz", ("ace_five_low",), "highest_up", "showing_low", None),
        _draw_game("five_card_draw", "5-card draw", 5, 1, "high"),
        _draw_game("deuce_seven_single", "2-7 single draw", 5, 1, "deuce_seven_low"),
        _draw_game("deuce_seven_triple", "2-7 triple draw", 5, 3, "deuce_seven_low"),
        _draw_game("badugi", "Badugi", 4, 3, "badugi"),
    )
}


def bring_in_key(card: Card, rule: str) -> tuple[int, int]:
    """Sort key: the smallest key brings in.

    `lowest_up`: lowest rank (ace high), clubs lowest. `highest_up` (razz): highest rank with
    king high and ace low; between equal ranks the higher suit (spades) is the higher card.
    """
    if rule == "lowest_up":
        return (card.rank, card.suit)
    if rule == "highest_up":
        rank = 1 if card.rank == 14 else card.rank
        return (-rank, -card.suit)
    raise ValueError(f"unknown bring-in rule: {rule!r}")


def _groups(ranks: list[int]) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return sorted(((n, r) for r, n in counts.items()), reverse=True)


def showing_high_key(cards: list[Card]) -> tuple[int, ...]:
    """Strength of the up cards for who acts first in stud (greater is better).

    Quads > trips (and full house) > two pair > pair > high cards; straights and flushes of the
    partial hand do not count; ranks compared from the most frequent, then highest.
    """
    groups = _groups([c.rank for c in cards])
    shape = tuple(n for n, _ in groups)
    order = [(4,), (3, 2), (3,), (2, 2), (2,)]
    klass = 0
    for i, prefix in enumerate(order):
        if shape[:len(prefix)] == prefix:
            klass = len(order) - i
            break
    return (klass,) + tuple(r for _, r in groups)


def showing_low_key(cards: list[Card]) -> tuple[int, ...]:
    """Strength of the up cards for who acts first in razz (greater is better: the lowest hand).

    A-5 low: ace low, pairs count against, compared from the highest card down.
    """
    ranks = [1 if c.rank == 14 else c.rank for c in cards]
    groups = _groups(ranks)
    # fewer repeats is better; then the lower ranks from the top (highest group first)
    shape = tuple(n for n, _ in groups)
    distinct = sorted({r for r in ranks}, reverse=True)
    paired = sorted((r for n, r in groups if n > 1), reverse=True)
    return (-sum(n - 1 for n in shape),) + tuple(-r for r in paired) + tuple(-r for r in distinct)
