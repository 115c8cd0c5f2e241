"""`croupier watch ENDPOINT [--key FILE --server-key FILE]`: a live view of a table's public feed (plain lines when not a terminal)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import zmq

from engine.money import Money
from protocol.config import endpoint, heartbeat
from protocol.curve import client_keys
from protocol.feed import FeedClient
from cli.output import stdout_closed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", metavar="ENDPOINT", help="the public PUB socket, e.g. tcp://127.0.0.1:5556")
    parser.add_argument("--snapshot", metavar="ENDPOINT",
                        help="the snapshot ROUTER socket (default: the public socket's port + 1)")
    parser.add_argument("--count", type=int, default=0, metavar="N",
                        help="stop after N updates (default: run until interrupted)")
    parser.add_argument("--timeout", type=float, default=0.0, metavar="S",
                        help="exit 1 when nothing (not even a heartbeat) arrives for S seconds (default: wait)")
    parser.add_argument("--plain", action="store_true", help="plain lines even on a terminal")
    parser.add_argument("--heartbeat-s", type=float, default=1.0, metavar="S",
                        help="the feed's heartbeat interval ([feed] heartbeat_s): OFFLINE after 3 missed "
                             "(default: 1.0)")
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


def money_of(state: dict[str, Any]) -> Money:
    """The table's currency as the feed says (`currency`, `decimals`); EUR with 2 decimals, the
    configuration's default, from a controller too old to say."""
    currency, decimals = state.get("currency"), state.get("decimals")
    if isinstance(currency, str) and isinstance(decimals, int) and not isinstance(decimals, bool) and decimals >= 0:
        return Money(currency, decimals)
    return Money()


def _amount(value: Any, money: Money, *, signed: bool = False) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return money.format(value, signed=signed)
    return str(value)


def _bets(bets: Any, money: Money, sep: str, eq: str) -> str:
    return sep.join(f"{k}{eq}{_amount(v, money)}" for k, v in (bets or {}).items())


def turn_of(state: dict[str, Any]) -> str | None:
    """Whose turn it is: the spot whose decision is awaited (house games) or the seat to act (poker),
    the dealer's payouts at the showdown, or None."""
    to_act = state.get("to_act")
    if to_act is not None:
        return f"seat {to_act} to act" if state.get("structure") else f"spot {to_act} to decide"
    if state.get("phase") == "showdown" and not state.get("structure"):
        return "dealer to pay and confirm"
    return None


def nets_of(state: dict[str, Any]) -> tuple[list[tuple[Any, int]], int] | None:
    """At the settlement: each spot's net and the house's net for the hand (house games: minus the
    spots' nets; poker: the rake), in the smallest unit; None before it."""
    spots = [s for s in state.get("spots") or [] if isinstance(s.get("net"), int)]
    if not spots:
        return None
    nets = [(s.get("seat"), int(s["net"])) for s in spots]
    if state.get("structure"):  # poker: the players' nets sum to minus the rake
        results = state.get("results") or {}
        rake = results.get("rake") if isinstance(results, dict) else None
        return nets, int(rake) if isinstance(rake, int) else -sum(n for _, n in nets)
    return nets, -sum(n for _, n in nets)


def format_line(message: dict[str, Any]) -> str:
    """One plain line for one feed message."""
    head = f"seq={message.get('seq')} boot={str(message.get('boot', ''))[:6]} table={message.get('table')}"
    if message.get("kind") == "heartbeat":
        return f"{head} heartbeat"
    money = money_of(message)
    parts = [head, f"{message.get('kind')}", f"hand={message.get('hand')}", f"game={message.get('game')}",
             f"phase={message.get('phase')}", f"dealer=[{_cards(message.get('dealer'))}]"]
    if message.get("game") != "3cp":
        parts.append(f"board=[{_cards(message.get('board'))}]")
    for spot in message.get("spots") or []:
        text = f"seat{spot.get('seat')}=[{_cards(spot.get('cards'))}] {_bets(spot.get('bets'), money, ',', '=')}"
        if isinstance(spot.get("stack"), int):  # a poker seat's chips
            text += f" stack={money.format(spot['stack'])}"
        if spot.get("decision") is not None:
            text += f" decision={_decision(spot.get('decision'))}"
        if spot.get("results"):
            text += " results=" + ",".join(f"{k}={_amount(v, money, signed=True)}"
                                           for k, v in spot["results"].items())
        if spot.get("hand_name"):
            text += f" ({spot['hand_name']})"
        parts.append(text)
    if isinstance(message.get("total_pot"), int) and message.get("structure"):
        parts.append(f"pot={money.format(message['total_pot'])}")
    turn = turn_of(message)
    if turn:
        parts.append(f"turn=[{turn}]")
    if message.get("next"):
        parts.append(f"next=[{message['next']}]")
    nets = nets_of(message)
    if nets is not None:
        parts.append("nets=[" + ", ".join(f"seat{seat}={money.format(n, signed=True)}" for seat, n in nets[0])
                     + f"] house={money.format(nets[1], signed=True)}")
    fault = message.get("fault")
    if fault:
        parts.append(f"FAULT={fault.get('kind')}: {fault.get('message')}")
    return " ".join(parts)


def _decision(decision: Any) -> str:
    if isinstance(decision, dict):
        return ":".join(str(v) for v in decision.values())
    return str(decision)


def render_screen(message: dict[str, Any], *, offline: str | None = None) -> str:
    """The whole terminal screen for the latest state; `offline`: the banner saying it is stale."""
    money = money_of(message)
    stale = "  STALE" if offline else ""
    lines = [f"table {message.get('table')}  hand {message.get('hand')}  {message.get('game')}  "
             f"phase {str(message.get('phase')).upper()}  seq {message.get('seq')}  {money.currency}{stale}", ""]
    if offline:
        lines[1:1] = [f"  *** OFFLINE: {offline} ***"]
    lines.append(f"  dealer  {_cards(message.get('dealer'))}")
    if message.get("game") != "3cp":
        lines.append(f"  board   {_cards(message.get('board'))}")
    lines.append("")
    for spot in message.get("spots") or []:
        line = f"  seat {spot.get('seat')}  {_cards(spot.get('cards')):<12} {_bets(spot.get('bets'), money, '  ', ' ')}"
        if isinstance(spot.get("stack"), int):
            line += f"  stack {money.format(spot['stack'])}"
        if spot.get("decision") is not None:
            line += f"  [{_decision(spot['decision'])}]"
        if spot.get("hand_name"):
            line += f"  {spot['hand_name']}"
        if spot.get("results"):
            line += "  " + " ".join(f"{k}:{_amount(v, money, signed=True)}" for k, v in spot["results"].items())
        lines.append(line)
    lines += _footer(message, money)
    return "\n".join(lines)


def _footer(message: dict[str, Any], money: Money) -> list[str]:
    """Whose turn, where the next card goes, the nets at the settlement, the fault."""
    lines = [""]
    if isinstance(message.get("total_pot"), int) and message.get("structure"):
        lines.append(f"  pot     {money.format(message['total_pot'])}")
    turn = turn_of(message)
    if turn:
        lines.append(f"  turn    {turn}")
    if message.get("next"):
        lines.append(f"  next    card to {message['next']}")
    nets = nets_of(message)
    if nets is not None:
        lines.append("  nets    " + "  ".join(f"seat {seat} {money.format(n, signed=True)}" for seat, n in nets[0]))
        lines.append(f"  house   {money.format(nets[1], signed=True)}")
    fault = message.get("fault")
    if fault:
        lines += ["", f"  *** FAULT {fault.get('kind')}: {fault.get('message')} ***"]
    return lines


OFFLINE_HEARTBEATS = 3
"""Heartbeats missed before the view says the table is offline."""


def offline_text(silent_s: float, message: dict[str, Any] | None) -> str:
    """The banner's text: how long nothing came, and which state is stale."""
    what = "no state yet" if message is None else f"hand {message.get('hand')} as of seq {message.get('seq')} is stale"
    return f"nothing for {silent_s:.1f} s ({OFFLINE_HEARTBEATS} heartbeats missed); {what}"


class _Watcher:
    """The loop's state: the last state shown, when anything last came, whether the view is offline."""

    def __init__(self, out: TextIO, screen: bool, heartbeat_s: float, clock: Callable[[], float]) -> None:
        self.out, self.screen, self.clock = out, screen, clock
        self.offline_after = OFFLINE_HEARTBEATS * heartbeat_s
        self.heard = clock()
        self.offline = False
        self.shown: dict[str, Any] | None = None

    def silence(self) -> None:
        """Nothing came: past 3 heartbeats, say so once (the last state stays, marked stale)."""
        silent = self.clock() - self.heard
        if self.offline or silent <= self.offline_after:
            return
        self.offline = True
        text = offline_text(silent, self.shown)
        if self.screen:
            self._write("\x1b[H\x1b[2J" + render_screen(self.shown or {}, offline=text))
        else:
            self._write(f"OFFLINE: {text}")

    def heard_from(self, message: dict[str, Any], state: dict[str, Any] | None) -> None:
        """A message came (a heartbeat too): clear the banner, show it."""
        self.heard = self.clock()
        came_back, self.offline = self.offline, False
        if came_back and not self.screen:
            self._write(f"ONLINE: seq={message.get('seq')} boot={str(message.get('boot', ''))[:6]}")
        if self.screen:
            if message.get("kind") == "heartbeat" and not came_back:
                return
            self.shown = {**(state or {}), "table": message.get("table"), "seq": message.get("seq")}
            self._write("\x1b[H\x1b[2J" + render_screen(self.shown))
        else:
            if message.get("kind") != "heartbeat":
                self.shown = message
            self._write(format_line(message))

    def _write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


def watch(endpoint: str, snapshot: str, out: TextIO, *, count: int = 0, timeout_s: float = 0.0,
          screen: bool = False, key: str | None = None, server_key: str | None = None,
          heartbeat_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> int:
    """Follow the feed, writing to `out`. Returns the exit status (1 on timeout).

    After 3 heartbeats (`heartbeat_s` each) with nothing, it says OFFLINE (the last state marked
    stale) until messages come again. With `key` and `server_key` it is a CURVE client. Raises
    ValueError for bad key files.
    """
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        client = FeedClient(ctx, endpoint, snapshot, timeout_s=timeout_s or 5.0, key=key, server_key=server_key)
    except BaseException:
        ctx.destroy(linger=0)
        raise
    view = _Watcher(out, screen, heartbeat_s, clock)
    poll_ms = max(10, int(heartbeat_s * 250))  # a quarter heartbeat: the banner is late by at most that
    updates = 0
    try:
        while True:
            try:
                message = client.receive(poll_ms)
            except TimeoutError as exc:  # a snapshot nobody answered
                message, problem = None, str(exc)
            else:
                problem = f"nothing from {endpoint} for {timeout_s} s"
            if message is None:
                if timeout_s and clock() - view.heard >= timeout_s:
                    print(f"croupier watch: {problem}", file=sys.stderr)
                    return 1
                view.silence()
                continue
            view.heard_from(message, client.state)
            if message.get("kind") != "heartbeat":
                updates += 1
                if count and updates >= count:
                    return 0
    except KeyboardInterrupt:
        return 0
    finally:
        client.close()
        ctx.destroy(linger=0)


def _check(option: str, value: Any, check: Callable[[Any], Any]) -> None:
    """An option checked as the configuration files check the key it stands for (`protocol/config.py`)."""
    try:
        check(value)
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None


def main(args: argparse.Namespace) -> int:
    try:
        _check("ENDPOINT", args.endpoint, endpoint)
        snapshot = args.snapshot or snapshot_endpoint_for(args.endpoint)
        _check("--snapshot", snapshot, endpoint)
        _check("--heartbeat-s", args.heartbeat_s, heartbeat)
        key, server_key = key_arguments(args)
    except ValueError as exc:
        print(f"croupier watch: {exc}", file=sys.stderr)
        return 2
    screen = sys.stdout.isatty() and not args.plain
    try:
        return watch(args.endpoint, snapshot, sys.stdout, count=args.count, timeout_s=args.timeout, screen=screen,
                     key=key, server_key=server_key, heartbeat_s=args.heartbeat_s)
    except BrokenPipeError:  # `croupier watch ... | head`: the reader has what it wanted
        return stdout_closed()
