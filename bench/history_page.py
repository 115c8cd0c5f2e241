"""The command channel's `history` request: how long one page of 100 closed hands holds the controller's loop."""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import TypeGuard

from bench import Figure
from engine.games import MAX_SPOTS
from protocol.commands import Command
from protocol.history import HistoryPage, Reply
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup

AIM_MS = 20.0
"""A page of 100 answered within a fraction of a 50 ms card-to-publish budget."""


def _cards(cards: str) -> list[tuple[str, dict[str, object]]]:
    return [("card", {"card": card}) for card in cards.split()]


def _is_page(reply: Reply) -> TypeGuard[HistoryPage]:
    return "hands" in reply


def _play(c: Controller, hands: int) -> None:
    for i in range(hands):
        seat = 1 + i % MAX_SPOTS
        steps = [("bet", {"seat": seat, "bets": {"ante": 100, "blind": 100}}), *_cards("Ah Ad 2c Ks"),
                 ("decide", {"seat": seat, "decision": "play", "multiple": 4}), *_cards("Ac 9h 8d 7s 2h"),
                 ("confirm", {})]
        for cmd, args in steps:
            assert c.handle_command(Command.from_mapping({"cmd": cmd, **args}))["ok"]


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory() as root:
        c = Controller(Journal.open(Path(root)), default_setup=HouseSetup("uth", "default", {"minimum": 100}, MAX_SPOTS))
        c.recover()
        # As `croupier run` does after its start (cli/run.py): what was built before (here the other
        # benches' too: `make bench` runs them in one process) is out of the collector's sight, so a
        # full collection goes over the hands' garbage only, as in the controller's own process.
        gc.collect()
        gc.freeze()
        try:
            _play(c, 500)
            times = []
            for after in range(0, 400, 4):
                started = time.perf_counter()
                reply = c.handle_command(Command.from_mapping({"cmd": "history", "after": after, "limit": 100}))
                times.append((time.perf_counter() - started) * 1000)
                assert _is_page(reply) and len(reply["hands"]) == 100, reply
        finally:
            gc.unfreeze()
            c.journal.close()
    p50, p99 = statistics.median(times), sorted(times)[int(len(times) * 0.99) - 1]
    print(f"   a page of 100 closed hands from a journal of 500: p50 {p50:.2f} ms, p99 {p99:.2f} ms"
          f" (aim p99 < {AIM_MS:.0f} ms)")
    return [Figure.at_most("`history`: a page of 100 closed hands, the controller's loop held, p99", p99, AIM_MS,
                           unit=" ms")]
