"""A card's text form is declared once, in `engine.cards`: the drivers' copy (drivers import no engine) and the
pages' suit symbols (JavaScript) equal it, and no other module of ours spells the ranks or suits out again."""

from __future__ import annotations

import re
from pathlib import Path

from drivers import readings
from engine.cards import PRINTED_RANKS, RANKS, SUIT_SYMBOLS, SUITS, printed

ROOT = Path(__file__).resolve().parents[2]
STATIC = (ROOT / "pages" / "static", ROOT / "firmware_host" / "display" / "static", ROOT / "floor" / "web" / "static")
"""The pages' shared modules and each web process's own."""
PACKAGES = ("engine", "drivers", "protocol", "pages", "firmware_host", "floor", "analysis", "sim", "cli", "bench",
            "tools")
DECLARED = {ROOT / "engine" / "cards.py", ROOT / "drivers" / "readings.py"}


def test_the_drivers_card_form_is_the_engines() -> None:
    assert (readings.RANKS, readings.SUITS) == (RANKS, SUITS)
    assert set(SUIT_SYMBOLS) == set(SUITS)


def test_no_other_module_spells_the_ranks_or_suits_out() -> None:
    spelt = re.compile(r"23456789TJQKA|AKQJT98765432|[\"'](?:cdhs|shdc)[\"']")
    found = [f"{p.relative_to(ROOT)}:{n}" for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
             if p not in DECLARED for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if spelt.search(line)]
    assert found == []


def js_tables(name: str = "SUITS") -> dict[str, dict[str, str]]:
    """Every `SUITS = {s: "\\u2660", ...}` object (or `name`'s) the pages' modules declare, by file."""
    out = {}
    for path in sorted(p for folder in STATIC for p in folder.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(rf"\b{name}\s*=\s*(?:/\*\*[^*]*\*/\s*)?\(?\{{([^}}]*)\}}", text):
            entries = re.findall(r"([a-zA-Z0-9])\s*:\s*\"((?:\\u[0-9a-fA-F]{4})|[^\"]+)\"", match.group(1))
            out[f"{path.name}@{match.start()}"] = {
                k: v.encode().decode("unicode_escape") if v.startswith("\\u") else v for k, v in entries}
    return out


def test_the_pages_suit_symbols_are_pythons() -> None:
    tables = js_tables()
    assert tables, "no SUITS table found in the pages' modules"
    for where, table in tables.items():
        assert table == SUIT_SYMBOLS, where


def test_the_pages_printed_ranks_are_pythons() -> None:
    for where, table in js_tables("RANKS").items():
        assert set(table) <= set(RANKS), where
        assert table == {rank: PRINTED_RANKS.get(rank, rank) for rank in table}, where


def test_printed_cards() -> None:
    assert printed("Th") == PRINTED_RANKS["T"] + SUIT_SYMBOLS["h"] == "10\u2665"
    assert printed("2c") == "2\u2663" and printed("??") == "??" and printed("1x") == "1x"
