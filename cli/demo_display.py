"""The demo's `croupier display`: started on a configuration written for the port asked, or a free one when it is taken."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.restarter import RestarterError, read_json_line, spawn


def start_display(config: Path, log_path: Path, host: str, port: int,
                  text: Callable[[str], str]) -> tuple[subprocess.Popen[bytes], dict[str, Any]] | None:
    """Write `text(listen)` (the `[display]` file for `listen` = HOST:PORT) to `config` and start the display on it;
    its process and ready line. When `port` is taken, say so and take a free one; when the display cannot start,
    say why (None)."""
    for listen in (port, 0) if port else (0,):
        config.write_text(text(f"{host}:{listen}"), encoding="utf-8")
        with open(log_path, "ab") as err:
            proc = spawn([sys.executable, "-m", "cli", "display", "--config", str(config)], stderr=err)
        try:
            ready: dict[str, Any] = read_json_line(proc, 20.0, "croupier display")
        except RestarterError:
            status = proc.wait()
            said = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
            if status == 1 and listen:
                print(f"croupier demo: {host}:{listen} is taken; serving the pages on a free port", file=sys.stderr)
                continue
            print(f"croupier demo: the pages are not served: {said[-1] if said else status}", file=sys.stderr)
            return None
        return proc, ready
    return None
