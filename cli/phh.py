"""`croupier phh`: replay PHH hand histories through our engine, and export our hands as PHH.

`croupier phh replay FILE...` reads `.phh` (one hand) and `.phhs` (several: `[1]`, `[2]`, ...)
files and plays every hand through the engine strictly: an action the record lacks is an error,
never supplied. One JSON line per hand on stdout::

    {"file": "a.phh", "index": 0, "variant": "NT", "finishing_stacks": [572100, 1997500, 1109500]}
    {"file": "b.phhs", "index": 3, "error": "action 'p3 cc' (#12): ..."}

`index` counts the hands of a file from 0 (a `.phh` has only index 0; index 3 of a `.phhs` is its
fourth table, usually `[4]`). Amounts are in the record's own units (`0.25` stays `0.25`).
With `--check`, a line also says whether the result equals the record's `finishing_stacks`:
`"recorded": [...]`, `"matches": true|false` (absent when the record has none).

Exit status: 0 when every hand replayed, 1 when at least one hand gave an error line (the others
are still printed), 2 when a file cannot be read at all (missing, not UTF-8, not TOML).

`croupier phh export FILE...` reads hand records of our table as JSON (one record, or a list of
them; `-` reads stdin; the format is `engine.phh.hand_from_record`'s: variant, structure, stakes,
stacks by seat, button and the events in order), plays each through the engine and prints it as
PHH text (`--phhs`: one `.phhs` text, tables `[1]`, `[2]`...). Exit status 0, or 2 when a record
is refused (the reason on stderr, nothing on stdout).

`croupier phh export --state DIR [--last N | --hand N] [--phhs]` exports the poker hands dealt at
the table straight from the controller's journal (read-only, while it runs): every settled poker
hand, or the last N of them, or hand N. Each record carries `hand` (the table's hand number) and
`seats` (table seat numbers, p1..pN). A hand chopped by agreement is written with the table's
`finishing_stacks` and `chopped = true` (PHH has no chop action, so it does not replay to the end);
voided hands (every bet returned) are not exported. Exit status 0, 1 when there is no such hand,
2 when the journal cannot be read.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.phh import HandHistory, PhhError, dumps_phhs, hands_of_tables, load_toml, record_to_phh, replay


def _fast_reader() -> Callable[[str], dict[str, Any]] | None:
    """rtoml's `loads` when the `fast` extra is installed (a TOML reader in Rust, about 13x tomllib on PHH text)."""
    try:
        import rtoml
    except ImportError:
        return None
    return rtoml.loads


_fast_loads = _fast_reader()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="phh_command", required=True, metavar="ACTION")
    rp = sub.add_parser("replay", help="replay .phh/.phhs files through our engine, one JSON line per hand",
                        description="Replay .phh/.phhs files through our engine, one JSON line per hand. "
                                    "Exit status 0: all hands replayed; 1: some hand gave an error line; "
                                    "2: a file could not be read.")
    rp.add_argument("files", nargs="+", metavar="FILE", help=".phh or .phhs file")
    rp.add_argument("--check", action="store_true",
                    help="add the recorded finishing_stacks and whether ours match them")
    ex = sub.add_parser("export", help="write hand records (JSON) as PHH text",
                        description="Write hand records of our table (JSON files, one record or a list) "
                                    "as PHH text on stdout.")
    ex.add_argument("files", nargs="*", metavar="FILE", help="JSON hand record, or a list of them ('-': stdin)")
    ex.add_argument("--phhs", action="store_true", help="write one .phhs text ([1], [2], ...)")
    ex.add_argument("--state", metavar="DIR", default=None,
                    help="export the poker hands of the controller's journal in DIR instead of FILEs")
    which = ex.add_mutually_exclusive_group()
    which.add_argument("--last", type=int, default=0, metavar="N", help="with --state: the last N hands (default all)")
    which.add_argument("--hand", type=int, default=None, metavar="N", help="with --state: hand number N")


def _number_text(value: int | Decimal) -> str:
    if isinstance(value, Decimal):
        text = format(value, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".") if value == value.to_integral_value() else text
        return text
    return str(value)


def _line(fields: dict[str, Any], amounts: dict[str, list[int | Decimal]]) -> str:
    """One JSON object; `amounts` are written as exact JSON numbers (never through a float)."""
    text = json.dumps(fields, ensure_ascii=False)
    for name, values in amounts.items():
        text = text[:-1] + f', "{name}": [' + ", ".join(map(_number_text, values)) + "]}"
    return text


def _holds_float(value: Any) -> bool:
    """Whether a parsed TOML value holds a float at any depth."""
    kind = type(value)
    if kind is float:
        return True
    if kind is dict:
        return any(map(_holds_float, value.values()))
    if kind is list:
        kinds = set(map(type, value))
        return float in kinds or bool(kinds & {dict, list}) and any(map(_holds_float, value))
    return False


def read_fields(text: str) -> dict[str, Any]:
    """A PHH file's TOML text as its fields, decimals as Decimal. Raises PhhSyntaxError ("not TOML: ...").

    The reference is the standard library's tomllib (`engine.phh.load_toml`). When rtoml is
    installed (the `fast` extra) it reads the text first, and its fields are taken when they hold
    no float: rtoml reads a decimal such as `0.25` only as a binary float, which tomllib reads
    exactly (as Decimal), so such a text, and any text rtoml refuses, is read by tomllib. That the
    two give equal fields is tested over the whole PHH sample (tests/cli/test_phh_readers.py).
    """
    if _fast_loads is not None:
        try:
            fields = _fast_loads(text)
        except Exception:  # what rtoml refuses, tomllib refuses in its own words, or reads after all
            pass
        else:
            if not _holds_float(fields):
                return fields
    return load_toml(text)


def _hands(path: str, text: str) -> list[HandHistory | PhhError]:
    fields = read_fields(text)
    if path.endswith(".phhs"):
        return hands_of_tables(fields)
    try:
        return [HandHistory.from_fields(fields)]
    except PhhError as exc:
        return [exc]


def _result_line(path: str, index: int, variant: str, stacks: Sequence[int | Decimal],
                 recorded: Sequence[int | Decimal] | None, check: bool) -> str:
    """The JSON line of a replayed hand (see the module docstring)."""
    fields: dict[str, Any] = {"file": path, "index": index, "variant": variant}
    amounts: dict[str, list[int | Decimal]] = {"finishing_stacks": list(stacks)}
    if check and recorded is not None:
        amounts["recorded"] = list(recorded)
        matches = all(s == r for s, r in zip(stacks, recorded))
        line = _line(fields, amounts)
        return line[:-1] + f', "matches": {"true" if matches else "false"}}}'
    return _line(fields, amounts)


def replay_files(paths: list[str], check: bool, out: Any) -> int:
    """Replay every hand of `paths`, writing one JSON line per hand to `out`; the exit status."""
    status = 0
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
            hands = _hands(path, text)
        except (OSError, UnicodeDecodeError, PhhError) as exc:
            print(json.dumps({"file": path, "error": f"cannot read the file: {exc}"}), file=out)
            status = 2
            continue
        for index, hand in enumerate(hands):
            if isinstance(hand, PhhError):
                print(json.dumps({"file": path, "index": index, "error": str(hand)}), file=out)
                status = max(status, 1)
                continue
            try:
                stacks = replay(hand)
            except EngineError as exc:
                print(json.dumps({"file": path, "index": index, "variant": hand.variant, "error": str(exc)}),
                      file=out)
                status = max(status, 1)
                continue
            print(_result_line(path, index, hand.variant, [hand.amount(s) for s in stacks],
                               hand.finishing_stacks, check), file=out)
    return status


def export_files(paths: list[str], phhs: bool, out: Any) -> int:
    """Print the hand records of `paths` (JSON) as PHH; the exit status (2: a record is refused)."""
    records: list[HandHistory] = []
    for path in paths:
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
            items = data if isinstance(data, list) else [data]
            records.extend(record_to_phh(item) for item in items)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, EngineError) as exc:
            print(f"croupier phh export: {path}: {exc}", file=sys.stderr)
            return 2
    return _write(records, phhs, out)


def _write(records: list[HandHistory], phhs: bool, out: Any) -> int:
    """Print the records as one `.phhs` text, or as `.phh` texts one after another; exit status 0."""
    out.write(dumps_phhs(records) if phhs else "\n".join(r.dumps() for r in records))
    return 0


def journal_records(journal: Any, last: int = 0, hand: int | None = None) -> list[HandHistory]:
    """The PHH records of the poker hands in a controller journal (see the module docstring).
    Raises PhhError when a journaled hand does not play through the engine."""
    rows = [r for r in journal.hands() if r.status == "settled" and r.record.get("hand_record")]
    if hand is not None:
        rows = [r for r in rows if r.hand == hand]
    elif last > 0:
        rows = rows[-last:]
    out: list[HandHistory] = []
    for row in rows:
        rec = row.record
        history = record_to_phh(rec["hand_record"])
        # The table's result is the truth (a rake, a chop): finishing stacks are start + net.
        seats = [int(s) for s in dict(history.extra).get("seats", [])]
        nets = {int(x["seat"]): int(x["net"]) for x in (rec.get("results") or {}).get("net") or []}
        start = {int(s): int(c) for s, c in rec["hand_record"]["stacks"].items()}
        if seats and set(nets) == set(seats):
            history = dataclasses.replace(
                history, finishing_stacks=tuple(history.amount(start[s] + nets[s]) for s in seats))
        if rec.get("chopped"):
            history = dataclasses.replace(
                history, extra=tuple(sorted({**dict(history.extra), "chopped": True}.items())))
        out.append(history)
    return out


def export_state(state: str, last: int, hand: int | None, phhs: bool, out: Any) -> int:
    """Print the poker hands of the journal in `state` as PHH; the exit status."""
    from firmware_host.service.journal import Journal, JournalError
    try:
        journal = Journal.open(state, readonly=True)
    except JournalError as exc:
        print(f"croupier phh export: {exc}", file=sys.stderr)
        return 2
    try:
        records = journal_records(journal, last, hand)
    except EngineError as exc:
        print(f"croupier phh export: {state}: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:  # damaged past its first page
        print(f"croupier phh export: {exc}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    if not records:
        print(f"croupier phh export: {state}: no settled poker hand" + (f" {hand}" if hand else ""),
              file=sys.stderr)
        return 1
    return _write(records, phhs, out)


def main(args: argparse.Namespace) -> int:
    if args.phh_command == "replay":
        return replay_files(args.files, args.check, sys.stdout)
    if args.state is not None:
        if args.files:
            print("croupier phh export: give FILEs or --state, not both", file=sys.stderr)
            return 2
        return export_state(args.state, args.last, args.hand, args.phhs, sys.stdout)
    if not args.files:
        print("croupier phh export: give FILEs (JSON hand records) or --state DIR", file=sys.stderr)
        return 2
    return export_files(args.files, args.phhs, sys.stdout)
