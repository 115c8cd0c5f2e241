"""`croupier audit verify|show --state DIR`: check and read the table's tamper-evident audit log.

`verify` walks the hash chain: exit 0 with a summary (entries, first and last time, the last
counter and hash: keep those elsewhere, they catch a cut-off or recomputed log), exit 1 naming the
first entry changed, removed or inserted. `show [--last N] [--json]` prints the entries (the last N;
`--json`: one JSON object a line, with its counter, time, kind, details and hash). Either exits 1
with a clear message when the state directory holds no audit log. Read-only: safe while the
controller runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from firmware_host.cli.output import stdout_closed
from firmware_host.service.audit import AuditError, AuditLog, Entry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (("verify", "check the hash chain; exit 1 naming the first bad entry"),
                       ("show", "print the entries")):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                       help="the state directory (default $CROUPIER_STATE or ./croupier-state)")
        if name == "show":
            p.add_argument("--last", type=int, default=0, metavar="N", help="only the last N entries (0: all)")
            p.add_argument("--json", action="store_true", help="one JSON object a line")


def main(args: argparse.Namespace) -> int:
    try:
        audit = AuditLog.open(args.state, readonly=True)
    except AuditError as exc:
        print(f"croupier audit: {exc}", file=sys.stderr)
        return 1
    try:
        return _verify(audit) if args.action == "verify" else _show(audit, args.last, args.json)
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
