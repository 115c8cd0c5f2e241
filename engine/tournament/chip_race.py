"""Colour-up and the chip race (000): the smallest chip changed up, its odd chips raced by cards.

When the levels no longer need the smallest denomination, each player's chips of it are changed
for the next denomination; the odd chips left (fewer than make one higher chip) are raced. From
seat 1 (left of the dealer) clockwise, each player is dealt one card face up per odd chip. The
odd chips' total value gives one higher chip per whole chip value, plus one more when the rest is
half a chip value or more (less is removed); they go one per player to the highest cards first
(a player's best card stands for him; suits break ties). Nobody is raced out of the tournament: a
player whose only chips were odd chips and who wins none gets one higher chip all the same.
The record says how much the table's chip total changed.

000's example: eight $25 chips left after the colour-up to $100 chips make $200, two $100 chips:

>>> race = chip_race({1: 125, 2: 575, 3: 1050, 4: 2050}, 25, 100,
...                  ["4c", "Kd", "2s", "9h", "Ah", "Qs", "3d", "Kh"])
>>> race.odd_chips, race.odd_value, race.chips_won
({1: 1, 2: 3, 3: 2, 4: 2}, 200, 2)
>>> race.winners, race.stacks, race.change          # Ah, then Kh over Kd (hearts over diamonds)
((3, 4), {1: 100, 2: 500, 3: 1100, 4: 2100}, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.errors import TournamentError
from engine.tournament.config import BlindLevel, Stage

__all__ = ["ChipRace", "chip_race", "colour_up_due"]


@dataclass(frozen=True, slots=True)
class ChipRace:
    """What a chip race did at one table: each seat's odd chips and cards, the odd chips' value, how
    many higher chips it made, who won them (seats, highest card first), the seats given one so as
    not to be raced out, the stacks after, and the change in the table's chip total."""

    colour: int
    into: int
    odd_chips: dict[int, int]
    cards: dict[int, tuple[Card, ...]]
    odd_value: int
    chips_won: int
    winners: tuple[int, ...]
    kept_in: tuple[int, ...]
    stacks: dict[int, int]
    change: int


def chip_race(stacks: Mapping[int, int], colour: int, into: int, cards: Sequence[Card | str]) -> ChipRace:
    """Colour up chips of `colour` into chips of `into` at one table (`stacks`: seat -> chips), the
    odd chips raced with `cards` dealt in order, one per odd chip, from the lowest seat clockwise.

    Raises TournamentError when `into` is not a multiple of `colour`, a stack is not made of these
    chips, too few cards are given, or a card is dealt twice; CardError for bad card text.
    """
    if colour <= 0 or into <= colour or into % colour:
        raise TournamentError(f"chips of {colour} are coloured up into a whole multiple of them, not {into}")
    for seat, stack in stacks.items():
        if stack < 0 or stack % colour:
            raise TournamentError(f"seat {seat}: {stack} is not made of chips of {colour} and up")
    odd = {seat: (stack % into) // colour for seat, stack in sorted(stacks.items()) if stack % into}
    needed = sum(odd.values())
    parsed = [c if isinstance(c, Card) else Card.parse(c) for c in cards]
    if len(parsed) < needed:
        raise TournamentError(f"the race needs {needed} cards, one per odd chip; {len(parsed)} given")
    if len(set(parsed[:needed])) != needed:
        raise TournamentError("a card was dealt twice in the race")
    dealt: dict[int, tuple[Card, ...]] = {}
    at = 0
    for seat, count in odd.items():
        dealt[seat] = tuple(parsed[at:at + count])
        at += count
    value = needed * colour
    won = value // into + (1 if 2 * (value % into) >= into else 0)
    ranked = sorted(dealt, key=lambda seat: max(dealt[seat]), reverse=True)
    winners = tuple(ranked[:won])
    after = {seat: stack - stack % into for seat, stack in stacks.items()}
    for seat in winners:
        after[seat] += into
    kept_in = tuple(s for s in odd if after[s] == 0 and stacks[s] > 0)
    for seat in kept_in:
        after[seat] = into
    return ChipRace(colour, into, odd, dealt, value, won, winners, kept_in, after,
                    sum(after.values()) - sum(stacks.values()))


def colour_up_due(stages: Sequence[Stage], stage: int, chips: Sequence[int]) -> int | None:
    """The denomination to colour up at `stage` (a break): the smallest chip in play when no level
    after the break needs it, i.e. every later blind and ante is a multiple of the next chip; None
    when none is due. `chips`: the chips still in play, smallest first."""
    if len(chips) < 2:
        return None
    later = [s for s in stages[stage + 1:] if isinstance(s, BlindLevel)]
    if later and all(a % chips[1] == 0 for s in later for a in (s.small_blind, s.big_blind, s.ante)):
        return chips[0]
    return None
