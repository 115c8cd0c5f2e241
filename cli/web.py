"""What `croupier display` and `croupier pit web` share: a web process's options, and its start from its configuration file with every failure in words."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import ssl
import sys
from collections.abc import Callable
from typing import Any

from protocol.config import ConfigError


def add_arguments(parser: argparse.ArgumentParser, section: str, doc: str) -> None:
    """`--config FILE` (its `[section]` documented in `doc`), `--log-level`, `--check`."""
    parser.add_argument("--config", required=True, metavar="FILE", help=f"a TOML file with a [{section}] section ({doc})")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--check", action="store_true",
                        help="read and check the configuration (and its key files), print 'configuration ok', exit")


def serve_pages(args: argparse.Namespace, who: str, section: str, load: Callable[[str], Any], server: str) -> int:
    """Load the configuration (`load(path)`), then run `server`'s `serve(cfg)` (a module of the `web`
    extra, imported only now). Exit 2 for a bad file, a missing extra or a bad TLS pair, 1 when the
    address cannot be listened on; `who` is the command's name in each message."""
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        cfg = load(args.config)
    except ConfigError as exc:
        print(f"{who}: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"configuration ok: {cfg.source}")
        return 0
    try:
        serve = importlib.import_module(server).serve
    except ImportError as exc:  # the optional `web` extra is not installed
        print(f"{who}: needs the web extra (pip install 'croupier[web]'): {exc}", file=sys.stderr)
        return 2
    try:
        return int(asyncio.run(serve(cfg)))
    except ssl.SSLError as exc:  # before OSError, which it is
        print(f"{who}: {cfg.source}: [{section}] tls_cert, tls_key: not a certificate and its key: "
              f"{exc.reason or exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{who}: cannot listen on {cfg.host}:{cfg.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
