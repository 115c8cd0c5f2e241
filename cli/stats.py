"""`croupier stats --db DSN [--day D] [--table T] [--shift S] [--pit P] [--dealers] [--json | --csv]`: the floor's figures from the archive, and the pit's counts.

`croupier stats` reports per table, per game and per pit (hands, handle, the house's win, average
bet, the rates per open hour, theoretical win, rake; per table and pit the drop, fills, credits and
hold %, per table the inventories): a text table, `--json` one object (`{"hands": N, "tables": [...],
"games": [...], "pits": [...]}`), or `--csv` one row per table and game, then per game, then per pit.
`--by-hour --json` gives the gaming day per clock hour per table and pit (`floor/series.py`).
`croupier stats drop|fill|credit|opening|closing --db DSN --table T --day D --amount N` enters a
count for a table's gaming day; `croupier stats gaming-day --db DSN [--starts HH:MM] [--time-zone TZ]
[--idle MINUTES]` sets when the gaming day starts and when a table without hands counts as closed.
A smart table's chip alerts (mispays, moved chips, foreign chips, tray differences) are counted per table,
gaming day and shift (`alerts`, and each table's sums under its `alerts`). `croupier stats --dealers --db DSN
[--day D] [--table T] [--pit P] [--json]` prints each dealer's figures per table instead: turns, time,
hands, hands per hour, average seats, voids, corrections, faults and the chip alerts of the hands dealt.
`croupier stats --db DSN --tournaments [--json]` prints the tournaments the director archived (their
places, prizes, levels and the count of their tables' hands; docs/tournament.md).
Bad arguments exit 2 with the reason; the server unreachable or the schema not made, exit 1.
Needs the `floor` extra (psycopg). Definitions: docs/floor.md, "Figures".
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from cli.output import stdout_closed

if TYPE_CHECKING:  # the floor's package is not on a table's Pi: its types only, for mypy
    from floor.reports import DealersReport, FiguresReport

COUNTS = ("drop", "fill", "credit", "opening", "closing")
ACTIONS = ("report", *COUNTS, "gaming-day")
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", default="report", choices=ACTIONS, metavar="ACTION",
                        help="report (the default); drop, fill, credit, opening, closing: enter a count; "
                             "gaming-day: set when the gaming day starts")
    parser.add_argument("--db", metavar="DSN", default=os.environ.get("CROUPIER_DB"),
                        help="the archive's PostgreSQL conninfo or URI (default $CROUPIER_DB)")
    parser.add_argument("--day", metavar="YYYY-MM-DD", help="the gaming day (report: all days when absent)")
    parser.add_argument("--table", metavar="NAME", help="the table (report: all tables when absent)")
    parser.add_argument("--certificates", metavar="DIR",
                        help="report: the theoretical win by the figures of the paytable certificates in DIR "
                             "(croupier math certify), for the profiles they certify")
    parser.add_argument("--shift", metavar="NAME", help="report: one shift of the gaming day (day, swing, grave ...)")
    parser.add_argument("--pit", metavar="NAME", help="report: one pit's tables (its [pit] name)")
    parser.add_argument("--by-hour", action="store_true",
                        help="report: the gaming day (--day, default today's) per clock hour, per table and pit "
                             "(with --json: a chart's series)")
    parser.add_argument("--idle", metavar="MINUTES",
                        help="gaming-day: minutes with no hand after which a table counts as closed (1 to 720)")
    parser.add_argument("--amount", metavar="N", help="a count's amount, in the table's smallest unit")
    parser.add_argument("--starts", metavar="HH:MM", help="gaming-day: the local time the gaming day starts")
    parser.add_argument("--time-zone", metavar="TZ", help="gaming-day: the floor's time zone (e.g. Europe/Paris)")
    parser.add_argument("--tournaments", action="store_true",
                        help="report: the tournaments archived by the director, not the tables' figures")
    parser.add_argument("--dealers", action="store_true",
                        help="report: each dealer's figures per table (with --day, --table, --pit)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object")
    out.add_argument("--csv", action="store_true", help="CSV: a header, then a row per table and per game")


class Usage(ValueError):
    """A bad argument: said on stderr, exit 2."""


def _day(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Usage(f"--day: {text!r} is not a day (YYYY-MM-DD)") from None


def _check(args: argparse.Namespace) -> tuple[date | None, int | None]:
    """The day and amount of the arguments, checked against the action. Raises Usage."""
    if not args.db:
        raise Usage("--db DSN is required (or set $CROUPIER_DB)")
    day = _day(args.day)
    amount: int | None = None
    if args.action in COUNTS:
        for name in ("table", "day", "amount"):
            if getattr(args, name) is None:
                raise Usage(f"{args.action}: --{name} is required")
        if not re.fullmatch(r"\d{1,15}", args.amount):
            raise Usage(f"--amount: {args.amount!r} is not a whole amount of 0 or more (the table's smallest unit)")
        amount = int(args.amount)
    elif args.amount is not None:
        raise Usage(f"--amount goes with a count ({', '.join(COUNTS)}), not {args.action}")
    for name in ("shift", "pit", "by_hour"):
        if getattr(args, name) not in (None, False) and args.action != "report":
            raise Usage(f"--{name.replace('_', '-')} goes with the report, not {args.action}")
    if args.by_hour and not args.json:
        raise Usage("--by-hour goes with --json (the day's series per clock hour)")
    if args.by_hour and (args.shift is not None or args.table is not None or args.certificates is not None):
        raise Usage("--by-hour takes --day and --pit only")
    if args.idle is not None and (args.action != "gaming-day" or not re.fullmatch(r"\d{1,3}", args.idle)
                                  or not 1 <= int(args.idle) <= 720):
        raise Usage(f"--idle: {args.idle!r} is not a number of minutes from 1 to 720 (with gaming-day)")
    if args.action == "gaming-day":
        if args.starts is not None and not _HHMM.match(args.starts):
            raise Usage(f"--starts: {args.starts!r} is not a time of day (HH:MM, 00:00 to 23:59)")
    elif args.starts is not None or args.time_zone is not None:
        raise Usage("--starts and --time-zone go with gaming-day")
    if args.tournaments and (args.action != "report" or args.csv or args.day or args.table or args.shift
                             or args.pit or args.by_hour):
        raise Usage("--tournaments is a report of its own: only --db and --json go with it")
    if args.dealers and (args.action != "report" or args.csv or args.shift or args.by_hour or args.tournaments
                         or args.certificates):
        raise Usage("--dealers is a report of its own: --day, --table, --pit and --json go with it")
    if args.action in COUNTS and (args.json or args.csv):
        raise Usage(f"{args.action}: --json and --csv go with the report")
    return day, amount


def main(args: argparse.Namespace) -> int:
    try:
        day, amount = _check(args)
    except Usage as exc:
        print(f"croupier stats: {exc}", file=sys.stderr)
        return 2
    try:
        from floor.archive import ArchiveError
        from floor import stats
    except ImportError as exc:  # the optional `floor` extra is not installed
        print(f"croupier stats: needs the floor extra (pip install 'croupier[floor]'): {exc}", file=sys.stderr)
        return 1
    try:
        if args.action in COUNTS:
            assert day is not None and amount is not None
            stats.enter_count(args.db, args.table, day, args.action, amount)
            print(f"{args.table} {day.isoformat()}: {args.action} {amount} entered")
        elif args.tournaments:
            from floor.tournament_record import tournaments, tournaments_text
            done = tournaments(args.db)
            print(json.dumps({"tournaments": done}) if args.json else tournaments_text(done))
        elif args.action == "gaming-day":
            idle = int(args.idle) if args.idle is not None else None
            print(json.dumps(stats.set_gaming_day(args.db, args.starts, args.time_zone, idle)))
        elif args.dealers:
            shifts = stats.dealers(args.db, day, args.table, args.pit)
            print(json.dumps(shifts) if args.json else dealers_text(shifts))
        elif args.by_hour:
            from floor.series import series_at
            print(json.dumps(series_at(args.db, day, args.pit)))
        else:
            report = stats.figures(args.db, day, args.table, args.shift, args.certificates, args.pit)
            if args.json:
                print(json.dumps(report))
            elif args.csv:
                write_csv(report, stats.FIGURES, stats.COUNTS)
            else:
                print(text(report))
    except ArchiveError as exc:
        print(f"croupier stats: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return stdout_closed()
    return 0


def _cell(value: Any) -> Any:
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in sorted(value.items()))
    return "" if value is None else value


def write_csv(report: FiguresReport, figures: tuple[str, ...], counts: tuple[str, ...]) -> None:
    """A header, then one row per table and game (`level` table), per game (`level` game) and per pit (`level` pit)."""
    columns = ("level", "table", "game", "pit", *figures, "handle_by_circle", *counts)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    for level, rows in (("table", report["tables"]), ("game", report["games"]), ("pit", report["pits"])):
        for row in rows:
            writer.writerow([level] + [_cell(row.get(c)) for c in columns[1:]])


def text(report: FiguresReport) -> str:
    """The report for a person: one line per table and per game."""
    head = f"{report['hands']} hands archived" + (f", gaming day {report['day']}" if report["day"] else "")
    head += f", shift {report['shift']}" if report["shift"] else ""
    head += f", pit {report['pit']}" if report["pit"] else ""
    lines = [head + (f", table {report['table']}" if report["table"] else "")]

    def line(name: str, r: Mapping[str, Any]) -> str:
        parts = [f"{name:<14} {r.get('game') or '-':<8} hands {r['hands'] or 0}", f"handle {r['handle'] or 0}",
                 f"win {r['house_win'] or 0}", f"avg bet {_cell(r['average_bet']) or '-'}",
                 f"hands/h {_cell(r['hands_per_hour']) or '-'}", f"win/h {_cell(r['win_per_hour']) or '-'}",
                 f"theo {_cell(r['theoretical']) or '-'}"]
        if r.get("rake") is not None:
            parts.append(f"rake {r['rake']}")
        if "drop" in r and r["drop"] is not None:
            parts.append(f"drop {r['drop']} hold {_cell(r['hold_pct']) or '-'}%")
        return ", ".join(parts)

    lines += [line(r["table"], r) for r in report["tables"]]
    lines += [line("all tables", r) for r in report["games"]]
    lines += [line(f"pit {r['pit']}", r) for r in report["pits"]]
    lines += [f"{a['table']:<14} {a['day']} {a['shift']:<6} chips read {a['chip_hands']} hands: mispays {a['mispays']}, "
              f"moved chips {a['moved_chips']}, foreign chips {a['foreign_chips']}, tray differences "
              f"{a['tray_differences']} ({a['tray_difference']})" for a in report.get("alerts", [])]
    return "\n".join(lines)


def dealers_text(report: DealersReport) -> str:
    """Each dealer's figures per table for a person: one line each."""
    head = "dealers" + (f", gaming day {report['day']}" if report["day"] else "") + (
        f", pit {report['pit']}" if report["pit"] else "") + (f", table {report['table']}" if report["table"] else "")
    lines = [head] + [
        f"{d['dealer']:<12} {d['table']:<14} {d['turns']} turns, {d['time_s'] / 3600:.2f} h, {d['hands']} hands "
        f"({_cell(d['hands_per_hour']) or '-'}/h), seats {_cell(d['average_seats']) or '-'}, voids {d['voids']}, "
        f"corrections {d['corrections']}, faults {d['faults']}, mispays {d['mispays']}, moved chips {d['moved_chips']}, "
        f"foreign chips {d['foreign_chips']}, tray differences {d['tray_differences']}"
        + ("  (on the table)" if d["on_table"] else "") for d in report["dealers"]]
    return "\n".join(lines if report["dealers"] else [head, "no dealer's figures archived"])

