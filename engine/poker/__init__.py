"""Poker dealer assist: games as data, betting structures, pots, the hand state machine, sessions.

Modules: `variants` (games as data), `betting` (stakes), `pots`, `values` (phases, card slots,
raise ranges, settings, the room's rules), `records` (what happened, frozen), the hand in floors
(`core` its state, `showdown` its end, `streets` its flow, `state` the table's actions: `Hand`),
`view` (the dealer view), `seats` (the next hand's button and blinds: dead or moving button,
missed blinds), `session`.

Public API (see each module's docstring):
- `VARIANTS` (code -> Variant): holdem, omaha, omaha_hilo8, stud, stud_hilo8, razz,
  five_card_draw, deuce_seven_single, deuce_seven_triple, badugi.
- `Stakes` (`Stakes.no_limit(1, 2)`, `.pot_limit`, `.fixed_limit(10, 20)`, `.spread_limit`).
- `Hand(variant, stakes, stacks, button=None, settings=HandSettings())`: deal / act / show;
  `hand.view()` the dealer view; `hand.result` once over.
- `Session`: seats (the table's numbers, 1..seats), button, sitting in and out, buy-ins, rake,
  tournament levels; `to_dict` / `restore` for a journal. `SEAT_ACTIONS` its dealer's words.
- The names tables speak (`ACTIONS`, `MIN_SEATS`, `MAX_SEATS`, ...) are gathered in `engine.games`.
"""

from engine.poker.betting import Stakes, pot_limit_max_to
from engine.poker.pots import Pot, build_pots, split, split_hi_lo
from engine.poker.session import SEAT_ACTIONS, Finish, Level, Schedule, SeatState, Session
from engine.poker.records import (
    Awarded, BetOrRaised, BroughtIn, Called, Checked, Chopped, Dealt, Drew, Folded, HandResult, Mucked,
    Posted, PotResult, Raked, Record, Returned, Shown,
)
from engine.poker.state import Hand, dealer_view
from engine.poker.values import CardSlot, HandSettings, Phase, RaiseRange, Rake
from engine.poker.variants import ACTIONS, MAX_SEATS, MIN_SEATS, VARIANTS, Street, Structure, Variant
from engine.poker.view import DealerView, LegalActions, SeatView

__all__ = [
    "VARIANTS", "Variant", "Street", "Structure", "ACTIONS", "MIN_SEATS", "MAX_SEATS", "Stakes", "pot_limit_max_to", "Pot", "build_pots",
    "split", "split_hi_lo", "Hand", "HandSettings", "HandResult", "PotResult", "Rake", "Phase",
    "CardSlot", "RaiseRange", "Record", "Posted", "Dealt", "Folded", "Checked", "Called",
    "BroughtIn", "BetOrRaised", "Drew", "Returned", "Shown", "Mucked", "Chopped", "Raked", "Awarded",
    "DealerView", "LegalActions", "SeatView", "dealer_view",
    "Session", "SeatState", "Level", "Schedule", "Finish", "SEAT_ACTIONS",
]
