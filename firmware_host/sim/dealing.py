"""The emulated shoe's hand for a table worked by a person: a card out of the shoe whenever the controller expects one, nothing else.

`ShoeHand` follows the full feed (as a dealer sees the cards) and, while a hand is being dealt with
no decision awaited and no fault standing, draws one card from `croupier sim-shoe`'s control port,
waits until the controller took it, and so on; at each new hand it shuffles the shoe (the seed and
the hand number, as the bot dealer does). Bets, decisions, `deal`, `confirm`, voids and faults are
left to whoever works the table (the dealer console, a test).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import zmq

from drivers.errors import DeviceError
from firmware_host.service.feed import FeedClient
from firmware_host.sim.bots import TableEndpoints, _count
from firmware_host.sim.shoe import SimShoeClient

log = logging.getLogger("croupier.dealing")


def wants_card(state: Mapping[str, Any]) -> bool:
    """The controller expects a card from the shoe now (a hand dealt, no decision awaited, no fault)."""
    return (state.get("next") is not None and state.get("to_act") is None and not state.get("fault")
            and state.get("phase") not in ("bets", "showdown", "settled", "closed"))


class ShoeHand(threading.Thread):
    """A thread that deals the shoe's cards when the controller expects them; `stop()` ends it."""

    def __init__(self, endpoints: TableEndpoints, shoe_control: str, *, seed: int = 0,
                 key: str | None = None, server_key: str | None = None) -> None:
        super().__init__(name="shoe-hand", daemon=True)
        self.endpoints = endpoints
        self.shoe_control = shoe_control
        self.seed = seed
        self.key, self.server_key = key, server_key
        self.drawn: dict[int, list[str]] = {}
        self._done = threading.Event()

    def stop(self) -> None:
        self._done.set()
        self.join(timeout=5.0)

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        feed = FeedClient(ctx, self.endpoints.full, self.endpoints.full_snapshot, timeout_s=1.0,
                          key=self.key, server_key=self.server_key)
        shoe = SimShoeClient(self.shoe_control)
        shuffled: int | None = None
        waiting: tuple[int, int] | None = None  # (hand, cards placed) when the last card was drawn
        try:
            while not self._done.is_set():
                try:
                    if feed.state is None:
                        feed.fetch_snapshot()
                    else:
                        feed.receive(200)
                except TimeoutError:
                    feed.state = None
                    continue
                state = feed.state or {}
                hand = int(state.get("hand") or 0)
                if state.get("phase") == "bets" and shuffled != hand:
                    shoe.request(f"shuffle {self.seed * 100003 + hand}")
                    shuffled = hand
                placed = (hand, len(_count(state)))
                if wants_card(state) and waiting != placed:
                    card = shoe.draw().split()[-1].split(":")[-1]
                    self.drawn.setdefault(hand, []).append(card)
                    waiting = placed
        except (DeviceError, OSError) as exc:
            log.error("shoe hand stopped: %s", exc)
        finally:
            for thing in (feed, shoe):
                try:
                    thing.close()
                except Exception:  # closing must go on for the other
                    log.debug("closing %r", thing, exc_info=True)
            ctx.destroy(linger=0)
