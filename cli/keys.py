"""`croupier keys new|list|revoke`: the CURVE certificates of the table and of its clients.

`new NAME --role ROLE --dir DIR` writes `DIR/NAME.key` (public, the role in its metadata) and
`DIR/NAME.key_secret` (secret, mode 0600); a name already there (or revoked there) is refused.
`list --dir DIR [--json]` prints each certificate's name, role and public key (a table; `--json`:
one JSON object a line). `revoke NAME --dir DIR` (DIR the table's `[security] clients`) moves
`DIR/NAME.key` into `DIR/revoked/`: the running controller cuts that key within 5 s.
`tls --dir DIR --host NAME [--host ADDRESS ...]` makes the display's self-signed HTTPS certificate
`DIR/display.crt` and its key `DIR/display.key` (mode 0600) and prints the certificate's SHA-256
fingerprint (`firmware_host/display/certificate.py`).
Exit 0 done, 1 refused (the reason on standard error), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from cli.output import stdout_closed
from protocol import access
from protocol.keys import KeyFileError, create, list_certificates, revoke


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = sub.add_parser("new", help="make a certificate pair", description="make a certificate pair")
    new.add_argument("name", metavar="NAME", help="the certificate's name: who or what holds it")
    new.add_argument("--role", required=True, choices=access.ROLES, help="the role it acts in")
    listing = sub.add_parser("list", help="list certificates", description="list certificates")
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    gone = sub.add_parser("revoke", help="take a client's certificate out of the allowed set",
                          description="move DIR/NAME.key into DIR/revoked/")
    gone.add_argument("name", metavar="NAME")
    tls = sub.add_parser("tls", help="make the display's HTTPS certificate",
                         description="make DIR/display.crt and DIR/display.key (self-signed) and print its fingerprint")
    tls.add_argument("--host", action="append", required=True, metavar="NAME",
                     help="a DNS name or IP address the pages are opened at (repeat for more)")
    for p in (new, listing, gone, tls):
        p.add_argument("--dir", required=True, metavar="DIR", help="the certificates' directory")


def main(args: argparse.Namespace) -> int:
    try:
        if args.action == "new":
            public, secret = create(args.dir, args.name, args.role)
            print(f"{public}\n{secret} (secret: give it to the {args.role} only, then delete it here)")
        elif args.action == "tls":
            from firmware_host.display.certificate import CertificateError, make

            try:
                crt, key, print_ = make(args.dir, args.host)
            except (CertificateError, OSError) as exc:
                print(f"croupier keys: {exc}", file=sys.stderr)
                return 1
            print(f"{crt}\n{key} (secret)\nSHA-256 fingerprint: {print_}")
        elif args.action == "revoke":
            print(f"revoked: {revoke(args.dir, args.name)}")
        else:
            return _list(args.dir, args.json)
    except KeyFileError as exc:
        print(f"croupier keys: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return stdout_closed()
    return 0


def _list(directory: str, as_json: bool) -> int:
    certs, bad = list_certificates(directory)
    for reason in bad:
        print(f"croupier keys: skipped {reason}", file=sys.stderr)
    if as_json:
        for cert in certs:
            print(json.dumps(cert.as_json()))
        return 0
    rows = [("NAME", "ROLE", "PUBLIC KEY", "FILE")] + [(c.name, c.role, c.public, c.path.name) for c in certs]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3])
    return 0
