"""`croupier pit [run] --config FILE`, `croupier pit reload --config FILE`, `croupier pit web --config FILE`, `croupier pit migrate --db DSN [--json]`, `croupier pit rating --db DSN ...`: the floor's pit process, its pages and its archive (`docs/floor.md`).

`run` (the default when no action is given) is the pit aggregator; `reload` sends SIGHUP to the pid
in its pid file, after checking the file (a bad one: exit 2, nothing sent); `web` the floor's web
process (`cli/pit_web.py`: /pit and /tournament); `rating` a past gaming day's rating sessions listed or one
adjusted in the archive (`cli/pit_rating.py`, docs/ratings.md).

`migrate` applies the archive's schema migrations not applied yet (the versioned SQL files shipped in
`floor/migrations/`), each in its own transaction, and says which; run again it applies
nothing and says so. `--json`: one line, `{"applied": [{"version", "name"}...], "version": V}`.
Exit 1 with a clear message when the server cannot be reached or a migration fails.
Needs the `floor` extra (psycopg): `pip install 'croupier[floor]'`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import zmq

from cli.output import stdout_closed
from cli.pit_rating import add_rating, run_rating
from cli.pit_web import add_web, run_web
from floor.aggregator import Pit, catch_up_timeout
from floor.archiver import ArchiverProcess
from floor.catchup import CatchUpError
from floor.config import PitConfig
from protocol.config import ConfigError
from protocol.feed import FeedError
from protocol.many_sockets import many_sockets_context


def add_migrate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = "apply the archive's schema migrations not applied yet"
    p = sub.add_parser("migrate", help=text, description=text)
    p.add_argument("--db", metavar="DSN", default=os.environ.get("CROUPIER_DB"), required="CROUPIER_DB" not in os.environ,
                   help="the archive's PostgreSQL conninfo or URI (default $CROUPIER_DB)")
    p.add_argument("--json", action="store_true", help="one JSON line")


# action -> (adds its arguments, runs it). `run` (--config) and `reload` are added here beside
# `migrate`, each with its own pair.
ACTIONS: dict[str, tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None],
                         Callable[[argparse.Namespace], int]]] = {}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # `croupier pit --config FILE` as the issue writes it: no action is `run`
    parser.add_argument("--config", metavar="FILE", default=None, help="the pit's TOML configuration ([pit]): run")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    sub = parser.add_subparsers(dest="action", required=False, metavar="ACTION")
    for add, _ in ACTIONS.values():
        add(sub)


def main(args: argparse.Namespace) -> int:
    if args.action is None:
        if args.config is None:
            print("croupier pit: give an action (run, reload, web, migrate, rating) or --config FILE", file=sys.stderr)
            return 2
        args.action = "run"
    try:
        return ACTIONS[args.action][1](args)
    except BrokenPipeError:
        return stdout_closed()


def run_migrate(args: argparse.Namespace) -> int:
    try:
        from floor.archive import ArchiveError
        from floor.migrate import migrate, migrations
    except ImportError as exc:  # the optional `floor` extra is not installed
        print(f"croupier pit: needs the floor extra (pip install 'croupier[floor]'): {exc}", file=sys.stderr)
        return 1
    try:
        done = migrate(args.db)
        version = max((m.version for m in migrations()), default=0)
    except ArchiveError as exc:
        print(f"croupier pit migrate: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"applied": [{"version": m.version, "name": m.name} for m in done], "version": version}))
    elif done:
        for m in done:
            print(f"applied {m.version:04d}_{m.name}.sql")
        print(f"the archive's schema is at version {version}")
    else:
        print(f"nothing to apply: the archive's schema is at version {version}")
    return 0


ACTIONS["migrate"] = (add_migrate, run_migrate)


def add_config(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str) -> None:
    p = sub.add_parser(name, help=text, description=text)
    p.add_argument("--config", metavar="FILE", required=True, help="the pit's TOML configuration ([pit])")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def _load(args: argparse.Namespace) -> PitConfig | None:
    try:
        return PitConfig.load(args.config)
    except ConfigError as exc:
        print(f"croupier pit: {exc}", file=sys.stderr)
        return None


def run_run(args: argparse.Namespace) -> int:
    cfg = _load(args)
    return 2 if cfg is None else run(cfg, args.log_level)


def run_reload(args: argparse.Namespace) -> int:
    cfg = _load(args)
    return 2 if cfg is None else reload(cfg)


def reload(cfg: PitConfig) -> int:
    """SIGHUP the pit whose pid is in the pid file (the file was checked first: a bad one is not sent)."""
    try:
        pid = int(Path(cfg.pid_file).read_text(encoding="utf-8").strip())
        os.kill(pid, signal.SIGHUP)
    except (OSError, ValueError) as exc:
        print(f"croupier pit reload: no running pit found through {cfg.pid_file}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"reload": "sent", "pid": pid, "tables": len(cfg.tables)}), flush=True)
    return 0


def run(cfg: PitConfig, level: str) -> int:
    """The aggregator until SIGTERM or SIGINT; SIGHUP reads its tables again."""
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s pit %(levelname)s %(message)s")
    ctx = many_sockets_context(50000)
    archiver = None
    try:
        # the catch-up (and the archive, with `db`) in a child process: `floor/archiver.py`
        archiver = ArchiverProcess(ctx, cfg, catch_up_timeout(cfg), level)
        pit = Pit(cfg, ctx, archiver=archiver)
    except (CatchUpError, FeedError, ValueError, zmq.ZMQError) as exc:
        print(f"croupier pit: {exc}", file=sys.stderr)
        if archiver is not None:
            archiver.stop()
        ctx.term()
        return 2

    def on_hup(signum: int, frame: FrameType | None) -> None:
        pit.ask_reload()

    def on_term(signum: int, frame: FrameType | None) -> None:
        pit.stop()

    signal.signal(signal.SIGHUP, on_hup)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    pid_file = Path(cfg.pid_file)
    try:
        pid_file.write_text(f"{os.getpid()}\n", encoding="utf-8")
    except OSError as exc:
        print(f"croupier pit: cannot write the pid file {pid_file}: {exc}", file=sys.stderr)
        pit.close()
        ctx.term()
        return 2
    print(json.dumps({"pit": "ready", "pid": os.getpid(), "listen": cfg.listen, "snapshot": cfg.snapshot,
                      "tables": len(cfg.tables), "curve": cfg.serves_curve}), flush=True)
    try:
        pit.run()
    finally:
        pit.close()
        pid_file.unlink(missing_ok=True)
        if pit.ended_cleanly:  # else the worker's sockets are open: term() would wait for them
            ctx.term()
    return 0


ACTIONS["run"] = (lambda sub: add_config(sub, "run", "run the pit aggregator (the default)"), run_run)
ACTIONS["reload"] = (lambda sub: add_config(sub, "reload", "make the running pit read its tables again (SIGHUP)"),
                     run_reload)
ACTIONS["web"] = (add_web, run_web)
ACTIONS["rating"] = (add_rating, run_rating)

