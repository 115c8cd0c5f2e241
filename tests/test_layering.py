"""The import floors of STYLE.md, read from every module's imports with `ast`, and module docstrings."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "drivers", "firmware_host")
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


def test_drivers_import_neither_engine_nor_firmware_host() -> None:
    wrong = [f"{where(p, line)} imports {name}"
             for p in modules("drivers") for line, name in imports(p)
             if name.split(".")[0] in ("engine", "firmware_host")]
    assert wrong == []


def test_no_package_imports_the_tests_or_the_bench() -> None:
    wrong = [f"{where(p, line)} imports {name}"
             for package in PACKAGES for p in modules(package) for line, name in imports(p)
             if name.split(".")[0] in ("tests", "bench")]
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


def test_the_service_and_the_tables_import_neither_the_simulation_nor_the_command_line() -> None:
    # The simulated table (emulated shoe, bots, the demo's restarter) and the command line are
    # clients of the service; the service runs on a Pi with neither.
    inner = [p for room in ("service", "tables") for p in sorted((ROOT / "firmware_host" / room).rglob("*.py"))]
    assert inner, "firmware_host/service and firmware_host/tables hold the service"
    wrong = [f"{where(p, line)} imports {name}" for p in inner for line, name in imports(p)
             if name.startswith(("firmware_host.sim", "firmware_host.cli"))]
    assert wrong == []


def test_the_simulation_does_not_import_the_command_line() -> None:
    wrong = [f"{where(p, line)} imports {name}"
             for p in sorted((ROOT / "firmware_host" / "sim").rglob("*.py")) for line, name in imports(p)
             if name.startswith("firmware_host.cli")]
    assert wrong == []


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
