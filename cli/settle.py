"""`croupier settle`: settle house-game rounds read as JSON Lines on standard input, one result line each.

    croupier settle [--profile NAME_OR_FILE] [--table FILE] < rounds.jsonl

Each input line is one round (see `engine.settle` and docs/house-games.md), or a finished hand's
line of `croupier history --json`, settled under the profile and limits it carries (not those
given here); each output line is its settlement, or
`{"line": N, "error": "..."}` when the line is not a valid round, and the next lines are still
settled. Exit status: 0 when every line was settled, 1 when any failed, 2 when the profile or the
table file cannot be used. `--table` is a TOML file whose `[limits]` table gives the table limits
(`minimum`, `maximum`, `side_minimum`, `side_maximum`, `chip`: see `engine.house.TableLimits`);
without it the rounds are checked on their own and payouts round down to the unit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Iterable
from typing import TextIO

from engine.errors import EngineError
from engine.house import TableLimits
from engine.paytables import load_profile
from engine.settle import settle_lines
from cli.output import stdout_closed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", default="default", metavar="NAME_OR_FILE",
                        help="paytable profile: default, standard, fr_literal, or a profile TOML file")
    parser.add_argument("--table", metavar="FILE", help="TOML table configuration with a [limits] table")


def run(profile_name: str, table: str | None, stdin: Iterable[str] | Iterable[bytes], stdout: TextIO,
        stderr: TextIO) -> int:
    """Settle the lines of `stdin` (text, or bytes that must be UTF-8) onto `stdout`; the exit status."""
    try:
        profile = load_profile(profile_name)
        limits = None
        if table is not None:
            try:
                text = Path(table).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                print(f"croupier settle: {table}: cannot read the table file: {exc}", file=stderr)
                return 2
            limits = TableLimits.parse_toml(text, table)
            limits.with_max_multiple(profile.uth.max_multiple)  # refuse limits the profile forbids
    except EngineError as exc:
        print(f"croupier settle: {exc}", file=stderr)
        return 2
    status = 0
    for result, ok in settle_lines(stdin, profile, limits):
        stdout.write(json.dumps(result, separators=(", ", ": ")) + "\n")
        stdout.flush()
        if not ok:
            status = 1
    return status


def main(args: argparse.Namespace) -> int:
    try:  # bytes: a line that is not UTF-8 is refused naming the byte, never read as surrogates
        return run(args.profile, args.table, sys.stdin.buffer, sys.stdout, sys.stderr)
    except BrokenPipeError:  # `croupier settle < rounds | head`: the reader has what it wanted
        return stdout_closed()
