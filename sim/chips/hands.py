"""People's hands on the emulated chip board: the players' racks and the cage off the table, stakes placed, circles collected and paid, chips moved at the tray.

One set of moves for every simulated smart table: the bot dealer's (`sim/chips/bots.py` `ChipDealer`), and the
players' and the dealer's hands beside a person dealing at `/dealer` (`sim/chips/console.py`). Each move is what a
person's hands do on the board (its control port, `sim.chips.board.ChipBoardClient`); what the table makes of it
is the controller's, read back from its feed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.chips import ChipSet, ChipStatus
from sim.bots.errors import BotError
from sim.chips.board import ChipBoardClient

TRAY_FLOAT = {100: 200, 500: 200, 2500: 100, 10000: 50, 50000: 10}
"""The tray's float at the start: chips of each value (cents), taken from the demo set's active chips."""

BUY_IN_CHIPS = {100: 20, 500: 16, 2500: 8}
"""The chips a bot buys in for (cash for chips at its seat, sold from the tray): 30,000 cents a time."""

HANDFUL = 50
"""The most chips one control line moves (a fill, a credit, the float laid in the tray)."""


def make_change(amount: int, chips: Mapping[int, Sequence[str]]) -> list[str]:
    """The fewest chips, greedily from the highest value, out of `chips` (value -> UIDs) that make `amount`.
    Raises BotError when they cannot make it.

    >>> make_change(1600, {500: ["A", "B", "C", "D"], 100: ["E", "F"]})
    ['A', 'B', 'C', 'E']
    """
    out: list[str] = []
    left = amount
    for value in sorted(chips, reverse=True):
        take = min(left // value, len(chips[value])) if value > 0 else 0
        out += list(chips[value][:take])
        left -= take * value
    if left:
        raise BotError(f"no chips to make {amount} (short by {left})")
    return out


def small_change(amount: int, chips: Mapping[int, Sequence[str]]) -> list[str]:
    """Chips making `amount` out of `chips`, as many of the smallest values as leave a rest the bigger ones make (what
    a player colours up). Raises BotError when they cannot make it.

    >>> small_change(1000, {500: ["A", "B"], 100: ["C", "D", "E", "F", "G"], 2500: ["H"]})
    ['C', 'D', 'E', 'F', 'G', 'A']
    >>> small_change(700, {500: ["A"], 2500: ["H"]})
    Traceback (most recent call last):
    ...
    sim.bots.errors.BotError: no small chips to make 700
    """
    values = sorted(v for v in chips if v > 0)
    out: list[str] = []
    left = amount
    for i, value in enumerate(values):
        bigger = {v: chips[v] for v in values[i + 1:]}
        for count in range(min(len(chips[value]), left // value), -1, -1):
            try:
                make_change(left - count * value, bigger)
            except BotError:
                continue
            out += list(chips[value][:count])
            left -= count * value
            break
    if left:
        raise BotError(f"no small chips to make {amount}")
    return out


def worth(chip_set: ChipSet, uid: str) -> int:
    """What one chip is worth as the table reads it (`ChipSet.value`): a retired, sample, void or unknown chip 0,
    so that no hand pays or stakes with it as if it were money."""
    return chip_set.value((uid,))


def by_value(chip_set: ChipSet, uids: Sequence[str]) -> dict[int, list[str]]:
    """UIDs grouped by what each chip is worth (`worth`: a foreign chip under 0, never made change with)."""
    out: dict[int, list[str]] = {}
    for uid in uids:
        out.setdefault(worth(chip_set, uid), []).append(uid)
    return out


def tray_float(chip_set: ChipSet) -> list[str]:
    """The chips of the tray's float (`TRAY_FLOAT`), the first active chips of each value in the set."""
    active = by_value(chip_set, [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE])
    return [uid for value, count in TRAY_FLOAT.items() for uid in active.get(value, [])[:count]]


def seat_of(antenna: str) -> int:
    """The seat of a circle's antenna (`spot3.play` -> 3)."""
    return int(antenna[4:].split(".", 1)[0])


def pay_circles(board: ChipBoardClient, chip_set: ChipSet, circles: Sequence[Mapping[str, Any]],
                more: Mapping[str, Any] | None = None) -> None:
    """The dealer's hands on `board` make every circle its due (the feed's `chips.circles` holding a `due`): a lost
    circle's chips into the tray, a win paid from the tray in the fewest chips, a push left alone; `more`, one of the
    circles, paid a chip of the smallest value more (a mispay). Raises BotError when the tray cannot make a payout."""
    lying = board.show()
    for c in circles:
        antenna, due = f"spot{c['seat']}.{c['circle']}", int(c["due"])
        there = lying.get(antenna, [])
        value = chip_set.value(there)
        if due == value:
            continue
        if due < value and there:
            board.move(antenna, "tray", *there)
            value = 0
        if due > value:
            board.move("tray", antenna, *make_change(due - value, by_value(chip_set, board.show().get("tray", []))))
    if more is not None:
        tray = {v: uids for v, uids in by_value(chip_set, board.show().get("tray", [])).items() if v > 0}
        if not tray:
            raise BotError("no chip in the tray to mispay with")
        board.move("tray", f"spot{more['seat']}.{more['circle']}", tray[min(tray)][0])


class Rack:
    """Chips off the table (the players' racks, or a pile): value -> UIDs."""

    def __init__(self, chip_set: ChipSet, uids: Sequence[str] = ()) -> None:
        self.set = chip_set
        self.chips: dict[int, list[str]] = {}
        self.give(uids)

    def give(self, uids: Sequence[str]) -> None:
        for uid in uids:
            self.chips.setdefault(worth(self.set, uid), []).append(uid)

    def take_chips(self, value: int, count: int) -> list[str]:
        """`count` chips of `value` taken off the rack. Raises BotError when it holds fewer."""
        held = self.chips.get(value, [])
        if len(held) < count:
            raise BotError(f"no {count} chips of {value} left (only {len(held)})")
        out, self.chips[value] = held[:count], held[count:]
        return out

    def take(self, amount: int) -> list[str]:
        """The fewest chips making `amount`, taken off the rack. Raises BotError."""
        return self._off(make_change(amount, self.chips))

    def take_small(self, amount: int) -> list[str]:
        """Chips making `amount` in its smallest values (`small_change`: a colour-up), taken off the rack. Raises BotError."""
        return self._off(small_change(amount, self.chips))

    def _off(self, uids: list[str]) -> list[str]:
        for uid in uids:
            self.chips[worth(self.set, uid)].remove(uid)
        return uids


class BoardHands:
    """Hands at the board, at `board` (its control address), with the chips of `chip_set`: what lies on it, seen
    as a person at the table sees it. Raises OSError when the board's control port cannot be reached."""

    def __init__(self, board: str, chip_set: ChipSet) -> None:
        self.board = ChipBoardClient(board, timeout=10.0)
        self.set = chip_set

    def close(self) -> None:
        self.board.close()

    def lying(self) -> dict[str, list[str]]:
        """Every antenna holding chips, as the board holds them."""
        return self.board.show()

    def tray(self) -> dict[int, list[str]]:
        """The tray's chips by value."""
        return by_value(self.set, self.lying().get("tray", []))


class ChipHands(BoardHands):
    """The players' racks (seat -> `Rack`), the cage (every active chip of the set not in the tray's float) and the
    board, at `board` (its control address). Raises OSError when the board's control port cannot be reached."""

    def __init__(self, board: str, chip_set: ChipSet, seats: Iterable[int]) -> None:
        super().__init__(board, chip_set)
        self.float = tray_float(chip_set)
        kept = set(self.float)
        self.racks = {seat: Rack(chip_set) for seat in seats}  # each player's chips off the table
        self.cage = Rack(chip_set, [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE and c.uid not in kept])

    def lay_float(self) -> None:
        """The tray's float laid in the tray, a handful at a time."""
        self.to_tray(self.float)

    def stake(self, seat: int, amount: int, short: Callable[[int], None]) -> list[str]:
        """Chips making `amount` off the seat's rack; when it cannot make them, `short(seat)` brings it more chips
        first (a buy-in, or chips from the cashier), up to three times. Raises BotError."""
        rack = self.racks[seat]
        for _ in range(3):
            try:
                return rack.take(amount)
            except BotError:
                short(seat)
        return rack.take(amount)

    def place(self, seat: int, circle: str, uids: Sequence[str]) -> None:
        """A player's chips put in one of its circles."""
        self.board.place(f"spot{seat}.{circle}", *uids)

    def take_back(self) -> list[str]:
        """The players take their chips from every circle, each to its own rack. The antennas cleared."""
        cleared = [a for a in self.lying() if a != "tray"]
        for antenna in cleared:
            self.racks[seat_of(antenna)].give(self.board.clear(antenna))
        return cleared

    def pay(self, circles: Sequence[Mapping[str, Any]], more: Mapping[str, Any] | None = None) -> None:
        """The dealer makes every circle its due (`pay_circles`); `more`, one of them, paid a chip more (a mispay)."""
        pay_circles(self.board, self.set, circles, more)

    def sell(self, seat: int, uids: Sequence[str]) -> None:
        """A buy-in: chips counted out of the tray to the seat's player."""
        self.board.remove("tray", *uids)
        self.racks[seat].give(uids)

    def colour_up(self, seat: int, given: Sequence[str]) -> bool:
        """The seat's player's chips `given` (taken off its rack) into the tray, the same value out of it in chips
        bigger than the smallest given, to its rack. False (the chips back in the rack) when the tray cannot change them."""
        rack = self.racks[seat]
        values = by_value(self.set, given)
        tray = {v: u for v, u in self.tray().items() if v > min(values)}
        try:
            bigger = make_change(self.set.value(given), tray)
        except BotError:
            rack.give(given)
            return False
        self.board.place("tray", *given)
        self.board.remove("tray", *bigger)
        rack.give(bigger)
        return True

    def to_tray(self, uids: Sequence[str]) -> None:
        """Chips put in the tray (a fill from the cage), a handful at a time."""
        for start in range(0, len(uids), HANDFUL):
            self.board.place("tray", *uids[start:start + HANDFUL])

    def to_cage(self, uids: Sequence[str]) -> None:
        """Chips taken from the tray to the cage (a credit), a handful at a time."""
        for start in range(0, len(uids), HANDFUL):
            self.board.remove("tray", *uids[start:start + HANDFUL])
        self.cage.give(uids)


__all__ = ["BUY_IN_CHIPS", "BoardHands", "ChipHands", "HANDFUL", "Rack", "TRAY_FLOAT", "by_value", "make_change",
           "pay_circles", "seat_of", "small_change", "tray_float", "worth"]
