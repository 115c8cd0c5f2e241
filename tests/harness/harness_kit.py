"""Shared checks of the harness tests: the journal read back with `croupier history`, re-settled with `croupier settle`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from firmware_host.bots import DealerLog


def croupier(*args: str, stdin: str | None = None, timeout: float = 120.0) -> str:
    """Run one `croupier` subcommand in its own process; its standard output (exit status must be 0)."""
    done = subprocess.run([sys.executable, "-m", "firmware_host.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"croupier {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}"
    return done.stdout


def history(state_dir: Path) -> list[dict[str, Any]]:
    """Every finished hand, as `croupier history --json` prints it."""
    out = croupier("history", "--state", str(state_dir), "--last", "0", "--json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def resettle(rounds: list[dict[str, Any]], table_toml: Path) -> list[dict[str, Any]]:
    """The rounds piped through `croupier settle --table` (the table's own limits)."""
    text = "".join(json.dumps(r) + "\n" for r in rounds)
    out = croupier("settle", "--table", str(table_toml), stdin=text)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def round_cards(line: dict[str, Any]) -> list[str]:
    """Every card of a finished hand: burns, spots, dealer, board."""
    rnd = line["round"] or {}
    cards = list(line.get("burns") or [])
    for spot in rnd.get("spots") or []:
        cards += spot["cards"]
    cards += rnd.get("dealer") or []
    cards += rnd.get("board") or []
    return cards


def check_balanced(settlement: dict[str, Any]) -> None:
    nets = 0
    for spot in settlement["spots"]:
        assert spot["net"] == sum(spot["results"].values()), spot
        nets += spot["net"]
    assert nets + settlement["house_net"] == 0, settlement


def check_ledger(lines: list[dict[str, Any]], log: DealerLog, table_toml: Path,
                 voided: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """Every hand the dealer played is in the journal once, closed as expected, balanced, equal to
    `croupier settle` on its cards, and holds exactly the cards that left the shoe for it (less
    the ones set aside, plus none). Returns the settled lines."""
    mine = [line for line in lines if log.first_hand <= line["hand"] < log.first_hand + log.hands]
    numbers = [line["hand"] for line in mine]
    assert numbers == list(range(log.first_hand, log.first_hand + log.hands)), "a hand is missing or doubled"
    settled = []
    for line in mine:
        if line["hand"] in voided:
            assert line["status"] == "voided", line
            assert line["settlement"] is None
            continue
        assert line["status"] == "settled", line
        check_balanced(line["settlement"])
        cards = round_cards(line)
        assert len(set(cards)) == len(cards), f"hand {line['hand']}: a card twice: {cards}"
        out_of_shoe = Counter(log.draws.get(line["hand"], [])) - Counter(log.strays.get(line["hand"], []))
        assert Counter(cards) == out_of_shoe, (f"hand {line['hand']}: cards in the journal {sorted(cards)} != "
                                               f"cards dealt {sorted(out_of_shoe.elements())}")
        settled.append(line)
    again = resettle([line["round"] for line in settled], table_toml)
    assert len(again) == len(settled)
    for line, result in zip(settled, again, strict=True):
        assert result == line["settlement"], f"hand {line['hand']}: controller {line['settlement']} != settle {result}"
    return settled
