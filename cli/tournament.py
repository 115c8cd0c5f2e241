"""`croupier tournament --config FILE --state DIR`: the tournament director beside the pit: the clock, the standings, the tables' levels (`docs/tournament.md`).

Prints one JSON line once its sockets are bound (`{"tournament", "public", "snapshot", "commands",
"replayed"}`) and serves until SIGTERM or SIGINT. `--check` only reads the configuration and its
tournament file. Exit 2 for a bad configuration or state directory, with the reason; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from types import FrameType

import zmq

from cli.output import stdout_closed
from floor.director.service import Director
from floor.director.config import DirectorConfig
from floor.director.state import DirectorError
from protocol.config import ConfigError
from protocol.feed import FeedError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", required=True, help="the director's TOML configuration ([director])")
    parser.add_argument("--state", metavar="DIR", default="/var/lib/croupier/tournament",
                        help="where the director keeps its state (director.sqlite)")
    parser.add_argument("--check", action="store_true", help="only check the configuration and the tournament file")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def main(args: argparse.Namespace) -> int:
    try:
        cfg = DirectorConfig.load(args.config)
    except ConfigError as exc:
        print(f"croupier tournament: {exc}", file=sys.stderr)
        return 2
    try:
        if args.check:
            print(json.dumps({"config": "ok", "tournament": cfg.tournament.name,
                              "tables": [t.name for t in cfg.tables]}), flush=True)
            return 0
        return serve(cfg, args.state, args.log_level)
    except BrokenPipeError:
        return stdout_closed()


def serve(cfg: DirectorConfig, state: str, level: str) -> int:
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s director %(levelname)s %(message)s")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        director = Director(cfg, state, ctx)
    except (DirectorError, FeedError, ConfigError, zmq.ZMQError) as exc:
        print(f"croupier tournament: {exc}", file=sys.stderr)
        ctx.destroy(linger=0)
        return 2

    def stop(signum: int, frame: FrameType | None) -> None:
        director.stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(json.dumps({"tournament": cfg.tournament.name, "public": cfg.public, "snapshot": cfg.snapshot,
                      "commands": cfg.commands, "replayed": director.replayed}), flush=True)
    runner = threading.Thread(target=director.run, name="director")
    runner.start()
    while runner.is_alive():
        runner.join(0.2)
    ctx.destroy(linger=0)
    return 0
