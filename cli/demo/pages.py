"""The demo's pages: `croupier display` (the table's) and `croupier pit web` (the floor's: the pit, the tournament clock) started and their address printed.

Each is started on a configuration written for the port asked, or a free one when it is taken; `serve_pages` writes
the simulated table's (its feeds, the console's and /surveillance's keys, the demo's credentials).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cli.demo.table import SimTable
from sim.demo_pit import DemoArchive, TableFeeds
from sim.keys import SimKeys
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


def web_address(value: str) -> tuple[str, int] | None:
    """`--web`'s HOST:PORT (None for `off`). Raises ValueError naming what is wrong."""
    if value == "off":
        return None
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"--web must be HOST:PORT or off, not {value!r}")
    return host.strip("[]"), int(port)


def console_lines(table: SimTable) -> str:
    """The `[display]` keys of the dealer console at the demo's table: its command endpoint, the users file, its key."""
    lines = f'commands = "{table.endpoints.commands}"\nusers = "{table.users_path.resolve()}"\n'
    if table.keys is not None:
        lines += f'dealer_key = "{table.keys.console}"\n'
    return lines


def eye_key(keys: SimKeys) -> Path:
    """The surveillance certificate of the demo's display (`--secure`): made beside the other keys, its public
    half among the controller's clients, so the full feed lets it on. Its secret half's path."""
    from protocol import keys as key_files
    public, secret = key_files.create(keys.clients.parent / "eye", "eye", "surveillance")
    shutil.copyfile(public, keys.clients / public.name)
    return secret


def full_feed_lines(table: SimTable, with_commands: bool) -> str:
    """The `[display]` keys of /surveillance at the demo's table: the full feed, the recall's command endpoint,
    the users file, the surveillance key under CURVE (none with keys of the user's own: nothing to serve)."""
    if table.eye_key is None and table.keys is not None:
        return ""
    e = table.endpoints
    lines = f'full = "{e.full}"\nfull_snapshot = "{e.full_snapshot}"\n'
    if with_commands:
        lines += f'commands = "{e.commands}"\nusers = "{table.users_path.resolve()}"\n'
    if table.eye_key is not None:
        lines += f'surveillance_key = "{table.eye_key}"\n'
    return lines


def credentials(people: Mapping[str, tuple[str, str]]) -> str:
    """The pages line's demo credentials: `demo credentials: dealer demo-dealer PIN 123456, ...`."""
    return "demo credentials: " + ", ".join(f"{role} {name} PIN {pin}" for name, (role, pin) in people.items())


def rated_archive(table: SimTable) -> DemoArchive | None:
    """`--rated` with the pages: the archive and the pit's process the demo's /pit reads its rated players from
    (`sim.demo_pit`), on a table without keys (the archiver's `history` is the local role's there); else None."""
    if not table.rated:
        return None
    if table.keys is not None:
        print("croupier demo: the pit lists the rated players of a table without keys only (not --secure or --key)",
              file=sys.stderr)
        return None
    e = table.endpoints
    return DemoArchive.start(table.run_dir, TableFeeds(table.table, e.public, e.snapshot, e.commands, table.heartbeat_s))


def serve_pages(table: SimTable, host: str, port: int, *, console: bool = False,
                language: str = "en", players_by: str = "bots") -> list[subprocess.Popen[bytes]] | None:
    """Start `croupier display` on the table's public feed, and `croupier pit web` (the floor's pages: the pit)
    on a free port, and print the pages' addresses (one line). With `console`, the dealer console too (the
    command endpoint, the users file; the line adds `/dealer` and the demo credentials). When `port` is taken,
    say so and take a free one; when the display cannot start, say why and go on without it (None)."""
    keys = "" if table.keys is None else f'key = "{table.keys.display}"\nserver_key = "{table.keys.table_public}"\n'
    feed = (f'name = "{table.table}"\npublic = "{table.endpoints.public}"\nsnapshot = "{table.endpoints.snapshot}"\n'
            f'heartbeat_s = {table.heartbeat_s}\n')
    eye = full_feed_lines(table, with_commands=not console)
    config = table.run_dir / "display.toml"
    log_path = table.run_dir / "display.log"
    started = start_display(config, log_path, host, port, lambda listen: (
        f'[display]\nlisten = "{listen}"\nlanguage = "{language}"\n{keys}'
        f'{console_lines(table) if console else ""}{eye}\n[[display.tables]]\n{feed}'))
    if started is None:
        return None
    proc, ready = started
    table.archive = rated_archive(table)
    floor = start_floor_pages(table.run_dir, host, f"\n[[web.tables]]\n{feed}{keys}", language=language,
                              archive=table.archive.web_lines() if table.archive is not None else "")
    line = f"pages: {ready['table']} {floor[1]['pit'] if floor else '(no pit)'}"
    if eye:
        line += f" {ready['display']}/surveillance"
    if console:
        line += f" {ready['dealer']}"
    if table.people:
        line += f" ({credentials(table.people)})"
    if console and players_by == "web":  # a smart table's bots still bet and place their Plays, as chips
        line += (f" players: the bots bet and place their Plays in chips, every decision at {ready['dealer']}"
                 if table.chips is not None else f" players: every bet and decision at {ready['dealer']}, no bot plays; the shoe deals")
    print(line, flush=True)
    return [proc, *([floor[0]] if floor else [])]
