"""Poker over the real sockets: `croupier run` and the emulated shoe (`croupier sim-shoe`) as child
processes, a dealer on the command channel; hold'em (killed with SIGKILL mid-hand), stud and draw
hands to the end, each exported as PHH that replays to the stacks the table paid."""

from __future__ import annotations

import io
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.phh import parse_phhs, replay
from cli.phh import export_state
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from firmware_host.service.journal import Journal
from sim.bots.table import make_supervisor
from sim.shoe import SimShoeClient
from tests.firmware_host.processes import start_cli, wait_for


class Dealer:
    """Deals from the emulated shoe when the table expects a card, acts for the seat to act."""

    def __init__(self, ctx: zmq.Context[Any], tmp: Path, shoe: SimShoeClient) -> None:
        self.ctx, self.tmp, self.shoe = ctx, tmp, shoe
        self.client = CommandClient(ctx, f"ipc://{tmp}/cmd", timeout_s=10.0)
        self.drawn: list[str] = []

    def reconnect(self) -> None:
        self.client.close()
        self.client = CommandClient(self.ctx, f"ipc://{self.tmp}/cmd", timeout_s=10.0)

    def state(self) -> dict[str, Any]:
        reply = self.client.request("state", retries=3)
        assert reply["ok"], reply
        return dict(reply["state"])

    def full(self) -> dict[str, Any]:
        client = FeedClient(self.ctx, f"ipc://{self.tmp}/full", f"ipc://{self.tmp}/fullsnap")
        try:
            return client.fetch_snapshot()
        finally:
            client.close()

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.client.request(cmd, retries=2, **args)
        assert reply["ok"], reply
        return reply

    def draw_card(self) -> None:
        before = self.state()
        self.drawn.append(self.shoe.draw())
        wait_for(lambda: self.state() != before, "the card on the table")

    def step(self, public_seen: list[dict[str, Any]]) -> bool:
        """One card or one action; False once the hand is over."""
        state = self.state()
        public_seen.append(state)
        assert state["fault"] is None, state["fault"]
        if state["phase"] == "over":
            return False
        if state["next"] is not None:
            self.draw_card()
            return True
        seat, legal = state["to_act"], state["legal"]
        if legal["draw"]:
            cards = next(s for s in self.full()["spots"] if s["seat"] == seat)["cards"]
            self.ok("act", seat=seat, action="draw", cards=cards[:1])
        elif legal["show"]:
            self.ok("act", seat=seat, action="show")
        elif legal["bring_in"] is not None:
            self.ok("act", seat=seat, action="bring_in")
        elif legal["check"]:
            if legal["bet_or_raise"] is not None and seat == min(s["seat"] for s in state["spots"]):
                self.ok("act", seat=seat, action=legal["bet_or_raise"]["kind"], amount=legal["bet_or_raise"]["min_to"])
            else:
                self.ok("act", seat=seat, action="check")
        else:
            self.ok("act", seat=seat, action="call")
        return True


def test_poker_hands_over_the_sockets_with_the_emulated_shoe(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    shoe_proc, info = start_cli(["sim-shoe", "--tcp", "127.0.0.1:0", "--seed", "11", "--heartbeat", "0.2"], tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(f'''
[table]
name = "poker-test"
game = "holdem"
seats = 6
[poker]
structure = "no-limit"
blinds = [1, 2]
seated = [1, 3, 5]
buy_in = 200
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = "ipc://{tmp_path}/full"
full_snapshot = "ipc://{tmp_path}/fullsnap"
[commands]
endpoint = "ipc://{tmp_path}/cmd"
[shoe]
url = "{info['port']}"
silent_s = 5.0
[security]
users = "{tmp_path}/users.json"
''')
    floor = make_supervisor(tmp_path / "users.json", "floor")  # a new game's open takes a supervisor's sign-off
    state_dir = tmp_path / "state"
    run, ready = start_cli(["run", "--config", str(config), "--state", str(state_dir)], tmp_path)
    shoe = SimShoeClient(info["control"])
    dealer = Dealer(ctx, tmp_path, shoe)
    seen: list[dict[str, Any]] = []
    try:
        assert ready["ready"] and ready["hand"] == 1
        assert dealer.state()["game"] == "holdem"
        dealer.ok("deal", req_id="deal-1")
        for _ in range(4):
            dealer.draw_card()
        run.send_signal(signal.SIGKILL)
        run.wait(10)
        dealer.drawn.append(shoe.draw())   # leaves the shoe while the controller is down: held, resent
        run, again = start_cli(["run", "--config", str(config), "--state", str(state_dir)], tmp_path)
        assert again["hand"] == 1 and again["replayed"] >= 5
        dealer.reconnect()
        assert dealer.client.request("deal", req_id="deal-1")["duplicate"]
        wait_for(lambda: sum(len(s["cards"]) for s in dealer.state()["spots"]) == 4, "the held card")
        while dealer.step(seen):
            pass
        dealer.ok("confirm")
        for game in ({"game": "stud", "structure": "fixed-limit",
                      "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}},
                     {"game": "five_card_draw", "structure": "pot-limit", "stakes": {"blinds": [1, 2]}}):
            shoe.request("shuffle")   # a fresh deck for every hand
            refused = dealer.client.request("open", **game, seats=6, stacks={"2": 150, "4": 150, "6": 150})
            assert refused["code"] == "forbidden", refused   # the dealer may not open a table alone
            dealer.ok("open", **game, seats=6, stacks={"2": 150, "4": 150, "6": 150}, auth=floor)
            dealer.ok("deal")
            while dealer.step(seen):
                pass
            dealer.ok("confirm")
        journal = Journal.open(state_dir, readonly=True)
        rows = journal.hands()
        journal.close()
        assert [(r.hand, r.status, r.game) for r in rows] == [
            (1, "settled", "holdem"), (2, "settled", "stud"), (3, "settled", "five_card_draw")]
        dealt = [card for r in rows for target, card in r.record["deals"]]
        assert dealt == dealer.drawn   # every card the shoe gave, dealt once, in order
        for row in rows:
            assert sum(x["net"] for x in row.record["results"]["net"]) == 0
        out = io.StringIO()
        assert export_state(str(state_dir), 0, None, True, out) == 0
        for row, history in zip(rows, parse_phhs(out.getvalue()), strict=True):
            assert not isinstance(history, Exception)
            nets = {x["seat"]: x["net"] for x in row.record["results"]["net"]}
            seats = dict(history.extra)["seats"]
            assert list(replay(history)) == [int(row.record["stacks"][str(s)]) + nets[s] for s in seats]
        for state in seen:   # the dealer's public view never carried a hole card before the showdown
            for spot in state["spots"]:
                hidden = [c for c, up in zip(spot["cards"], spot["up"]) if not up]
                assert set(hidden) <= {"??"} or spot.get("shown"), spot
    finally:
        dealer.client.close()
        shoe.close()
        for proc in (run, shoe_proc):
            proc.terminate()
            proc.wait(10)
