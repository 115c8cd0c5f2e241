"""`croupier tray --state DIR [--chips FILE] [--currency C] [--json]`: the chip tray's trail and the shift's reconciliation, from the journal.

Reads the journal read-only (the controller may run) and replays the current shift's events through
the tray's ledger exactly as the controller kept it live (`firmware_host/service/tray.py`,
`engine/tray.py`): per hand the house net, the tray's change and the difference; between hands the
movements recorded (buy-ins, colour-ups, fills, credits) against the tray's change; every difference
flagged; then the shift's line, closing - opening - fills + credits + chips sold = the hands' house
net. The chip set values the tray's chips: the one the table journaled (its `chip_set` event, from
`[chips] set`), or `--chips FILE` (a CSV, e.g. `deploy/chips-demo.csv`), which takes its place.
`--json`: one object, `{"hands", "between", "flags", "reconciliation"}`,
amounts in the smallest unit.

Exit 0 when the shift reconciles and nothing was flagged; 1 when it does not reconcile, a difference
was flagged or the tray was never read; 2 for bad arguments or a journal or chip set that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from cli.output import stdout_closed
from engine.chips import ChipSet, ChipSetError
from engine.money import Money
from engine.tray import HandLine, Interval, Movement, Reconciliation, TrayLedger
from firmware_host.service.journal import Journal, JournalError
from firmware_host.service.tray import TrayWatch, flag_shown, hand_shown, interval_shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                        help="the journal's directory (default $CROUPIER_STATE or ./croupier-state)")
    parser.add_argument("--chips", metavar="FILE",
                        help="the chip set (CSV: uid,value,set,status) that values the tray's chips (default: the "
                             "one the table journaled)")
    parser.add_argument("--currency", metavar="CODE", default="EUR", help="the table's currency (default EUR)")
    parser.add_argument("--json", action="store_true", help="one JSON object")


def main(args: argparse.Namespace) -> int:
    try:
        money = Money.of(args.currency)
        chips = (ChipSet.from_csv(Path(args.chips).read_text(encoding="utf-8"), where=args.chips)
                 if args.chips is not None else None)
    except (OSError, UnicodeDecodeError, ValueError, ChipSetError) as exc:
        print(f"croupier tray: {exc}", file=sys.stderr)
        return 2
    try:
        journal = Journal.open(args.state, readonly=True)
    except (JournalError, OSError) as exc:
        print(f"croupier tray: {exc}", file=sys.stderr)
        return 2
    try:
        ledger = TrayWatch.from_journal(journal, chips).ledger
    except JournalError as exc:
        print(f"croupier tray: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    if ledger is None:
        print(f"croupier tray: {args.state}: the table journaled no chip set: give the one it used (--chips FILE)",
              file=sys.stderr)
        return 2
    line = ledger.reconciliation()
    try:
        print(json.dumps(as_json(ledger)) if args.json else "\n".join(text(ledger, money)))
    except BrokenPipeError:
        return stdout_closed()
    return 0 if line.reconciles and not ledger.flags else 1


def as_json(ledger: TrayLedger) -> dict[str, Any]:
    """The trail as `--json` prints it."""
    line = ledger.reconciliation()
    return {"hands": [hand_shown(h) for h in ledger.hands],
            "between": [interval_shown(i) for i in ledger.intervals],
            "flags": [flag_shown(f) for f in ledger.flags],
            "reconciliation": {"opening": line.opening, "closing": line.closing, "fills": line.fills,
                               "credits": line.credits, "chips_sold": line.chips_sold,
                               "colour_ups": line.colour_ups, "house_net": line.house_net,
                               "difference": line.difference, "reconciles": line.reconciles, "closed": line.closed}}


def text(ledger: TrayLedger, money: Money) -> list[str]:
    """The trail for a person: the hands and the time between them in order, the flags, the shift's line."""
    def amount(value: int | None, signed: bool = False) -> str:
        return "not read" if value is None else money.format(value, signed=signed)

    def moved(moves: tuple[Movement, ...]) -> str:
        return ", ".join(f"{m.kind}{f' seat {m.seat}' if m.seat is not None else ''} {amount(m.value)}"
                         + (f" (slip {m.slip})" if m.slip else "") for m in moves)

    rows: list[tuple[int, str]] = []
    for h in ledger.hands:
        rows.append((h.at.event, _hand_line(h, amount) + (f"; during it {moved(h.movements)}" if h.movements else "")))
    for i in ledger.intervals:
        rows.append((i.at.event, _between_line(i, amount, moved(i.movements))))
    lines = [f"opening inventory {amount(ledger.opening)}"]
    lines += [row for _, row in sorted(rows)]
    lines += [f"FLAGGED: {f.words(money)}" for f in ledger.flags]
    lines.append(_shift_line(ledger.reconciliation(), amount))
    return lines


def _hand_line(h: HandLine, amount: Any) -> str:
    diff = h.difference
    return (f"hand {h.hand}: house net {amount(h.house_net, True)}, tray change {amount(h.change, True)}, "
            f"difference {amount(diff, True) if diff is not None else '-'}" + (" FLAGGED" if diff else ""))


def _between_line(i: Interval, amount: Any, moved: str) -> str:
    where = f"after hand {i.after_hand}" if i.after_hand else "before the first hand"
    diff = i.difference
    return (f"  {where}: {moved or 'nothing recorded'}; tray change {amount(i.change, True)}, "
            f"difference {amount(diff, True) if diff is not None else '-'}" + (" FLAGGED" if diff else ""))


def _shift_line(r: Reconciliation, amount: Any) -> str:
    which = "closing" if r.closed else "now"
    if r.difference is None:
        return "the shift does not reconcile: the tray was never read"
    verdict = "reconciles" if r.reconciles else f"DOES NOT RECONCILE: {amount(r.difference, True)}"
    return (f"shift: {which} {amount(r.closing)} - opening {amount(r.opening)} - fills {amount(r.fills)} "
            f"+ credits {amount(r.credits)} + chips sold {amount(r.chips_sold)} = "
            f"{amount(r.house_net + r.difference, True)} against the hands' house net {amount(r.house_net, True)}: "
            f"{verdict}")
