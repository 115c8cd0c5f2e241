"""The draw for the button at a poker table: a card a seat, dealt face up by the shoe; the highest takes the button.

The pit's `button-draw` request (`{"cmd": "button-draw", "by": "tournament", "ref": "..."}`, the
`pit` role's; the tournament director sends it to each table it has opened, before its first hand;
`ref`: the sender's words for this draw, shown with it) is journaled as a `button-draw` event.
Between hands only, at a poker table, no fault standing, no chip race being dealt. It opens the
table's draw on the seats as they stand: every seat with chips is dealt one card. While the draw is
open every card the shoe reads is a draw card, face up, one a seat from the lowest seat (seat 1)
clockwise (`face_up_step.py`, as the chip race's cards), so the table knows whose card each one is
by the count alone. With the last card the button is drawn (`engine.tournament.button_by_high_card`:
the highest rank, between equal ranks the suit in the order of docs/rules.md, clubs < diamonds < hearts <
spades) and the table's button set to that seat: the next hand is dealt with it (the blinds placed
from it as for a table's first hand).

While the draw is open the table begins no hand and changes no seat: `deal`, the `next` button,
`seat`, `open`, `close`, `race` and another `button-draw` are refused `drawing`. A card the draw
cannot take (one dealt already in this draw) is refused as any reading the table cannot take:
journaled `refused`, a fault; once a supervisor clears it the draw waits for the card still due. A
card read once the button is drawn is no draw card: it would begin a hand (refused while the table
is held). A card keyed in by hand (`card`, signed off) is taken as the shoe's and marked `manual`.

The step is a pure function of the `button-draw` event and the cards after it, so a replay draws
the same button. The feeds show it as `button_draw` (public: the cards are face up by the rule)
until the next hand begins:

    {"by", "ref", "done": bool, "next": the seat whose card is due (None once done),
     "seats": [{"seat", "cards": [card]}], "manual": [cards], once done: "button" (the seat drawn)}

A table may also be given its first button in `open` (`button`), as a table without a shoe reader is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.tournament import button_by_high_card
from protocol.messages import ButtonDraw, DrawSeat
from firmware_host.tables.base import GameTable, Refused
from firmware_host.tables.face_up_step import deal_face_up, open_step, refuse_while_open
from firmware_host.tables.poker.table import PokerTable

DRAWING = "drawing"
"""The refusal code of a step the open draw for the button stops."""

STOPPED = frozenset({"deal", "seat", "open", "close", "race", "button-draw"})
"""The steps refused while the draw is being dealt (a hand, a seat or the table would change under it)."""


def drawing(draw: ButtonDraw | None) -> bool:
    """A draw for the button is being dealt: its cards are still due."""
    return open_step(draw)


def refuse_while_drawing(draw: ButtonDraw | None, kind: str) -> None:
    """Raise Refused (`drawing`) for a `kind` step the draw being dealt stops."""
    refuse_while_open(draw, kind, STOPPED, DRAWING,
                      lambda d: f"the button is being drawn by high card (the card for seat {d['next']} is due)")


def start_draw(table: GameTable | None, body: Mapping[str, Any]) -> ButtonDraw:
    """The draw a `button-draw` event opens on `table` (the table for the next hand). Raises Refused
    when no poker table is open, a hand is in progress, or fewer than two seats have chips."""
    if not isinstance(table, PokerTable):
        what = "no table is open" if table is None else f"a {table.setup.game} table has no button"
        raise Refused(f"button-draw: {what}: the button is drawn at a poker table")
    if table.started:
        raise Refused("button-draw: a hand is in progress: the button is drawn between hands")
    seats: list[DrawSeat] = [{"seat": seat, "cards": []}
                             for seat, p in sorted(table.session.players.items()) if p.stack > 0]
    if len(seats) < 2:
        raise Refused(f"button-draw: {len(seats)} seat(s) with chips: the button is drawn among two players or more")
    draw: ButtonDraw = {"by": str(body.get("by") or "pit"), "ref": str(body.get("ref") or ""),
                        "done": False, "seats": seats, "manual": [], "next": None}
    draw["next"] = _due(draw)
    return draw


def take_draw_card(draw: ButtonDraw, table: GameTable, card: str,
                   manual: bool = False) -> tuple[ButtonDraw, GameTable]:
    """The draw with `card` dealt to the seat whose card is due, and the table (its button set when that
    was the last card). Raises Refused for a card that is no card or was dealt already in this draw."""
    taken = deal_face_up(draw, card, manual, "button-draw", _due)
    if taken["next"] is not None:
        return taken, table
    assert isinstance(table, PokerTable)
    button = button_by_high_card({int(s["seat"]): s["cards"][0] for s in taken["seats"]})
    return {**taken, "done": True, "button": button}, with_button(table, button)


def with_button(table: PokerTable, button: int) -> PokerTable:
    """The table for its next hand with the button on `button`: placed as at a table's first hand
    (no button or blinds of a hand before carried), the seats and stacks as they are."""
    seating = table.session.to_dict()
    seating.pop("small_blind", None)
    seating.pop("big_blind", None)
    seating["button"] = None
    setup = dataclasses.replace(table.setup, button=button, last_button=None)
    return PokerTable(setup, table.hand, seating)


def _due(draw: ButtonDraw) -> int | None:
    return next((int(s["seat"]) for s in draw["seats"] if not s["cards"]), None)
