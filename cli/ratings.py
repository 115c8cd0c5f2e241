"""`croupier ratings --state DIR | --db DSN [--day D] [--player CARD] [--table T] [--json | --csv] [--dealers]`: rating sessions and dealer figures, from a table's journal or the floor's archive.

Reads the journal read-only (the controller may be running), folds its `player`, `dealer`, `open` and
`close` events and its closed hands into rating sessions (`engine.ratings`, docs/ratings.md) and prints
them: a line a session as text, or with `--json` one JSON object a line (`"kind": "session"`), then the
table's unrated play (`"kind": "unrated"`) and, with `--dealers`, each dealer's figures (`"kind":
"dealer"`); `--csv` one row a session (`CSV_COLUMNS`, then a column a bet circle). `--config FILE` (the table's configuration) gives the table's name, its certificates
directory (`[table] certificates`: UTH's edges where the profile carries no approved figures) and the
reinvestment rate (`[ratings] reinvestment`); `--table`, `--certificates` and `--reinvestment` give
them on the command line. With `--db DSN` the same session objects come from the floor's archive
(`floor/ratings.py`), every table's (a player who moved tables has a session at each), filtered by
gaming day, card and table; `--dealers` then gives the archive's dealer shifts (a dealer's figures over
one opening of a table), and the archive keeps no unrated line. Exit status 2 when the journal, the
archive, the configuration or the certificates cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

from cli.output import stdout_closed
from engine.ratings import RatingReport, SessionReport, half_even, mask_card
from firmware_host.service.config import Config
from firmware_host.service.history import closed_at
from firmware_host.service.journal import Journal, JournalError
from firmware_host.service.ratings import journal_ratings
from protocol.certificates import certified_figures
from protocol.config import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                        help="the journal's directory (default $CROUPIER_STATE or ./croupier-state)")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object a line: each session, the unrated play")
    form.add_argument("--csv", action="store_true", help="one CSV row a session (a column a bet circle), the card in full")
    parser.add_argument("--db", metavar="DSN", default=None,
                        help="the floor's archive instead of a journal: every table's sessions (the `floor` extra)")
    parser.add_argument("--day", metavar="YYYY-MM-DD", default=None, help="--db: the sessions started on that gaming day")
    parser.add_argument("--player", metavar="CARD", default=None, help="--db: that player card's sessions")
    parser.add_argument("--dealers", action="store_true", help="each dealer's figures too")
    parser.add_argument("--config", metavar="FILE", default=None,
                        help="the table's configuration: its name, [table] certificates, [ratings] reinvestment")
    parser.add_argument("--table", metavar="NAME", default=None,
                        help="the table's name (default the configuration's, else the state directory's name); "
                             "--db: that table's sessions only")
    parser.add_argument("--certificates", metavar="DIR", default=None,
                        help="paytable certificates (croupier math certify): edges the profiles do not carry")
    parser.add_argument("--reinvestment", metavar="RATE", default=None,
                        help="the share of theo given back in comps, 0 to 1 (e.g. 0.3 or 3/10)")


def _settings(args: argparse.Namespace) -> tuple[str, str | None, Fraction]:
    """`(table, certificates directory, reinvestment)`. Raises ConfigError or ValueError."""
    table, certificates, reinvestment = Path(args.state).resolve().name, None, Fraction(0)
    if args.config is not None:
        cfg = Config.load(args.config)
        table, reinvestment = cfg.table.name, cfg.ratings.reinvestment
        certificates = cfg.table.certificates or None
    if args.table is not None:
        table = args.table
    if args.certificates is not None:
        certificates = args.certificates
    if args.reinvestment is not None:
        reinvestment = Fraction(args.reinvestment)
        if not 0 <= reinvestment <= 1:
            raise ValueError(f"--reinvestment: a share between 0 and 1, not {args.reinvestment}")
    return table, certificates, reinvestment


def _money(cents: int | None) -> str:
    return "-" if cents is None else f"{cents / 100:,.2f}"


def _text(r: RatingReport) -> str:
    if r["kind"] == "session":
        hours = r["played_s"] / 3600
        theo = _money(r["theo_cents"]) + ("" if r["theo_complete"] else f" (incomplete: {', '.join(r['theo_missing'])})")
        times = f"{r['started'][11:16]}-{(r['ended'] or '')[11:16] or 'now'}"
        return (f"{mask_card(r['player'])}  {r['table']}  {times}  seats {'/'.join(str(s['seat']) for s in r['seats'])}  "
                f"{r['hands']} hands in {hours:.2f} h  avg bet {_money(r['average_bet'])}  "
                f"win {_money(r['win'])}  theo {theo}  comp {_money(r['comp_cents'])}" + ("  (open)" if r["open"] else ""))
    if r["kind"] == "unrated":
        return (f"unrated  {r['table']}  {r['spot_hands']} spot-hands  avg bet {_money(r['average_bet'])}  "
                f"win {_money(r['win'])}")
    return (f"dealer {r['dealer']}  {r['table']}  {r['turns']} turns, {r['time_s'] / 3600:.2f} h  {r['hands']} hands"
            f"  ({r['hands_per_hour'] or 0}/h)  seats {r['average_seats'] or 0}  voids {r['voids']}  "
            f"corrections {r['corrections']}  faults {r['faults']}"
            + (f"  mispays {r['mispays']}  moved chips {r['moved_chips']}  foreign chips {r['foreign_chips']}  "
               f"tray differences {r['tray_differences']}" if "mispays" in r else ""))  # an archive older than them: none


CSV_COLUMNS = ("player", "table", "started", "ended", "open", "seats", "hands", "voided", "breaks", "played_s",
               "hands_per_hour", "bets_total", "average_bet", "win", "theo", "theo_cents", "theo_complete", "comp_cents",
               "profile_sha256")
"""The CSV's columns before one a bet circle (`bet_ante`, ...: cents), in this order."""


def _csv(sessions: list[SessionReport]) -> None:
    """The sessions as CSV on standard output: `CSV_COLUMNS`, then a column a circle any of them staked."""
    circles = sorted({c for s in sessions for c in s["bets"]})
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([*CSV_COLUMNS, *(f"bet_{c}" for c in circles)])
    for s in sessions:
        row = {**s, "seats": "/".join(str(x["seat"]) for x in s["seats"])}
        out.writerow([*(_cell(row[k]) for k in CSV_COLUMNS), *(s["bets"].get(c, 0) for c in circles)])


def _cell(value: Any) -> Any:
    """A CSV cell: empty for null, `true`/`false` as JSON writes them."""
    return "" if value is None else str(value).lower() if isinstance(value, bool) else value


def _archived(args: argparse.Namespace, reinvestment: Fraction) -> list[RatingReport] | int:
    """The archive's sessions (and dealer shifts) as `--state` gives a journal's, or the exit status 2."""
    try:
        import psycopg

        from floor.archive import ArchiveError, connect
        from floor.ratings import sessions, shifts
    except ImportError:
        print("croupier ratings: --db needs psycopg (pip install 'croupier[floor]')", file=sys.stderr)
        return 2
    if args.day is not None:
        try:
            date.fromisoformat(args.day)
        except ValueError:
            print(f"croupier ratings: --day: a gaming day as YYYY-MM-DD, not {args.day}", file=sys.stderr)
            return 2
    try:
        with connect(args.db) as conn:
            lines = sessions(conn, args.day, args.player, args.table)
            dealers = shifts(conn, args.table) if args.dealers and args.player is None else []
    except (ArchiveError, psycopg.Error) as exc:
        hint = " (its schema is older than the ratings: run `croupier pit migrate --db DSN`)" \
            if isinstance(exc, psycopg.errors.UndefinedTable) else ""
        print(f"croupier ratings: the archive cannot be read: {exc}".strip() + hint, file=sys.stderr)
        return 2
    for line in lines:  # the archive keeps each session's comp at no reinvestment: the rate given applies
        line["comp_cents"] = half_even(Fraction(line["theo"]) * reinvestment)
    return [*lines, *dealers]


def main(args: argparse.Namespace) -> int:
    if args.db is None and (args.day is not None or args.player is not None):
        print("croupier ratings: --day and --player read the floor's archive: give --db DSN", file=sys.stderr)
        return 2
    try:
        table, certificates, reinvestment = _settings(args)
        certified = certified_figures(certificates) if certificates else None
    except (ConfigError, ValueError, ZeroDivisionError, OSError) as exc:
        print(f"croupier ratings: {exc}", file=sys.stderr)
        return 2
    if args.db is not None:
        archived = _archived(args, reinvestment)
        if isinstance(archived, int):
            return archived
        lines = archived
    else:
        try:
            journal = Journal.open(args.state, readonly=True)
        except JournalError as exc:
            print(f"croupier ratings: {exc}", file=sys.stderr)
            return 2
        try:
            ratings = journal_ratings(journal, table, certified, reinvestment)
        except JournalError as exc:
            print(f"croupier ratings: {exc}", file=sys.stderr)
            return 2
        finally:
            journal.close()
        lines = [*ratings.reports(), ratings.unrated_report(), *(ratings.dealer_reports() if args.dealers else [])]
    for line in lines:  # the journal's times as people read them too (ISO 8601 UTC, as `croupier history`)
        if line["kind"] == "session":
            line["started"], line["ended"] = closed_at(line["start"]), closed_at(line["end"]) if line["end"] else None
    try:
        if args.csv:
            _csv([line for line in lines if line["kind"] == "session"])
        for line in lines if not args.csv else []:
            print(json.dumps(line, sort_keys=True) if args.json else _text(line))
        sys.stdout.flush()
    except BrokenPipeError:
        return stdout_closed()
    return 0
