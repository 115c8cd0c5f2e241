"""`croupier sim-chips`: run the emulated chip reader board on a pty or a TCP port, with its control port."""

from __future__ import annotations

import argparse
import functools

from cli.sim_device import add_identity_arguments, add_link_arguments, serve, start
from sim.chips.board import MISS_RATE, ChipBoardFirmware, ChipBoardServer, layout


def _game(text: str) -> str:
    try:
        layout(text, 1)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 0.5:
        raise argparse.ArgumentTypeError(f"not a miss rate between 0 and 0.5: {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.01 <= value <= 60:
        raise argparse.ArgumentTypeError(f"not a number of seconds between 0.01 and 60: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_link_arguments(parser, "placing and taking chips and injecting faults")
    parser.add_argument("--game", type=_game, default="uth",
                        help="the table's game, for the antennas: each spot's bet circles and Play, then the tray "
                             "(uth or 3cp; default uth)")
    parser.add_argument("--spots", type=int, choices=range(1, 8), default=7, metavar="N",
                        help="spots at the table, 1..7 (default 7)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the misses (default: random)")
    parser.add_argument("--miss-rate", type=_rate, default=MISS_RATE,
                        help=f"chance a scan misses a chip, for each chip below it in its stack (default {MISS_RATE})")
    parser.add_argument("--period", type=_seconds, default=0.1,
                        help="seconds between scans of every antenna, each sent as INVENTORY (default 0.1)")
    parser.add_argument("--heartbeat", type=_seconds, default=0.5, help="seconds between heartbeats when idle")
    add_identity_arguments(parser, "CB-SIM")


def main(args: argparse.Namespace) -> int:
    """Print one JSON line `{"port": ..., "control": "host:port", "antennas": [...], ...}` once serving;
    run until SIGTERM/SIGINT. Exits 2, with one line naming the option and the address, when
    `--tcp` or `--control` cannot be listened on."""
    boot = start(args, "sim-chips")
    antennas = layout(args.game, args.spots)
    firmware = ChipBoardFirmware(seed=args.seed, antennas=antennas, model=args.model, serial=args.serial,
                                 firmware=args.firmware, boot=boot, period_s=args.period,
                                 heartbeat_s=args.heartbeat, miss_rate=args.miss_rate)
    return serve(args, "sim-chips", functools.partial(ChipBoardServer, firmware),
                 {"seed": args.seed, "boot": boot, "firmware": ".".join(map(str, args.firmware)),
                  "antennas": [name for _, name in antennas]})
