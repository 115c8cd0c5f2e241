"""Controller instructions: user-space instructions a card while the shoe streams, controller vs its floor peer (callgrind).

The controller bench's run (`bench/controller_latency.py`: the emulated shoe paced at 115,200 baud, the
bot dealer, the same stretches of a 7-spot UTH hand) with the controller and then its floor peer each
run under valgrind's callgrind, counting only while the shoe streams: instrumentation is turned on at
each stretch's `draw` and off once the table has taken its last card (`callgrind_control -i`), and each
stretch's count dumped then (`-d`). The figure is the controller's instructions a card over the peer's:
every thread of each process (ZeroMQ's I/O thread included), user space only (the kernel's work, the
fsync'd commit's above all, is not counted), and the same for any load on the machine: what a change of
the controller's code does to its CPU a card, seen where `controller_latency`'s ratio of CPU times moves
more with the load than with the change. Reported only (the aim is `controller_latency`'s). Needs
valgrind (Debian's `valgrind`); without it the figure says so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench import Figure
from bench.controller_latency import Meter, measure, measure_floor
from bench._units import engine_form

HANDS = 4
"""Hands a side: 96 cards each (callgrind runs a process about 50 times slower: about a minute in all)."""

NAME = "controller: user-space instructions a card while the shoe streams vs the floor peer (callgrind)"


class CountedStretches(Meter):
    """The bench's meter, with callgrind counting the process only inside the stretches it times."""

    def start(self) -> None:
        _control("-i", "on", self.pid)
        super().start()

    def stop(self) -> None:
        super().stop()
        _control("-i", "off", self.pid)
        _control("-d", self.pid)  # this stretch's count written now (the floor peer is killed at its end)


def _control(*args: object) -> None:
    subprocess.run(["callgrind_control", *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False, timeout=60)


def counted(prefix: Path) -> int:
    """The instructions counted in every dump callgrind wrote as `prefix.PID[.N]`."""
    total = 0
    for path in prefix.parent.glob(prefix.name + ".*"):
        found = re.search(r"^totals: (\d+)", path.read_text(errors="replace"), re.MULTILINE)
        total += int(found.group(1)) if found else 0
    return total


def run(hands: int = HANDS) -> list[Figure]:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("   valgrind is not installed: nothing counted")
        return [Figure.reported(NAME, "not measured (no valgrind)")]
    work = Path(tempfile.mkdtemp(prefix="crp-callgrind-"))
    print(f"   the controller runs {engine_form()}", flush=True)
    try:
        counts = []
        for side in ("controller", "floor"):
            under = ("valgrind", "-q", "--tool=callgrind", "--instr-atstart=no",
                     f"--callgrind-out-file={work / side}.%p")
            if side == "controller":
                cards = int(measure(hands, under=under, start_s=600.0, meter=CountedStretches)["cards"])
            else:
                measure_floor(hands, under=under, meter=CountedStretches)
            counts.append(counted(work / side) / cards)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    controller, floor = counts
    print(f"   {hands} hands a side ({cards} cards): the controller {controller:,.0f} instructions a card while the "
          f"shoe streams, its floor peer {floor:,.0f} (user space, every thread); load average "
          f"{os.getloadavg()[0]:.1f}")
    return [Figure.reported(NAME, f"{controller / floor:.2f}x ({controller:,.0f} against {floor:,.0f})")]
