"""`croupier audit verify|show --state DIR`: check and read the table's tamper-evident audit log.

`verify` walks the hash chain: exit 0 with a summary (entries, first and last time, the last
counter and hash: keep those elsewhere, they catch a cut-off or recomputed log), exit 1 naming the
first entry changed, removed or inserted. `verify --against DSN --table NAME` also checks the
table's journal against the floor's archive (PostgreSQL, the `floor` extra): every archived hand's
chain head (`chain` in its record, kept by the pit when the hand closed) must be the journal's chain
at that event, so a journal rewritten with its chain recomputed is caught for every hand the pit
archived (exit 1 naming the first hand that differs). `show [--last N] [--json]` prints the entries (the last N;
`--json`: one JSON object a line, with its counter, time, kind, details and hash). Either exits 1
with a clear message when the state directory holds no audit log. Read-only: safe while the
controller runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from cli.output import stdout_closed
from protocol.audit import AuditError, AuditLog, Entry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (("verify", "check the hash chain; exit 1 naming the first bad entry"),
                       ("show", "print the entries")):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                       help="the state directory (default $CROUPIER_STATE or ./croupier-state)")
        if name == "verify":
            p.add_argument("--against", metavar="DSN", default=None,
                           help="the floor's archive: check the journal's chain at every archived hand of --table")
            p.add_argument("--table", metavar="NAME", default=None, help="the table's name in the archive")
        if name == "show":
            p.add_argument("--last", type=int, default=0, metavar="N", help="only the last N entries (0: all)")
            p.add_argument("--json", action="store_true", help="one JSON object a line")


def main(args: argparse.Namespace) -> int:
    against = getattr(args, "against", None)
    if (against is None) != (getattr(args, "table", None) is None):
        print("croupier audit: give --against DSN and --table NAME together", file=sys.stderr)
        return 2
    try:
        audit = AuditLog.open(args.state, readonly=True)
    except AuditError as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return 1
    try:
        if args.action == "show":
            return _show(audit, args.last, args.json)
        status = _verify(audit)
        return max(status, _anchored(args.state, against, args.table)) if against else status
    except AuditError as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return stdout_closed()
    finally:
        audit.close()


def _verify(audit: AuditLog) -> int:
    verdict = audit.verify()
    if not verdict.ok:
        print(f"audit log BROKEN: {audit.path}: {verdict.problem}; the {verdict.entries} entries before it "
              f"hold (last good: entry {verdict.last_counter}, hash {verdict.last_hash})")
        return 1
    print(f"audit log ok: {audit.path}: {verdict.entries} entries, from {verdict.first_time or '-'} to "
          f"{verdict.last_time or '-'}; last entry {verdict.last_counter}, hash {verdict.last_hash}")
    return 0


def _anchored(state: str, dsn: str, table: str) -> int:
    """The journal's chain at each hand the floor archived for `table`, against the archive's record of it."""
    from firmware_host.service.journal import Journal, JournalError

    try:
        import psycopg

        from floor.archive import ArchiveError, connect
    except ImportError:
        print("croupier audit: --against needs psycopg (pip install 'croupier[floor]')", file=sys.stderr)
        return 2
    try:
        with connect(dsn) as conn:
            rows = conn.execute("SELECT hand, record->'chain' FROM hands WHERE table_name = %s ORDER BY hand",
                                (table,)).fetchall()
    except (ArchiveError, psycopg.Error) as exc:
        print(f"croupier audit: the archive cannot be read: {exc}", file=sys.stderr)
        return 2
    try:
        journal = Journal.open(state, readonly=True)
    except JournalError as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return 1
    try:
        anchored = [(int(hand), chain) for hand, chain in rows if isinstance(chain, dict)
                    and isinstance(chain.get("event"), int) and isinstance(chain.get("head"), str)]
        ours = journal.chains([chain["event"] for _, chain in anchored])
    finally:
        journal.close()
    for hand, chain in anchored:
        if ours.get(chain["event"]) != chain["head"]:
            print(f"journal REWRITTEN: {state}: hand {hand} (event {chain['event']}): the archive's chain head "
                  f"{chain['head']}, the journal's {ours.get(chain['event'], 'missing')}")
            return 1
    print(f"journal anchored: {len(anchored)} hands of table {table!r} archived match the journal's chain"
          + (f" ({len(rows) - len(anchored)} archived without a chain head)" if len(rows) > len(anchored) else ""))
    return 0


def _show(audit: AuditLog, last: int, as_json: bool) -> int:
    entries = audit.entries()
    if last > 0:
        entries = entries[-last:]
    for entry in entries:
        print(json.dumps(entry.as_json(), sort_keys=True) if as_json else _line(entry))
    return 0


def _line(entry: Entry) -> str:
    details = entry.details
    said = (", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(details.items()))
            if isinstance(details, dict) else repr(details))
    return f"{entry.counter:>6}  {entry.time}  {entry.kind:<17} {said}"
