"""`croupier pit rating --db DSN --table T --day D` and `croupier pit rating --db DSN --table T --session START --seat N --version V ... --by NAME --users FILE --supervisor NAME`: a past gaming day's rating sessions listed, and one adjusted in the archive, from the pit's terminal.

Listing prints one JSON line a closed session of table T started on gaming day D (`floor.rating_past.day_sessions`:
the card masked, `seat`, `start`, `end`, `hands`, `entered_hands`, `version`, `today`). Adjusting takes what the /pit
dialog takes (`--hands` with `--average-bet` in the table's smallest unit, `--start` in seconds since the epoch,
`--reason`), sent by `--by` (the pit boss at the terminal) and signed off by `--supervisor`, whose PIN is read from
standard input's first line (never an argument: it would show in the process list) and checked against the users
file `--users` (a user of role `supervisor`); it is `floor.rating_past.adjust`'s step (a row lock, the version seen,
the audit line; docs/ratings.md), and prints the session's new report, the card masked. A refusal is said in words on
standard error, exit 1; bad arguments, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from datetime import date

from engine.ratings import mask_card
from protocol.users import Users, UsersError

REFUSED = "sign-off refused: wrong user or PIN, or the user is not a supervisor"


def add_rating(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = "list a past gaming day's rating sessions, or adjust one in the archive (signed off)"
    p = sub.add_parser("rating", help=text, description=text)
    p.add_argument("--db", metavar="DSN", default=os.environ.get("CROUPIER_DB"), required="CROUPIER_DB" not in os.environ,
                   help="the archive's PostgreSQL conninfo or URI (default $CROUPIER_DB)")
    p.add_argument("--table", required=True)
    p.add_argument("--day", metavar="YYYY-MM-DD", help="list the table's closed sessions of that gaming day")
    p.add_argument("--session", type=float, metavar="START", help="the session to adjust, by its exact start")
    p.add_argument("--seat", type=int, help="the seat it ended at")
    p.add_argument("--version", type=int, help="its version as listed (its adjustments): stale, refused")
    p.add_argument("--hands", type=int, help="the unrated play: hands")
    p.add_argument("--average-bet", type=int, metavar="UNITS", help="the unrated play: average Ante, smallest unit")
    p.add_argument("--start", type=float, metavar="EPOCH_S", help="when the play began")
    p.add_argument("--reason")
    p.add_argument("--by", help="who sends the step (the pit boss)")
    p.add_argument("--users", metavar="FILE", help="the users file the supervisor's PIN is checked against")
    p.add_argument("--supervisor", help="who signs it off (the PIN: standard input's first line)")


def run_rating(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from floor.rating_past import PastRefused, PastStep, adjust, day_sessions
    except ImportError as exc:  # the optional `floor` extra is not installed
        print(f"croupier pit: needs the floor extra (pip install 'croupier[floor]'): {exc}", file=sys.stderr)
        return 1
    if args.day is not None:
        try:
            day = date.fromisoformat(args.day).isoformat()
        except ValueError:
            print(f"croupier pit rating: --day: a gaming day as YYYY-MM-DD, not {args.day}", file=sys.stderr)
            return 2
        try:
            with psycopg.connect(args.db, connect_timeout=5) as conn:
                for line in day_sessions(conn, args.table, day):
                    print(json.dumps(line, sort_keys=True))
        except psycopg.Error as exc:
            print(f"croupier pit rating: the archive cannot be read: {exc}".strip(), file=sys.stderr)
            return 1
        return 0
    missing = [f"--{n.replace('_', '-')}" for n in ("session", "seat", "version", "by", "users", "supervisor")
               if getattr(args, n) is None]
    if missing or (args.hands is None) != (args.average_bet is None):
        print(f"croupier pit rating: give --day, or {' '.join(missing) or '--hands with --average-bet'}",
              file=sys.stderr)
        return 2
    if not _signed_off(args.users, args.supervisor, sys.stdin.readline().rstrip("\n")):
        print(f"croupier pit rating: {REFUSED}", file=sys.stderr)
        return 1
    step = PastStep(args.table, args.session, args.seat, args.version, args.hands, args.average_bet, args.start,
                    args.reason)
    try:
        with psycopg.connect(args.db, connect_timeout=5) as conn:
            report = adjust(conn, step, args.by, args.supervisor, f"cli:{args.by}:{secrets.token_hex(6)}")
    except PastRefused as exc:
        print(f"croupier pit rating: {exc.error}", file=sys.stderr)
        return 1
    except psycopg.Error as exc:
        print(f"croupier pit rating: the archive cannot be written: {exc}".strip(), file=sys.stderr)
        return 1
    print(json.dumps({**report, "player": mask_card(str(report["player"]))}, sort_keys=True))
    return 0


def _signed_off(path: str, name: str, pin: str) -> bool:
    """Whether `pin` is supervisor `name`'s in the users file (one answer whatever failed)."""
    try:
        user = Users.load(path).get(name)
    except (OSError, UsersError) as exc:
        print(f"croupier pit rating: the users file cannot be read: {exc}", file=sys.stderr)
        return False
    return user is not None and user.role == "supervisor" and bool(pin) and user.pin_matches(pin)
