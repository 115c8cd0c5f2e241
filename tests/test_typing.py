"""The engine passes `mypy --strict` (STYLE.md), the whole package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The whole engine package, poker and hand histories included.
CHECKED = ("engine",)


def test_the_engine_passes_mypy_strict(tmp_path: Path) -> None:
    assert (ROOT / "engine" / "__init__.py").is_file()
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy-cache"),
         "--no-error-summary", "--hide-error-context", *CHECKED],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""  # no errors, no notes
