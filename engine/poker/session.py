"""A session of poker hands at one table: seats, stacks, the button, buy-ins, rake and levels.

Seats are the table's seat numbers, 1 to `seats`. Sitting in and out, buy-ins and rebuys between
hands, rake, and tournament blind and ante levels; the whole seating round-trips through plain
values (`to_dict` / `restore`) for a journal.

>>> from engine.poker import VARIANTS, Stakes
>>> table = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=6)
>>> table.sit(1, 200, "Ann"); table.sit(4, 200, "Bob"); table.sit(5, 150, "Cy")
>>> hand = table.start_hand()
>>> hand.button, hand.blind_order
(5, (1, 4, 5))
>>> table.to_dict()["seats"]["5"]
{'stack': 150, 'out': False, 'name': 'Cy'}

Between hands only (table stakes): `sit`, `leave`, `buy_in` (rebuy / add-on). `sit_out` and
`sit_in` at any time, taking effect at the next hand; `seat_change` takes the dealer's words
(`SEAT_ACTIONS`). `start_hand(elapsed_s=...)` deals everyone seated, sitting in and with chips,
the button one seat clockwise from the last hand's (the first hand: `first_button` when that
seat is dealt in, else the highest seat dealt in); `end_hand()` takes the settled hand's stacks
back and, in a tournament, records who finished where; `void_hand()` calls a hand off (stacks
as before it; the next hand is dealt with the same button). A level of the schedule takes effect
at the next hand (the clock comes in as `elapsed_s`; the engine reads no clock).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction
from engine.poker.betting import Stakes
from engine.poker.state import Hand
from engine.poker.values import HandSettings
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
    """A seated player: chips between hands, sitting out (from the next hand), a name (may be empty)."""

    stack: int
    sitting_out: bool = False
    name: str = ""


class Session:
    """One table's run of hands.

    `stakes` are the cash-game stakes, or the template whose blinds and antes a tournament
    `schedule` replaces level by level. `settings` (burns, rake) apply to every hand.
    `min_buy_in` / `max_buy_in` bound a seat's stack after a buy-in (0: no bound). `button` is
    the button of the last hand dealt (None before the first); `hand` the hand in progress.
    """

    def __init__(self, variant: Variant, stakes: Stakes, seats: int, settings: HandSettings = HandSettings(),
                 schedule: Schedule | None = None, min_buy_in: int = 0, max_buy_in: int = 0,
                 first_button: int | None = None) -> None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise IllegalAction(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
        self.variant = variant
        self.stakes = stakes
        self.size = seats
        self.settings = settings
        self.schedule = schedule
        self.min_buy_in = min_buy_in
        self.max_buy_in = max_buy_in
        self.first_button = first_button
        self.players: dict[int, SeatState] = {}
        self.button: int | None = None
        self.hand: Hand | None = None
        self.level_index = 0
        self.hands_played = 0
        self.rake_total = 0
        self.finishes: list[Finish] = []
        self._button_before: int | None = None

    # ---- the seating as plain values ------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The seating between hands: `{"seats": {"N": {"stack", "out"[, "name"]}}, "button"}`
        (`button`: the last hand's; the next one moves on from it). A hand in progress is not in it."""
        seats: dict[str, Any] = {}
        for seat, p in sorted(self.players.items()):
            seats[str(seat)] = {"stack": p.stack, "out": p.sitting_out, **({"name": p.name} if p.name else {})}
        return {"seats": seats, "button": self.button}

    def restore(self, data: Mapping[str, Any]) -> None:
        """Take the seating `to_dict` gave (between hands). `button` may be a seat number beyond
        this table's (the last button of a game with more seats). Raises IllegalAction for a seat
        that is not one of this table's or a stack that is not a non-negative integer (nothing changed)."""
        self._between_hands("restoring the seats")
        players: dict[int, SeatState] = {}
        for key, value in dict(data.get("seats") or {}).items():
            seat = self._check_seat(int(key))
            stack = value["stack"]
            if isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
                raise IllegalAction(f"seat {seat}: a stack is a non-negative integer, not {stack!r}")
            players[seat] = SeatState(stack, bool(value.get("out", False)), str(value.get("name", "")))
        button = data.get("button")
        if button is not None and (isinstance(button, bool) or not isinstance(button, int)
                                   or not 1 <= button <= MAX_SEATS):
            raise IllegalAction(f"the last button must be a seat number, not {button!r}")
        self.players = players
        self.button = button  # the game before may have had more seats: the next button moves on from it

    # ---- seats --------------------------------------------------------------------------
    def _between_hands(self, what: str) -> None:
        if self.hand is not None:
            raise IllegalAction(f"{what}: between hands only (a hand is in progress)")

    def _check_seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= self.size:
            raise IllegalAction(f"seat {seat!r} is not a seat of this table (1..{self.size})")
        return seat

    def _seat(self, seat: int) -> SeatState:
        self._check_seat(seat)
        if seat not in self.players:
            raise IllegalAction(f"seat {seat} is empty")
        return self.players[seat]

    def sit(self, seat: int, stack: int, name: str = "") -> None:
        """Seat a player with a buy-in. Raises IllegalAction for a taken or unknown seat, a bad
        amount, or during a hand."""
        self._between_hands("sitting down")
        self._check_seat(seat)
        if seat in self.players:
            raise IllegalAction(f"seat {seat} is taken" + (f" by {self.players[seat].name}" if self.players[seat].name
                                                           else ""))
        self._check_buy_in(stack, 0)
        self.players[seat] = SeatState(stack, name=name)

    def leave(self, seat: int) -> int:
        """The player leaves with his chips (returned). Raises IllegalAction (empty seat, a hand on)."""
        self._between_hands("leaving")
        self._seat(seat)
        return self.players.pop(seat).stack

    def buy_in(self, seat: int, amount: int) -> None:
        """Rebuy or add-on chips to a seated player, between hands only. Raises IllegalAction."""
        self._between_hands("a rebuy or add-on")
        player = self._seat(seat)
        self._check_buy_in(amount, player.stack)
        player.stack += amount

    def _check_buy_in(self, amount: int | None, current: int) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise IllegalAction(f"a buy-in is a positive integer, got {amount!r}")
        total = current + amount
        if self.min_buy_in and total < self.min_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, below the minimum {self.min_buy_in}")
        if self.max_buy_in and total > self.max_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, above the maximum {self.max_buy_in}")

    def sit_out(self, seat: int) -> None:
        """The player sits out from the next hand (any time). Raises IllegalAction for an empty seat."""
        self._seat(seat).sitting_out = True

    def sit_in(self, seat: int) -> None:
        """The player is dealt in again from the next hand (any time). Raises IllegalAction."""
        self._seat(seat).sitting_out = False

    def seat_change(self, seat: int, action: str, amount: int | None = None) -> None:
        """A seat action in the dealer's words (`SEAT_ACTIONS`): `join` (`amount`: the buy-in),
        `rebuy` (`amount`), `leave`, `sit_out`, `sit_in`. Raises IllegalAction."""
        if action == "join":
            if amount is None:
                raise IllegalAction("join needs a buy-in (amount > 0)")
            self.sit(seat, amount)
        elif action == "rebuy":
            if amount is None:
                raise IllegalAction("rebuy needs an amount > 0")
            self.buy_in(seat, amount)
        elif action == "leave":
            self.leave(seat)
        elif action == "sit_out":
            self.sit_out(seat)
        elif action == "sit_in":
            self.sit_in(seat)
        else:
            raise IllegalAction(f"unknown seat action {action!r} (known: {', '.join(SEAT_ACTIONS)})")

    def active_seats(self) -> list[int]:
        """Seats dealt into the next hand: seated, sitting in, with chips."""
        return sorted(s for s, p in self.players.items() if not p.sitting_out and p.stack > 0)

    # ---- hands --------------------------------------------------------------------------
    def stakes_now(self, level_index: int | None = None) -> Stakes:
        """The stakes of the next hand (a tournament: the current level's blinds and ante)."""
        if self.schedule is None:
            return self.stakes
        level = self.schedule.levels[self.level_index if level_index is None else level_index]
        if self.variant.bring_in is not None:
            return dataclasses.replace(self.stakes, antes=level.ante)
        return dataclasses.replace(self.stakes, blinds=(level.small_blind, level.big_blind), antes=level.ante,
                                   min_bet=0)

    def next_button(self) -> int:
        """The next hand's button: one seat clockwise from the last hand's, among the seats dealt
        in; the first hand's is `first_button` when dealt in, else the highest seat dealt in.
        Raises IllegalAction with fewer than two players dealt in."""
        active = self.active_seats()
        if len(active) < MIN_SEATS:
            raise IllegalAction(f"a hand needs two players sitting in with chips, {len(active)} are")
        if self.button is None:
            return self.first_button if self.first_button in active else active[-1]
        after = [s for s in active if s > self.button]
        return after[0] if after else active[0]

    def next_hand(self, elapsed_s: float | None = None) -> Hand:
        """The hand `start_hand` would deal now, without dealing it (the session is unchanged).
        Raises IllegalAction while a hand is in progress or with fewer than two active players."""
        self._between_hands("starting a hand")
        level = self.level_index
        if self.schedule is not None and elapsed_s is not None:
            level = self.schedule.index_at(elapsed_s)
        active = self.active_seats()
        button = self.next_button()
        stacks = {s: self.players[s].stack for s in active}
        return Hand(self.variant, self.stakes_now(level), stacks, button=button, settings=self.settings)

    def start_hand(self, elapsed_s: float | None = None) -> Hand:
        """Deal a new hand. `elapsed_s` (tournament): time since the start, choosing the level.

        Raises IllegalAction while a hand is in progress or with fewer than two active players.
        """
        hand = self.next_hand(elapsed_s)
        if self.schedule is not None and elapsed_s is not None:
            self.level_index = self.schedule.index_at(elapsed_s)
        self._button_before = self.button
        self.button = hand.button
        self.hand = hand
        return hand

    def void_hand(self) -> None:
        """Call the hand in progress off: the stacks stay as before it and the next hand is dealt
        with the same button. Raises IllegalAction when no hand is in progress."""
        if self.hand is None:
            raise IllegalAction("no hand in progress")
        self.hand = None
        self.button = self._button_before

    def end_hand(self) -> list[Finish]:
        """Take the settled hand's final stacks, record tournament finishes.

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
            for seat in busted:
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
        return finished
