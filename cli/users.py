"""`croupier users add|list|remove --file FILE`: the users who sign off privileged steps (`[security] users`).

`add NAME --role ROLE` reads the PIN from standard input (one line; asked without echo at a
terminal), never from an argument, and stores only its salted scrypt hash. `list` prints names and
roles. `remove NAME` takes a user out. Exit 0 when done, 1 with a clear message otherwise. The
running controller reads the file again when it changes.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from protocol.access import ROLES
from protocol.users import User, Users, UsersError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = sub.add_parser("add", help="add a user (or give one a new PIN and role); the PIN is read from stdin")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=ROLES)
    remove = sub.add_parser("remove", help="remove a user")
    remove.add_argument("name")
    listing = sub.add_parser("list", help="list the users and their roles")
    for p in (add, remove, listing):
        p.add_argument("--file", required=True, metavar="FILE", help="the users file ([security] users)")


def _read_pin() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("PIN: ")
    return sys.stdin.readline().rstrip("\r\n")


def main(args: argparse.Namespace) -> int:
    try:
        if args.action == "list":
            for user in sorted(Users.load(args.file).by_name.values(), key=lambda u: u.name):
                print(f"{user.name}\t{user.role}")
            return 0
        users = Users.load_or_empty(args.file)
        if args.action == "remove":
            if users.by_name.pop(args.name, None) is None:
                raise UsersError(f"{args.file}: no user {args.name!r}")
            users.save(args.file)
            print(f"removed {args.name}")
            return 0
        user = User.with_pin(args.name, args.role, _read_pin())
        users.by_name[user.name] = user
        users.save(args.file)
        print(f"added {user.name} ({user.role}) to {args.file}")
        return 0
    except UsersError as exc:
        print(f"croupier users: {exc}", file=sys.stderr)
        return 1
