"""The loop's garbage collection (`service.loop.Collector`): made at a turn's end, never inside a card's step, at CPython's counts."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from drivers.card_reader import SimCardReader
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.service.loop import Collector
from firmware_host.tables.house.table import HouseSetup
from protocol.commands import CommandClient
from protocol.feed import Feed, FeedClient

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


@pytest.fixture
def thresholds() -> Iterator[None]:
    """Small thresholds for the test (collections every few dozen objects), the process's own back after it."""
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(50, 2, 2)
    yield
    gc.set_threshold(*before)
    if enabled:
        gc.enable()


def test_a_turn_collects_the_generation_cpython_would(thresholds: None) -> None:
    collector = Collector()
    collector.take_over()
    try:
        assert not gc.isenabled()
        gc.collect()
        collector.turn()  # nothing allocated: nothing due
        assert collector.collections == [0, 0, 0]
        kept: list[list[int]] = []
        made = []
        for _ in range(16):  # gen 0 over its threshold 16 times: CPython's young collections, then a full one
            kept.extend([] for _ in range(60))
            collector.turn()
            made.append(list(collector.collections))
        # gen 1 once its count (gen 0's collections since) is over 2; gen 2 once both gen 1's and its own are
        assert made[3] == [3, 1, 0] and made[11] == [9, 3, 0] and made[15] == [12, 3, 1]
    finally:
        collector.give_back()
    assert gc.isenabled()


def test_no_collection_inside_a_card_step(tmp_path: Path, ctx: zmq.Context[Any], thresholds: None) -> None:
    eps = {k: f"ipc://{tmp_path}/{k}" for k in ("public", "snapshot", "cmd")}
    feed = Feed(ctx, "t9", public=eps["public"], snapshot=eps["snapshot"], heartbeat_s=0.5)
    c = Controller(Journal.open(tmp_path / "state"), table="t9", default_setup=UTH, feed=feed)
    c.recover()
    in_step, inside, collections = threading.Event(), [], []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])
            if in_step.is_set():
                inside.append(info["generation"])

    step = c.handle_readings

    def timed(readings: list[Any]) -> None:
        in_step.set()
        try:
            step(readings)
        finally:
            in_step.clear()

    c.handle_readings = timed  # type: ignore[method-assign]
    shoe = SimCardReader(c.inbox.post)
    thread = threading.Thread(target=c.run, args=(ctx, eps["cmd"]), daemon=True)
    gc.callbacks.append(seen)
    thread.start()
    try:
        watcher = FeedClient(ctx, eps["public"], eps["snapshot"])
        watcher.fetch_snapshot()
        dealer = CommandClient(ctx, eps["cmd"])
        assert dealer.request("bet", seat=2, bets={"ante": 100, "blind": 100})["ok"]
        shoe.start()
        for card in ("As", "Kd", "Qh", "Jc"):
            shoe.deal(card)
        state: dict[str, Any] = {}
        while state.get("phase") != "preflop":
            m = watcher.receive(3000)
            assert m is not None, "no update on the feed"
            state = watcher.state or {}
        enabled_while_running = gc.isenabled()
        dealer.close()
        watcher.close()
    finally:
        c.stop()
        thread.join(5)
        gc.callbacks.remove(seen)
        feed.close()
        c.journal.close()
    assert collections, "the loop made no collection at thresholds of 50 objects"
    assert inside == []
    assert not enabled_while_running  # the loop collects, at its turns' ends
