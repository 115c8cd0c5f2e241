"""`croupier pit web --config FILE [--check]`: the floor's web process, the pit's pages (/pit) and the tournament director's clock (/tournament) in the browser (`docs/floor.md`, "The floor's pages")."""

from __future__ import annotations

import argparse

from cli import web
from floor.web.config import WebConfig


def add_web(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = "serve the pit's pages and the tournament clock in the browser (the floor's web process)"
    web.add_arguments(sub.add_parser("web", help=text, description=text), "web", "docs/floor.md")


def run_web(args: argparse.Namespace) -> int:
    return web.serve_pages(args, "croupier pit web", "web", WebConfig.load, "floor.web.server")
