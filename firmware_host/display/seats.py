"""The seats' player cards (masked to their last four) and the chip tray's line for the dealer consoles, taken from the display's full feed.

The public feed carries no player card (docs/ratings.md, "Privacy"), so the consoles' relay reads who sits
where from the full feed the display follows for `/surveillance` (`[display] full`): a listener on its hub
keeps each seat's card masked (`engine.ratings.mask_card`), its source and whether the player is away, and
tells every open console when that changes, as

    {"kind": "players", "seats": {"3": {"card": "••••7890", "source": "dealer", "away": false}}}

The card in full never leaves this module. Without `[display] full` no such message is sent: the console
still sets and clears cards (the `player` command), and says it cannot show which seats are rated.
At a smart table the consoles are told the tray's line the same way (`TrayLine`: values, never a UID).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.ratings import mask_card
from protocol.messages import SeatPlayer


def masked_players(players: Mapping[str, object]) -> dict[str, SeatPlayer]:
    """The full feed's `players` (seat -> {card, source, away}) with each card masked to its last four.

    >>> masked_players({"3": {"card": "6001234567890", "source": "dealer", "away": False}})["3"]["card"]
    '••••7890'
    """
    out: dict[str, SeatPlayer] = {}
    for seat, player in players.items():
        if isinstance(player, Mapping) and isinstance(player.get("card"), str):
            out[str(seat)] = {"card": mask_card(player["card"]), "source": str(player.get("source", "")),
                              "away": bool(player.get("away", False))}
    return out


class Followed:
    """One fact of the full feed's states told to every open console at each change (asyncio loop only): the
    message `{"kind": kind, **fact}`; a subclass says what the fact of a state is (`of`)."""

    kind = ""

    def __init__(self) -> None:
        self.fact: dict[str, Any] | None = None  # None until the full feed's first state that carries it
        self.watchers: set[Callable[[str], None]] = set()

    def of(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def message(self) -> str | None:
        """The consoles' message, or None before the full feed is heard."""
        return None if self.fact is None else json.dumps({"kind": self.kind, **self.fact})

    def see(self, message: Mapping[str, Any]) -> None:
        """One full-feed message (a `Hub` listener): a state whose fact changed goes to every console."""
        if message.get("kind") not in ("snapshot", "update"):
            return
        fact = self.of(message)
        if fact is None or fact == self.fact:
            return
        self.fact = fact
        text = self.message()
        for watcher in list(self.watchers):
            if text is not None:
                watcher(text)


class RatedSeats(Followed):
    """Who sits where, masked, from the full feed's states."""

    kind = "players"

    def of(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        players = state.get("players")
        return {"seats": masked_players(players) if isinstance(players, Mapping) else {}}


class TrayLine(Followed):
    """The chip tray as the dealer counts on it, from the full feed's `tray` (a smart table's ledger, values only):

        {"kind": "tray", "reads": 1250000, "expected": 1250000, "difference": 0, "settled": true, "flagged": 0}

    `reads` the tray antenna's last stable value, `expected` what the ledger says it should read now (the hands'
    house net, the buy-ins, colour-ups, fills and credits recorded), `difference` the one less the other (None
    while either is unknown), `flagged` the shift's tray differences flagged so far."""

    kind = "tray"

    def of(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        tray = state.get("tray")
        if not isinstance(tray, Mapping):
            return None
        reads, expected = tray.get("reads"), tray.get("expected")
        difference = reads - expected if isinstance(reads, int) and isinstance(expected, int) else None
        return {"reads": reads, "expected": expected, "difference": difference,
                "settled": bool(tray.get("settled")), "flagged": int(tray.get("flagged") or 0)}
