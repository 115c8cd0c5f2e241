"""The chips that move at the tray besides a hand's play, as the table takes them: buy-ins, colour-ups, fills and credits.

Each is a dealer's or the pit's command journaled as its own event (`buy_in`, `colour_up`, `fill`,
`credit`: an amount in the table's smallest unit; a buy-in's and a colour-up's seat); a fill and a
credit are signed off by a supervisor (`protocol/access.py` SIGN_OFF). The table state only checks
them: they take any time, a fault standing or not (money moves whether the cards can or not); what
they mean to the tray is the tray ledger's (`engine/tray.py`, `service/tray.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import say
from firmware_host.tables.base import GameTable, Refused

MOVEMENT_KINDS = ("buy_in", "colour_up", "fill", "credit")
"""The events (and commands) of a movement of chips at the tray."""

SEATED = frozenset({"buy_in", "colour_up"})
"""Movements made with a player at a seat: the seat is named."""


def take_movement(table: GameTable | None, kind: str, body: Mapping[str, Any]) -> None:
    """Check a movement against the table. Raises Refused: a seat the open table has not, or none named."""
    if kind not in SEATED:
        return
    seat = body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise Refused(f"{kind}: name the seat", say=say("refusal.movement_seat", kind={"word": f"console.tray_{kind}"}))
    seats = getattr(getattr(table, "setup", None), "seats", None)
    if isinstance(seats, int) and not 1 <= seat <= seats:
        raise Refused(f"there is no seat {seat} at this table (seats 1 to {seats})",
                      say=say("refusal.no_such_seat", seat=str(seat), seats=seats))
