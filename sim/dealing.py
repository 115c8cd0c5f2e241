"""The emulated shoe's hand for a table worked by a person: a card out of the shoe whenever the controller expects one, nothing else.

`ShoeHand` follows the full feed (as a dealer sees the cards) and, while a hand is being dealt with
no decision awaited and no fault standing, draws one card from `croupier sim-shoe`'s control port,
waits until the controller took it, and so on; at each new hand it shuffles the shoe (the seed and
the hand number, as the bot dealer does). Bets, decisions, `deal`, `confirm`, voids and faults are
left to whoever works the table (the dealer console, a test).
"""

from __future__ import annotations

from typing import Any

import zmq

from protocol.messages import FullState
from sim.bots.dealer import cards_placed
from sim.bots.table import TableEndpoints
from sim.following import FollowingThread
from sim.shoe import SimShoeClient


def wants_card(state: FullState) -> bool:
    """The controller expects a card from the shoe now (a hand dealt, no decision awaited, no fault)."""
    return (state.get("next") is not None and state.get("to_act") is None and not state.get("fault")
            and state.get("phase") not in ("bets", "showdown", "settled", "closed"))


class ShoeHand(FollowingThread):
    """A thread that deals the shoe's cards when the controller expects them; `stop()` ends it."""

    def __init__(self, endpoints: TableEndpoints, shoe_control: str, *, seed: int = 0,
                 key: str | None = None, server_key: str | None = None, feed_key: str | None = None) -> None:
        super().__init__("shoe-hand", endpoints, key, server_key, feed_key)
        self.shoe_control = shoe_control
        self.seed = seed
        self.drawn: dict[int, list[str]] = {}
        self._shoe: SimShoeClient | None = None
        self._shuffled: int | None = None
        self._waiting: tuple[int, int] | None = None  # (hand, cards placed) when the last card was drawn

    def open(self, ctx: zmq.Context[Any]) -> list[Any]:
        self._shoe = SimShoeClient(self.shoe_control)
        return [self._shoe]

    def on_state(self, state: FullState) -> None:
        assert self._shoe is not None
        hand = int(state.get("hand") or 0)
        # waiting: a poker table between hands; a smart table's Deal after a settled hand shows no `bets` phase first
        new_hand = state.get("phase") in ("bets", "waiting") or (wants_card(state) and not cards_placed(state))
        if new_hand and self._shuffled != hand:
            self._shoe.request(f"shuffle {self.seed * 100003 + hand}")
            self._shuffled = hand
        placed = (hand, len(cards_placed(state)))
        if wants_card(state) and self._waiting != placed:
            card = self._shoe.draw().split()[-1].split(":")[-1]
            self.drawn.setdefault(hand, []).append(card)
            self._waiting = placed
