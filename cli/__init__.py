"""The `croupier` command line: one subcommand per module, loaded only when called."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from protocol import packages

# name -> (module, one-line help). Each module defines `add_arguments(parser)` and
# `main(args) -> int`; it is imported only when its subcommand runs, so a slow import
# (zmq, serial) never delays `croupier settle`.
COMMANDS: dict[str, tuple[str, str]] = {
    "settle": ("cli.settle", "settle house-game rounds read as JSON Lines on stdin"),
    "math": ("cli.math", "exact house edge of a game's paytables by enumeration"),
    "run": ("cli.run", "run the table controller"),
    "demo": ("cli.demo", "run the simulated table: controller, emulated devices, bots, a view"),
    "watch": ("cli.watch", "show a table's public feed"),
    "display": ("cli.display", "serve a table's pages in the browser: the table display"),
    "history": ("cli.history", "recall the last hands from the journal"),
    "tray": ("cli.tray", "the chip tray's trail hand by hand and the shift's reconciliation, from the journal"),
    "ratings": ("cli.ratings", "the table's player rating sessions and dealer figures, from its journal"),
    "audit": ("cli.audit", "check and read the tamper-evident audit log"),
    "integrity": ("cli.integrity", "sign and verify the manifest of the installed code"),
    "keys": ("cli.keys", "make, list and revoke CURVE certificates"),
    "firewall": ("cli.firewall", "the nftables rules holding each address to a few connections to the table's sockets"),
    "users": ("cli.users", "the users who sign off privileged steps: add, list, remove"),
    "sim-shoe": ("cli.sim_shoe", "run the emulated card-reading shoe"),
    "sim-chips": ("cli.sim_chips", "run the emulated chip reader board (RFID antennas under the circles and the tray)"),
    "phh": ("cli.phh", "poker hand histories: replay and export"),
    "stats": ("cli.stats", "the floor's figures from the archive, and the pit's counts (drop, fills ...)"),
    "tournament": ("cli.tournament", "the tournament director: the clock, the standings, the tables' levels"),
    "floor-sim": ("cli.floor_sim", "simulated tables at K times real time for the pit: real feeds and history, their pit configuration written"),
    "pit": ("cli.pit", "the floor: the pit aggregator (run, reload), its pages in the browser (web) and its archive of every table's hands in PostgreSQL (migrate)"),
}


NEEDS: dict[str, str] = {name: folder for name, folder in (
    ("math", "analysis"), ("demo", "sim"), ("sim-shoe", "sim"), ("sim-chips", "sim"), ("floor-sim", "sim"),
    ("stats", "floor"), ("tournament", "floor"), ("pit", "floor"))}
"""The commands that run elsewhere than on a table's Pi: the top folder each needs (the Pi installs only the
table's folders, `protocol.packages.TABLE`)."""
OPTIONAL: dict[str, str] = {"audit": "floor", "ratings": "floor"}
"""Commands of the table's that read the floor's archive with one option (`croupier audit --against DSN`,
`croupier ratings --db DSN`): they
import the floor only then, and say what to install when it is missing."""
WHERE = {"analysis": "the analysis (an analyst's machine)", "sim": "the simulations (a test machine)",
         "floor": "the floor server (the pit's host)"}


def missing(command: str) -> str | None:
    """Why `command` cannot run in this install (its folder is not installed: a table's Pi), None when it can."""
    folder = NEEDS.get(command)
    if folder is None or importlib.util.find_spec(folder) is not None:
        return None
    return (f"croupier {command} runs where {WHERE[folder]} is installed: this install has only the table's "
            f"folders ({', '.join(packages.installed())})")


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
    if only is not None and (why := missing(only)) is not None:
        print(why, file=sys.stderr)
        return 2
    args = build_parser(only).parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    result: int = module.main(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
