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
`sit_in` at any time, taking effect at the next hand, and `post` / `wait` for a player who owes
missed blinds (post them, or wait for the big blind); `seat_change` takes the dealer's words
(`SEAT_ACTIONS`). `start_hand(elapsed_s=...)` deals everyone seated, sitting in and with chips
(but a player waiting for the big blind, or sitting between the button and the blinds), the
button and blinds placed by the dead-button rule (`dead_button`, the default) or moved on to the
next player (the moving button), as `engine.poker.seats` says: the first hand's button is
`first_button` when that seat is dealt in, else the highest seat dealt in. Each seat's `owes`
(None, "small", "big", "both") and `waiting` say who owes what; `end_hand()` takes the settled hand's stacks
back and, in a tournament, records who finished where; `void_hand()` calls a hand off (stacks
as before it; the next hand is dealt with the same button). A level of the schedule takes effect
at the next hand (the clock comes in as `elapsed_s`; the engine reads no clock).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction, money, say
from engine.poker.betting import Stakes
from engine.poker.seats import OWED, HandPlan, SeatState, plan_hand
from engine.poker.state import Hand
from engine.poker.values import HandSettings
from engine.poker.variants import MAX_SEATS, MIN_SEATS, Variant

__all__ = ["Level", "Schedule", "Session", "SeatState", "Finish", "SEAT_ACTIONS"]

SEAT_ACTIONS: tuple[str, ...] = ("join", "rebuy", "leave", "sit_out", "sit_in", "post", "wait", "move_in")
"""What a seat does between hands (`join` with a buy-in, `rebuy`, `leave`; `move_in` with his stack: a
tournament's player moved here, owing no blind) or at any time, taking effect at the next hand
(`sit_out`, `sit_in`; `post`: sit in and post the missed blinds owed; `wait`: sit in and wait for
the big blind)."""


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


class Session:
    """One table's run of hands.

    `stakes` are the cash-game stakes, or the template whose blinds and antes a tournament
    `schedule` replaces level by level. `settings` (burns, rake) apply to every hand.
    `min_buy_in` / `max_buy_in` bound a seat's stack after a buy-in (0: no bound). `button` is
    the button of the last hand dealt (None before the first); `hand` the hand in progress.
    `dead_button` (default) or the moving button; `small_blind` / `big_blind` the last hand's
    blind positions (the small blind's may have been dead).
    """

    def __init__(self, variant: Variant, stakes: Stakes, seats: int, settings: HandSettings = HandSettings(),
                 schedule: Schedule | None = None, min_buy_in: int = 0, max_buy_in: int = 0,
                 first_button: int | None = None, dead_button: bool = True) -> None:
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
        self.dead_button = dead_button
        self.small_blind: int | None = None
        self.big_blind: int | None = None
        self._owes_before: dict[int, tuple[str | None, bool]] = {}
        self._blinds_before: tuple[int | None, int | None] = (None, None)
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
        """The seating between hands: `{"seats": {"N": {"stack", "out"[, "name", "owes",
        "waiting"]}}, "button"[, "small_blind", "big_blind"]}` (`button`: the last hand's; the next
        one moves on from it; the blinds: the last hand's positions). A hand in progress is not in it."""
        seats: dict[str, Any] = {}
        for seat, p in sorted(self.players.items()):
            seats[str(seat)] = {"stack": p.stack, "out": p.sitting_out, **({"name": p.name} if p.name else {}),
                                **({"owes": p.owes} if p.owes else {}), **({"waiting": True} if p.waiting else {})}
        out: dict[str, Any] = {"seats": seats, "button": self.button}
        if self.big_blind is not None:
            out.update(small_blind=self.small_blind, big_blind=self.big_blind)
        return out

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
            owes = value.get("owes")
            if owes is not None and owes not in OWED:
                raise IllegalAction(f"seat {seat}: owes {', '.join(OWED)} or nothing, not {owes!r}")
            players[seat] = SeatState(stack, bool(value.get("out", False)), str(value.get("name", "")), owes,
                                      bool(value.get("waiting", False)))
        button = data.get("button")
        positions = [data.get(k) for k in ("button", "small_blind", "big_blind")]
        for position in positions:
            if position is not None and (isinstance(position, bool) or not isinstance(position, int)
                                         or not 1 <= position <= MAX_SEATS):
                raise IllegalAction(f"the last button and blinds must be seat numbers, not {position!r}")
        self.players = players
        self.button = button  # the game before may have had more seats: the next button moves on from it
        self.small_blind, self.big_blind = positions[1], positions[2]

    # ---- seats --------------------------------------------------------------------------
    def _between_hands(self, what: str, seat: int | None = None) -> None:
        """Raises IllegalAction while a hand is in progress (a seat's own change, `seat`: said as the seat's)."""
        if self.hand is not None:
            raise IllegalAction(f"{what}: between hands only (a hand is in progress)",
                                say=say("refusal.hand_in_progress") if seat is None
                                else say("refusal.poker_seat_between_hands", seat=seat))

    def _check_seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= self.size:
            raise IllegalAction(f"seat {seat!r} is not a seat of this table (1..{self.size})",
                               say=say("refusal.no_such_seat", seat=str(seat), seats=self.size))
        return seat

    def _seat(self, seat: int) -> SeatState:
        self._check_seat(seat)
        if seat not in self.players:
            raise IllegalAction(f"seat {seat} is empty", say=say("refusal.poker_seat_empty", seat=seat))
        return self.players[seat]

    def sit(self, seat: int, stack: int, name: str = "", owes_big_blind: bool = True) -> None:
        """Seat a player with a buy-in. A new player owes a big blind once the table has dealt a
        hand (a cash game); a tournament's player moved in by the director owes none
        (`owes_big_blind=False`). Raises IllegalAction for a taken or unknown seat, a bad amount,
        or during a hand."""
        self._between_hands("sitting down", seat)
        self._check_seat(seat)
        if seat in self.players:
            raise IllegalAction(f"seat {seat} is taken" + (f" by {self.players[seat].name}" if self.players[seat].name
                                                           else ""), say=say("refusal.poker_seat_taken", seat=seat))
        self._check_buy_in(stack, 0)
        # a new player posts a big blind or waits for it (not at the table's first hand)
        self.players[seat] = SeatState(stack, name=name,
                                       owes="big" if owes_big_blind and self.big_blind is not None else None)

    def leave(self, seat: int) -> int:
        """The player leaves with his chips (returned). Raises IllegalAction (empty seat, a hand on)."""
        self._between_hands("leaving", seat)
        self._seat(seat)
        return self.players.pop(seat).stack

    def buy_in(self, seat: int, amount: int) -> None:
        """Rebuy or add-on chips to a seated player, between hands only. Raises IllegalAction."""
        self._between_hands("a rebuy or add-on", seat)
        player = self._seat(seat)
        self._check_buy_in(amount, player.stack)
        player.stack += amount

    def _check_buy_in(self, amount: int | None, current: int) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise IllegalAction(f"a buy-in is a positive integer, got {amount!r}")
        total = current + amount
        if self.min_buy_in and total < self.min_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, below the minimum {self.min_buy_in}",
                                say=say("refusal.poker_buy_in_below", amount=money(total), minimum=money(self.min_buy_in)))
        if self.max_buy_in and total > self.max_buy_in:
            raise IllegalAction(f"buy-in brings the stack to {total}, above the maximum {self.max_buy_in}",
                                say=say("refusal.poker_buy_in_above", amount=money(total), maximum=money(self.max_buy_in)))

    def sit_out(self, seat: int) -> None:
        """The player sits out from the next hand (any time). Raises IllegalAction for an empty seat."""
        player = self._seat(seat)
        player.sitting_out = True
        player.waiting = False

    def sit_in(self, seat: int) -> None:
        """The player is dealt in again from the next hand (any time), posting the blinds he owes
        (see `post`; `wait` to wait for the big blind instead). Raises IllegalAction."""
        self.post(seat)

    def post(self, seat: int) -> None:
        """The player sits in and posts the blinds he owes at the next hand (the small blind dead,
        the big blind live). Raises IllegalAction for an empty seat."""
        player = self._seat(seat)
        player.sitting_out = False
        player.waiting = False

    def wait(self, seat: int) -> None:
        """The player sits in and waits for the big blind: not dealt in until it reaches his seat,
        then he posts it and owes nothing more. Raises IllegalAction for an empty seat or a player
        who owes no blinds."""
        player = self._seat(seat)
        if player.owes is None:
            raise IllegalAction(f"seat {seat} owes no blinds: nothing to wait for (sit_in)",
                                say=say("refusal.poker_owes_no_blinds", seat=seat))
        player.sitting_out = False
        player.waiting = True

    def seat_change(self, seat: int, action: str, amount: int | None = None) -> None:
        """A seat action in the dealer's words (`SEAT_ACTIONS`): `join` (`amount`: the buy-in),
        `rebuy` (`amount`), `leave`, `sit_out`, `sit_in`, `post`, `wait`; `move_in` (`amount`: his
        stack): a tournament's player moved to this table by the director, who owes no blind. Raises
        IllegalAction."""
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
        elif action == "post":
            self.post(seat)
        elif action == "wait":
            self.wait(seat)
        elif action == "move_in":
            if amount is None:
                raise IllegalAction("move_in needs the player's stack (amount > 0)")
            self.sit(seat, amount, owes_big_blind=False)
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

    def plan(self) -> HandPlan:
        """The next hand's seating: button, blinds, who is dealt in, owed blinds (engine.poker.seats).
        Raises IllegalAction with fewer than two players to deal in."""
        return plan_hand(self.players, self.size, self.small_blind, self.big_blind, self.dead_button,
                         len(self.stakes_now().blinds), self.button, self.first_button)

    def next_button(self) -> int:
        """The next hand's button (a dead button may lie on a seat nobody is dealt in from).
        Raises IllegalAction with fewer than two players dealt in."""
        return self.plan().button

    def next_hand(self, elapsed_s: float | None = None) -> Hand:
        """The hand `start_hand` would deal now, without dealing it (the session is unchanged).
        Raises IllegalAction while a hand is in progress or with fewer than two active players."""
        self._between_hands("starting a hand")
        return self._hand_of(self.plan(), elapsed_s)

    def _hand_of(self, plan: HandPlan, elapsed_s: float | None) -> Hand:
        level = self.level_index
        if self.schedule is not None and elapsed_s is not None:
            level = self.schedule.index_at(elapsed_s)
        stacks = {s: self.players[s].stack for s in plan.dealt}
        return Hand(self.variant, self.stakes_now(level), stacks, button=plan.button, settings=self.settings,
                    no_small_blind=plan.no_small_blind, owed=dict(plan.owed))

    def start_hand(self, elapsed_s: float | None = None) -> Hand:
        """Deal a new hand. `elapsed_s` (tournament): time since the start, choosing the level.
        The players dealt in owe nothing more; the players it passes owe the blinds they missed.

        Raises IllegalAction while a hand is in progress or with fewer than two active players.
        """
        self._between_hands("starting a hand")
        plan = self.plan()
        hand = self._hand_of(plan, elapsed_s)
        if self.schedule is not None and elapsed_s is not None:
            self.level_index = self.schedule.index_at(elapsed_s)
        self._button_before = self.button
        self._blinds_before = (self.small_blind, self.big_blind)
        self._owes_before = {s: (p.owes, p.waiting) for s, p in self.players.items()}
        for seat in plan.dealt:
            self.players[seat].owes = None
            self.players[seat].waiting = False
        for seat, owes in plan.missed:
            self.players[seat].owes = owes
        if plan.big_blind is not None:
            self.small_blind, self.big_blind = plan.small_blind, plan.big_blind
        self.button = hand.button
        self.hand = hand
        return hand

    def void_hand(self) -> None:
        """Call the hand in progress off: the stacks stay as before it, the next hand is dealt
        with the same button and blinds, and nobody owes more or less than before it. Raises
        IllegalAction when no hand is in progress."""
        if self.hand is None:
            raise IllegalAction("no hand in progress")
        self.hand = None
        self.button = self._button_before
        self.small_blind, self.big_blind = self._blinds_before
        for seat, (owes, waiting) in self._owes_before.items():
            if seat in self.players:
                self.players[seat].owes, self.players[seat].waiting = owes, waiting

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
