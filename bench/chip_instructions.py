"""Smart table instructions: what the chip link costs a scan of 29 antennas with nothing moving, counted by callgrind.

The chip bench's board (`bench/chip_latency.py`: UTH, 7 spots x 4 circles and the tray, the tray's float of
560 chips, every other circle holding a stack of `STACK` chips, nothing missed) scanned `SCANS` times
ahead (in the bench's process), its bytes fed a scan at a time to the controller's side of the link (`drivers.chip_link.ChipSession`:
`receive`, `poll`, `take_readings`, `next_turn`, as `ChipLink.pump` turns it), in a process run twice
under valgrind's callgrind: once taking no scan, once taking them all; the difference over `SCANS` is the
instructions of one quiet scan. Nothing else runs in that process, so the figure is the same at any load
on the machine: where `chip_latency`'s CPU ratio moves more with the load than with a change of the
code, this shows the change. Reported only (the aims are `chip_latency`'s). Needs valgrind.

Run as `python -m bench.chip_instructions N PATH` it is the counted process: N scans of the pickled stream at PATH taken.
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

SCANS = 300
"""Scans counted (30 s of the board's)."""
WARM = 100
"""Scans taken first in both runs: the first readings made and settled."""
STACK = 20
"""The chips of a circle's stack (the chip bench's tallest)."""
ANTENNAS = 29
"""7 spots x Ante, Blind, Trips and Play, and the tray."""

NAME = "smart table: user-space instructions of the chip link a scan of 29 antennas, nothing moving (callgrind)"


def scans() -> list[tuple[bytes, float]]:
    """The board's bytes: its HELLO, then `WARM + SCANS` scans of every antenna, a tenth of a second apart."""
    from engine.chips import ChipStatus
    from engine.games import MAX_SPOTS
    from sim.chips.board import ChipBoardFirmware, layout
    from sim.chips.hands import tray_float
    from sim.demo_chips import demo_chip_set

    chip_set = demo_chip_set()
    board = ChipBoardFirmware(seed=1, antennas=layout("uth", MAX_SPOTS), miss_rate=0.0, boot=5)
    laid = tray_float(chip_set)
    board.place("tray", laid)
    free = [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE and c.uid not in set(laid)]
    circles = [name for _, name in layout("uth", MAX_SPOTS) if name != "tray"]
    for k, name in enumerate(circles[1::2]):
        board.place(name, free[k * STACK:(k + 1) * STACK])
    board.boot_hello()
    stream = [(board.take_output(), 0.0)]
    now = 0.0
    while len(stream) < 1 + WARM + SCANS:
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
    if session.stats.repeats < n * ANTENNAS:
        raise RuntimeError(f"{session.stats.repeats} scans taken as repeats, fewer than {n * ANTENNAS}")


def _count(n: int, work: Path) -> int:
    out = work / f"cg.{n}"
    stream = work / "scans.pickle"
    root = str(Path(__file__).resolve().parents[1])
    subprocess.run(["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m",
                    "bench.chip_instructions", str(n), str(stream)], check=True, cwd=root, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")})
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
        a_scan = (_count(SCANS, work) - _count(0, work)) / SCANS
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"   {SCANS} quiet scans of 29 antennas (the tray 560 chips, 14 circles of {STACK}): {a_scan:,.0f} "
          f"instructions a scan in the chip link (user space); load average {os.getloadavg()[0]:.1f}")
    return [Figure.reported(NAME, f"{a_scan:,.0f}")]


if __name__ == "__main__":
    take(int(sys.argv[1]), sys.argv[2])
