"""The project stands alone: its docs and code cite no file outside it, and the docs' links resolve."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".venv", ".git", "croupier.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache"}
TEXT = {".py", ".md", ".toml", ".sh", ".service", ".rules", ".txt", ".cfg"}


def project_files() -> list[Path]:
    return [p for p in ROOT.rglob("*") if p.is_file() and p.suffix in TEXT
            and not SKIP & set(p.relative_to(ROOT).parts)]


def test_nothing_cites_the_shared_folder_or_rules_md_outside_the_project() -> None:
    this = Path(__file__).resolve()
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in project_files() if p != this
                 for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
                 if "../shared" in line or "RULES.md" in line]
    assert offenders == []


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_rules_cover_every_game_the_product_runs() -> None:
    from engine.games import GAMES

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    titles = {"uth": "Ultimate Texas Hold'em", "3cp": "Three Card Poker", "holdem": "Texas Hold'em",
              "omaha": "Omaha", "omaha_hilo8": "Omaha Hi-Lo", "stud": "7-card Stud", "stud_hilo8": "Stud Hi-Lo",
              "razz": "Razz", "five_card_draw": "5-card draw", "deuce_seven_single": "2-7 single",
              "deuce_seven_triple": "triple draw", "badugi": "Badugi"}
    assert set(titles) == set(GAMES)
    headings = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert [g for g, title in titles.items() if title not in headings] == []


def test_every_test_the_threat_model_names_exists() -> None:
    """`docs/security.md`'s threat model names the tests that show each line: each file and test must be there."""
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    model = text[text.index("## Threat model"):text.index("## Code integrity")]
    missing, last_file = [], None
    for path, name in re.findall(r"`?((?:[a-z_]+/)+test_[a-z_0-9]+\.py|test_[a-z_0-9]+\.py)?(?:::(test_[a-z_0-9]+))?", model):
        if not path and not name:
            continue
        if path:
            last_file = ROOT / "tests" / path if "/" in path else (last_file.parent / path if last_file else None)
        if last_file is None or not last_file.is_file():
            missing.append(path)
            continue
        if name and not re.search(rf"^def {name}\(", last_file.read_text(encoding="utf-8"), re.M):
            missing.append(f"{last_file.relative_to(ROOT)}::{name}")
    assert missing == []


def test_every_bench_has_its_method_and_history_in_docs_benchmarks() -> None:
    """`make bench`'s figures are explained in one place: each bench module is named in docs/benchmarks.md."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    benches = [p.name for p in sorted((ROOT / "bench").glob("*.py")) if not p.name.startswith("_")]
    assert len(benches) >= 12
    assert [name for name in benches if f"bench/{name}" not in text] == []
