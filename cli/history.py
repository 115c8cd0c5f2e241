"""`croupier history [--state DIR] [--last N] [--json]`: recall the last hands from the journal.

Reads the journal read-only, so it works while the controller runs, idle or stopped by a fault.
Text: per hand the cards per spot in dealt order, burns, bets, decisions, results, voids and faults,
then the hand in progress (if any) with its standing fault. `--json`: one line per finished hand,
`{"hand", "status", "burns", "round", "settlement", "profile", "limits", "faults", "reason"}`, where
`round` is in exactly `croupier settle`'s input format and `settlement` in exactly its output format
(null for a voided hand: every bet was returned; its `round` holds the cards dealt before the void);
`profile` is what the hand was settled under, `{"name", "sha256", "content"}` (the TOML text the
table was opened with, as journaled; `sha256` and `content` null for a hand journaled before
profiles were), and `limits` the table's limits, every key spelt out. The whole line is also an
input line of `croupier settle`, which settles its `round` under that profile and those limits.
At a table whose tray is read, a hand's line also carries `tray`: the buy-ins, colour-ups, fills and
credits recorded at the tray before it, each with what the tray read of it (`docs/tray.md`).

Poker hands: the text shows per seat the cards in dealt order (up cards marked `^`), the starting
stack and the net, the board, burns, every action in order, the pots with their eligible seats and
winners, and the hands shown. Their `--json` line carries `hand`, `status`, `game`, `burns`,
`hand_record` (the hand in `engine.phh.hand_from_record`'s format, which `croupier phh export`
writes as PHH), `results` (pots and winners, net per seat), `faults` and `reason`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from firmware_host.service.history import hand_lines
from firmware_host.service.journal import HandRow, Journal, JournalError
from firmware_host.service.refusals import english
from firmware_host.tables.house.chips import make_of
from cli.output import stdout_closed
from protocol.audit import signer_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", default=os.environ.get("CROUPIER_STATE", "croupier-state"),
                        help="the journal's directory (default $CROUPIER_STATE or ./croupier-state)")
    parser.add_argument("--last", type=int, default=10, metavar="N", help="how many hands (default 10; 0: all)")
    parser.add_argument("--json", action="store_true", help="one JSON line per finished hand")


def describe_poker(row: HandRow) -> list[str]:
    """The text lines of one finished poker hand."""
    rec = row.record
    stakes = ", ".join(f"{k} {v}" for k, v in (rec.get("stakes") or {}).items())
    lines = [f"hand {row.hand}  {rec.get('game')} {rec.get('structure')} ({stakes})  {row.status.upper()}"
             + (f"  button seat {rec['button']}" if rec.get("button") is not None else "")]
    per_seat: dict[str, list[str]] = {}
    for target, card in rec.get("deals", []):
        if target.startswith("seat "):
            words = target.split()
            per_seat.setdefault(words[1], []).append(card + ("^" if "up" in words else "")
                                                     + ("*" if "draw" in words else ""))
    results = rec.get("results") or {}
    nets = {str(x["seat"]): x["net"] for x in results.get("net", [])}
    shown = rec.get("shown") or {}
    for seat, stack in sorted((rec.get("stacks") or {}).items(), key=lambda kv: int(kv[0])):
        line = f"  seat {seat}: {' '.join(per_seat.get(seat, [])) or '-'}  stack {stack}"
        if seat in nets:
            line += f"  net {nets[seat]:+d}"
        if seat in shown:
            line += f"  shows {' / '.join(shown[seat])}"
        lines.append(line)
    lines.append(f"  board: {' '.join(rec.get('board', [])) or '-'}")
    lines.append(f"  burns: {' '.join(rec.get('burns', [])) or '-'}")
    for action in rec.get("actions", []):
        lines.append(f"    {action}")
    for i, pot in enumerate(results.get("pots", [])):
        name = "main pot" if i == 0 else f"side pot {i}"
        winners = ", ".join(f"seat {w['seat']} {w['amount']}" + (f" ({w['half']})" if w.get("half", "all") != "all"
                                                                    else "") for w in pot["winners"])
        lines.append(f"  {name} {pot['amount']} (seats {', '.join(map(str, pot['eligible']))}): {winners or '-'}")
    if rec.get("chopped"):
        lines.append("  chopped by agreement")
    return lines + closing_lines(row)


def closing_lines(row: HandRow) -> list[str]:
    """The lines every finished hand ends with: its void, its faults and their clearing, cards not dealt."""
    rec, lines = row.record, []
    if row.status == "voided":
        lines.append(f"  voided: {rec.get('reason')}" + (f" ({_by(rec, 'signed off by').strip()})"
                                                          if rec.get("signed_off") else
                                                          f" (by {rec['by']})" if rec.get("by") else "")
                     + "; every bet returned")
    for fault in rec.get("faults", []):
        cleared = fault.get("cleared")
        lines.append(f"  fault {fault['kind']}: {fault.get('detail')}" +
                     (f"; cleared{_by(cleared)}: {cleared['reason']} ({cleared['then']})" if cleared
                      else "; not cleared"))
    for manual in rec.get("manual", []):
        lines.append(f"  card {manual['card']} entered by hand" + _by(manual.get("signed_off") or {}, " signed off by"))
    for ignored in rec.get("ignored", []):
        lines.append(f"  card {ignored['card']} not dealt (fault {ignored['fault']} standing)")
    return lines


def _by(step: dict[str, Any], words: str = " by") -> str:
    """` by ana` for the supervisor who signed a step off (or a journal of before sign-offs' `by`), else nothing."""
    signer = signer_of(step)
    return f"{words} {signer}" if signer else ""


def describe(row: HandRow) -> list[str]:
    """The text lines of one finished hand."""
    rec = row.record
    if rec.get("poker"):
        return describe_poker(row)
    lines = [f"hand {row.hand}  {rec.get('game')} ({rec.get('profile')})  {row.status.upper()}"]
    per_target: dict[str, list[str]] = {}
    for target, card in rec.get("deals", []):
        per_target.setdefault(target, []).append(card)
    settlement = rec.get("settlement") or {}
    results = {s["seat"]: s for s in settlement.get("spots", [])}
    for spot in rec.get("spots", []):
        seat = spot["seat"]
        line = f"  spot {seat}: {' '.join(per_target.get(f'spot {seat}', [])) or '-'}  bets " + \
            ", ".join(f"{k} {v}" for k, v in spot.get("bets", {}).items())
        if spot.get("decision"):
            line += f"  decision {spot['decision']}"
            if spot.get("multiple"):
                line += f" {spot['multiple']}x on the {spot.get('street')}"
        if seat in results:
            r = results[seat]
            line += f"  {r.get('hand')}: " + ", ".join(f"{k} {v:+d}" for k, v in r["results"].items()) + \
                f"  net {r['net']:+d}"
        lines.append(line)
    dealer = settlement.get("dealer", {})
    text = f"  dealer: {' '.join(per_target.get('dealer', [])) or '-'}"
    if dealer:
        text += f"  {dealer.get('hand')}{' (qualifies)' if dealer.get('qualifies') else ' (does not qualify)'}"
    lines.append(text)
    if rec.get("game") == "uth":
        lines.append(f"  board: {' '.join(per_target.get('board', [])) or '-'}")
    lines.append(f"  burns: {' '.join(rec.get('burns', [])) or '-'}")
    lines.append("  dealt: " + " ".join(f"{card}>{target.replace('spot ', 's')}"
                                        for target, card in rec.get("deals", [])))
    if settlement:
        lines.append(f"  house net {settlement.get('house_net'):+d}")
    return lines + chips_lines(rec.get("chips")) + closing_lines(row)


def chips_lines(chips: dict[str, Any] | None) -> list[str]:
    """A smart table's hand: where its bets came from, each circle paid against its due, a mispay accepted."""
    if not chips or chips.get("source") is None:
        return []
    lines = [f"  bets {'read from the chips' if chips['source'] == 'chips' else 'typed (chip reader offline)'}"]
    dues, paid = chips.get("dues") or {}, chips.get("paid") or {}
    made = chips.get("make") or {}  # a hand journaled before its record said it: `to_due` of its due and reading
    if dues:
        lines.append("  paid: " + ", ".join(_paid(name, due, paid.get(name), made.get(name))
                                          for name, due in sorted(dues.items())))
    override = chips.get("override")
    if override:
        lines.append("  mispay accepted" + _by(override) + ": " + ", ".join(
            f"{name} due {a['due']}, read {a['reads']}" for name, a in sorted(override["accepted"].items())))
    return lines


def _paid(name: str, due: int, reads: int | None, make: Mapping[str, Any] | None) -> str:
    """A circle's reading at the confirm against its due, and what would have made it read its due ("pay 100 more")."""
    if reads == due:
        return f"{name} {reads}"
    if reads is None:
        return f"{name} - (due {due})"
    make = make or make_of(due, reads)
    words = english({"key": f"to_due.{make['do']}", "args": {"amount": make["amount"]}}) if make else ""
    return f"{name} {reads} (due {due}{', ' + words if words else ''})"


def in_progress(journal: Journal) -> list[str]:
    """The hand in progress, rebuilt by replaying the journal (read-only, nothing written)."""
    from firmware_host.service.recovery import rebuild

    try:
        controller, _ = rebuild(journal)
    except JournalError as exc:
        return [f"hand in progress: cannot rebuild it: {exc}"]
    if controller.table is None:
        return ["no table open"]
    if not controller.table.started and controller.fault is None:
        waiting = "the deal" if controller.table.phase in ("waiting", "settled") else "bets"
        return [f"hand {controller.hand}: waiting for {waiting}"]
    state = controller.views()[1]
    lines = [f"hand {state['hand']} IN PROGRESS  {state['game']}  phase {state['phase']}"]
    if "structure" in state:  # a poker table
        for spot in state["spots"]:
            if spot.get("in_hand"):
                lines.append(f"  seat {spot['seat']}: {' '.join(spot['cards']) or '-'}  stack {spot['stack']}  "
                             f"in pot {spot['bets'].get('in_pot', 0)}"
                             + (f"  [{spot['decision']}]" if spot.get("decision") else ""))
        lines.append(f"  board: {' '.join(state['board']) or '-'}")
        lines.append(f"  burns: {' '.join(state.get('burns', [])) or '-'}")
        lines.append("  pots: " + (", ".join(f"{p['amount']} (seats {', '.join(map(str, p['eligible']))})"
                                            for p in state["pots"]) or "-"))
        if state.get("prompt"):
            lines.append(f"  now: {state['prompt']}")
        if controller.fault is not None:
            lines.append(f"  FAULT {controller.fault.kind}: {controller.fault.detail} (waiting for a supervisor)")
        return lines
    for spot in state["spots"]:
        lines.append(f"  spot {spot['seat']}: {' '.join(spot['cards']) or '-'}  bets "
                     + ", ".join(f"{k} {v}" for k, v in spot["bets"].items())
                     + (f"  decision {spot['decision']}" if spot.get("decision") else ""))
    lines.append(f"  dealer: {' '.join(state['dealer']['cards']) or '-'}")
    if state["game"] == "uth":
        lines.append(f"  board: {' '.join(state['board']) or '-'}")
    lines.append(f"  burns: {' '.join(state.get('burns', [])) or '-'}")
    if controller.fault is not None:
        lines.append(f"  FAULT {controller.fault.kind}: {controller.fault.detail} (waiting for a supervisor)")
    return lines


def history(journal: Journal, out: TextIO, last: int, as_json: bool) -> None:
    if as_json:  # each hand's line as stored when it closed: the `history` request's
        for line in hand_lines(journal, journal.lines_newest(last) if last > 0 else journal.lines_after(0, -1)):
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
        return
    rows = journal.hands(last if last > 0 else None)
    for row in rows:
        out.write("\n".join(describe(row)) + "\n\n")
    out.write("\n".join(in_progress(journal)) + "\n")


def main(args: argparse.Namespace) -> int:
    try:
        journal = Journal.open(args.state, readonly=True)
    except JournalError as exc:
        print(f"croupier history: {exc}", file=sys.stderr)
        return 1
    try:
        history(journal, sys.stdout, args.last, args.json)
        sys.stdout.flush()
    except BrokenPipeError:  # `croupier history | head`: the reader has what it wanted
        return stdout_closed()
    except JournalError as exc:  # damaged past its first page
        print(f"croupier history: {exc}", file=sys.stderr)
        return 1
    finally:
        journal.close()
    return 0
