"""People's hands on the emulated chip board for the smart table's browser tests: players bet and take their chips, the dealer collects, pays and moves chips at the tray (never a console step: the page is tapped by the test)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.chips import ChipStatus
from sim.chips.hands import HANDFUL, BoardHands, Rack, make_change, pay_circles, tray_float
from sim.demo_chips import demo_chip_set


class Hands(BoardHands):
    """The chips off the table (one rack for every player and the cage: a test's seats need no racks of their own)
    and the board's antennas (`sim.chips.hands.BoardHands`), moved as people would."""

    def __init__(self, control: str) -> None:
        super().__init__(control, demo_chip_set())
        self.float = tray_float(self.set)
        kept = set(self.float)
        self.rack = Rack(self.set, [c.uid for c in self.set if c.status is ChipStatus.ACTIVE and c.uid not in kept])

    def take_float_from_board(self) -> bool:
        """The table opened with chips in its tray already (its float): those are the float, the rest the racks'.
        False when the tray is empty."""
        lying = self.lying().get("tray", [])
        if not lying:
            return False
        self.float = list(lying)
        kept = set(lying)
        self.rack = Rack(self.set, [c.uid for c in self.set if c.status is ChipStatus.ACTIVE and c.uid not in kept])
        return True

    def fill_tray(self) -> None:
        """The tray's float, as the shift opens."""
        for start in range(0, len(self.float), HANDFUL):
            self.board.place("tray", *self.float[start:start + HANDFUL])

    def bet(self, seat: int, **circles: int) -> None:
        """A player puts chips making each amount in the seat's circles (`ante=500, blind=500`)."""
        for circle, amount in circles.items():
            self.board.place(f"spot{seat}.{circle}", *self.rack.take(amount))

    def pay(self, state: Mapping[str, Any]) -> None:
        """The dealer makes every circle its due (the public feed's `chips.circles`), as the simulated dealers do."""
        pay_circles(self.board, self.set, [c for c in (state.get("chips") or {}).get("circles") or [] if "due" in c])

    def take_back(self) -> None:
        """The players take their chips from every circle."""
        for antenna in [a for a in self.lying() if a != "tray"]:
            self.rack.give(self.board.clear(antenna))

    def from_tray(self, amount: int) -> list[str]:
        """The dealer counts chips making `amount` out of the tray (a buy-in sold, a credit sent to the cage)."""
        uids = make_change(amount, self.tray())
        self.board.remove("tray", *uids)
        return uids

    def to_tray(self, amount: int) -> None:
        """Chips making `amount` put in the tray (a fill from the cage)."""
        self.board.place("tray", *self.rack.take(amount))
