"""`croupier display --config FILE`: serve a table's pages in the browser (the table display at /table) over its public feed."""

from __future__ import annotations

import argparse
from typing import Any

from cli import web


def add_arguments(parser: argparse.ArgumentParser) -> None:
    web.add_arguments(parser, "display", "docs/display.md")


def _load(path: str) -> Any:
    from firmware_host.display.config import DisplayConfig
    return DisplayConfig.load(path)


def main(args: argparse.Namespace) -> int:
    return web.serve_pages(args, "croupier display", "display", _load, "firmware_host.display.server")
