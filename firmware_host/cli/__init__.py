"""The `croupier` command line: one subcommand per module, loaded only when called."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Each module defines `add_arguments(parser)` and
# `main(args) -> int`; it is imported only when its subcommand runs, so a slow import
# (zmq, serial) never delays `croupier settle`.
COMMANDS: dict[str, tuple[str, str]] = {
    "settle": ("firmware_host.cli.settle", "settle house-game rounds read as JSON Lines on stdin"),
    "math": ("firmware_host.cli.math", "exact house edge of a game's paytables by enumeration"),
    "run": ("firmware_host.cli.run", "run the table controller"),
    "demo": ("firmware_host.cli.demo", "run the simulated table: controller, emulated devices, bots, a view"),
    "watch": ("firmware_host.cli.watch", "show a table's public feed"),
    "display": ("firmware_host.cli.display", "serve a table's pages in the browser: the table display"),
    "history": ("firmware_host.cli.history", "recall the last hands from the journal"),
    "audit": ("firmware_host.cli.audit", "check and read the tamper-evident audit log"),
    "integrity": ("firmware_host.cli.integrity", "sign and verify the manifest of the installed code"),
    "keys": ("firmware_host.cli.keys", "make, list and revoke CURVE certificates"),
    "users": ("firmware_host.cli.users", "the users who sign off privileged steps: add, list, remove"),
    "sim-shoe": ("firmware_host.cli.sim_shoe", "run the emulated card-reading shoe"),
    "phh": ("firmware_host.cli.phh", "poker hand histories: replay and export"),
    "stats": ("firmware_host.cli.stats", "the floor's figures from the archive, and the pit's counts (drop, fills ...)"),
    "tournament": ("firmware_host.cli.tournament", "the tournament director: the clock, the standings, the tables' levels"),
    "floor-sim": ("firmware_host.cli.floor_sim", "simulated tables at K times real time for the pit: real feeds and history, their pit configuration written"),
    "pit": ("firmware_host.cli.pit", "the floor: the pit aggregator (run, reload) and its archive of every table's hands in PostgreSQL (migrate)"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="croupier", description="Croupier table-game controller")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            importlib.import_module(module_name).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only = next((a for a in argv if not a.startswith("-")), None)
    if only not in COMMANDS:
        only = None
    args = build_parser(only).parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    result: int = module.main(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
