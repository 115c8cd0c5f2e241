"""`croupier pit rating --db DSN --table T --day D` and `croupier pit rating --db DSN --table T --session START --seat N --version V ... --by NAME --users FILE --supervisor NAME`: a past gaming day's rating sessions listed, and one adjusted in the archive, from the pit's terminal.

Listing prints one JSON line a closed session of table T started on gaming day D (`floor.rating_past.day_sessions`:
the card masked, `seat`, `start`, `end`, `hands`, `entered_hands`, `version`, `today`). Adjusting takes what the /pit
dialog takes (`--hands` with `--average-bet` in the table's smallest unit, `--start` in seconds since the epoch,
`--reason`), sent by `--by` (the pit boss at the terminal) and signed off by `--supervisor`, whose PIN is read from
standard input's first line (never an argument: it would show in the process list) and checked against the users
file `--users` (a user of role `supervisor`) by the table's own gate (`protocol.signoff.SignOff`, a `rating` relayed
by the pit): one refusal whatever failed, and the table's holds (`protocol.signoff_holds`), the failures counted
against the terminal's account (`cli:LOGIN`) and the pit boss at it (`--by`), five from one pit boss or twenty from
the account holding its sign-offs 5 minutes, doubling, kept in `pit-rating-holds.json` beside the users file (one
that cannot be written refuses every sign-off; the processes take turns on it). Each sign-off granted, refused or
held is written to the pit's audit log beside it too (`audit.sqlite3`, the table's writer and entries,
`protocol.audit`: who, the account, the step's table, session and seat, never the PIN; one that cannot be opened
refuses every sign-off; `croupier audit show --state DIR`, docs/audit.md). The step is
`floor.rating_past.adjust`'s (a row lock, the version seen, the audit line; docs/ratings.md), and prints the session's new report, the card masked. A refusal is said in words on
standard error, exit 1; bad arguments, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import secrets
import sys
from datetime import date

from engine.ratings import mask_card
from floor.pit_signoff import HOLDS_FILE, PitSignOff, refusal

__all__ = ["HOLDS_FILE", "add_rating", "run_rating"]



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
    refused = _signed_off(args, sys.stdin.readline().rstrip("\n"))
    if refused is not None:
        print(f"croupier pit rating: {refused}", file=sys.stderr)
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


def _signed_off(args: argparse.Namespace, pin: str) -> str | None:
    """Why the supervisor's sign-off of the step is refused (None: signed off): the pit's gate
    (`floor.pit_signoff`: the table's, its failures held per terminal account and pit boss, audited)."""
    ask = PitSignOff(users=str(args.users), key=f"cli:{pwd.getpwuid(os.getuid()).pw_name}", by=args.by,
                     supervisor=args.supervisor, via="croupier pit rating", table=args.table, session=args.session,
                     seat=args.seat)
    found = refusal(ask, pin)
    return None if found is None else str(found["error"])
