"""A smart table's circles as game logic: where an antenna lies, what a circle is due at settle, a Play read from its chips.

Pure: the chip reader's antennas are named `spot{N}.{circle}` (the circle is the engine's bet name:
UTH `ante`, `blind`, `trips`, `play`; 3CP `ante`, `pair_plus`, `bonus`, `play`) or `tray`. The
controller's side (readings kept, faults raised) is `firmware_host.tables.house.chips`.

>>> Antenna.parse("spot3.play"), Antenna.parse("tray").is_tray
(Antenna(seat=3, circle='play'), True)
>>> due(500, -500), due(500, 0), due(500, 750)
(0, 500, 1250)
>>> play_multiple(2000, 500, (4, 3))
4
>>> to_due(0, 500), to_due(4000, 3500), to_due(1000, 1100), to_due(500, 500)
(('take', 500), ('pay', 500), ('take_back', 100), None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from engine.errors import EngineError

__all__ = ["Antenna", "ChipsError", "TRAY", "PAID_ON", "PROTECTED", "ToDue", "due", "dues", "play_multiple",
           "moved", "to_due"]

TRAY = "tray"
"""The antenna under the dealer's chip tray."""

PROTECTED = frozenset({"ante", "blind", "trips", "pair_plus", "bonus"})
"""The circles that must not change from the deal to the showdown (Play too, once placed)."""


class ChipsError(EngineError, ValueError):
    """An antenna name that names no circle (`spot{N}.{circle}` or `tray`)."""


@dataclass(frozen=True, slots=True)
class Antenna:
    """Where an antenna lies: a spot's circle, or the tray (seat 0, circle `tray`)."""

    seat: int
    circle: str

    @property
    def is_tray(self) -> bool:
        return self.circle == TRAY

    @property
    def name(self) -> str:
        return TRAY if self.is_tray else f"spot{self.seat}.{self.circle}"

    @classmethod
    def parse(cls, text: str, circles: Iterable[str] | None = None) -> Antenna:
        """The antenna `spot3.ante` or `tray`; `circles`: the table's bet circles (any when None).

        Raises ChipsError naming the text when it names no circle of the table.
        """
        return _parsed(text, tuple(circles) if circles is not None else None)


@lru_cache(maxsize=1024)
def _parsed(text: str, known: tuple[str, ...] | None) -> Antenna:
    """`Antenna.parse`, each name and circles parsed once (a scan's readings and each view name a few dozen antennas
    again and again; an Antenna is frozen, so the one made is handed out again). Raises ChipsError as it does."""
    if text == TRAY:
        return Antenna(0, TRAY)
    spot, dot, circle = text.partition(".")
    number = spot.removeprefix("spot")
    if not dot or not spot.startswith("spot") or not number.isdigit() or int(number) < 1 \
            or not circle or (known is not None and circle not in known):
        where = f" (circles here: {', '.join(known)})" if known is not None else ""
        raise ChipsError(f"antenna {text!r} is no circle: spot<N>.<circle> or tray{where}")
    return Antenna(int(number), circle)


def due(bet: int, net: int) -> int:
    """What a circle holds once paid: lost 0, a push the bet, won the bet and the win."""
    return max(0, bet + net)


ToDue = Literal["take", "pay", "take_back"]
"""What a dealer does to a circle that does not read its due, in the trade's words (the pages' `[to_due]`): take a
lost bet, pay the rest of a payout, take back chips paid over."""


def to_due(due: int, reads: int) -> tuple[ToDue, int] | None:
    """What makes a circle that reads `reads` read its `due`, and the amount: `take` a lost circle's chips (its due
    0), `pay` what is short, `take_back` what was paid over; None when it reads its due. The one rule the console's
    list and a mispay's words say (`firmware_host/tables/house/chips.py`: the feed's circle `make`, the fault's)."""
    if reads == due:
        return None
    if reads < due:
        return "pay", due - reads
    return ("take" if due == 0 else "take_back"), reads - due


PAID_ON = {"ante_bonus": "ante"}
"""A settlement's result that is no bet of its own, and the circle it is paid on (3CP's Ante Bonus: on the Ante)."""


def dues(bets: Mapping[str, int], results: Mapping[str, int]) -> dict[str, int]:
    """Each circle's due from the spot's bets and its settlement's net per circle (a bonus with no circle of its
    own, `PAID_ON`, paid on its circle's chips).

    >>> dues({"ante": 500, "play": 500}, {"ante": 500, "ante_bonus": 500, "play": 0})
    {'ante': 1500, 'play': 500}
    """
    net = {circle: int(results.get(circle, 0)) for circle in bets}
    for result, circle in PAID_ON.items():
        if result in results and circle in net:
            net[circle] += int(results[result])
    return {circle: due(bet, net[circle]) for circle, bet in bets.items()}


def play_multiple(play: int, ante: int, legal: Iterable[int]) -> int | None:
    """The multiple of the Ante the Play circle's chips make, when it is one of `legal`; else None."""
    if ante <= 0 or play <= 0 or play % ante:
        return None
    multiple = play // ante
    return multiple if multiple in tuple(legal) else None


def moved(before: Iterable[str], now: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`(added, taken)`: the chips that came into a circle and the chips that left it, sorted."""
    was, is_ = set(before), set(now)
    return tuple(sorted(is_ - was)), tuple(sorted(was - is_))
