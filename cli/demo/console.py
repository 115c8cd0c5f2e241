"""`croupier demo --dealer web`: the dealer's part left to the person at `/dealer`, the shoe's and the players' hands simulated beside it, and the demo's summary line read back from the journal."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Protocol, cast

import zmq

from engine.games import is_poker
from protocol.feed import FeedClient
from protocol.messages import PublicState
from sim.bots.dealer import DealerLog
from sim.bots.errors import BotError
from sim.bots.players import seat_players
from sim.bots.table import SimLimits, TableEndpoints
from sim.chips.console import ChipsAtConsole
from sim.dealing import ShoeHand
from sim.demo_chips import demo_chip_set
from sim.bots.poker import closed_hands
from sim.keys import SimKeys
from sim.yielding import YieldingPlayers, next_hand


class SimTable(Protocol):
    """What the console's demo reads of the simulated table (`cli.demo.table.SimTable`, started)."""

    keys: SimKeys | None
    endpoints: TableEndpoints
    shoe_info: dict[str, Any]
    seed: int
    limits: SimLimits
    state_dir: Path
    chips: dict[str, float] | None
    chips_info: dict[str, Any]


def play_from_console(table: SimTable, seats: int, args: argparse.Namespace, log_: DealerLog) -> DealerLog:
    """Leave the dealer's part to the console: the shoe deals when the controller expects a card, the
    bot players yield to the console (at a smart table they bet with chips, and the dealer's hands pay them:
    `sim/chips/console.py`); until `args.hands` hands are settled (`log_` has the first hand
    and the hands closed so far). Raises BotError when the table's state cannot be had, JournalError
    when its journal cannot be read."""
    keys: dict[str, Any] = {} if table.keys is None else {"key": str(table.keys.dealer), "server_key": str(table.keys.table_public),
                                          "feed_key": str(table.keys.watcher)}  # commands as a dealer, the feed not
    shoe = ShoeHand(table.endpoints, table.shoe_info["control"], seed=table.seed, **keys)
    players: YieldingPlayers | ChipsAtConsole | None = None  # poker, --players-by web: every action the console's
    if table.chips is not None:  # a smart table: the players' chips and the dealer's hands on the board
        players = ChipsAtConsole(table.endpoints, table.chips_info["control"], demo_chip_set(),
                                 seat_players(seats, args.seed), game=args.game, state_dir=table.state_dir,
                                 limits=table.limits, decide=args.players_by == "bots", wait_s=args.bot_wait,
                                 mispay=table.chips.get("mispay", 0.0), seed=args.seed,
                                 offline_at=args.chip_offline_at, **keys)
    elif not is_poker(args.game) and args.players_by != "web":
        players = YieldingPlayers(table.endpoints, seat_players(seats, args.seed), game=args.game, limits=table.limits,
                                  wait_s=args.bot_wait, **keys)
    log_.first_hand = next_hand(public_snapshot(table))
    shoe.start()
    if players is not None:
        players.start()
    try:
        while True:
            rows = summary(table.state_dir, log_.first_hand, 10 ** 9)
            log_.hands = rows["hands"]
            if rows["settled"] >= args.hands:
                return log_
            time.sleep(0.25)
    finally:
        if players is not None:
            players.stop()
            log_.chips = players.chip_run() if isinstance(players, ChipsAtConsole) else None
        shoe.stop()


def public_snapshot(table: SimTable) -> PublicState:
    """The table's public state now (waits up to 20 s for the controller). Raises BotError."""
    ctx: zmq.Context[Any] = zmq.Context()
    keys: dict[str, Any] = {} if table.keys is None else {"key": str(table.keys.display),
                                                          "server_key": str(table.keys.table_public)}
    feed = FeedClient(ctx, table.endpoints.public, table.endpoints.snapshot, timeout_s=20.0, **keys)
    try:
        feed.fetch_snapshot()
        return cast(PublicState, dict(feed.state or {}))
    except TimeoutError:
        raise BotError("no snapshot from the controller") from None
    finally:
        feed.close()
        ctx.destroy(linger=0)


def summary(state_dir: str | Path, first_hand: int, hands: int) -> dict[str, Any]:
    """The demo's result line, read back from the journal for hands first_hand .. first_hand+hands-1.

    Raises JournalError when the journal cannot be read.
    """
    rows, settled, faults = closed_hands(state_dir, first_hand, hands)
    house_net = sum(int((r.record.get("settlement") or {}).get("house_net", 0)) for r in settled)
    return {"hands": len(rows), "settled": len(settled), "voided": len(rows) - len(settled), "faults": faults,
            "house_net": house_net}
