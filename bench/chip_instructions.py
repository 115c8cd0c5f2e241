"""Smart table instructions: what the chip link costs a quiet scan, and the controller a scan's changes, counted by callgrind.

The chip bench's board (`bench/chip_latency.py`: UTH, 7 spots x 4 circles and the tray, the tray's float of
560 chips, every other circle holding a stack of `STACK` chips, nothing missed) scanned `SCANS` times
ahead (in the bench's process), its bytes fed a scan at a time to the controller's side of the link (`drivers.chip_link.ChipSession`:
`receive`, `poll`, `take_readings`, `next_turn`, as `SerialLink.pump` turns it), in a process run twice
under valgrind's callgrind: once taking no scan, once taking them all; the difference over `SCANS` is the
instructions of one quiet scan. Nothing else runs in that process, so the figure is the same at any load
on the machine: where `chip_latency`'s CPU ratio moves more with the load than with a change of the
code, this shows the change. Reported only (the aims are `chip_latency`'s). Needs valgrind. The same scans with
the tray's missing chips at the demo's rate, as a real tray's and `chip_latency`'s do (`TRAY_NAME`), are counted
apart: the tray's INVENTORY then differs scan to scan and takes the link's changed path.

The second figure is the controller's side of a change (`STEP_NAME`): the same table (UTH, 7 spots, the demo set,
the tray's float) on a journal and a feed (inproc sockets), given what the link posts when chips move in one scan,
as the loop drains it (`Controller.handle_readings`): `CIRCLES` circles' stacks of `STACK` placed (their readings,
unstable), settled (their stable flags), taken and settled again, a burst a batch; and one circle alone the same
way. Counted as above, `ROUNDS` rounds against none.

The third is the chip link's side of a change (`LINK_NAME`): the same board's stream, but every `CYCLE` scans after
the first `WARM` the circles holding a stack have it taken off in one scan and put back `CYCLE // 2` scans later,
all 14 at once (a burst) or one alone; the link's instructions on `SCANS` such scans, less those of `SCANS` quiet
ones, over the changes (every scan of a change counted: the K that take it, the first that decodes it).

Run as `python -m bench.chip_instructions N PATH` it is the counted process: N scans of the pickled stream at PATH taken;
`python -m bench.chip_instructions burst|lone N PATH`: N rounds of the controller's steps, its journal in the folder PATH.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import Figure
from sim.chips.board import MISS_RATE

SCANS = 300
"""Scans counted (30 s of the board's)."""
WARM = 100
"""Scans taken first in both runs: the first readings made and settled."""
STACK = 20
"""The chips of a circle's stack (the chip bench's tallest)."""
ANTENNAS = 29
"""7 spots x Ante, Blind, Trips and Play, and the tray."""

ROUNDS = 20
"""Rounds of the controller's steps counted (each: placed, settled, taken, settled)."""
CIRCLES = 21
"""A burst's circles: 7 spots x Ante, Blind and Trips (the bots place every bet at once)."""

NAME = "smart table: user-space instructions of the chip link a scan of 29 antennas, nothing moving (callgrind)"


CYCLE = 20
"""Scans from one taking of the stacks to the next (`scans(moving)`): taken off at the first, put back at the half."""
LINK_NAME = ("smart table: user-space instructions of the chip link a change (callgrind): the 14 stacked circles "
             "taken and put back at once, one alone")


TRAY_NAME = ("smart table: user-space instructions of the chip link a scan of 29 antennas, nothing moving, the tray "
             "missing chips at the demo's rate (callgrind)")


def scans(moving: int = 0, tray_miss: float = 0.0) -> list[tuple[bytes, float]]:
    """The board's bytes: its HELLO, then `WARM + SCANS` scans of every antenna, a tenth of a second apart; after
    `WARM`, the first `moving` stacked circles' stacks taken off every `CYCLE` scans and put back at the half. The
    tray's scans miss chips at `tray_miss` (`ChipBoardFirmware.miss_rate`), the circles' none."""
    from engine.chips import ChipStatus
    from engine.games import MAX_SPOTS
    from sim.chips.board import ChipBoardFirmware, layout
    from sim.chips.hands import tray_float
    from sim.demo_chips import demo_chip_set

    chip_set = demo_chip_set()
    board = ChipBoardFirmware(seed=1, antennas=layout("uth", MAX_SPOTS), miss_rate=tray_miss,
                              missed_on=frozenset({"tray"}), boot=5)
    laid = tray_float(chip_set)
    board.place("tray", laid)
    free = [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE and c.uid not in set(laid)]
    circles = [name for _, name in layout("uth", MAX_SPOTS) if name != "tray"]
    stacks = {name: free[k * STACK:(k + 1) * STACK] for k, name in enumerate(circles[1::2])}
    for name, stack in stacks.items():
        board.place(name, stack)
    board.boot_hello()
    stream = [(board.take_output(), 0.0)]
    now = 0.0
    while len(stream) < 1 + WARM + SCANS:
        phase = (len(stream) - 1 - WARM) % CYCLE if len(stream) > WARM else -1
        for name in list(stacks)[:moving] if phase in (0, CYCLE // 2) else ():
            if phase:
                board.place(name, stacks[name])
            else:
                board.clear(name)
        now += 0.1
        before = board.scans
        board.poll(now)
        if board.scans == before + 1:
            stream.append((board.take_output(), now))
    return stream


def take(n: int, path: str) -> None:
    """The counted process: the board's bytes read from `path`, its HELLO and `WARM` scans taken, then `n` more."""
    from drivers.chip_link import ChipSession
    from sim.chips.bots import SETTLE_MS

    stream = pickle.loads(Path(path).read_bytes())
    session = ChipSession(confirm=4, settle_s=SETTLE_MS / 1000)
    session.connect(0.0)
    for data, now in stream[:1 + WARM + n]:
        session.receive(data, now)
        session.poll(now)
        session.take_readings()
        session.next_turn(now)
    if session.stats.inventories != (WARM + n) * ANTENNAS:
        raise RuntimeError(f"{session.stats.inventories} inventories taken, not {(WARM + n) * ANTENNAS}")
    if "moving" not in path and "missing" not in path and session.stats.repeats < n * ANTENNAS:
        raise RuntimeError(f"{session.stats.repeats} scans taken as repeats, fewer than {n * ANTENNAS}")


STEP_NAME = ("smart table: user-space instructions of the controller's steps a change (callgrind): a burst of "
             f"{CIRCLES} circles a scan, a circle alone")


def steps(n: int, path: str, lone: bool = False) -> None:
    """The counted process of the controller's side: `n` rounds of a burst of `CIRCLES` circles, or (`lone`) of one."""
    import zmq

    from drivers.readings import ChipsRead, DeviceOnline
    from engine.chips import ChipSet, ChipStatus
    from firmware_host.service.controller import Controller
    from firmware_host.service.journal import Journal
    from firmware_host.tables.house.table import HouseSetup
    from protocol.feed import Feed
    from sim.chips.board import layout
    from sim.chips.hands import tray_float
    from sim.demo_chips import demo_chips_csv

    text = demo_chips_csv()
    chip_set = ChipSet.from_csv(text, where="the demo chip set")
    ctx = zmq.Context()
    feed = Feed(ctx, "bench", public="inproc://pub", snapshot="inproc://snap", full="inproc://full",
                full_snapshot="inproc://full-snap")
    c = Controller(Journal.open(Path(path)), default_setup=HouseSetup("uth", "default", {"minimum": 100}, 7), feed=feed,
                   chip_set={"name": "demo.csv", "sha256": chip_set.sha256(), "text": text})
    c.recover()
    laid = tray_float(chip_set)
    c.handle_readings([DeviceOnline("chips", "CB-SIM", "SIM0001", "1.0.0", 1)])
    c.handle_readings([ChipsRead("tray", frozenset(laid), True)])
    free = [chip.uid for chip in chip_set if chip.status is ChipStatus.ACTIVE and chip.uid not in set(laid)]
    circles = [name for _, name in layout("uth", 7) if name != "tray" and not name.endswith(".play")][:CIRCLES]
    stacks = {name: frozenset(free[k * STACK:(k + 1) * STACK]) for k, name in enumerate(circles)}
    names = circles[:1] if lone else circles
    for _ in range(n):
        for placed in (True, False):
            for stable in (False, True):
                c.handle_readings([ChipsRead(name, stacks[name] if placed else frozenset(), stable)
                                   for name in names])
    if c.fault is not None:
        raise RuntimeError(f"the table faulted: {c.fault}")
    c.journal.close()
    feed.close()
    ctx.term()


def _count(n: int, work: Path, mode: str = "", stream_name: str = "scans.pickle") -> int:
    out = work / f"cg.{mode}{n}.{stream_name}"
    stream = work / stream_name
    root = str(Path(__file__).resolve().parents[1])
    args = [str(n), str(stream)] if not mode else [mode, str(n), str(work / f"journal-{mode}{n}")]
    subprocess.run(["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m",
                    "bench.chip_instructions", *args], check=True, cwd=root, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                        **({"PYTHONHASHSEED": "0"} if mode else {})})  # the steps' sets in one order, run to run
    found = re.search(r"^totals: (\d+)", out.read_text(errors="replace"), re.MULTILINE)
    if found is None:
        raise RuntimeError("callgrind wrote no totals")
    return int(found.group(1))


def run() -> list[Figure]:
    if shutil.which("valgrind") is None:
        print("   valgrind is not installed: nothing counted")
        return [Figure.reported(NAME, "not measured (no valgrind)")]
    work = Path(tempfile.mkdtemp(prefix="crp-chipcount-"))
    try:
        (work / "scans.pickle").write_bytes(pickle.dumps(scans()))
        quiet = _count(SCANS, work)
        a_scan = (quiet - _count(0, work)) / SCANS
        changes = []
        for moving in (14, 1):
            (work / f"moving{moving}.pickle").write_bytes(pickle.dumps(scans(moving)))
            changes.append((_count(SCANS, work, stream_name=f"moving{moving}.pickle") - quiet)
                           / (2 * moving * (SCANS // CYCLE)))
        (work / "tray-missing.pickle").write_bytes(pickle.dumps(scans(tray_miss=MISS_RATE)))
        tray_scan = (_count(SCANS, work, stream_name="tray-missing.pickle") - _count(0, work)) / SCANS
        burst, alone = _step_counts(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"   {SCANS} quiet scans of 29 antennas (the tray 560 chips, 14 circles of {STACK}): {a_scan:,.0f} "
          f"instructions a scan in the chip link (user space); load average {os.getloadavg()[0]:.1f}")
    print(f"   the same, the tray's scans missing chips at the demo's rate ({MISS_RATE} a chip below, ~27 of its 560 "
          f"a scan, as a real tray's): {tray_scan:,.0f} instructions a scan")
    print(f"   the controller's steps: {burst:,.0f} instructions a change in a burst of {CIRCLES} circles a scan, "
          f"{alone:,.0f} a circle's change alone (placed, settled, taken, settled: {ROUNDS} rounds each)")
    print(f"   the chip link: {changes[0]:,.0f} instructions a change in a burst of 14 circles, {changes[1]:,.0f} a "
          f"circle's change alone (taken off, put back: {SCANS // CYCLE} cycles of {CYCLE} scans), over quiet scans")
    return [Figure.reported(NAME, f"{a_scan:,.0f}"), Figure.reported(TRAY_NAME, f"{tray_scan:,.0f}"),
            Figure.reported(STEP_NAME, f"{burst:,.0f} a change in a burst, {alone:,.0f} alone"),
            Figure.reported(LINK_NAME, f"{changes[0]:,.0f} a change in a burst, {changes[1]:,.0f} alone")]


def _step_counts(work: Path) -> tuple[float, float]:
    """The instructions of a change in a burst and of a change alone: `ROUNDS` rounds of each, each against none."""
    base, bursts, alone = _count(0, work, "burst"), _count(ROUNDS, work, "burst"), _count(ROUNDS, work, "lone")
    changes = 4 * ROUNDS  # placed, settled, taken, settled
    return (bursts - base) / (changes * CIRCLES), (alone - base) / changes


if __name__ == "__main__":
    if sys.argv[1] in ("burst", "lone"):
        steps(int(sys.argv[2]), sys.argv[3], sys.argv[1] == "lone")
    else:
        take(int(sys.argv[1]), sys.argv[2])
