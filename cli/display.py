"""`croupier display --config FILE`: serve a table's pages in the browser (the table display at /table) over its public feed."""

from __future__ import annotations

import argparse
import asyncio
import logging
import ssl
import sys

from protocol.config import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="FILE",
                        help="a TOML file with a [display] section (docs/display.md)")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--check", action="store_true",
                        help="read and check the configuration (and its key files), print 'configuration ok', exit")


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        from firmware_host.display.config import DisplayConfig
        cfg = DisplayConfig.load(args.config)
    except ConfigError as exc:
        print(f"croupier display: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"configuration ok: {cfg.source}")
        return 0
    try:
        from firmware_host.display.server import serve
    except ImportError as exc:  # the optional `web` extra is not installed
        print(f"croupier display: needs the web extra (pip install 'croupier[web]'): {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(cfg))
    except ssl.SSLError as exc:  # before OSError, which it is
        print(f"croupier display: {cfg.source}: [display] tls_cert, tls_key: not a certificate and its key: "
              f"{exc.reason or exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"croupier display: cannot listen on {cfg.host}:{cfg.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
