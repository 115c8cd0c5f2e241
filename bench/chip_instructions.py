"""Smart table instructions: the controller's user-space instructions a scan with no change, and a circle's change, counted by callgrind.

The chip bench's table (`bench/chip_latency.py`: UTH, 7 spots, the emulated board's 29 antennas scanned
ten times a second, the tray's float of 560 chips laid before the controller starts, every other circle
holding a stack of `STACK` chips) with `croupier run` under valgrind's callgrind, counting only inside
the windows the bench opens (`callgrind_control -i`):

- **quiet**: `QUIET_S` seconds in which no chip moves: the instructions a scan (every antenna's INVENTORY,
  each the same bytes as the one before), from the board's own count of the scans sent in the window;
  the same table without `[chip_reader]` and `[chips]` counted over the same seconds is the peer (its
  instructions a second: the heartbeats, the loop's turns);
- **a change**: a stack of `STACK` chips placed in an empty circle, then taken away, `CHANGES` times each;
  each window lasts until the change and its stable flag are long shown, and the quiet scans it held
  (the board's count times the quiet figure) are taken off: what one circle's change costs the
  controller, its debounce, step, journal row, commit and publishes, and its stable flag's.

Every thread of the process is counted (ZeroMQ's I/O thread included), user space only (the fsync'd
commit's kernel work is not): a change of the code shows here where the chip bench's CPU ratio moves
more with the load than with it. Reported only (the aims are `chip_latency`'s). Needs valgrind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq

from bench import Figure
from bench.controller_latency import PROFILE
from bench.controller_instructions import _control, counted
from cli.demo import croupier_argv
from engine.chips import ChipStatus
from engine.games import MAX_SPOTS
from protocol.commands import CommandClient
from sim.bots import TableEndpoints, write_config
from sim.chip_board import ChipBoardClient, ChipBoardFirmware, ChipBoardServer, layout
from sim.chip_bots import SETTLE_MS, chip_sections, fill_tray
from sim.demo_chips import demo_chip_set
from sim.restarter import end, read_json_line, spawn
from sim.shoe import ShoeFirmware, SimShoeServer

QUIET_S = 8.0
"""Seconds counted with nothing moving (about 80 scans of the 29 antennas)."""
STACK = 20
"""The chips of a stack (the chip bench's tallest)."""
CHANGES = 4
"""Stacks placed, and as many taken away, a run."""
CHANGE_S = 4.0
"""How long a change's window stays open: its K scans, its settle time and the slow-down under valgrind."""
START_S = 600.0
"""The controller's start under callgrind (about 50 times slower than without)."""

NAME_QUIET = "smart table: user-space instructions a scan of 29 antennas, nothing moving (callgrind)"
NAME_CHANGE = "smart table: user-space instructions a circle's change of 20 chips, its stable flag with it (callgrind)"


def _table(run_dir: Path, board: ChipBoardServer | None, shoe: SimShoeServer) -> tuple[subprocess.Popen[bytes], str, Path]:
    """`croupier run` under callgrind, counting nothing yet; its process, its command endpoint and its output prefix."""
    eps = TableEndpoints.tcp()
    extra = chip_sections(board.port_url) if board is not None else ""
    cfg = write_config(run_dir / "bench.toml", endpoints=eps, shoe_url=shoe.port_url, game="uth", table="bench",
                       seats=MAX_SPOTS, heartbeat_s=1.0, extra=extra)
    prefix = run_dir / "callgrind"
    argv = croupier_argv("run", "--config", str(cfg), "--state", str(run_dir / "state"), "--log-level", "WARNING")
    if PROFILE:  # for finding where the time goes (cProfile, not counted)
        argv[1:1] = ["-m", "cProfile", "-o", f"{PROFILE}.{'chips' if board else 'cards'}.{time.monotonic_ns()}"]
    else:
        argv[0:0] = ["valgrind", "-q", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={prefix}.%p"]
    with open(run_dir / "controller.log", "ab") as err:
        proc = spawn(argv, stderr=err)
    read_json_line(proc, START_S, "controller")
    return proc, eps.commands, prefix


def _counted_window(proc: subprocess.Popen[bytes], prefix: Path, work: Any) -> int:
    """The instructions the controller spends while `work()` runs."""
    if PROFILE:
        work()
        return 1
    before = counted(prefix)
    _control("-i", "on", proc.pid)
    work()
    _control("-i", "off", proc.pid)
    _control("-d", proc.pid)
    return counted(prefix) - before


def _shown(client: CommandClient, antenna: str) -> tuple[int, bool]:
    """The circle's value and stable flag on the public state."""
    chips = client.request("state")["state"].get("chips") or {}
    for c in chips.get("circles") or []:
        if f"spot{c['seat']}.{c['circle']}" == antenna:
            return int(c["value"]), bool(c["stable"])
    return 0, True


def _wait_stable(client: CommandClient, antenna: str, value: int) -> None:
    deadline = time.monotonic() + 120.0
    while _shown(client, antenna) != (value, True):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{antenna} never shown {value}, stable: {_shown(client, antenna)}")
        time.sleep(0.5)


def _quiet(proc: subprocess.Popen[bytes], prefix: Path, board: ChipBoardServer | None) -> dict[str, float]:
    """The instructions of `QUIET_S` seconds with nothing moving: a second's, a scan's."""
    scans = board.firmware.scans if board is not None else 0
    count = _counted_window(proc, prefix, lambda: time.sleep(QUIET_S))
    scanned = board.firmware.scans - scans if board is not None else 0
    return {"per_s": count / QUIET_S, "per_scan": count / scanned if scanned else 0.0}


def measure(chips: bool) -> dict[str, float]:
    """One table under callgrind: its instructions a second (and a scan) with nothing moving; with chips, a change's."""
    run_dir = Path(tempfile.mkdtemp(prefix="crp-chipcount-"))
    chip_set = demo_chip_set()
    shoe = SimShoeServer(ShoeFirmware(seed=1, boot=int.from_bytes(os.urandom(4), "big"), heartbeat_s=0.5),
                         link="tcp").start()
    board = ChipBoardServer(ChipBoardFirmware(seed=1, antennas=layout("uth", MAX_SPOTS), miss_rate=0.0,
                                              boot=int.from_bytes(os.urandom(4), "big")), link="tcp").start() if chips else None
    proc = None
    ctx: zmq.Context[Any] = zmq.Context()
    out: dict[str, float] = {}
    try:
        hand = None
        circles = [name for _, name in layout("uth", MAX_SPOTS) if name != "tray"]
        if board is not None:
            fill_tray("%s:%d" % board.control_address, chip_set)
            hand = ChipBoardClient(board.control_address, timeout=10.0)
            lying = {uid for uids in hand.show().values() for uid in uids}
            free = [c.uid for c in chip_set if c.status is ChipStatus.ACTIVE and c.uid not in lying]
            held = circles[1::2]  # every other circle holds a stack
            for n, name in enumerate(held):
                hand.place(name, *free[n * STACK:(n + 1) * STACK])
            first, free = chip_set.value(free[:STACK]), free[len(held) * STACK:]
        proc, commands, prefix = _table(run_dir, board, shoe)
        client = CommandClient(ctx, commands, timeout_s=60.0, name="bench")
        if hand is not None:
            for name in held:  # every antenna's first reading made and stable (the tray's is made with theirs)
                _wait_stable(client, name, first)
            time.sleep(3.0)
        quiet = _quiet(proc, prefix, board)
        if board is not None and hand is not None:
            stack, target = free[:STACK], circles[0]
            value = chip_set.value(stack)
            costs = []
            for _ in range(CHANGES):
                for uids, shows in ((stack, value), ((), 0)):
                    scans = board.firmware.scans

                    def change(uids: tuple[str, ...] | list[str] = uids) -> None:
                        if uids:
                            hand.place(target, *uids)  # type: ignore[union-attr]
                        else:
                            hand.clear(target)  # type: ignore[union-attr]
                        time.sleep(CHANGE_S)
                    costs.append((_counted_window(proc, prefix, change), board.firmware.scans - scans))
                    _wait_stable(client, target, shows)
            time.sleep(2.0)
            again = _quiet(proc, prefix, board)  # the quiet after the changes: the lower of the two is taken
            if again["per_scan"] < quiet["per_scan"]:
                quiet = again
            spent = sorted(count - quiet["per_scan"] * scans for count, scans in costs)
            out["change"] = spent[len(spent) // 2]
            out["change_min"], out["change_max"] = spent[0], spent[-1]
            out["quiet_per_scan"] = quiet["per_scan"]
        out["quiet_per_s"] = quiet["per_s"]
        if hand is not None:
            hand.close()
        client.close()
    finally:
        if proc is not None:
            end(proc, timeout_s=60.0)
        if board is not None:
            board.close()
        shoe.close()
        ctx.destroy(linger=0)
        shutil.rmtree(run_dir, ignore_errors=True)
    return out


def run() -> list[Figure]:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("   valgrind is not installed: nothing counted")
        return [Figure.reported(NAME_QUIET, "not measured (no valgrind)")]
    smart = measure(True)
    plain = measure(False)
    a_second = smart["quiet_per_s"] / plain["quiet_per_s"]
    print(f"   nothing moving: {smart['quiet_per_scan']:,.0f} instructions a scan of 29 antennas, "
          f"{smart['quiet_per_s']:,.0f} a second with chips against {plain['quiet_per_s']:,.0f} without ({a_second:.1f}x); "
          f"a circle's change of {STACK} chips (placed or taken, its stable flag with it), the median of "
          f"{2 * CHANGES}: {smart['change']:,.0f} ({smart['change_min']:,.0f}-{smart['change_max']:,.0f}); "
          f"load average {os.getloadavg()[0]:.1f}")
    return [Figure.reported(NAME_QUIET, f"{smart['quiet_per_scan']:,.0f}"),
            Figure.reported(NAME_CHANGE, f"{smart['change']:,.0f}")]
