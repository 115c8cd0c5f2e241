"""Tournaments across tables: the tournament file, entries and places, the clock, seating, the chip race.

Pure: no clock, no randomness. Time comes in as `now` (the caller's seconds), random draws as a
`Draw` the caller owns (`random.Random(seed)`), cards as the cards the shoe dealt.

- `config`: the tournament file (`parse_tournament`), its levels and breaks, payout table, chip set.
- `places`: `Registration` (entries, late registration, re-entries), `Standings` (eliminations, the
  places and prizes), `prizes` and `split` to the cent, `HandForHand` rounds at the bubble.
- `clock`: `Clock` (levels by the time played; pause, resume, adjust), `TableLevel` (a hand keeps
  the level it began with).
- `seating`: `draw_seats`, `button_by_high_card`, `break_table`, `balance` (the player due the big
  blind to the worst seat), `worst_seat`.
- `chip_race`: `chip_race` (colour-up and the race, its record), `colour_up_due`.
"""

from engine.tournament.chip_race import ChipRace, chip_race, colour_up_due
from engine.tournament.clock import Clock, ClockReading, TableLevel
from engine.tournament.config import (
    DEFAULT_PAYOUTS, BlindLevel, Break, PayoutRow, Stage, TournamentFile, parse_tournament,
)
from engine.tournament.places import (
    Entry, Finish, HandForHand, Registration, Standings, at_the_bubble, group_places, prizes, split,
)
from engine.tournament.seating import (
    Draw, Layout, Move, apply_moves, balance, break_table, button_by_high_card, draw_seats, next_big_blind,
    tables_needed, worst_seat,
)

__all__ = [
    "ChipRace", "chip_race", "colour_up_due", "Clock", "ClockReading", "TableLevel", "DEFAULT_PAYOUTS",
    "BlindLevel", "Break", "PayoutRow", "Stage", "TournamentFile", "parse_tournament", "Entry", "Finish",
    "HandForHand", "Registration", "Standings", "at_the_bubble", "group_places", "prizes", "split", "Draw",
    "Layout", "Move", "apply_moves", "balance", "break_table", "button_by_high_card", "draw_seats",
    "next_big_blind", "tables_needed", "worst_seat",
]
