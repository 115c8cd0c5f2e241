"""Bot players' stakes and decisions; the bot dealer's feed follower re-snapshots after a gap."""

from __future__ import annotations

from collections.abc import Iterator
import threading
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.house import TableLimits
from firmware_host.bots import BotPlayer, FeedFollower, SimLimits, TableEndpoints, tcp_decision, uth_decision, write_config
from firmware_host.config import Config
from firmware_host.feed import Feed


def test_uth_decisions() -> None:
    assert uth_decision("preflop", ["As", "7d"], []) == ("play", 4)
    assert uth_decision("preflop", ["9c", "9d"], []) == ("play", 4)
    assert uth_decision("preflop", ["7s", "2d"], []) == ("check", None)
    assert uth_decision("flop", ["7s", "2d"], ["7c", "Kd", "4h"]) == ("play", 2)
    assert uth_decision("flop", ["8s", "2d"], ["7c", "Kd", "4h"]) == ("check", None)
    assert uth_decision("river", ["8s", "2d"], ["7c", "Kd", "4h", "Jc", "3s"]) == ("fold", None)
    assert uth_decision("river", ["8s", "3d"], ["7c", "Kd", "4h", "Jc", "3s"]) == ("play", 1)


def test_3cp_plays_queen_six_four_or_better() -> None:
    assert tcp_decision(["Qs", "6d", "4c"]) == "play"
    assert tcp_decision(["Qs", "6d", "3c"]) == "fold"
    assert tcp_decision(["2s", "2d", "9c"]) == "play"
    assert tcp_decision(["Js", "Td", "8c"]) == "fold"


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_stakes_are_the_same_for_a_hand_and_within_the_limits(game: str) -> None:
    limits = SimLimits()
    table = TableLimits(limits.minimum, limits.maximum, limits.side_minimum, limits.side_maximum, limits.chip)
    seen = set()
    for hand in range(1, 60):
        for seat in (1, 4):
            bets = BotPlayer(seat, seed=9).bets(game, hand, limits)
            assert bets == BotPlayer(seat, seed=9).bets(game, hand, limits)
            table.check_main("ante", bets["ante"])
            if game == "uth":
                assert bets["blind"] == bets["ante"]
            for side in ("trips", "pair_plus"):
                if side in bets:
                    table.check_side(side, bets[side])
            seen.add(tuple(sorted(bets)))
    assert len(seen) == 2  # with and without the side bet


def test_the_written_configuration_is_one_the_controller_takes(tmp_path: Path) -> None:
    eps = TableEndpoints.ipc(tmp_path)
    path = write_config(tmp_path / "t.toml", endpoints=eps, shoe_url="socket://127.0.0.1:7000", game="3cp", seats=6)
    cfg = Config.load(path)
    assert cfg.table.game == "3cp" and cfg.table.seats == 6 and cfg.feed.full == eps.full
    assert cfg.gpio.backend == "sim" and cfg.gpio.panel == eps.panel and cfg.limits.chip == 100


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    c: zmq.Context[Any] = zmq.Context()
    yield c
    c.destroy(linger=0)


def test_follower_takes_a_new_snapshot_after_a_gap(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    feed = Feed(ctx, "t", public=f"ipc://{tmp_path}/p", snapshot=f"ipc://{tmp_path}/s", heartbeat_s=60)
    stop = threading.Event()

    def serve() -> None:  # the controller's loop answers snapshots; here a thread owns the ROUTER
        while not stop.is_set():
            if feed.snap.poll(10):
                feed.serve_snapshots(feed.snap)

    server = threading.Thread(target=serve)
    server.start()
    try:
        feed.set_state({"hand": 1})
        follower = FeedFollower(ctx, f"ipc://{tmp_path}/p", f"ipc://{tmp_path}/s", timeout_s=2)
        assert follower.receive(100) is not None and follower.state == {"hand": 1}  # the snapshot
        for i in range(100):  # heartbeats (fake clock) until the subscription has reached the PUB socket
            feed.tick(now=10**9 + 100 * i)
            if follower.receive(20) is not None:
                break
        assert follower.seq == feed.seq and follower.gaps == 0
        feed.seq += 1  # an update the subscriber never got (a slow joiner loses what came before it)...
        feed.set_state({"hand": 2})
        feed.tick(now=10**10)  # ...then a heartbeat: taken at face value, the old state would look current
        message = follower.receive(2000)
        assert message is not None and message["kind"] == "snapshot"
        assert follower.state == {"hand": 2} and follower.gaps == 1
        follower.close()
    finally:
        stop.set()
        server.join()
        feed.close()
