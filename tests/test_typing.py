"""Every package passes `mypy --strict` (STYLE.md), each whole: the engine, the drivers, the service, the bench."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The whole engine package, poker and hand histories included; the drivers, every device kind; the
# service on the Pi, its tables, the simulated table, the command line and the benchmarks.
CHECKED = ("engine", "drivers", "protocol", "pages", "firmware_host", "floor", "analysis", "sim", "cli", "bench")


def test_every_package_passes_mypy_strict(tmp_path: Path) -> None:
    assert all((ROOT / package / "__init__.py").is_file() for package in CHECKED)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy-cache"),
         "--no-error-summary", "--hide-error-context", *CHECKED],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""  # no errors, no notes
