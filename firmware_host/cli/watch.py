"""`croupier watch ENDPOINT [--key FILE --server-key FILE]`: a live view of a table's public feed (plain lines when not a terminal)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import zmq

from firmware_host.service.curve import client_keys
from firmware_host.service.feed import FeedClient
from firmware_host.cli.output import stdout_closed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", metavar="ENDPOINT", help="the public PUB socket, e.g. tcp://127.0.0.1:5556")
    parser.add_argument("--snapshot", metavar="ENDPOINT",
                        help="the snapshot ROUTER socket (default: the public socket's port + 1)")
    parser.add_argument("--count", type=int, default=0, metavar="N",
                        help="stop after N updates (default: run until interrupted)")
    parser.add_argument("--timeout", type=float, default=0.0, metavar="S",
                        help="exit 1 when nothing (not even a heartbeat) arrives for S seconds (default: wait)")
    parser.add_argument("--plain", action="store_true", help="plain lines even on a terminal")
    add_key_arguments(parser)


def add_key_arguments(parser: argparse.ArgumentParser) -> None:
    """`--key FILE --server-key FILE`: connect as a CURVE client (both or neither)."""
    parser.add_argument("--key", metavar="FILE", default=None,
                        help="this client's secret certificate (NAME.key_secret from `croupier keys new`)")
    parser.add_argument("--server-key", metavar="FILE", default=None,
                        help="the table's public certificate (its NAME.key)")


def key_arguments(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The two key files, checked: both or neither, each a readable certificate. Raises ValueError."""
    client_keys(args.key, args.server_key)
    return args.key, args.server_key


def snapshot_endpoint_for(endpoint: str) -> str:
    """The default snapshot endpoint: same host, port + 1. Raises ValueError for non-tcp endpoints."""
    if not endpoint.startswith("tcp://") or ":" not in endpoint[6:]:
        raise ValueError(f"give --snapshot for {endpoint!r} (only tcp endpoints have a default)")
    host, port = endpoint.rsplit(":", 1)
    return f"{host}:{int(port) + 1}"


def _cards(cards: Any) -> str:
    if isinstance(cards, dict):  # the dealer: {"cards": [...], "hand_name": ..., "qualifies": ...}
        text = _cards(cards.get("cards"))
        if cards.get("hand_name"):
            qualifies = cards.get("qualifies")
            verdict = "" if qualifies is None else (", qualifies" if qualifies else ", does not qualify")
            text += f" ({cards['hand_name']}{verdict})"
        return text
    return " ".join(cards) if cards else "-"


def format_line(message: dict[str, Any]) -> str:
    """One plain line for one feed message."""
    head = f"seq={message.get('seq')} boot={str(message.get('boot', ''))[:6]} table={message.get('table')}"
    if message.get("kind") == "heartbeat":
        return f"{head} heartbeat"
    parts = [head, f"{message.get('kind')}", f"hand={message.get('hand')}", f"game={message.get('game')}",
             f"phase={message.get('phase')}", f"dealer=[{_cards(message.get('dealer'))}]"]
    if message.get("game") != "3cp":
        parts.append(f"board=[{_cards(message.get('board'))}]")
    for spot in message.get("spots") or []:
        bets = ",".join(f"{k}={v}" for k, v in (spot.get("bets") or {}).items())
        text = f"seat{spot.get('seat')}=[{_cards(spot.get('cards'))}] {bets}"
        if spot.get("decision") is not None:
            text += f" decision={_decision(spot.get('decision'))}"
        if spot.get("results"):
            text += " results=" + ",".join(f"{k}={v}" for k, v in spot["results"].items())
        if spot.get("hand_name"):
            text += f" ({spot['hand_name']})"
        parts.append(text)
    fault = message.get("fault")
    if fault:
        parts.append(f"FAULT={fault.get('kind')}: {fault.get('message')}")
    return " ".join(parts)


def _decision(decision: Any) -> str:
    if isinstance(decision, dict):
        return ":".join(str(v) for v in decision.values())
    return str(decision)


def render_screen(message: dict[str, Any]) -> str:
    """The whole terminal screen for the latest state."""
    lines = [f"table {message.get('table')}  hand {message.get('hand')}  {message.get('game')}  "
             f"phase {str(message.get('phase')).upper()}  seq {message.get('seq')}", ""]
    lines.append(f"  dealer  {_cards(message.get('dealer'))}")
    if message.get("game") != "3cp":
        lines.append(f"  board   {_cards(message.get('board'))}")
    lines.append("")
    for spot in message.get("spots") or []:
        bets = "  ".join(f"{k} {v}" for k, v in (spot.get("bets") or {}).items())
        line = f"  seat {spot.get('seat')}  {_cards(spot.get('cards')):<12} {bets}"
        if spot.get("decision") is not None:
            line += f"  [{_decision(spot['decision'])}]"
        if spot.get("hand_name"):
            line += f"  {spot['hand_name']}"
        if spot.get("results"):
            line += "  " + " ".join(f"{k}:{v:+d}" if isinstance(v, int) else f"{k}:{v}"
                                    for k, v in spot["results"].items())
        lines.append(line)
    fault = message.get("fault")
    if fault:
        lines += ["", f"  *** FAULT {fault.get('kind')}: {fault.get('message')} ***"]
    return "\n".join(lines)


def watch(endpoint: str, snapshot: str, out: TextIO, *, count: int = 0, timeout_s: float = 0.0,
          screen: bool = False, key: str | None = None, server_key: str | None = None) -> int:
    """Follow the feed, writing to `out`. Returns the exit status (1 on timeout).

    With `key` and `server_key` it is a CURVE client. Raises ValueError for bad key files.
    """
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        client = FeedClient(ctx, endpoint, snapshot, timeout_s=timeout_s or 5.0, key=key, server_key=server_key)
    except BaseException:
        ctx.destroy(linger=0)
        raise
    updates = 0
    try:
        while True:
            try:
                message = client.receive(int(timeout_s * 1000) if timeout_s else 1000)
            except TimeoutError as exc:
                if timeout_s:
                    print(f"croupier watch: {exc}", file=sys.stderr)
                    return 1
                continue
            if message is None:
                if timeout_s:
                    print(f"croupier watch: nothing from {endpoint} for {timeout_s} s", file=sys.stderr)
                    return 1
                continue
            if message.get("kind") == "heartbeat" and screen:
                continue
            if screen:
                state = {**(client.state or {}), "table": message.get("table"), "seq": message.get("seq")}
                out.write("\x1b[H\x1b[2J" + render_screen(state) + "\n")
            else:
                out.write(format_line(message) + "\n")
            out.flush()
            if message.get("kind") != "heartbeat":
                updates += 1
                if count and updates >= count:
                    return 0
    except KeyboardInterrupt:
        return 0
    finally:
        client.close()
        ctx.destroy(linger=0)


def main(args: argparse.Namespace) -> int:
    try:
        snapshot = args.snapshot or snapshot_endpoint_for(args.endpoint)
        key, server_key = key_arguments(args)
    except ValueError as exc:
        print(f"croupier watch: {exc}", file=sys.stderr)
        return 2
    screen = sys.stdout.isatty() and not args.plain
    try:
        return watch(args.endpoint, snapshot, sys.stdout, count=args.count, timeout_s=args.timeout, screen=screen,
                     key=key, server_key=server_key)
    except BrokenPipeError:  # `croupier watch ... | head`: the reader has what it wanted
        return stdout_closed()
