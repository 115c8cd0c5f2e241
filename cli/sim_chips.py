"""`croupier sim-chips`: run the emulated chip reader board on a pty or a TCP port, with its control port."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading

from cli.sim_shoe import _address, _version
from sim.chip_board import MISS_RATE, ChipBoardFirmware, ChipBoardServer, layout
from sim.shoe import CannotListen


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
    link = parser.add_mutually_exclusive_group()
    link.add_argument("--pty", action="store_true", help="serve on a new pty (the default); its path is printed")
    link.add_argument("--tcp", type=_address, metavar="HOST:PORT",
                      help="serve on a TCP port instead (the host opens socket://HOST:PORT; port 0 picks one)")
    parser.add_argument("--control", type=_address, default=("127.0.0.1", 0), metavar="HOST:PORT",
                        help="the control port for placing and taking chips and injecting faults (default 127.0.0.1:0)")
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
    parser.add_argument("--model", default="CB-SIM", help="model name said in HELLO")
    parser.add_argument("--serial", default="SIM0001", help="serial number said in HELLO")
    parser.add_argument("--firmware", type=_version, default=(1, 0, 0), metavar="X.Y.Z",
                        help="firmware version said in HELLO (default 1.0.0; major 2 is refused by the host)")
    parser.add_argument("--boot", type=int, default=None, help="boot id said in HELLO (default: random)")
    parser.add_argument("--baud", type=int, default=None,
                        help="pace the output as a serial line of this rate would (default unpaced)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to standard error")


def main(args: argparse.Namespace) -> int:
    """Print one JSON line `{"port": ..., "control": "host:port", "antennas": [...], ...}` once serving;
    run until SIGTERM/SIGINT. Exits 2, with one line naming the option and the address, when
    `--tcp` or `--control` cannot be listened on."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s sim-chips %(levelname)s %(message)s")
    boot = args.boot if args.boot is not None else int.from_bytes(os.urandom(4), "big")
    antennas = layout(args.game, args.spots)
    firmware = ChipBoardFirmware(seed=args.seed, antennas=antennas, model=args.model, serial=args.serial,
                                 firmware=args.firmware, boot=boot, period_s=args.period,
                                 heartbeat_s=args.heartbeat, miss_rate=args.miss_rate)
    try:
        if args.tcp is not None:
            server = ChipBoardServer(firmware, link="tcp", tcp=args.tcp, control=args.control, baud=args.baud)
        else:
            server = ChipBoardServer(firmware, link="pty", control=args.control, baud=args.baud)
    except CannotListen as exc:  # the address in use, or not this machine's: said in one line
        print(f"croupier sim-chips: --{'tcp' if exc.role == 'link' else 'control'}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    host, port = server.control_address
    print(json.dumps({"port": server.port_url, "control": f"{host}:{port}", "seed": args.seed, "boot": boot,
                      "firmware": ".".join(map(str, args.firmware)), "antennas": [name for _, name in antennas]}),
          flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.close()
    return 0
