"""`croupier pit migrate --db DSN [--json]`: the floor's pit process and its archive (`docs/floor.md`).

`migrate` applies the archive's schema migrations not applied yet (the versioned SQL files shipped in
`firmware_host/floor/migrations/`), each in its own transaction, and says which; run again it applies
nothing and says so. `--json`: one line, `{"applied": [{"version", "name"}...], "version": V}`.
Exit 1 with a clear message when the server cannot be reached or a migration fails.
Needs the `floor` extra (psycopg): `pip install 'croupier[floor]'`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from firmware_host.cli.output import stdout_closed


def add_migrate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = "apply the archive's schema migrations not applied yet"
    p = sub.add_parser("migrate", help=text, description=text)
    p.add_argument("--db", metavar="DSN", default=os.environ.get("CROUPIER_DB"), required="CROUPIER_DB" not in os.environ,
                   help="the archive's PostgreSQL conninfo or URI (default $CROUPIER_DB)")
    p.add_argument("--json", action="store_true", help="one JSON line")


# action -> (adds its arguments, runs it). `run` (--config) and `reload` are added here beside
# `migrate`, each with its own pair.
ACTIONS: dict[str, tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None],
                         Callable[[argparse.Namespace], int]]] = {}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for add, _ in ACTIONS.values():
        add(sub)


def main(args: argparse.Namespace) -> int:
    try:
        return ACTIONS[args.action][1](args)
    except BrokenPipeError:
        return stdout_closed()


def run_migrate(args: argparse.Namespace) -> int:
    try:
        from firmware_host.floor.archive import ArchiveError
        from firmware_host.floor.migrate import migrate, migrations
    except ImportError as exc:  # the optional `floor` extra is not installed
        print(f"croupier pit: needs the floor extra (pip install 'croupier[floor]'): {exc}", file=sys.stderr)
        return 1
    try:
        done = migrate(args.db)
        version = max((m.version for m in migrations()), default=0)
    except ArchiveError as exc:
        print(f"croupier pit migrate: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"applied": [{"version": m.version, "name": m.name} for m in done], "version": version}))
    elif done:
        for m in done:
            print(f"applied {m.version:04d}_{m.name}.sql")
        print(f"the archive's schema is at version {version}")
    else:
        print(f"nothing to apply: the archive's schema is at version {version}")
    return 0


ACTIONS["migrate"] = (add_migrate, run_migrate)
