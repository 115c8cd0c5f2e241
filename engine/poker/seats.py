"""The next hand's seats: the button (dead or moving), the blinds, who is dealt in and who owes missed blinds.

The rules (docs/rules.md, "Poker room"; docs/poker.md, "Seats, blinds and short all-ins"):

- **Dead button** (the default): the big blind moves on to the next player due to play left of the
  last big blind; the small blind goes on the last big blind's seat and the button on the last
  small blind's, as if every seat that played the last hand were still there. A seat that emptied
  leaves a dead small blind (nobody posts it) or a dead button. Nobody skips the big blind or posts
  it twice. A player sitting between the button and the blinds is not dealt in until the button
  has passed him.
- **Moving button** (a setting): the button moves to the next player dealt in, the blinds follow.
- **Missed blinds**: a seated player not dealt in (sitting out) whom the big blind passes owes
  `"both"`; one whose small blind goes by owes `"small"`. A new player owes `"big"`. On coming
  back he posts them (the big blind live, the small blind dead, into the pot) or waits for the big
  blind (`waiting`: not dealt in until the big blind reaches his seat; then he posts it and owes
  nothing). A player whose turn for the big blind comes owes nothing more.

`plan_hand` is pure: seats and positions in, a `HandPlan` out; `Session` applies it.

>>> seats = {1: SeatState(100), 3: SeatState(100), 5: SeatState(100), 7: SeatState(100)}
>>> plan = plan_hand(seats, 9, last_small=3, last_big=5, dead_button=True)
>>> plan.button, plan.small_blind, plan.big_blind, plan.dealt
(3, 5, 7, (1, 3, 5, 7))
>>> del seats[5]                       # the last big blind leaves: a dead small blind
>>> plan = plan_hand(seats, 9, last_small=3, last_big=5, dead_button=True)
>>> plan.button, plan.no_small_blind, plan.big_blind
(3, True, 7)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import IllegalAction
from engine.poker.core import seating
from engine.poker.streets import OWED
from engine.poker.variants import MIN_SEATS

__all__ = ["SeatState", "HandPlan", "plan_hand", "owes_more", "OWED"]


@dataclass(slots=True)
class SeatState:
    """A seated player: chips between hands, sitting out (from the next hand), a name (may be
    empty), the blinds he owes (`owes`: None, `"small"`, `"big"` or `"both"`) and whether he waits
    for the big blind (`waiting`)."""

    stack: int
    sitting_out: bool = False
    name: str = ""
    owes: str | None = None
    waiting: bool = False


@dataclass(frozen=True, slots=True)
class HandPlan:
    """The next hand's seating: `button` (a seat, possibly nobody's: a dead button), the seats
    `dealt` in, `no_small_blind` (a dead small blind), `owed` (seat -> the missed blinds he posts
    besides the blinds in turn), the small and big blind positions (`small_blind` may be a seat not
    dealt in: a dead small blind), and `missed` (seat -> what he owes after this hand passes him)."""

    button: int
    dealt: tuple[int, ...]
    no_small_blind: bool
    owed: tuple[tuple[int, str], ...]
    small_blind: int | None
    big_blind: int | None
    missed: tuple[tuple[int, str], ...]


def owes_more(owes: str | None, missed: str) -> str:
    """What a player owes once he misses `missed` too.

    >>> owes_more(None, "small"), owes_more("small", "big"), owes_more("both", "small")
    ('small', 'both', 'both')
    """
    if owes is None or owes == missed:
        return missed
    return "both"


def _after(seat: int, candidates: list[int]) -> int:
    """The first of `candidates` clockwise after `seat` (strictly)."""
    later = [s for s in candidates if s > seat]
    return later[0] if later else candidates[0]


def _between(first: int, last: int, size: int) -> list[int]:
    """The seat numbers strictly between `first` and `last` going clockwise round a table of `size`."""
    out: list[int] = []
    seat = first % size + 1
    while seat != last and len(out) < size:
        out.append(seat)
        seat = seat % size + 1
    return out


def plan_hand(players: Mapping[int, SeatState], size: int, last_small: int | None, last_big: int | None,
              dead_button: bool = True, blinds: int = 2, last_button: int | None = None,
              first_button: int | None = None) -> HandPlan:
    """The next hand's seating (see the module docstring). `last_small` / `last_big`: the last
    hand's blind positions (None before the first hand: the button then moves as the moving
    button does, from `last_button`, or starts on `first_button`); `blinds`: how many blinds the
    stakes have (fewer than two: no blinds to owe, the button simply moves).

    Raises IllegalAction with fewer than two players to deal in.
    """
    ready = sorted(s for s, p in players.items() if p.stack > 0 and not p.sitting_out and not p.waiting)
    waiting = sorted(s for s, p in players.items() if p.stack > 0 and not p.sitting_out and p.waiting)
    candidates = sorted(ready + waiting)
    if len(candidates) < MIN_SEATS:
        raise IllegalAction(f"a hand needs two players sitting in with chips, {len(candidates)} are")
    if blinds < 2:
        button = _moving_button(candidates, last_button, first_button)
        return HandPlan(button, tuple(candidates), False, (), None, None, ())
    plan = None
    if dead_button and last_big is not None and last_small is not None:
        plan = _dead(players, size, ready, waiting, candidates, last_small, last_big)
    if plan is None:
        plan = _moving(players, ready, waiting, candidates, last_button, first_button)
    return _with_missed(plan, players, size, last_small, last_big)


def _moving_button(candidates: list[int], last_button: int | None, first_button: int | None) -> int:
    if last_button is None:
        return first_button if first_button in candidates else candidates[-1]
    return _after(last_button, candidates)


def _owed(players: Mapping[int, SeatState], dealt: set[int], posting: set[int]) -> tuple[tuple[int, str], ...]:
    return tuple((s, players[s].owes) for s in sorted(dealt - posting)  # type: ignore[misc]
                 if players[s].owes is not None)


def _heads_up(players: Mapping[int, SeatState], dealt: set[int], big: int) -> HandPlan:
    """Two players: the other one has the button and posts the small blind; nobody posts owed blinds."""
    (button,) = dealt - {big}
    return HandPlan(button, tuple(sorted(dealt)), False, (), button, big, ())


def _dead(players: Mapping[int, SeatState], size: int, ready: list[int], waiting: list[int],
          candidates: list[int], last_small: int, last_big: int) -> HandPlan | None:
    """The dead-button seating, or None when it cannot seat two players (the moving button then)."""
    big = _after(last_big, candidates)
    dealt = set(ready) | ({big} & set(waiting))
    if len(dealt) == 2 and big in dealt:
        return _heads_up(players, dealt, big)
    small = last_big
    no_small = small not in dealt
    button = last_small
    first = big if no_small else small
    for seat in _between(button, first, size):   # between the button and the blinds: not dealt in yet
        dealt.discard(seat)
    if len(dealt) < 2 or big not in dealt:
        return None
    if len(dealt) == 2:
        return _heads_up(players, dealt, big)
    if button == big:          # the big blind has come round to the button's seat: no dead button here
        return None
    posting = {big} if no_small else {small, big}
    return HandPlan(button, tuple(sorted(dealt)), no_small, _owed(players, dealt, posting), small, big, ())


def _moving(players: Mapping[int, SeatState], ready: list[int], waiting: list[int], candidates: list[int],
            last_button: int | None, first_button: int | None) -> HandPlan:
    """The moving button: the next player dealt in has it; a player waiting for the big blind is
    dealt in only when it is his."""
    button = _moving_button(candidates, last_button, first_button)
    _, _, order, _ = seating(dict.fromkeys(candidates, 1), button)
    big = order[1]
    dealt = set(ready) | ({big} & set(waiting))
    if len(dealt) < 2:
        raise IllegalAction(f"a hand needs two players sitting in with chips, {len(dealt)} are")
    _, _, order, _ = seating(dict.fromkeys(dealt, 1), button)
    small, big = order[0], order[1]
    if len(dealt) == 2:
        return HandPlan(button if button in dealt else order[0], tuple(sorted(dealt)), False, (), small, big, ())
    return HandPlan(button, tuple(sorted(dealt)), False, _owed(players, dealt, {small, big}), small, big, ())


def _with_missed(plan: HandPlan, players: Mapping[int, SeatState], size: int, last_small: int | None,
                 last_big: int | None) -> HandPlan:
    """The plan with the blinds it makes seated players miss: the big blind passing a player not
    dealt in (he owes both), the small blind falling on one (he owes the small blind)."""
    if last_big is None or plan.big_blind is None or plan.big_blind == last_big:
        return plan
    missed: dict[int, str] = {}
    dealt = set(plan.dealt)
    for seat in _between(last_big, plan.big_blind, size):
        if seat in players and seat not in dealt and not players[seat].waiting:
            missed[seat] = owes_more(players[seat].owes, "both")
    small = plan.small_blind
    if small is not None and small in players and small not in dealt and small not in missed:
        missed[small] = owes_more(players[small].owes, "small")
    return HandPlan(plan.button, plan.dealt, plan.no_small_blind, plan.owed, plan.small_blind, plan.big_blind,
                    tuple(sorted(missed.items())))
