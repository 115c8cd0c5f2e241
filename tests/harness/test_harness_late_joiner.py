"""Subscribers that join late (mid-hand, after a restart) converge to the same public state as the first one."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from typing import Any

import zmq

from firmware_host.bots import BotDealer, seat_players
from firmware_host.cmd_demo import SimTable
from firmware_host.commands import CommandClient
from firmware_host.feed import FeedClient

HIDDEN = "??"


class Audience:
    """Feed clients (the product's clone-pattern `FeedClient`) joining at chosen steps of the game."""

    def __init__(self, table: SimTable, ctx: zmq.Context[Any]) -> None:
        self.table = table
        self.ctx = ctx
        self.clients: dict[str, FeedClient] = {}
        self.steps = 0
        self.killed = False
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
        self.steps += 1
        self.pump()
        if self.steps == 30:
            assert state.get("phase") not in ("bets", "settled")
            self.add("mid-hand")
        elif self.steps == 60 and not self.killed:
            self.killed = True
            assert self.table.controller is not None
            self.table.controller.kill(signal.SIGKILL)
        elif self.steps == 90:
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
