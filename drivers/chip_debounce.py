"""The chip reader's debounce: one antenna's raw inventories in, its debounced chips and their stable flag out (the time passed in).

RFID reads miss chips, the more the taller the stack (the top chips are farther from the antenna
and the chips' coils detune each other), so one inventory is never taken as the truth:

- a chip is **in** once seen in `confirm` (K) consecutive inventories, and **out** once missing
  from K consecutive inventories (`confirm_out`: the tray's chips 3 K, below); a chip seen or missed
  fewer times leaves the reading as it was;
- the tray's chips lie in tall columns all shift, nothing is taken from it in the play's haste, and a
  chip it shows gone that is not is a tray difference flagged: its chips go **out** only after 3 K
  misses running (TRAY_OUT; 1.2 s at K = 4, where the top chip of a 20-chip column, missed one scan
  in ten, was taken out for a moment about every half minute by K misses alone);
- an antenna's first reading is made over its first `first_scans` inventories (FIRST_SCANS K by
  default): the chips seen in at least K of them and not missed in the last K (reported even when
  it holds none: the controller then knows the circle is empty). A tray's opening inventory is its
  first reading, and a chip high in a tall column may be missed in one of any K scans running: it
  must not be left out of the opening, to be counted in a second later as chips come from nowhere.
  When the reader comes back (`reconnected`) its reading is said again once K scans confirm it,
  changed or not, so the controller knows its readings are current again;
- the reading is **stable** once it has not changed for `settle_s`; each change is reported
  unstable first (`ChipsRead(..., stable=False)`), then stable when the settle time has passed
  (`poll`). Nothing else is reported: an inventory that changes neither is None;
- the inventories counted must be consecutive scans: when a scan number is skipped (a frame lost
  on the line) the runs of seen and missed start again, because what that scan read is unknown.

No clock of its own: every call takes `now`, so tests drive a fake clock.

>>> d = AntennaDebounce("spot1.ante", confirm=2, settle_s=0.5, first_scans=3)
>>> d.inventory({"E004010000000001"}, 0.0, scan=1) is None
True
>>> d.inventory(set(), 0.1, scan=2) is None  # missed once
True
>>> d.inventory({"E004010000000001"}, 0.2, scan=3)  # seen in 2 of the first 3
ChipsRead(antenna='spot1.ante', uids=frozenset({'E004010000000001'}), stable=False, device='chips')
>>> d.poll(0.6) is None, d.poll(0.8).stable
(True, True)
>>> d.inventory(set(), 0.9, scan=4) is None  # missed once: still there
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

from drivers.readings import ChipsRead

SCANS = 65536
"""INVENTORY's `scan` counts modulo this (16 bits)."""
CONFIRM = 4
"""K by default: at 10 scans a second, a chip is in or out 0.4 s after it was put or taken."""
SETTLE_S = 0.3
"""The settle time by default: a reading is stable once unchanged this long."""
TRAY = "tray"
"""The tray's antenna (`drivers.chip_protocol`: the one antenna that is not a circle)."""
TRAY_OUT = 3
"""The misses running that take a chip out of the tray, in Ks (a circle's: K)."""
FIRST_SCANS = 3
"""The first reading's inventories by default, in Ks: 12 scans (1.2 s at 10 a second) for K = 4. A chip
read nine scans in ten (the top of a 20-chip column) is in 4 of 12 all but always (1 in 10 million)."""


@dataclass
class AntennaDebounce:
    """One antenna's debounced chips. `inventory(uids, now, scan)` for each scan read, `poll(now)`
    between; each returns the ChipsRead to report, or None."""

    antenna: str
    confirm: int = CONFIRM
    settle_s: float = SETTLE_S
    device: str = "chips"
    first_scans: int | None = None  # the first reading's inventories (None: FIRST_SCANS * confirm)
    confirm_out: int | None = None  # the misses running that take a chip out (None: K, the tray's TRAY_OUT K)

    chips: frozenset[str] | None = None  # the debounced reading; None until the first is made
    stable: bool = False
    gaps: int = 0                        # scans skipped (frames lost before they reached us)
    _seen: dict[str, int] = field(default_factory=dict, repr=False)    # a chip not in: the scan its run of reads began
    _missed: dict[str, int] = field(default_factory=dict, repr=False)  # a chip in: the scan its run of misses began
    _scans: int = field(default=0, init=False, repr=False)  # the scans taken: the runs' clock (`_seen`, `_missed`)
    next_end: int = field(default=0, init=False, repr=False)  # the scan (`_scans`) at which the first run ends; 0: none
    # runs, no chip is counted in or out (read where the chip link's quiet scans are taken, at every frame)
    _confirming: bool = True             # the first reading (or the one after a reconnection) to come
    _first: int = 0                      # inventories towards it
    _out: int = field(default=0, init=False, repr=False)  # the misses running that take a chip out, resolved
    _tally: dict[str, list[int]] = field(default_factory=dict, repr=False)  # the first's: uid -> [seen, misses since]
    _last_scan: int | None = None
    _changed_at: float = 0.0

    def __post_init__(self) -> None:
        if self.confirm < 1:
            raise ValueError(f"confirm must be at least 1, not {self.confirm}")
        if self.settle_s < 0:
            raise ValueError(f"settle_s must be at least 0, not {self.settle_s}")
        if self.first_scans is None:
            self.first_scans = FIRST_SCANS * self.confirm
        self._out = self.confirm * (TRAY_OUT if self.antenna == TRAY else 1) if self.confirm_out is None else self.confirm_out
        if self._out < 1:
            raise ValueError(f"confirm_out must be at least 1, not {self._out}")
        if self.first_scans < self.confirm:
            raise ValueError(f"first_scans must be at least confirm ({self.confirm}), not {self.first_scans}")

    def inventory(self, uids: Iterable[str], now: float, scan: int | None = None) -> ChipsRead | None:
        """Take one scan's read (`scan`: its number, None when the reader does not number them)."""
        if scan is not None:
            if self._last_scan is not None and (scan - self._last_scan) % SCANS != 1:
                self.gaps += 1
                self._seen.clear()
                self._missed.clear()
                self.next_end = 0
                self._tally.clear()
                self._first = 0
            self._last_scan = scan
        read = frozenset(uids)
        self._scans = at = self._scans + 1
        if self.chips is None:
            return self._first_inventory(read, now)
        current = self.chips
        seen, missed = self._seen, self._missed  # a run going on keeps its start, one begun starts at this scan
        self._seen = {uid: seen.get(uid, at) for uid in read - current} if seen else dict.fromkeys(read - current, at)
        self._missed = ({uid: missed.get(uid, at) for uid in current - read} if missed
                        else dict.fromkeys(current - read, at))
        self._ends()
        restate = self._confirming
        if restate:
            self._first += 1
            if self._first < self.confirm:
                return None
            self._confirming = False
        return self._runs_end(now, restate)

    def _ends(self) -> None:
        """`next_end`: the scan at which the first run of reads or misses reaches its count (0 when none runs)."""
        seen, missed = self._seen, self._missed
        if seen and missed:
            self.next_end = min(min(seen.values()) + self.confirm, min(missed.values()) + self._out) - 1
        else:
            self.next_end = (min(seen.values()) + self.confirm - 1 if seen
                             else min(missed.values()) + self._out - 1 if missed else 0)

    def _runs_end(self, now: float, restate: bool = False) -> ChipsRead | None:
        """The runs counted to this scan: the chips read K scans running are in, those missed out; the reading
        when it changed (or is to be said again: `restate`), else the stable flag when due."""
        at = self._scans
        if not restate and (not self.next_end or at < self.next_end):  # no run ends at this scan
            return self.poll(now)
        arrived = self._run_ends(self._seen, at - self.confirm + 1)  # a run that began by then has its count
        left = self._run_ends(self._missed, at - self._out + 1)
        self._ends()
        if not restate and not arrived and not left:
            return self.poll(now)
        self.chips = (cast(frozenset[str], self.chips) | arrived) - left
        self.stable = False
        self._changed_at = now
        return ChipsRead(self.antenna, self.chips, False, self.device)

    @staticmethod
    def _run_ends(runs: dict[str, int], began: int) -> frozenset[str]:
        """The chips whose run in `runs` began by scan `began` (has its count), taken out of `runs`: all of them at
        once when every run did (a stack placed or taken at once, its chips counted together)."""
        if not runs:
            return frozenset()
        if max(runs.values()) <= began:
            ended = frozenset(runs)
            runs.clear()
            return ended
        ended = frozenset([uid for uid, start in runs.items() if start <= began])
        for uid in ended:
            del runs[uid]
        return ended

    def _first_inventory(self, read: frozenset[str], now: float) -> ChipsRead | None:
        """One of the first reading's inventories: tallied; the reading made at the last of them."""
        at = self._scans
        self._seen = {uid: self._seen.get(uid, at) for uid in read}  # runs going on past the first reading
        for uid, tally in self._tally.items():
            tally[1] = 0 if uid in read else tally[1] + 1
        for uid in read:
            self._tally.setdefault(uid, [0, 0])[0] += 1
        self._first += 1
        assert self.first_scans is not None
        if self._first < self.first_scans:
            return None
        k, out = self.confirm, self._out
        self.chips = frozenset(uid for uid, (seen, since) in self._tally.items() if seen >= k and since < out)
        self._seen = {uid: start for uid, start in self._seen.items() if uid not in self.chips}
        self._missed = {uid: at - since + 1 for uid, (_, since) in self._tally.items() if uid in self.chips and since}
        self._tally.clear()
        self._ends()
        self._confirming = False
        self.stable = False
        self._changed_at = now
        return ChipsRead(self.antenna, self.chips, False, self.device)

    @property
    def counting(self) -> bool:
        """Chips are being counted in or out (a run of reads or misses goes on)."""
        return bool(self._seen or self._missed)  # (`next_end` says it too, but for a first reading's tally)

    def runs(self) -> tuple[dict[str, int], dict[str, int]]:
        """`(reads, misses)`: the scans running each chip not in was read, each chip in missed, to this scan."""
        at = self._scans + 1
        return {uid: at - start for uid, start in self._seen.items()}, {uid: at - s for uid, s in self._missed.items()}

    def quiet_scan(self, scan: int, now: float) -> ChipsRead | bool:
        """Take scan number `scan` when it reads what the scan before it read: it follows that scan and no first
        reading is being confirmed. Then every run of reads or misses goes on (the same chips read, the same
        missed) and none begins or breaks, so all `inventory` would do is count the scan, end the runs that reach
        their count and report the reading or the stable flag; this does that without a read to compare, and
        looks at the runs only at the scan the first of them ends (`next_end`): the K scans of a stack placed cost
        a compare each, not a pass over its chips. False when the scan is not such a one (nothing taken: give it
        to `inventory`); else the reading it changed or the stable flag when now due, or True."""
        last = self._last_scan
        if self._confirming or last is None or (scan - last) % SCANS != 1:
            return False
        self._last_scan = scan
        if self.next_end:
            self._scans += 1
            return self._runs_end(now) or True
        if self.stable:
            return True
        return self.poll(now) or True

    def reconnected(self) -> None:
        """The reader came back (or restarted): its scans are numbered afresh and what it read meanwhile
        is unknown, so the runs start again; the reading stands, and is said again (changed or not)
        once K scans confirm it."""
        self._last_scan = None
        self._seen.clear()
        self._missed.clear()
        self.next_end = 0
        self._tally.clear()
        self._first = 0
        self._confirming = True

    def poll(self, now: float) -> ChipsRead | None:
        """The stable flag, when the reading has now been unchanged for the settle time."""
        if self.chips is None or self.stable or now - self._changed_at < self.settle_s - 1e-9:  # (`due` added to now, rounded)
            return None
        self.stable = True
        return ChipsRead(self.antenna, self.chips, True, self.device)

    def due(self, now: float) -> float | None:
        """Seconds until `poll` has a stable flag to report, None when it has none coming."""
        if self.chips is None or self.stable:
            return None
        return max(0.0, self._changed_at + self.settle_s - now)
