"""Run every benchmark module of this package (or those named on the command line), in one process."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def main(argv: list[str]) -> int:
    names = argv or sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))
    failed = 0
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        print(f"== bench.{name}: {module.__doc__.strip().splitlines()[0] if module.__doc__ else ''}", flush=True)
        started = time.perf_counter()
        try:
            ok = module.run()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            print(f"   FAILED: {exc!r}", flush=True)
            ok = False
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
        failed += ok is False
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
