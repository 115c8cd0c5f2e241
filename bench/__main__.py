"""Run every benchmark module of this package (or those named on the command line), in one process; exit 0 only when every aim holds."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time

import bench
from bench import Figure


def run_one(name: str) -> list[Figure]:
    """One bench module's figures, each printed as it comes; a bench that breaks is one missed figure
    (one broken benchmark must not hide the others' figures)."""
    module = importlib.import_module(f"bench.{name}")
    print(f"== bench.{name}: {module.__doc__.strip().splitlines()[0] if module.__doc__ else ''}", flush=True)
    started = time.perf_counter()
    try:
        figures = list(module.run())
    except Exception as exc:
        print(f"   FAILED: {exc!r}", flush=True)
        figures = [Figure(f"bench.{name}", f"failed: {exc!r}", "the bench runs to its end", False)]
    for figure in figures:
        print(f"   FIGURE {figure.line()}", flush=True)
    print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return figures


def main(argv: list[str]) -> int:
    names = argv or sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))
    started = time.perf_counter()
    figures = [figure for name in names for figure in run_one(name)]
    misses = [f for f in figures if f.met is False]
    print(f"== {len(figures)} figures in {(time.perf_counter() - started) / 60:.0f} min, load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: what | measured | aim | met")
    for figure in figures:
        print(f"   {figure.line()}")
    if misses:
        print(f"== {len(misses)} aim(s) missed:")
        for figure in misses:
            print(f"   {figure.line()}")
        return 1
    print("== every aim holds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
