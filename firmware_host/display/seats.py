"""The seats' player cards for the dealer consoles, masked to their last four, taken from the display's full feed.

The public feed carries no player card (docs/ratings.md, "Privacy"), so the consoles' relay reads who sits
where from the full feed the display follows for `/surveillance` (`[display] full`): a listener on its hub
keeps each seat's card masked (`engine.ratings.mask_card`), its source and whether the player is away, and
tells every open console when that changes, as

    {"kind": "players", "seats": {"3": {"card": "••••7890", "source": "dealer", "away": false}}}

The card in full never leaves this module. Without `[display] full` no such message is sent: the console
still sets and clears cards (the `player` command), and says it cannot show which seats are rated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.ratings import mask_card


def masked_players(players: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The full feed's `players` (seat -> {card, source, away}) with each card masked to its last four.

    >>> masked_players({"3": {"card": "6001234567890", "source": "dealer", "away": False}})["3"]["card"]
    '••••7890'
    """
    out: dict[str, dict[str, Any]] = {}
    for seat, player in players.items():
        if isinstance(player, Mapping) and isinstance(player.get("card"), str):
            out[str(seat)] = {"card": mask_card(player["card"]), "source": str(player.get("source", "")),
                              "away": bool(player.get("away", False))}
    return out


class RatedSeats:
    """Who sits where, masked, from the full feed's states; the open consoles told of each change (asyncio loop only)."""

    def __init__(self) -> None:
        self.seats: dict[str, dict[str, Any]] | None = None  # None until the full feed's first state
        self.watchers: set[Callable[[str], None]] = set()

    def message(self) -> str | None:
        """The consoles' `players` message, or None before the full feed is heard."""
        return None if self.seats is None else json.dumps({"kind": "players", "seats": self.seats})

    def see(self, message: Mapping[str, Any]) -> None:
        """One full-feed message (a `Hub` listener): a state whose seats changed goes to every console."""
        if message.get("kind") not in ("snapshot", "update"):
            return
        players = message.get("players")
        seats = masked_players(players) if isinstance(players, Mapping) else {}
        if seats == self.seats:
            return
        self.seats = seats
        text = self.message()
        for watcher in list(self.watchers):
            if text is not None:
                watcher(text)
