"""A session of poker hands at one table: seats, stacks, the button, buy-ins, rake and levels.

Sitting in and out, buy-ins and rebuys between hands, rake, and tournament blind and ante levels.

>>> from engine.poker import VARIANTS, Stakes
>>> table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6)
>>> table.sit(0, "Ann", 200); table.sit(3, "Bob", 200); table.sit(4, "Cy", 150)
>>> hand = table.start_hand()
>>> hand.button, hand.blind_order
(4, (0, 3, 4))

Between hands only (RULES.md, table stakes): `sit`, `leave`, `buy_in` (rebuy / add-on),
`sit_out`, `sit_in`. `start_hand(elapsed_s=...)` deals everyone seated, sitting in and with
chips; `end_hand()` takes the settled hand's stacks back, moves the button one seat clockwise
and, in a tournament, records who finished where. A level of the schedule takes effect at the
next hand (the clock comes in as `elapsed_s`; the engine reads no clock).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalAction
from engine.poker.betting import Stakes
from engine.poker.state import Hand, HandSettings
from engine.poker.variants import MAX_SEATS, MIN_SEATS, Variant

__all__ = ["Level", "Schedule", "Session", "SeatState", "Finish", "SEAT_ACTIONS"]

SEAT_ACTIONS: tuple[str, ...] = ("join", "rebuy", "leave", "sit_out", "sit_in")
"""What a seat does between hands (`join` with a buy-in, `rebuy`, `leave`) or at any time, taking
effect at the next hand (`sit_out`, `sit_in`)."""


@dataclass(frozen=True, slots=True)
class Level:
    """One tournament level: blinds and ante (per player) for `minutes` of play."""

    small_blind: int
    big_blind: int
    ante: int = 0
    minutes: int = 20


@dataclass(frozen=True, slots=True)
class Schedule:
    """Blind and ante levels in order; the last level lasts for ever."""

    levels: tuple[Level, ...]

    def __post_init__(self) -> None:
        if not self.levels:
            raise IllegalAction("a schedule needs at least one level")
        if any(lv.minutes <= 0 for lv in self.levels):
            raise IllegalAction("every level lasts a positive number of minutes")

    def index_at(self, elapsed_s: float) -> int:
        """The level in force `elapsed_s` seconds after the start (0-based)."""
        if elapsed_s < 0:
            raise IllegalAction(f"elapsed time must be >= 0, got {elapsed_s}")
        t = 0.0
        for i, level in enumerate(self.levels):
            t += level.minutes * 60
            if elapsed_s < t:
                return i
        return len(self.levels) - 1


@dataclass(frozen=True, slots=True)
class Finish:
    """A tournament player out: `place` 1 is the winner; same hand, bigger starting stack, better place."""

    seat: int
    name: str
    place: int


@dataclass(slots=True)
class SeatState:
    name: str
    stack: int
    sitting_out: bool = False


class Session:
    """One table's run of hands.

    `stakes` are the cash-game stakes, or the template whose blinds and antes a tournament
    `schedule` replaces level by level. `settings` (burns, rake) apply to every hand.
    `min_buy_in` / `max_buy_in` bound a seat's stack after a buy-in (0: no bound).
    """

    def __init__(self, variant: Variant, stakes: Stakes, seats: int, settings: HandSettings = HandSettings(),
                 schedule: Schedule | None = None, min_buy_in: int = 0, max_buy_in: int = 0) -> None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise IllegalAction(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
        self.variant = variant
        self.stakes = stakes
        self.size = seats
        self.settings = settings
        self.schedule = schedule
        self.min_buy_in = min_buy_in
        self.max_buy_in = max_buy_in
        self.players: dict[int, SeatState] = {}
        self.button: int | None = None
        self.hand: Hand | None = None
        self.level_index = 0
        self.hands_played = 0
        self.rake_total = 0
        self.finishes: list[Finish] = []

    # ---- seats, between hands only ------------------------------------------------------
    def _between_hands(self, what: str) -> None:
        if self.hand is not None:
            raise IllegalAction(f"{what}: between hands only (a hand is in progress)")

    def _seat(self, seat: int) -> SeatState:
        if seat not in self.players:
            raise IllegalAction(f"seat {seat} is empty")
        return self.players[seat]

    def sit(self, seat: int, name: str, stack: int) -> None:
        """Seat a player with a buy-in. Raises IllegalAction for a taken or unknown seat, a bad
        amount, or during a hand."""
        self._between_hands("sitting down")
        if not 0 <= seat < self.size:
            raise IllegalAction(f"no seat {seat} at a {self.size}-seat table")
        if seat in self.players:
            raise IllegalAction(f"seat {seat} is taken by {self.players[seat].name}")
        self._check_buy_in(stack, 0)
        self.players[seat] = SeatState(name, stack)

    def leave(self, seat: int) -> int:
        """The player leaves with his chips (returned)."""
        self._between_hands("leaving")
        self._seat(seat)
        return self.players.pop(seat).stack

    def buy_in(self, seat: int, amount: int) -> None:
        """Rebuy or add-on chips to a seated player, between hands only."""
        self._between_hands("a rebuy or add-on")
        player = self._seat(seat)
        self._check_buy_in(amount, player.stack)
        player.stack += amount

    def _check_buy_in(self, amount: int, current: int) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise IllegalAction(f"a buy-in is a positive integer, got {amount!r}")
        total = current + amount
        if self.min_buy_in and total < self.min_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, below the minimum {self.min_buy_in}")
        if self.max_buy_in and total > self.max_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, above the maximum {self.max_buy_in}")

    def sit_out(self, seat: int) -> None:
        self._between_hands("sitting out")
        self._seat(seat).sitting_out = True

    def sit_in(self, seat: int) -> None:
        self._between_hands("sitting in")
        self._seat(seat).sitting_out = False

    def active_seats(self) -> list[int]:
        """Seats dealt into the next hand: seated, sitting in, with chips."""
        return sorted(s for s, p in self.players.items() if not p.sitting_out and p.stack > 0)

    # ---- hands --------------------------------------------------------------------------
    def stakes_now(self) -> Stakes:
        """The stakes of the next hand (a tournament: the current level's blinds and ante)."""
        if self.schedule is None:
            return self.stakes
        level = self.schedule.levels[self.level_index]
        if self.variant.bring_in is not None:
            return dataclasses.replace(self.stakes, antes=level.ante)
        return dataclasses.replace(self.stakes, blinds=(level.small_blind, level.big_blind), antes=level.ante,
                                   min_bet=0)

    def start_hand(self, elapsed_s: float | None = None) -> Hand:
        """Deal a new hand. `elapsed_s` (tournament): time since the start, choosing the level.

        Raises IllegalAction while a hand is in progress or with fewer than two active players.
        """
        self._between_hands("starting a hand")
        if self.schedule is not None and elapsed_s is not None:
            self.level_index = self.schedule.index_at(elapsed_s)
        active = self.active_seats()
        if len(active) < 2:
            raise IllegalAction(f"a hand needs two active players, {len(active)} seated and in")
        if self.button is None or self.button not in active:
            self.button = self._next_active(self.button, active) if self.button is not None else active[-1]
        stacks = {s: self.players[s].stack for s in active}
        self.hand = Hand(self.variant, self.stakes_now(), stacks, button=self.button, settings=self.settings)
        return self.hand

    def _next_active(self, seat: int, active: Sequence[int]) -> int:
        for k in range(1, self.size + 1):
            s = (seat + k) % self.size
            if s in active:
                return s
        raise IllegalAction("no active seat")

    def end_hand(self) -> list[Finish]:
        """Take the settled hand's final stacks, move the button, record tournament finishes.

        Returns the players finished in this hand (tournament). Raises IllegalAction when no
        hand is in progress or it is not settled yet.
        """
        hand = self.hand
        if hand is None:
            raise IllegalAction("no hand in progress")
        if hand.result is None:
            raise IllegalAction("the hand is not over")
        for seat, stack in hand.result.final_stacks.items():
            self.players[seat].stack = stack
        self.rake_total += hand.result.rake
        self.hands_played += 1
        self.hand = None
        finished: list[Finish] = []
        if self.schedule is not None:
            busted = [s for s in hand.seats if self.players[s].stack == 0]
            remaining = len([s for s, p in self.players.items() if p.stack > 0])
            busted.sort(key=lambda s: -hand.starting_stacks[s])
            for i, seat in enumerate(busted):
                better = [b for b in busted if hand.starting_stacks[b] > hand.starting_stacks[seat]]
                finished.append(Finish(seat, self.players[seat].name, remaining + 1 + len(better)))
            for f in finished:
                del self.players[f.seat]
            self.finishes.extend(finished)
            if len(self.players) == 1:
                (seat, player), = self.players.items()
                winner = Finish(seat, player.name, 1)
                self.finishes.append(winner)
                finished.append(winner)
        active = self.active_seats()
        if active:
            assert self.button is not None
            self.button = self._next_active(self.button, active)
        return finished
