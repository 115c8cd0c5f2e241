"""Which dealer steps the table allows now: the public state's `steps`, decided here once for every screen.

The dealer console shows a button for each step that is true and derives no rule itself:

- `bet`: bets may be taken (the betting of the hand in progress, or the next hand's first bet while
  the last one is on show after its payouts); never while a fault stands or the pit holds the table.
- `deal`: the betting may be closed (house: the bets allow a deal, or at a smart table the readers would take
  bets from the circles, the last hand settled or not; poker: the next hand may be dealt).
- `confirm`: the hand is over: the dealer pays (pushes the pots) and confirms.
- `void`: a hand is in progress that a supervisor may void (not while a fault locks the table).
- `correct`: a seat's last decision may still be corrected (no card dealt since; house games); the
  state's `corrections` (`corrections_of`) says which seats and what each may be corrected to.
- `chop`: the players still in a poker hand (two or more) may agree to share the pot (signed off).
- `between_hands`: no hand is in progress (the last one closed, or nothing bet or dealt yet).
- `board`: the game deals community cards (UTH, Hold'em, Omaha), so a screen shows a board row.
"""

from __future__ import annotations

from typing import Any

from firmware_host.tables.base import Fault, GameTable
from firmware_host.tables.hold import next_to_begin
from firmware_host.tables.house.table import HouseTable
from firmware_host.tables.poker.table import PokerTable

STEPS = ("bet", "deal", "confirm", "void", "correct", "chop", "between_hands", "board")
"""The keys of `steps`, every one a bool."""

NONE = dict.fromkeys(STEPS, False)


def steps_of(table: GameTable | None, fault: Fault | None, hold: dict[str, Any] | None, hand: int,
             face_up: bool = False, chips_read: bool = False) -> dict[str, bool]:
    """The steps the table allows now (`face_up`: a chip race or button draw is being dealt: no deal; `chips_read`:
    a smart table whose readers take the bets at Deal sees chips in a circle, so Deal reads them, even after a
    settled hand, when no bet was typed for the next one)."""
    if table is None:
        return dict(NONE)
    standing = fault is None
    held = _held(table, hold, hand)
    over = table.closed is not None
    between = over or not table.started
    out = {"confirm": standing and table.confirmable,
           "void": not over and table.started and not (fault is not None and fault.kind.critical),
           "between_hands": between}
    if isinstance(table, HouseTable):
        betting = not over and table.phase == "bets"
        out["bet"] = standing and not held and (over or betting)
        out["chop"] = False
        out["deal"] = _house_deal(table, standing and not held, chips_read)
        out["correct"] = _correct(table, standing)
        out["board"] = table.setup.game == "uth"
    elif isinstance(table, PokerTable):
        out["bet"] = out["correct"] = False
        out["deal"] = standing and not held and not face_up and table.between_hands
        dealt = table.engine
        out["chop"] = (standing and not over and dealt is not None and not table.over
                       and sum(1 for s in dealt.order if dealt.in_hand(s)) >= 2)
        out["board"] = bool(table.setup.variant.uses_board)
    else:
        out.update(bet=False, deal=False, correct=False, chop=False, board=False)
    return {key: bool(out[key]) for key in STEPS}


def card_steps(last: dict[str, bool], table: HouseTable) -> dict[str, bool]:
    """The steps after a card dealt cleanly at a house table (`tables/views.py` `card_views`: the one event since
    the view whose steps are `last`, no fault, the table not closed, not the hand's first card, the round still in
    the phase it was or moved to another short of the showdown): `last` (the very map while equal) with `correct` made
    again by `steps_of`'s own rule, the one step a card changes (a decision is no longer corrected once a card follows
    it). Every other step reads only what such a card leaves as it was (the fault, the hold, the hand, the bets, and
    of the phase only whether it is the betting or the showdown; `bet` and `deal` are false mid-hand whatever a chip
    reader or a face-up step says). Tests hold them to `steps_of` made anew at every view
    (tests/firmware_host/conftest.py)."""
    correct = _correct(table, True)
    return last if last["correct"] == correct else {**last, "correct": correct}


def chip_steps(last: dict[str, bool], table: HouseTable, fault: Fault | None, hold: dict[str, Any] | None, hand: int,
               chips_read: bool) -> dict[str, bool]:
    """The steps after a chip scan that raised no fault at a house table (`tables/views.py` `chip_views`: the one event
    since the view whose steps are `last`): `last` (the very map while equal) with `deal` made again by `steps_of`'s
    own rule, the one step a scan changes (the readers would take bets, or no longer: `chips_read`). Every other step
    reads only what a scan leaves as it was (the table, its hand, the fault, the hold). Tests hold them to `steps_of`
    made anew at every view (tests/firmware_host/conftest.py)."""
    deal = _house_deal(table, fault is None and not _held(table, hold, hand), chips_read)
    return last if last["deal"] == deal else {**last, "deal": deal}


def _held(table: GameTable, hold: dict[str, Any] | None, hand: int) -> bool:
    """The pit holds the table from the next hand to begin (`hold.py`)."""
    return hold is not None and next_to_begin(table, hand) == hand and hand >= int(hold["from_hand"])


def _house_deal(table: HouseTable, free: bool, chips_read: bool) -> bool:
    """`deal` at a house table (`free`: no fault standing, not held): the bets allow a deal, or the readers would take
    bets from the circles (`chips_read`) in the betting or after a closed hand."""
    if not free:
        return False
    over = table.closed is not None
    betting = not over and table.phase == "bets"
    return (chips_read and (over or betting)) or (betting and table.round.can_close_bets())


def _correct(table: HouseTable, standing: bool) -> bool:
    """`correct`: a seat's last decision may still be corrected (no fault standing, the hand not closed)."""
    return standing and table.closed is None and bool(table.round.correctable_seats())


def corrections_of(table: GameTable | None, steps: dict[str, bool]) -> list[dict[str, Any]]:
    """What "Correct the last decision" may put in place of each seat's decision that can still be corrected
    (house games, while `steps.correct`): `[{"seat": 2, "was": {"decision": "play", "multiple": 2},
    "choices": [{"decision": "check"}, ...]}]`: the decisions open when the seat took it (recorded then), less the
    one taken; the engine is asked (`can_correct`, a replay) only where a Play's multiple was left to it."""
    if not steps["correct"] or not isinstance(table, HouseTable):
        return []
    round_ = table.round
    out = []
    for seat in round_.correctable_seats():
        was = round_.last_decision(seat)
        if was is None or was.get("do") != "decide":
            continue
        taken = {"decision": was["action"], **({"multiple": was["multiple"]} if "multiple" in was else {})}
        choices = [c for c in table.offered.get(seat, []) if c != taken and (
            c["decision"] != taken["decision"] or "multiple" in taken
            or round_.can_correct(seat, c["decision"], c.get("multiple")))]
        if choices:
            out.append({"seat": seat, "was": taken, "choices": choices})
    return out
