"""Build engine/ compiled by mypyc into a tree of its own (`make compiled`): an optional accelerator over the same source.

    python tools/compile_engine.py [OUT]        (OUT defaults to build/compiled)

The sources are copied to OUT/engine (the package data with them), the copy's `engine.COMPILED` set to True, and
every module but the package's `__init__` compiled there by mypyc into C extensions beside its copy, the shared
library named `engine._compiled__mypyc` so that it lies inside the package (the code manifest hashes what lies there:
docs/security.md). engine/ itself is never touched: a process runs the compiled engine only when OUT comes first
on its path (`PYTHONPATH=build/compiled croupier ...`, `make compiled-test`), or where deploy/install-pi.sh
installed its extensions into the Pi's venv; it says which by `engine.COMPILED`. Needs mypy (the dev extra:
its mypyc), setuptools, a C compiler and the Python headers; exits non-zero, the pure engine untouched, when one
is missing or the build fails. mypyc derives a compiled module's `__file__` from the shared library's place as if it
lay above the package: `engine/engine/poker/state...so` for `engine/poker/state...so` (cosmetic: the package's
`__path__`, which the manifest and `importlib.resources` read, is right).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = "COMPILED = False"


def copy_sources(out: Path) -> list[str]:
    """engine/ copied to out/engine (no bytecode), the copy marked compiled; the modules' paths, relative to out."""
    target = out / "engine"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "engine", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    init = target / "__init__.py"
    text = init.read_text(encoding="utf-8")
    if text.count(MARK) != 1:
        raise SystemExit(f"compile_engine: engine/__init__.py must hold `{MARK}` once")
    init.write_text(text.replace(MARK, "COMPILED = True"), encoding="utf-8")
    return sorted(str(p.relative_to(out)) for p in target.rglob("*.py"))


def build(out: Path) -> None:
    """Compile the copy in place: the extensions beside their modules, C and objects under out/.tmp."""
    from mypyc.build import mypycify
    from setuptools import setup

    modules = copy_sources(out)
    os.chdir(out)
    # engine/__init__.py stays a plain module (it holds COMPILED alone): the shared library lies in the package,
    # whose compiled `__init__` would have to import it while the package is not yet made (a recursion)
    compiled = [m for m in modules if m != os.path.join("engine", "__init__.py")]
    extensions = mypycify(modules, only_compile_paths=compiled, opt_level="3", target_dir=".tmp/c",
                          group_name="engine._compiled")
    setup(name="croupier-engine-compiled", ext_modules=extensions,
          script_args=["-q", "build_ext", "--inplace", "--build-temp", ".tmp/obj", "--build-lib", ".tmp/lib"])


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "compiled").resolve()
    if out == ROOT or ROOT / "engine" in (out, *out.parents):
        raise SystemExit("compile_engine: OUT must lie outside engine/ and not be the checkout itself")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    build(out)
    built = sorted((out / "engine").rglob("*.so"))
    print(f"compile_engine: {len(built)} extensions in {out / 'engine'} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
