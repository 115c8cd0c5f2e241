"""The tournament clock: levels and breaks by the time played, paused, resumed and adjusted by the director.

The engine reads no clock: every step takes `now`, the caller's seconds (a monotonic clock, or a
simulated one). The time played stops while the clock is paused; a break is a stage of the
schedule that runs on the clock like a level, but no hand is begun in it. The last level lasts for
ever. A new level takes effect at each table's next hand: `TableLevel` keeps the level a hand
began with until that hand is over.

>>> from engine.tournament.config import BlindLevel, Break
>>> clock = Clock((BlindLevel(25, 50, 0, 600), Break(300), BlindLevel(50, 100, 0, 600)))
>>> clock.start(1000.0)
>>> clock.reading(1700.0).on_break, clock.reading(1700.0).left_s
(True, 200.0)
>>> clock.pause(1700.0); clock.resume(2700.0)         # an hour's pause does not count
>>> clock.reading(2900.0).level_number, clock.reading(2900.0).level
(2, BlindLevel(small_blind=50, big_blind=100, ante=0, duration_s=600))
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import TournamentError
from engine.tournament.config import BlindLevel, Stage

__all__ = ["Clock", "ClockReading", "TableLevel"]


@dataclass(frozen=True, slots=True)
class ClockReading:
    """The clock at one moment: the stage (index into the schedule), the level of play (None on a
    break: the level before it is `level_number`), the seconds left in the stage (None in the last
    level), the next level of play, whether it is running."""

    stage: int
    level_number: int
    level: BlindLevel | None
    left_s: float | None
    next_level: BlindLevel | None
    running: bool

    @property
    def on_break(self) -> bool:
        return self.level is None


class Clock:
    """The clock of one tournament over its `stages` (levels and breaks, as the file gives them)."""

    def __init__(self, stages: tuple[Stage, ...]) -> None:
        if not stages or not isinstance(stages[-1], BlindLevel):
            raise TournamentError("a clock needs a schedule ending with a level of play")
        self.stages = stages
        self._banked = 0.0            # seconds played before the current run
        self._since: float | None = None
        self._started = False

    def start(self, now: float) -> None:
        """Start the clock at level 1. Raises TournamentError when it was started already."""
        if self._started:
            raise TournamentError("the clock is already started")
        self._started = True
        self._since = now

    def pause(self, now: float) -> None:
        """Stop the clock (the director's pause). Raises TournamentError when it is not running."""
        if self._since is None:
            raise TournamentError("the clock is not running")
        self._banked = self.played(now)
        self._since = None

    def resume(self, now: float) -> None:
        """Run the clock again. Raises TournamentError when it is running or was never started."""
        if not self._started or self._since is not None:
            raise TournamentError("the clock is not paused")
        self._since = now

    def adjust(self, now: float, seconds: float) -> None:
        """Give the stage in progress `seconds` more time (fewer when negative). Raises TournamentError
        when that would leave no time in it or more than its whole duration, or in the last level."""
        reading = self.reading(now)
        if reading.left_s is None:
            raise TournamentError("the last level lasts for ever: nothing to adjust")
        left = reading.left_s + seconds
        if not 0 < left <= self.stages[reading.stage].duration_s:
            raise TournamentError(f"the stage would have {left:g} s left, not within its "
                                  f"{self.stages[reading.stage].duration_s} s")
        self._banked -= seconds

    def played(self, now: float) -> float:
        """Seconds of tournament time played (pauses left out). Raises TournamentError for a `now`
        before the run began."""
        if self._since is None:
            return self._banked
        if now < self._since:
            raise TournamentError(f"time went backwards: {now} before {self._since}")
        return self._banked + (now - self._since)

    def reading(self, now: float) -> ClockReading:
        """The clock at `now`."""
        t = self.played(now)
        level_number = 0
        for i, stage in enumerate(self.stages):
            last = i == len(self.stages) - 1
            if isinstance(stage, BlindLevel):
                level_number += 1
            if last or t < stage.duration_s:
                nxt = next((s for s in self.stages[i + 1:] if isinstance(s, BlindLevel)), None)
                return ClockReading(i, level_number, stage if isinstance(stage, BlindLevel) else None,
                                    None if last else stage.duration_s - t, nxt, self._since is not None)
            t -= stage.duration_s
        raise AssertionError("unreachable: the last stage is a level")  # pragma: no cover

    def level_at(self, now: float) -> BlindLevel | None:
        """The level a hand begun at `now` is played at; None on a break (no hand is begun)."""
        return self.reading(now).level


class TableLevel:
    """One table's level: a hand keeps the level it began with; a new one takes effect at the next hand."""

    def __init__(self) -> None:
        self.level: BlindLevel | None = None
        self.level_number = 0
        self.in_hand = False

    def begin_hand(self, clock: Clock, now: float) -> BlindLevel:
        """The level of the hand begun now. Raises TournamentError on a break or during a hand."""
        if self.in_hand:
            raise TournamentError("a hand is in progress: the level changes at the next hand")
        reading = clock.reading(now)
        if reading.level is None:
            raise TournamentError(f"on a break ({reading.left_s:g} s left): no hand is begun")
        self.level, self.level_number, self.in_hand = reading.level, reading.level_number, True
        return reading.level

    def end_hand(self) -> None:
        self.in_hand = False
