"""The chip reader's debounce, on a fake clock: K consecutive inventories in and out, the settle time, lost scans."""

from __future__ import annotations

import pytest

from drivers.chip_debounce import AntennaDebounce
from drivers.readings import ChipsRead

A, B, C = "E004010000000001", "E004010000000002", "E004010000000003"


class Scans:
    """An antenna's debounce fed numbered scans, one every `period` seconds of a fake clock."""

    def __init__(self, confirm: int = 3, settle_s: float = 0.3, period: float = 0.1, first_scans: int | None = None) -> None:
        """`first_scans`: the first reading's inventories (K here unless given, the debounce's default when 0)."""
        self.debounce = AntennaDebounce("spot2.ante", confirm, settle_s,
                                        first_scans=confirm if first_scans is None else (first_scans or None))
        self.now = 0.0
        self.scan = 0
        self.period = period
        self.reported: list[ChipsRead] = []

    def read(self, *uids: str, skip: int = 0) -> ChipsRead | None:
        self.now += self.period * (1 + skip)
        self.scan = (self.scan + 1 + skip) % 65536
        reading = self.debounce.inventory(uids, self.now, self.scan)
        if reading is not None:
            self.reported.append(reading)
        return reading

    @property
    def changes(self) -> list[ChipsRead]:
        """The changes reported (the stable flags left out)."""
        return [r for r in self.reported if not r.stable]

    def wait(self, seconds: float) -> ChipsRead | None:
        self.now += seconds
        reading = self.debounce.poll(self.now)
        if reading is not None:
            self.reported.append(reading)
        return reading


def test_the_first_reading_comes_after_k_inventories_even_when_empty() -> None:
    s = Scans(confirm=3)
    assert s.read() is None and s.read() is None
    assert s.read() == ChipsRead("spot2.ante", frozenset(), False)
    assert s.wait(0.29) is None
    assert s.wait(0.02) == ChipsRead("spot2.ante", frozenset(), True)
    assert s.wait(5) is None  # said once


def test_the_first_reading_takes_every_chip_seen_in_k_of_its_scans_and_not_missed_k_running_at_its_end() -> None:
    s = Scans(confirm=3, first_scans=0)  # the default: 3 K = 9 scans
    assert s.debounce.first_scans == 9
    reads = [(A, B, C), (A, C), (A, B, C), (A,), (A, B), (A, C), (A,), (A,), (A, B)]  # C gone 3 scans
    assert [s.read(*r) for r in reads[:-1]] == [None] * 8
    assert s.read(*reads[-1]) == ChipsRead("spot2.ante", frozenset({A, B}), False)  # B seen 4 times, never 3 running
    s.reported.clear()
    s.read(A)
    s.read(A)
    assert s.changes == []  # B missed twice since the first reading: still in
    assert s.read(A) == ChipsRead("spot2.ante", frozenset({A}), False)  # missed 3 running: out


def test_a_chip_missed_at_the_first_readings_end_is_counted_out_with_the_misses_it_had() -> None:
    s = Scans(confirm=3, first_scans=6)
    for r in [(A, B), (A, B), (A, B), (A, B), (A,), (A,)]:
        s.read(*r)
    assert s.reported[-1].uids == frozenset({A, B})  # seen 4 times, missed the last 2: in, for now
    assert s.read(A) == ChipsRead("spot2.ante", frozenset({A}), False)  # its third miss running


def test_a_tall_column_opens_with_every_chip_though_each_scan_misses_some() -> None:
    """The tray's opening: 20 chips, each missed one scan in three at random; the first reading (the
    default 12 scans for K = 4) has them all, and so K = 4 scans alone, as before, would not."""
    import random
    rng = random.Random(7)
    column = [f"E0040100000000{n:02X}" for n in range(20)]
    scans = [[uid for uid in column if rng.random() > 0.3] for _ in range(12)]
    s = Scans(confirm=4, first_scans=0)
    for uids in scans:
        s.read(*uids)
    assert s.reported == [ChipsRead("spot2.ante", frozenset(column), False)]
    k = Scans(confirm=4)
    for uids in scans[:4]:
        k.read(*uids)
    assert len(k.reported[-1].uids) < 20


def test_a_chip_is_in_after_k_consecutive_reads_and_out_after_k_consecutive_misses() -> None:
    s = Scans(confirm=3)
    for _ in range(3):
        s.read()
    s.wait(1)
    assert s.read(A) is None and s.read(A) is None
    assert s.read(A) == ChipsRead("spot2.ante", frozenset({A}), False)
    s.reported.clear()
    s.read(A)
    s.read()
    s.read()
    assert s.changes == []  # missed twice: still in
    assert s.read() == ChipsRead("spot2.ante", frozenset(), False)


def test_a_read_broken_by_a_miss_starts_counting_again() -> None:
    s = Scans(confirm=3)
    for _ in range(3):
        s.read(A)
    s.reported.clear()
    s.read(A, B)
    s.read(A, B)
    s.read(A)       # B missed once: its run of two is gone
    s.read(A, B)
    s.read(A, B)
    assert s.changes == []
    assert s.read(A, B) == ChipsRead("spot2.ante", frozenset({A, B}), False)


def test_stable_only_once_unchanged_for_the_settle_time() -> None:
    s = Scans(confirm=2, settle_s=0.5)
    s.read(A)
    assert s.read(A) == ChipsRead("spot2.ante", frozenset({A}), False)
    s.read(A, B)  # 0.1 s after the change
    assert s.read(A, B) == ChipsRead("spot2.ante", frozenset({A, B}), False)  # a new change: the settle starts again
    assert s.wait(0.45) is None
    assert s.debounce.due(s.now) == pytest.approx(0.05)
    assert s.wait(0.05) == ChipsRead("spot2.ante", frozenset({A, B}), True)
    assert s.debounce.due(s.now) is None
    assert s.read(A, B) is None and s.read(A, B, C) is None  # reads that change nothing say nothing


def test_a_lost_scan_restarts_the_runs() -> None:
    s = Scans(confirm=3)
    for _ in range(3):
        s.read(A)
    s.reported.clear()
    s.read(A, B)
    s.read(A, B)
    s.read(A, B, skip=1)  # scan lost between: B's three reads are not consecutive
    assert s.changes == [] and s.debounce.gaps == 1
    s.read(A, B)
    assert s.read(A, B) == ChipsRead("spot2.ante", frozenset({A, B}), False)


def test_scan_numbers_wrap() -> None:
    s = Scans(confirm=2)
    s.scan = 65534
    s.read(A)
    assert s.read(A) is not None and s.scan == 0
    assert s.debounce.gaps == 0


def test_a_reconnected_reader_keeps_the_reading_and_counts_afresh() -> None:
    s = Scans(confirm=2)
    s.read(A)
    s.read(A)
    s.debounce.reconnected()
    s.scan = 500  # the board restarted its numbering
    assert s.read() is None and s.debounce.gaps == 0
    assert s.read() == ChipsRead("spot2.ante", frozenset(), False)


def test_a_tall_stack_read_with_misses_keeps_every_chip() -> None:
    """Twenty chips, each missed in every other scan (a run of one miss, never K): the reading
    never changes; one chip missed K scans running is out."""
    stack = [f"E0040100000000{n:02X}" for n in range(20)]
    s = Scans(confirm=3)
    for _ in range(3):
        s.read(*stack)
    assert s.reported[-1].uids == frozenset(stack)
    s.reported.clear()
    for scan in range(100):
        s.read(*[uid for n, uid in enumerate(stack) if (n + scan) % 2])
    assert s.changes == []
    for _ in range(3):
        s.read(*stack[1:])
    assert s.changes == [ChipsRead("spot2.ante", frozenset(stack[1:]), False)]


def test_a_reconnected_readers_unchanged_reading_is_said_again_once_confirmed() -> None:
    s = Scans(confirm=2, settle_s=0.2)
    s.read(A)
    s.read(A)
    s.wait(1)
    s.reported.clear()
    s.debounce.reconnected()
    assert s.read(A) is None
    assert s.read(A) == ChipsRead("spot2.ante", frozenset({A}), False)
    assert s.wait(0.25) == ChipsRead("spot2.ante", frozenset({A}), True)
    assert s.read(A) is None and s.read(A) is None  # said once


@pytest.mark.parametrize("confirm,settle,first", [(0, 0.3, None), (3, -1.0, None), (3, 0.3, 2)])
def test_bad_settings_are_refused(confirm: int, settle: float, first: int | None) -> None:
    with pytest.raises(ValueError):
        AntennaDebounce("tray", confirm, settle, first_scans=first)


def test_a_tray_chip_missed_k_scans_running_stays_and_3_k_takes_it_out() -> None:
    """A circle's chip is out after K misses running; the tray's only after 3 K (its columns' top chips are missed
    K running now and then, and a tray chip shown gone that is not is a difference flagged)."""
    circle = Scans(confirm=3)
    tray = Scans(confirm=3)
    tray.debounce = AntennaDebounce("tray", 3, 0.3, first_scans=3)
    assert tray.debounce.confirm_out is None and circle.debounce.confirm_out is None
    for s in (circle, tray):
        for _ in range(3):
            s.read(A, B)
        s.reported.clear()
        for _ in range(3):
            s.read(A)
    assert circle.changes == [ChipsRead("spot2.ante", frozenset({A}), False)]
    assert tray.changes == []  # missed 3 running: still in the tray
    for _ in range(5):
        tray.read(A)
    assert tray.changes == []
    assert tray.read(A) == ChipsRead("tray", frozenset({A}), False)  # the ninth miss running: gone
    assert AntennaDebounce("tray", 3, 0.3, confirm_out=3)._out == 3  # as a board's settings may set it
