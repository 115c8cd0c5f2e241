"""`croupier demo` end to end: its processes play, it prints one JSON summary line and exits 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_host.cli", "demo", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_demo_plays_and_prints_one_summary_line(tmp_path: Path) -> None:
    done = demo("--hands", "3", "--seed", "4", "--state", str(tmp_path / "j"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    summary = json.loads(lines[-1])
    assert summary["hands"] == 3 and summary["settled"] == 3 and summary["voided"] == 0 and summary["faults"] == 0
    assert isinstance(summary["house_net"], int)
    # not a terminal: the live view printed plain lines of the public feed, hole cards hidden
    assert lines[0].startswith("pages: http://")  # `--web` by default: the pages' address first
    view = [line for line in lines[1:-1] if " update " in line]
    assert view and all(line.startswith("seq=") for line in lines[1:-1])
    assert any("[?? ??]" in line for line in view)
    assert (tmp_path / "j" / "journal.sqlite3").exists()


def test_demo_3cp_seats_at_least_five() -> None:
    refused = demo("--game", "3cp", "--seats", "4")
    assert refused.returncode == 2 and "3cp" in refused.stderr
    done = demo("--game", "3cp", "--hands", "2", "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {**json.loads(done.stdout), "hands": 2, "settled": 2, "voided": 0, "faults": 0}
