"""Test helpers shared by the controller tests: child processes, waiting, and reading feed messages."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def start_cli(args: list[str], cwd: Path) -> tuple[Any, dict[str, Any]]:
    """Start `croupier ARGS` and return the process and its one JSON ready line (stderr to cwd/ARG0.log)."""
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], stdout=subprocess.PIPE,
                            stderr=open(cwd / f"{args[0]}.log", "ab"), text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    assert line, f"{args[0]} did not start: {(cwd / f'{args[0]}.log').read_text()[-2000:]}"
    return proc, json.loads(line)


def table_config(tmp_path: Path, commands: str) -> Path:
    """A table with no devices, its feed on ipc:// sockets in tmp_path and its command channel at `commands`."""
    config = tmp_path / "table.toml"
    config.write_text(f"""
[table]
name = "t1"
game = "uth"
[feed]
public = "ipc://{tmp_path}/public"
snapshot = "ipc://{tmp_path}/snapshot"
full = "ipc://{tmp_path}/full"
full_snapshot = ""
[commands]
endpoint = "{commands}"
[shoe]
url = ""
[gpio]
backend = "none"
""", encoding="utf-8")
    return config


def wait_for(predicate: Any, what: str, timeout_s: float = 30.0) -> Any:
    """Poll `predicate` until it returns something true; fail naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


CARD_TEXTS = {r + s for r in "23456789TJQKA" for s in "cdhs"}


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a decoded feed message, keys included: where a leaked card would show."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_in(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_in(v)
