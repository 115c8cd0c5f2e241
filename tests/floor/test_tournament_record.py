"""The tournament record's stage times, replayed from the clock's events: pauses and adjustments counted."""

from __future__ import annotations

from engine.tournament.config import BlindLevel, Break
from floor.tournament_record import stage_times

STAGES = (BlindLevel(25, 50, 0, 600), Break(300), BlindLevel(50, 100, 0, 600))


def test_a_pause_and_an_adjustment_move_the_levels_that_follow() -> None:
    events = [(1, 1000.0, "start", {}), (2, 1050.0, "enter", {"player": "Ann"}), (3, 1300.0, "pause", {}),
              (4, 1400.0, "resume", {}), (5, 1500.0, "adjust", {"seconds": 100})]
    # played 300 s by the pause; 100 s more given at 1500 (300 s left then): level 1 ends at 1800
    assert stage_times(STAGES, events, 2500.0) == [(0, 1000.0, 1800.0), (1, 1800.0, 2100.0), (2, 2100.0, 2500.0)]


def test_a_clock_paused_at_the_end_stays_in_its_stage_and_none_before_the_start() -> None:
    events = [(1, 1000.0, "start", {}), (2, 1200.0, "pause", {})]
    assert stage_times(STAGES, events, 9000.0) == [(0, 1000.0, 9000.0)]
    assert stage_times(STAGES, [(1, 1000.0, "enter", {"player": "Ann"})], 9000.0) == []
