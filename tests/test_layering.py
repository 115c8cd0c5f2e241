"""Who may import whom among the top folders (docs/architecture.md, "What runs where"), read from every module's imports with `ast`, and module docstrings."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "drivers", "protocol", "pages", "firmware_host", "floor", "analysis", "sim", "cli")
# Each top folder of ours and the folders of ours it may import: what runs on the table's Pi (engine, drivers,
# protocol, pages, firmware_host, cli) imports nothing of what runs elsewhere (the floor server, the analysis, the
# simulations); the floor speaks to the tables only through the protocol; both web processes (the table's
# display, the floor's) build on the pages' shared core; the command line sits on top.
MAY_IMPORT = {
    "engine": set(),
    "drivers": set(),
    "protocol": {"engine"},
    "pages": {"engine", "protocol"},
    "firmware_host": {"engine", "drivers", "protocol", "pages"},
    "floor": {"engine", "protocol", "pages"},
    "analysis": {"engine", "protocol"},
    "sim": {"engine", "drivers", "protocol", "pages", "firmware_host", "floor"},
    "cli": {"engine", "drivers", "protocol", "pages", "firmware_host", "floor", "analysis", "sim"},
}
OURS = (*PACKAGES, "tests", "bench", "tools")
# Not in the engine: I/O, clocks, threads, randomness, logging set-up, devices (time and card order
# come in as arguments).
ENGINE_BANNED = ("socket", "threading", "time", "random", "sqlite3", "subprocess", "asyncio",
                 "logging.config", "zmq", "serial", "gpiozero")


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imports(path: Path, source: str | None = None) -> Iterator[tuple[int, str]]:
    """(line, dotted module) for every import in the module at `path`, nested ones included.

    `from a.b import c` yields both `a.b` and `a.b.c` (c may be a module); a relative import
    yields the absolute name it resolves to. `source` stands in for the file's text when given.
    """
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def test_every_package_has_modules() -> None:
    for package in PACKAGES:
        assert len(modules(package)) >= 2, package


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    wrong = [f"{where(p, line)} imports {name}"
             for p in modules("engine") for line, name in imports(p)
             if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "engine"]
    assert wrong == []


def test_engine_has_no_io_clock_thread_randomness_or_device_imports() -> None:
    wrong = [f"{where(p, line)} imports {name}"
             for p in modules("engine") for line, name in imports(p)
             if any(name == banned or name.startswith(banned + ".") for banned in ENGINE_BANNED)]
    assert wrong == []


def test_every_top_folder_is_stated() -> None:
    on_disk = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert on_disk == set(OURS) - {"tests", "tools"}, "a new top folder: say in MAY_IMPORT whom it may import"
    assert set(MAY_IMPORT) == set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_top_folder_imports_only_what_it_may(package: str) -> None:
    allowed = MAY_IMPORT[package] | {package}
    wrong = [f"{where(p, line)} imports {name} ({package} may import {', '.join(sorted(allowed))})"
             for p in modules(package) for line, name in imports(p)
             if name.split(".")[0] in OURS and name.split(".")[0] not in allowed]
    assert wrong == []


def test_the_tables_pi_package_list_is_the_layering_s() -> None:
    from protocol import packages
    table = set(packages.TABLE)
    assert table | set(packages.ELSEWHERE) == set(PACKAGES)
    # what the Pi installs imports nothing it does not install, but for the command line's commands that run
    # elsewhere: each of those imports only the folder it names in cli.NEEDS
    assert all(MAY_IMPORT[name] <= table for name in table - {"cli"})


def test_a_command_imports_a_folder_the_pi_lacks_only_where_it_says_it_needs_it() -> None:
    from cli import COMMANDS, NEEDS, OPTIONAL
    from protocol import packages
    names = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in modules("cli")}
    inner = {name: {m for _, m in imports(path) if m in names and m != name} for name, path in names.items()}
    reached: dict[str, set[str]] = {name: set() for name in names}  # module -> the commands that load it
    for command, (module, _) in COMMANDS.items():
        todo = [module]
        while todo:
            name = todo.pop()
            if command not in reached[name]:
                reached[name].add(command)
                todo += inner[name]
    wrong = []
    for name, path in names.items():
        allowed = {NEEDS[c] for c in reached[name] if c in NEEDS} if reached[name] else set()
        if any(c not in NEEDS for c in reached[name]):
            allowed = set()  # loaded by a command that runs on the Pi too: the table's folders only
        lazy = {OPTIONAL[c] for c in reached[name] if c in OPTIONAL}  # only inside the function of the option
        lines = path.read_text(encoding="utf-8").splitlines()
        wrong += [f"{where(path, line)} imports {m} (loaded by {', '.join(sorted(reached[name])) or 'nothing'})"
                  for line, m in imports(path)
                  if m.split(".")[0] in set(PACKAGES) - set(packages.TABLE) and m.split(".")[0] not in allowed
                  and not (m.split(".")[0] in lazy and lines[line - 1].startswith(" "))]
    assert wrong == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_opens_with_a_one_line_docstring(package: str) -> None:
    wrong = []
    for path in modules(package):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        doc = ast.get_docstring(tree, clean=False)
        lines = doc.split("\n") if doc else []
        if not lines or not lines[0].strip():
            wrong.append(f"{where(path, 1)}: no docstring saying what the module is for")
        elif len(lines) > 1 and lines[1].strip():
            wrong.append(f"{where(path, 2)}: the docstring's first line runs on; end it there, then a blank line")
    assert wrong == []


def test_the_import_reader_sees_nested_aliased_and_relative_imports() -> None:
    # The floors are only as good as the reader: a module that is never written, read from a string.
    source = ("import os.path as p\n"
              "def f():\n    import random\n    from time import monotonic\n"
              "from . import cards\nfrom .poker import state\nfrom logging import config\n")
    found = list(imports(ROOT / "engine" / "sample.py", source))
    assert (3, "random") in found and (4, "time.monotonic") in found
    assert {"os.path", "engine", "engine.cards", "engine.poker", "engine.poker.state", "logging.config"} \
        <= {name for _, name in found}
    nested = list(imports(ROOT / "engine" / "poker" / "sample.py", "from ..cards import Card\n"))
    assert nested == [(1, "engine.cards"), (1, "engine.cards.Card")]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    """No module imports, even for type checking or inside a function, a module that imports it
    back (directly or round a longer loop)."""
    names = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
             for p in modules(package)}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        own = {m for _, m in imports(path) if m in names and m != name}
        # a module imports its package's __init__ first; that is not a loop of its own making
        graph[name] = {m for m in own if not name.startswith(m + ".")}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt in trail:
                cycles.append(trail[trail.index(nxt):] + [nxt])
            elif len(trail) < 12:
                visit(nxt, trail + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    assert not cycles, cycles[:5]


MAX_MODULE_LINES = 650   # "no module over ~600 lines"
MAX_FUNCTION_LINES = 80


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_and_functions_stay_small_enough_to_read(package: str) -> None:
    wrong = []
    for path in modules(package):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + 1
        if lines > MAX_MODULE_LINES:
            wrong.append(f"{where(path, 1)}: {lines} lines (at most {MAX_MODULE_LINES}): split it into rooms")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    wrong.append(f"{where(path, node.lineno)}: {node.name} is {length} lines (at most "
                                 f"{MAX_FUNCTION_LINES})")
    assert wrong == []
