"""The tournament clock: levels by the time played, breaks, pause/resume/adjust; a level changes at the next hand."""

from __future__ import annotations

import pytest

from engine.errors import TournamentError
from engine.tournament import BlindLevel, Clock, TableLevel, parse_tournament
from tests.engine.tournament.helpers import SUNDAY

START = 5000.0   # the caller's clock: any origin


def sunday_clock() -> Clock:
    clock = Clock(parse_tournament(SUNDAY).stages)   # 1200 s, 1200 s, break 600 s, then level 3 for ever
    clock.start(START)
    return clock


def test_the_levels_run_on_the_time_played_and_the_last_lasts_for_ever() -> None:
    clock = sunday_clock()
    r = clock.reading(START)
    assert (r.level_number, r.level, r.left_s, r.next_level) == (1, BlindLevel(25, 50, 0, 1200), 1200.0,
                                                                 BlindLevel(50, 100, 25, 1200))
    assert clock.reading(START + 1199).level_number == 1
    assert clock.reading(START + 1200).level == BlindLevel(50, 100, 25, 1200)
    on_break = clock.reading(START + 2450)
    assert on_break.on_break and on_break.level_number == 2 and on_break.left_s == 550
    assert clock.level_at(START + 2450) is None
    last = clock.reading(START + 10 ** 6)
    assert (last.level_number, last.left_s, last.next_level) == (3, None, None)


def test_a_pause_stops_the_clock_and_resume_runs_it_on() -> None:
    clock = sunday_clock()
    clock.pause(START + 1000)
    assert clock.reading(START + 9000).left_s == 200 and not clock.reading(START + 9000).running
    with pytest.raises(TournamentError, match="not running"):
        clock.pause(START + 9000)
    clock.resume(START + 9000)
    assert clock.reading(START + 9199).level_number == 1
    assert clock.reading(START + 9200).level_number == 2
    with pytest.raises(TournamentError, match="not paused"):
        clock.resume(START + 9300)


def test_the_director_adjusts_the_time_left_in_the_level() -> None:
    clock = sunday_clock()
    clock.adjust(START + 1100, 300)            # 100 s left: now 400
    assert clock.reading(START + 1100).left_s == 400
    assert clock.reading(START + 1499).level_number == 1 and clock.reading(START + 1500).level_number == 2
    clock.adjust(START + 1500, -1000)          # level 2 had 1200 s left: now 200
    assert clock.reading(START + 1700).on_break
    with pytest.raises(TournamentError, match="within its 600 s"):
        clock.adjust(START + 1700, 100)         # the break has its whole 600 s left already
    with pytest.raises(TournamentError, match="would have 0 s left"):
        clock.adjust(START + 1700, -600)


def test_time_going_backwards_and_a_second_start_are_refused() -> None:
    clock = sunday_clock()
    with pytest.raises(TournamentError, match="time went backwards"):
        clock.reading(START - 1)
    with pytest.raises(TournamentError, match="already started"):
        clock.start(START)


def test_a_new_level_takes_effect_at_the_next_hand_a_hand_begun_keeps_its_blinds() -> None:
    clock = sunday_clock()
    table = TableLevel()
    assert table.begin_hand(clock, START + 1190) == BlindLevel(25, 50, 0, 1200)   # 10 s before level 2
    with pytest.raises(TournamentError, match="the level changes at the next hand"):
        table.begin_hand(clock, START + 1250)
    assert table.level == BlindLevel(25, 50, 0, 1200)        # still level 1 while that hand is played
    table.end_hand()
    assert table.begin_hand(clock, START + 1250) == BlindLevel(50, 100, 25, 1200)
    table.end_hand()
    with pytest.raises(TournamentError, match="on a break \\(350 s left\\): no hand is begun"):
        table.begin_hand(clock, START + 2650)
