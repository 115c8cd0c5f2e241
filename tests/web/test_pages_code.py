"""The pages' JavaScript as code: tsc checks its types (`// @ts-check` in every module), node's test runner its
pure helpers (tests/web/js), and its shape (relative imports, the feed and the elements written once in common.js)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_host.display import server
from floor.web import server as floor_server
from pages import app, words
from tests.web.money import shown

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = (app.STATIC, Path(server.STATIC), Path(floor_server.STATIC))
"""The pages' shared folder, then each web process's own (the table's display, the floor's): each process serves
its own and the shared as one /static/."""
MODULES = sorted((p for folder in FOLDERS for p in folder.glob("*.js")), key=lambda p: p.name)
TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"
TSCONFIG = ROOT / "tsconfig.json"
NODE_TESTS = sorted((Path(__file__).parent / "js").glob("*.test.mjs"))
COMMON = "common.js"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: `make test` installs Debian's npm (and node with it)")
    return node


def test_the_pages_type_check() -> None:
    if not TSC.is_file():
        pytest.fail(f"{TSC} is missing: `make node_modules/typescript/bin/tsc` (or `npm ci`) installs typescript")
    done = subprocess.run([_node(), str(TSC), "--noEmit", "-p", str(TSCONFIG)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"tsc --noEmit -p {TSCONFIG.relative_to(ROOT)}:\n{done.stdout}{done.stderr}"


def _money_cases() -> list[dict[str, object]]:
    """Money as tests/web/money.py writes it, for each page language's locale (the catalogs' `meta.locale`): euros,
    the pages' money (money.py's other symbols are not Intl's in every locale: "US$" in en-GB, "£GB" in fr-FR)."""
    cases: list[dict[str, object]] = []
    for lang in ("en", "fr"):
        locale = words.catalogs()[lang]["meta.locale"]
        for currency, decimals in (("EUR", 2), ("EUR", 0)):
            for amount in (0, 5, 750, -750, 123450, -123450, 100000000):
                for signed in (False, True):
                    cases.append({"amount": amount, "locale": locale, "currency": currency, "decimals": decimals,
                                  "signed": signed,
                                  "shown": shown(amount, lang, currency=currency, decimals=decimals, signed=signed)})
    return cases


def test_the_pure_helpers_under_node() -> None:
    assert NODE_TESTS, "tests/web/js holds no *.test.mjs"
    env = {**os.environ, "CROUPIER_MONEY_CASES": json.dumps(_money_cases()), "NODE_NO_WARNINGS": "1"}
    done = subprocess.run([_node(), "--test", *map(str, NODE_TESTS)], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, f"node --test:\n{done.stdout}{done.stderr}"
    assert re.search(r"^# fail 0$", done.stdout, re.M) and not re.search(r"^# skipped [1-9]", done.stdout, re.M), done.stdout


def test_every_page_module_is_checked_and_imports_its_neighbours() -> None:
    assert len(MODULES) >= 14
    for module in MODULES:
        text = module.read_text(encoding="utf-8")
        assert text.startswith("// @ts-check\n"), f"{module.name}: its first line is not // @ts-check"
        # a shared module imports shared ones only; a page's, its own folder's or the shared ones (one /static/)
        served = app.static_files(module.parent) if module.parent != app.STATIC else {p.name for p in FOLDERS[0].iterdir()}
        for target in re.findall(r'^import .* from "([^"]+)";$', text, re.M):
            assert target.startswith("./") and target[2:] in served, f"{module.name} imports {target}"


@pytest.mark.parametrize("written_once", [
    "new WebSocket(", "document.createElement(", "document.createElementNS(", "seconds * 1000",
    "MISSED_HEARTBEATS", "new Intl.NumberFormat(", "\\u2660", '"refusal.other"', '"console.next_card"', "structure !==",
])
def test_what_every_page_needs_is_written_once(written_once: str) -> None:
    """The feed's socket and heartbeat, the elements, money, the cards' suits, a refusal's and the next card's words,
    a poker table told from a house one: each in one module."""
    holders = [m.name for m in MODULES if written_once in m.read_text(encoding="utf-8")]
    assert len(holders) == 1, f"{written_once!r} is written in {holders}"
