"""Subscribers that join late (mid-hand, after a restart) converge to the same public state as the first one."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from typing import Any

import zmq

from sim.bots.dealer import BotDealer
from sim.bots.players import seat_players
from cli.demo import SimTable
from protocol.commands import CommandClient
from protocol.feed import FeedClient

HIDDEN = "??"


class Audience:
    """Feed clients (the product's clone-pattern `FeedClient`) joining at chosen steps of the game."""

    def __init__(self, table: SimTable, ctx: zmq.Context[Any]) -> None:
        self.table = table
        self.ctx = ctx
        self.clients: dict[str, FeedClient] = {}
        self.killed = False
        self.boot_killed: str | None = None
        self.add("first")

    def add(self, name: str) -> None:
        client = FeedClient(self.ctx, self.table.endpoints.public, self.table.endpoints.snapshot, timeout_s=5.0)
        client.fetch_snapshot()
        self.clients[name] = client

    def pump(self, wait_ms: int = 0) -> int:
        got = 0
        for client in self.clients.values():
            while client.receive(wait_ms) is not None:
                got += 1
        return got

    def on_step(self, dealer: BotDealer, state: Mapping[str, Any]) -> None:
        self.pump()
        phase, hand = state.get("phase"), int(state.get("hand") or 0)
        if "mid-hand" not in self.clients and phase == "flop":
            self.add("mid-hand")
        elif not self.killed and hand >= dealer.log.first_hand + 2 and phase == "preflop":
            self.killed = True
            self.boot_killed = dealer.boot
            assert self.table.controller is not None
            self.table.controller.kill(signal.SIGKILL)
        elif self.killed and "after-restart" not in self.clients and dealer.boot != self.boot_killed \
                and phase == "river":
            self.add("after-restart")

    def settle_down(self) -> None:
        """Follow until every client has had a heartbeat after the last update (the table is idle)."""
        for client in self.clients.values():
            beats = 0
            while beats < 2:
                message = client.receive(3000)
                assert message is not None, "the feed went quiet: no heartbeat"
                beats += message.get("kind") == "heartbeat"


def test_late_joiners_converge_to_the_same_state(sim_table: Callable[..., SimTable]) -> None:
    table = sim_table(game="uth", seed=7, seats=5, heartbeat_s=0.2, restart_burst=10)
    ctx: zmq.Context[Any] = zmq.Context()
    audience = Audience(table, ctx)
    dealer = table.dealer(players=seat_players(5, 7), buttons=0.3, on_step=audience.on_step)
    try:
        log = dealer.play(6)
        audience.settle_down()
        boss = CommandClient(ctx, table.endpoints.commands, timeout_s=5.0)
        truth = boss.request("state")["state"]
        boss.close()
    finally:
        dealer.close()
        for client in audience.clients.values():
            client.close()
        ctx.destroy(linger=0)
    assert log.hands == 6 and len(log.boots) == 2  # one restart on the way
    assert set(audience.clients) == {"first", "mid-hand", "after-restart"}
    for name, client in audience.clients.items():
        assert client.state == truth, f"{name} did not converge"
        assert client.boot == log.boots[-1]
    assert truth["phase"] == "settled" and truth["hand"] == log.first_hand + 5
