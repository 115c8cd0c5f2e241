"""The demo's web processes: `croupier display` (the table's pages) and `croupier pit web` (the floor's: the pit, the tournament clock), each started on a configuration written for the port asked, or a free one when it is taken."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sim.restarter import RestarterError, read_json_line, spawn


def start_display(config: Path, log_path: Path, host: str, port: int, text: Callable[[str], str],
                  command: Sequence[str] = ("display",)) -> tuple[subprocess.Popen[bytes], dict[str, Any]] | None:
    """Write `text(listen)` (the file for `listen` = HOST:PORT) to `config` and start `croupier COMMAND` on it (the
    display, or `pit web`); its process and ready line. When `port` is taken, say so and take a free one; when the
    process cannot start, say why (None)."""
    name = f"croupier {' '.join(command)}"
    for listen in (port, 0) if port else (0,):
        config.write_text(text(f"{host}:{listen}"), encoding="utf-8")
        with open(log_path, "ab") as err:
            proc = spawn([sys.executable, "-m", "cli", *command, "--config", str(config)], stderr=err)
        try:
            ready: dict[str, Any] = read_json_line(proc, 20.0, name)
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


def start_floor_pages(home: Path, host: str, tables: str, *, language: str = "en",
                      tournament: tuple[str, str] | None = None,
                      archive: str = "") -> tuple[subprocess.Popen[bytes], dict[str, Any]] | None:
    """`croupier pit web` on a free port of `host`: the pit of `tables` (`[[web.tables]]` entries, as TOML text) and,
    with `tournament` (the director's feed and snapshot), its clock; `archive`: more `[web]` keys (the rated demo's
    archive, `sim.demo_pit`). Its process and ready line, or None (said)."""
    clock = "" if tournament is None else f'tournament = "{tournament[0]}"\ntournament_snapshot = "{tournament[1]}"\n'
    return start_display(home / "pit-web.toml", home / "pit-web.log", host, 0, lambda listen: (
        f'[web]\nlisten = "{listen}"\nlanguage = "{language}"\n{clock}{archive}{tables}'), command=("pit", "web"))
