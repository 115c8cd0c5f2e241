"""`croupier pit web --config FILE [--check]`: the floor's web process, the pit's pages (/pit) and the tournament director's clock (/tournament) in the browser (`docs/floor.md`, "The floor's pages")."""

from __future__ import annotations

import argparse
import asyncio
import logging
import ssl
import sys

from floor.web.config import WebConfig
from protocol.config import ConfigError


def add_web(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = "serve the pit's pages and the tournament clock in the browser (the floor's web process)"
    p = sub.add_parser("web", help=text, description=text)
    p.add_argument("--config", metavar="FILE", required=True, help="a TOML file with a [web] section (docs/floor.md)")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    p.add_argument("--check", action="store_true",
                   help="read and check the configuration (and its key files), print 'configuration ok', exit")


def run_web(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        cfg = WebConfig.load(args.config)
    except ConfigError as exc:
        print(f"croupier pit web: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"configuration ok: {cfg.source}")
        return 0
    try:
        from floor.web.server import serve
    except ImportError as exc:  # the optional `web` extra is not installed
        print(f"croupier pit web: needs the web extra (pip install 'croupier[web]'): {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(cfg))
    except ssl.SSLError as exc:  # before OSError, which it is
        print(f"croupier pit web: {cfg.source}: [web] tls_cert, tls_key: not a certificate and its key: "
              f"{exc.reason or exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"croupier pit web: cannot listen on {cfg.host}:{cfg.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
