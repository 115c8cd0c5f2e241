"""`croupier sim-shoe`: run the emulated card-reading shoe on a pty or a TCP port, with its control port."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading

from drivers.gpio_sim import parse_address
from sim.shoe import CannotListen, ShoeFirmware, SimShoeServer


def _version(text: str) -> tuple[int, int, int]:
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() and int(p) < 256 for p in parts):
        raise argparse.ArgumentTypeError(f"not a firmware version MAJOR.MINOR.PATCH: {text!r}")
    return int(parts[0]), int(parts[1]), int(parts[2])


def _address(text: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    link = parser.add_mutually_exclusive_group()
    link.add_argument("--pty", action="store_true", help="serve on a new pty (the default); its path is printed")
    link.add_argument("--tcp", type=_address, metavar="HOST:PORT",
                      help="serve on a TCP port instead (the host opens socket://HOST:PORT; port 0 picks one)")
    parser.add_argument("--control", type=_address, default=("127.0.0.1", 0), metavar="HOST:PORT",
                        help="the control port for the dealer's draws and fault injection (default 127.0.0.1:0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: random)")
    parser.add_argument("--model", default="CR-SIM", help="model name said in HELLO")
    parser.add_argument("--serial", default="SIM0001", help="serial number said in HELLO")
    parser.add_argument("--firmware", type=_version, default=(1, 0, 0), metavar="X.Y.Z",
                        help="firmware version said in HELLO (default 1.0.0; major 2 is refused by the host)")
    parser.add_argument("--boot", type=int, default=None, help="boot id said in HELLO (default: random)")
    parser.add_argument("--heartbeat", type=float, default=0.5, help="seconds between heartbeats when idle")
    parser.add_argument("--retry", type=float, default=0.2, help="seconds before an unacknowledged frame is resent")
    parser.add_argument("--baud", type=int, default=None,
                        help="pace the output as a serial line of this rate would (e.g. 115200; default unpaced)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to standard error")


def main(args: argparse.Namespace) -> int:
    """Print one JSON line `{"port": ..., "control": "host:port", ...}` once serving; run until SIGTERM/SIGINT.

    Exits 2, with one line naming the option and the address, when `--tcp` or `--control` cannot be listened on."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s sim-shoe %(levelname)s %(message)s")
    boot = args.boot if args.boot is not None else int.from_bytes(os.urandom(4), "big")
    firmware = ShoeFirmware(seed=args.seed, model=args.model, serial=args.serial, firmware=args.firmware,
                            boot=boot, heartbeat_s=args.heartbeat, retry_s=args.retry)
    try:
        if args.tcp is not None:
            server = SimShoeServer(firmware, link="tcp", tcp=args.tcp, control=args.control, baud=args.baud)
        else:
            server = SimShoeServer(firmware, link="pty", control=args.control, baud=args.baud)
    except CannotListen as exc:  # the address in use, or not this machine's: said in one line
        print(f"croupier sim-shoe: --{'tcp' if exc.role == 'link' else 'control'}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    host, port = server.control_address
    print(json.dumps({"port": server.port_url, "control": f"{host}:{port}", "seed": args.seed, "boot": boot,
                      "firmware": ".".join(map(str, args.firmware))}), flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.close()
    return 0
