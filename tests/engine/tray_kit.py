"""Chips moved by hand for the tray's tests: a tray and the chips around it as sets of real UIDs of the demo chip set."""

from __future__ import annotations

import random

from engine.chips import ChipSet
from sim.demo_chips import demo_chip_set

CHIPS: ChipSet = demo_chip_set()
"""The shipped demo set (EUR 1 to 500, in cents)."""

OPENING = {100: 300, 500: 300, 2500: 100, 10000: 50}
"""The tray at the shift's opening: how many chips of each value (EUR 9,300.00)."""


class Chips:
    """Where every active chip of the demo set lies: in the tray, or outside it (players, cage)."""

    def __init__(self) -> None:
        active = [c for c in CHIPS if CHIPS.why_foreign(c.uid) is None]
        self.value = {c.uid: c.value for c in active}
        self.tray: set[str] = set()
        self.outside: set[str] = set(self.value)
        for denomination, count in OPENING.items():
            self.tray |= set(sorted(u for u in self.outside if self.value[u] == denomination)[:count])
        self.outside -= self.tray

    def tray_value(self) -> int:
        return sum(self.value[u] for u in self.tray)

    def into_tray(self, amount: int) -> None:
        """Chips worth `amount` put into the tray (collected, a fill)."""
        self.tray |= self._take(self.outside, amount)
        self.outside -= self.tray

    def out_of_tray(self, amount: int) -> None:
        """Chips worth `amount` taken from the tray (paid, sold, a credit)."""
        taken = self._take(self.tray, amount)
        self.tray -= taken
        self.outside |= taken

    def colour_up(self, amount: int) -> None:
        """Small chips worth `amount` in, bigger ones of the same value out (value in = value out)."""
        small = self._take(self.outside, amount, smallest_first=True)
        big = self._take(self.tray | small, amount)
        self.tray = (self.tray | small) - big
        self.outside = (self.outside - small) | big

    def _take(self, pile: set[str], amount: int, smallest_first: bool = False) -> set[str]:
        """Chips of `pile` worth exactly `amount` (largest first, unless `smallest_first`), changing a chip
        for smaller ones from the other pile when the pile has no exact make-up. Raises AssertionError."""
        taken: set[str] = set()
        left = amount
        for uid in sorted(pile, key=lambda u: (self.value[u], u), reverse=not smallest_first):
            if 0 < self.value[uid] <= left:
                taken.add(uid)
                left -= self.value[uid]
        assert left == 0, f"cannot make {amount} from the pile (short of {left})"
        return taken


def amount(rng: random.Random, most: int = 20000, step: int = 100) -> int:
    """A whole amount of `step`s, 1 to `most`."""
    return rng.randrange(step, most + step, step)
