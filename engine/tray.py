"""The chip tray's ledger: the tray's read inventory reconciled with the hands' house net and the recorded chip movements.

A smart table reads its chip tray all shift. The ledger is fed the journal's facts in order and
keeps two kinds of window, end to end, from the shift's opening inventory (its first stable tray
reading) to its closing one:

- a *hand*: from the moment its cards start (betting closed) to its close. The tray's change over
  it must equal the hand's house net (collected minus paid: the settlement's `house_net`), plus any
  movement recorded during it (a buy-in mid-hand). The tray's value after the hand is its stable
  reading at the close when it agrees, else the first stable reading after the close that agrees (a
  tall stack's chip confirmed a few scans after the circles; or the dealer confirmed, then collected
  and paid). When none agrees before the next movement is recorded, the next hand's cards or the
  shift's close, it is the reading at the close when the tray had moved during the hand (what came
  after belongs to the time between hands), else the first stable reading after the close (the
  dealer confirmed, then collected and paid, or the reader was away: a reading a late chip short
  does not end the hand when a later one agrees), else the tray as it read last.
- *between hands*: from a hand's close to the next hand's cards. The tray's change must be what the
  movements recorded then explain: a buy-in (cash for chips at a seat: the tray gives the chips), a
  colour-up (chips in, the same value out: no change), a fill (chips brought to the tray) or a
  credit (chips taken from it).

A window whose change is not explained is flagged with the difference and the moment (the journal's
event and the hand). The shift reconciles when, to the smallest unit,

    closing - opening - fills + credits + chips sold = the hands' house net

which holds exactly when the flagged differences add up to zero. The ledger values chips by the
table's chip set (`engine.chips.ChipSet`: a foreign chip is worth nothing here). Pure: no clock, no
I/O; the same facts give the same trail, live or replayed.

>>> from engine.chips import Chip, ChipSet, ChipStatus
>>> chips = ChipSet([Chip(f"E00401500000000{n}", 500, "demo", ChipStatus.ACTIVE) for n in range(1, 10)])
>>> uids = [c.uid for c in chips]
>>> tray = TrayLedger(chips)
>>> tray.read(uids[:6], True, Moment(1, 1))          # the opening inventory: 6 chips, 3000
>>> tray.movement(Movement(MovementKind.BUY_IN, 1000, Moment(2, 1), seat=3))
>>> tray.read(uids[:4], True, Moment(3, 1))          # two chips sold at seat 3
>>> tray.cards(Moment(4, 1))                          # hand 1's cards start: between hands reconciled
>>> tray.read(uids[:5], True, Moment(5, 1))          # a losing bet collected
>>> tray.hand_closed(1, 500, Moment(6, 1))           # the house won 500: the tray agrees
>>> tray.flags
()
>>> tray.reconciliation().reconciles
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.chips import ChipSet
from engine.money import Money

__all__ = ["Flag", "HandLine", "Interval", "Moment", "Movement", "MovementKind", "Reconciliation", "TrayLedger"]


@dataclass(frozen=True, slots=True)
class Moment:
    """When a fact was journaled: its event's id and the hand being played or prepared then."""

    event: int
    hand: int


class MovementKind(enum.StrEnum):
    """A recorded movement of chips at the tray other than a hand's play."""

    BUY_IN = "buy_in"        # cash for chips at a seat: the tray gives the chips (chips sold)
    COLOUR_UP = "colour_up"  # a player's chips changed for bigger ones: value in = value out
    FILL = "fill"            # chips brought from the cage to the tray (signed off)
    CREDIT = "credit"        # chips taken from the tray to the cage (signed off)


TRAY_SIGN: dict[MovementKind, int] = {
    MovementKind.BUY_IN: -1, MovementKind.COLOUR_UP: 0, MovementKind.FILL: 1, MovementKind.CREDIT: -1}
"""What each movement does to the tray's value, per unit of its value: the one place this rule is written."""


@dataclass(frozen=True, slots=True)
class Movement:
    """A movement as recorded (journaled): its kind, its value, when, the seat of a buy-in or colour-up, a slip's number."""

    kind: MovementKind
    value: int
    at: Moment
    seat: int | None = None
    slip: str = ""  # a fill's or credit's slip number, when given

    @property
    def tray_change(self) -> int:
        """What the movement should do to the tray's value."""
        return TRAY_SIGN[self.kind] * self.value


@dataclass(frozen=True, slots=True)
class HandLine:
    """One hand's line of the trail: its house net, what was recorded during it, the tray before and after.

    `before`/`after` are None when the tray had not been read yet (the shift's opening inventory
    came later): such a hand is listed, not reconciled (`difference` None)."""

    hand: int
    house_net: int
    movements: tuple[Movement, ...]
    before: int | None
    after: int | None
    at: Moment  # its close

    @property
    def change(self) -> int | None:
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def difference(self) -> int | None:
        """The tray's change less what the house net and the movements explain (0: reconciled)."""
        change = self.change
        return None if change is None else change - self.house_net - sum(m.tray_change for m in self.movements)


@dataclass(frozen=True, slots=True)
class Interval:
    """The time between two hands (or the opening and the first hand, the last hand and the closing):
    the movements recorded then and the tray's value at its start and its end."""

    after_hand: int  # the hand closed before it (0: none yet this shift)
    movements: tuple[Movement, ...]
    before: int | None
    after: int | None
    at: Moment  # its end: the next hand's cards, or the shift's close

    @property
    def change(self) -> int | None:
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def difference(self) -> int | None:
        """The tray's change less what the recorded movements explain (0: reconciled)."""
        change = self.change
        return None if change is None else change - sum(m.tray_change for m in self.movements)

    def read_values(self) -> tuple[int | None, ...]:
        """What the tray read of each movement: its recorded value when the interval reconciled; the
        tray's change itself for a lone fill, credit or buy-in; None where the reading cannot tell
        (a difference shared by several movements, the tray not read).

        >>> fill = Movement(MovementKind.FILL, 50000, Moment(3, 1))
        >>> Interval(0, (fill,), 100000, 149500, Moment(4, 1)).read_values()
        (49500,)
        """
        difference = self.difference
        if difference == 0:
            return tuple(m.value for m in self.movements)
        if difference is not None and len(self.movements) == 1 and TRAY_SIGN[self.movements[0].kind]:
            return (TRAY_SIGN[self.movements[0].kind] * (self.change or 0),)
        return tuple(None for _ in self.movements)


@dataclass(frozen=True, slots=True)
class Flag:
    """A tray difference nothing recorded explains: its value (read less expected), where and when."""

    value: int
    hand: int  # the hand it was met in, or the last hand closed before it (`between`)
    between: bool  # True: between hands (after `hand`); False: during the hand
    at: Moment

    def words(self, money: Money = Money()) -> str:
        """The flag in plain words, its amount in the table's `money`.

        >>> Flag(-2500, 7, True, Moment(301, 8)).words()
        'the tray is EUR -25.00 off between hand 7 and the next (event 301)'
        """
        where = f"between hand {self.hand} and the next" if self.between else f"in hand {self.hand}"
        if self.between and self.hand == 0:
            where = "before the shift's first hand"
        return f"the tray is {money.format(self.value, signed=True)} off {where} (event {self.at.event})"


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The shift's line: closing - opening - fills + credits + chips sold against the hands' house net."""

    opening: int | None
    closing: int | None
    fills: int
    credits: int
    chips_sold: int
    colour_ups: int
    house_net: int
    closed: bool  # the shift is closed (its closing inventory taken); else the tray as it reads now

    @property
    def difference(self) -> int | None:
        """closing - opening - fills + credits + chips sold - house net: 0 when the shift reconciles."""
        if self.opening is None or self.closing is None:
            return None
        return self.closing - self.opening - self.fills + self.credits + self.chips_sold - self.house_net

    @property
    def reconciles(self) -> bool:
        return self.difference == 0


@dataclass(slots=True)
class _Open:
    """The window being kept: a hand's or the time between hands."""

    hand: int | None  # the hand whose cards are out, or None between hands
    before: int | None
    movements: list[Movement] = field(default_factory=list)
    moved: bool = False  # a hand's: the tray read a new value since its cards started


class TrayLedger:
    """The tray over one shift, fed the journal's facts in order (see the module docstring)."""

    def __init__(self, chips: ChipSet) -> None:
        self.chips = chips
        self.opening: int | None = None
        self.closing: int | None = None
        self.tray: int | None = None  # the last stable reading's value
        self.settled = True  # the tray's latest reading was stable
        self.last_hand = 0  # the last hand closed this shift
        self._window = _Open(None, None)
        self._awaiting: tuple[int, int, tuple[Movement, ...], int | None, Moment] | None = None
        self._at_close: int | None = None  # the awaited hand's tray if none agrees: at its close (moved), or read after
        self._hands: list[HandLine] = []
        self._intervals: list[Interval] = []
        self._flags: list[Flag] = []
        self._reconciled: list[Movement] = []  # movements in windows with the tray read at both ends
        self._net = 0  # the house net of the hands reconciled
        self.last_interval: Interval | None = None  # the time between hands that ended last (at a hand's cards)

    # -- the facts --------------------------------------------------------------------------------

    def read(self, uids: Iterable[str], stable: bool, at: Moment) -> None:
        """A reading of the tray's antenna. Only a stable one counts; the first is the opening inventory."""
        self.settled = stable
        if not stable or self.closing is not None:
            return
        self.tray = self.chips.value(uids)
        if self.opening is None:
            self.opening = self.tray
            if self._window.hand is None:  # what was recorded before the tray was read is listed, not reconciled
                if self._window.movements:
                    self._intervals.append(Interval(self.last_hand, tuple(self._window.movements), None, None, at))
                self._window = _Open(None, self.tray)
        if self._awaiting is not None:
            if self._agrees(self.tray):  # (a tall stack confirmed late: it agrees now)
                self._finish_hand(self.tray)
            elif self._at_close is None:  # the tray unmoved at the close (confirmed before paying, or the reader
                self._at_close = self.tray  # away): its first stable reading after is checked if none agrees
        elif self._window.hand is not None and self.tray != self._window.before:
            self._window.moved = True

    def cards(self, at: Moment) -> None:
        """A hand's cards start (betting closed): the time between hands ends and the hand's window begins."""
        if self.closing is not None or self._window.hand is not None:
            return
        if self._awaiting is not None:  # the tray did not settle since the last close: as it read last
            self._finish_hand(self.tray)
        self._end_interval(at)
        self._window = _Open(at.hand, self.tray)

    def hand_closed(self, hand: int, house_net: int, at: Moment) -> None:
        """A hand closed (settled: its house net; voided: 0). Checked at once when the tray reads settled and
        moved during the hand or already agrees; else at its next stable reading (the module docstring)."""
        if self.closing is not None:
            return
        if self._awaiting is not None:  # the tray never read again after the last hand: as it read last
            self._finish_hand(self.tray)
        window = self._window
        if window.hand is None:  # closed before its cards started (voided during the betting): nothing to check
            self.last_hand = hand
            return
        self._awaiting = (hand, house_net, tuple(window.movements), window.before, at)
        self._window = _Open(None, None)
        self.last_hand = hand
        if self.settled and self._agrees(self.tray):
            self._finish_hand(self.tray)
        elif self.settled and window.moved:  # collected and paid, but a chip may not be confirmed yet: the next
            self._at_close = self.tray       # readings may agree; if none does, checked as it read at the close

    def movement(self, move: Movement) -> None:
        """A buy-in, colour-up, fill or credit recorded: explains a change of the window it falls in."""
        if self.closing is None:
            if self._awaiting is not None:  # the last hand is checked as the tray read before this
                self._finish_hand(self.tray)
            self._window.movements.append(move)

    def close(self, at: Moment) -> None:
        """The shift closes: its closing inventory is the tray's last stable reading."""
        if self.closing is not None:
            return
        if self._awaiting is not None:
            self._finish_hand(self.tray)
        if self._window.hand is not None:  # closed mid-hand: its window ends unreconciled with no net
            self._window = _Open(None, self._window.before, self._window.movements)
        self._end_interval(at)
        self._window = _Open(None, None)
        self.closing = self.tray

    # -- what it found ----------------------------------------------------------------------------

    @property
    def hands(self) -> tuple[HandLine, ...]:
        return tuple(self._hands)

    @property
    def intervals(self) -> tuple[Interval, ...]:
        return tuple(self._intervals)

    @property
    def flags(self) -> tuple[Flag, ...]:
        return tuple(self._flags)

    def expected(self) -> int | None:
        """What the tray should read now, from its last checked value and what was recorded since."""
        if self._awaiting is not None:
            _, net, moves, before, _ = self._awaiting
            base = None if before is None else before + net + sum(m.tray_change for m in moves)
        else:
            base = self._window.before
        return None if base is None else base + sum(m.tray_change for m in self._window.movements)

    def reconciliation(self) -> Reconciliation:
        """The shift's reconciliation: at its close, or so far (the tray as it reads now, and the
        movements of the windows still open)."""
        closing = self.closing if self.closing is not None else self.tray
        moves = [*self._reconciled, *self._pending_movements()]
        total = {kind: sum(m.value for m in moves if m.kind is kind) for kind in MovementKind}
        net = self._net + (self._awaiting[1] if self._awaiting is not None and self._awaiting[3] is not None else 0)
        return Reconciliation(self.opening, closing, total[MovementKind.FILL], total[MovementKind.CREDIT],
                              total[MovementKind.BUY_IN], total[MovementKind.COLOUR_UP], net, self.closing is not None)

    # -- inside -----------------------------------------------------------------------------------

    def _pending_movements(self) -> list[Movement]:
        """The movements of the windows not yet ended, when their start was read (they count so far)."""
        if self._awaiting is not None:
            before, moves = self._awaiting[3], self._awaiting[2]
            return [*moves, *self._window.movements] if before is not None else []
        return list(self._window.movements) if self._window.before is not None else []

    def _agrees(self, value: int | None) -> bool:
        """Whether the tray reading `value` is what the hand awaited makes it (its house net and movements)."""
        assert self._awaiting is not None
        _, net, moves, before, _ = self._awaiting
        return value is not None and before is not None and value == before + net + sum(m.tray_change for m in moves)

    def _finish_hand(self, after: int | None) -> None:
        assert self._awaiting is not None
        hand, net, moves, before, at = self._awaiting
        if self._at_close is not None and not self._agrees(after):
            after = self._at_close  # what came after the close belongs to the time between hands
        self._awaiting, self._at_close = None, None
        line = HandLine(hand, net, moves, before, after, at)
        self._hands.append(line)
        if line.difference is not None:
            self._net += net
            self._reconciled.extend(moves)
            if line.difference:
                self._flags.append(Flag(line.difference, hand, False, at))
        self._window.before = after

    def _end_interval(self, at: Moment) -> None:
        window = self._window
        line = self.last_interval = Interval(self.last_hand, tuple(window.movements), window.before, self.tray, at)
        if line.movements or line.change != 0:
            self._intervals.append(line)  # an interval where nothing happened is left out of the trail
        if line.difference is not None:
            self._reconciled.extend(line.movements)
            if line.difference:
                self._flags.append(Flag(line.difference, self.last_hand, True, at))
