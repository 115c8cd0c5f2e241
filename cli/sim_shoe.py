"""`croupier sim-shoe`: run the emulated card-reading shoe on a pty or a TCP port, with its control port."""

from __future__ import annotations

import argparse
import functools

from cli.sim_device import add_identity_arguments, add_link_arguments, serve, start
from sim.shoe import ShoeFirmware, SimShoeServer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_link_arguments(parser, "the dealer's draws and fault injection")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: random)")
    parser.add_argument("--heartbeat", type=float, default=0.5, help="seconds between heartbeats when idle")
    parser.add_argument("--retry", type=float, default=0.2, help="seconds before an unacknowledged frame is resent")
    add_identity_arguments(parser, "CR-SIM")


def main(args: argparse.Namespace) -> int:
    """Print one JSON line `{"port": ..., "control": "host:port", ...}` once serving; run until SIGTERM/SIGINT.

    Exits 2, with one line naming the option and the address, when `--tcp` or `--control` cannot be listened on."""
    boot = start(args, "sim-shoe")
    firmware = ShoeFirmware(seed=args.seed, model=args.model, serial=args.serial, firmware=args.firmware,
                            boot=boot, heartbeat_s=args.heartbeat, retry_s=args.retry)
    return serve(args, "sim-shoe", functools.partial(SimShoeServer, firmware),
                 {"seed": args.seed, "boot": boot, "firmware": ".".join(map(str, args.firmware))})
