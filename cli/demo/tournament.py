"""`croupier demo --tournament`: the simulated tournament across tables, and with `--web` the clock's and the tables' pages.

`cli/demo/__init__.py` has the options and gives the table factory (`table.tournament_table`) and the
pages' address; with `--web` the floor's web process (`croupier pit web`) serves the director's clock on
`/tournament` and the pit, and the display each table's `/table?table=NAME`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.demo.pages import start_display, start_floor_pages
from sim.restarter import end
from sim.tournament.devices import TableFactory


def tournament_demo(args: argparse.Namespace, tournament_table: TableFactory, web: tuple[str, int] | None) -> int:
    """`--tournament`: play the simulated tournament on `tournament_table`'s tables (its pages at `web`, HOST and
    PORT, when given) and print its result line (exit 2 for bad arguments). SIGINT or SIGTERM ends it early: every
    process ended, a summary line (`entries`, `tables`, `stopped`), exit 130 or 143, a temporary state removed."""
    from engine.tournament import tables_needed
    from sim.tournament.hands import SimError, TournamentRun, demo_tournament
    from sim.tournament.devices import DeviceTournamentRun

    players, tables = args.players if args.players is not None else 24, args.tables if args.tables is not None else 3
    if tables < 1 or players < 2:
        print("croupier demo: --tournament needs --players 2 or more and --tables 1 or more", file=sys.stderr)
        return 2
    if args.dealer == "web" or args.players_by == "web":  # taken silently before: the bots dealt, no console was served
        print("croupier demo: --dealer web and --players-by web deal one table from its console, not a tournament "
              "(its tables are the bot dealers')", file=sys.stderr)
        return 2
    if args.director and args.in_process:
        print("croupier demo: --director drives the devices' tables: not with --in-process", file=sys.stderr)
        return 2
    if web is not None and args.in_process:
        print("croupier demo: --web serves the director's clock and the devices' tables: not with --in-process",
              file=sys.stderr)
        return 2
    tournament = demo_tournament(tables)
    if tables_needed(players, tournament.seats_per_table) > tables:
        print(f"croupier demo: {players} players do not fit on {tables} tables of {tournament.seats_per_table}",
              file=sys.stderr)
        return 2
    state_dir = Path(args.state) if args.state else Path(tempfile.mkdtemp(prefix="croupier-tournament-"))
    pages: list[subprocess.Popen[bytes]] = []

    def serve(sims: Mapping[str, Any], public: str, snapshot: str) -> None:
        assert web is not None
        pages.extend(serve_tournament_pages(state_dir / "director", sims, public, snapshot, *web,
                                            language=args.language))

    status = 0
    line: Mapping[str, object]  # the result line, or what a stopped run says
    ended_by = signal.signal(signal.SIGTERM, _terminated)  # SIGTERM: ended as SIGINT, with a summary line
    try:
        if args.director or web is not None:  # the pages' clock is the director's
            from sim.tournament.director import DirectorTournamentRun, director_tournament
            text, tournament = director_tournament(tables)
            line = DirectorTournamentRun(state_dir, tournament_table, tournament, text, players=players,
                                         seed=args.seed, on_tables=serve if web is not None else None).run()
        else:
            if args.in_process:
                run = TournamentRun(state_dir, players=players, tables=tables, seed=args.seed, tournament=tournament)
            else:
                run = DeviceTournamentRun(state_dir, tournament_table, players=players, tables=tables,
                                          seed=args.seed, tournament=tournament)
            line = run.run()
    except (SimError, OSError) as exc:
        print(f"croupier demo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stopped:  # every table and the director already ended by the run
        status = 143 if isinstance(stopped, _Terminated) else 130
        line = {"entries": players, "tables": tables, "stopped": "SIGTERM" if status == 143 else "SIGINT"}
    finally:
        signal.signal(signal.SIGTERM, ended_by)
        for proc in pages:
            end(proc)
        if not args.state:
            shutil.rmtree(state_dir, ignore_errors=True)
    print(json.dumps(line), flush=True)
    return status


class _Terminated(KeyboardInterrupt):
    """SIGTERM: the tournament demo ends as at SIGINT (its processes ended, a summary line, a temporary state removed)."""


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated()


def serve_tournament_pages(home: Path, sims: Mapping[str, Any], public: str, snapshot: str, host: str, port: int, *,
                           language: str = "en") -> list[subprocess.Popen[bytes]]:
    """`--tournament --web`: start `croupier display` on every table's public feed (`/table?table=NAME`, each
    tournament table's clock from the director's feed) and
    `croupier pit web` on the director's feed (`/tournament`, the clock) and the tables (`/pit`), and print their
    addresses (one line: `pages: .../tournament .../table?table=T1 ... .../pit`). A taken port is said and a free
    one taken; the processes started (none when the display cannot start)."""
    feeds = {name: (f'name = "{name}"\npublic = "{sim.endpoints.public}"\nsnapshot = "{sim.endpoints.snapshot}"\n'
                    f'heartbeat_s = {getattr(sim, "heartbeat_s", 0.5)}\n') for name, sim in sims.items()}
    config, log_path = home / "display.toml", home / "display.log"
    started = start_display(config, log_path, host, port, lambda listen: (
        f'[display]\nlisten = "{listen}"\nlanguage = "{language}"\ntournament = "{public}"\n'
        f'tournament_snapshot = "{snapshot}"\n' + "".join(f"\n[[display.tables]]\n{feed}" for feed in feeds.values())))
    if started is None:
        return []
    proc, ready = started
    floor = start_floor_pages(home, host, "".join(f"\n[[web.tables]]\n{feed}" for feed in feeds.values()),
                              language=language, tournament=(public, snapshot))
    if floor is None:
        return [proc]
    base = ready["display"]
    print("pages: " + " ".join([floor[1]["tournament"], *(f"{base}/table?table={name}" for name in sims),
                                floor[1]["pit"]]), flush=True)
    return [proc, floor[0]]
