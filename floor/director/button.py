"""The director's draw for the button: each table it opens held until its shoe has dealt the high cards for it.

`ButtonPlan` is the floor plan's part (`director_seating.FloorPlan`, from the director's events
alone); `ButtonWatch` the floorman's (`director_floorman.Floorman.turn` calls it each pass, reading
the tables' feeds). At the seat draw (`seat-draw`) each table whose shoe draws the button (a table
whose feed the director reads, `[[director.tables]] shoe`, default true) is sent, in order: its level,
a `hold` (reason `button-draw`, by `tournament`), its `open` with the players' stacks and no button,
and the `button-draw` request (`tables/button_draw_step.py`): the dealer deals one card face up to
each seat from the shoe, seat 1 first, and the highest card (suits break a tie, docs/rules.md) takes the
button. Once the table's public feed shows the draw done, the director journals what it read back:

    button   {"table", "ref", "cards": {seat: card}, "players": {seat: player}, "button": seat,
              "player": the player on the button}

and the table is released for its first hand (not while hand-for-hand or a break holds every table,
nor while it is held for moves: those holds give it back). A table whose feed the director does not
read, or `shoe = false` (no shoe reader), has its button drawn by the director as before: a card a
seat from a deck shuffled by the seat draw's seed, journaled in `seat-draw` (`cards`, `buttons`),
and given in the table's `open`. A table opened later for one late entry (`director_entries.py`)
takes his seat as its button.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from engine.errors import TournamentError
from engine.tournament import TournamentFile
from floor.reports import ButtonDrawView
from protocol.messages import ButtonDraw, PublicState
from protocol.requests import Open, TableOrder

log = logging.getLogger("croupier.director")

BUTTON_DRAW = "button-draw"
"""Why a table the director has just opened is held (its feed's `hold.reason`), and the request sent it."""


class _Plan(Protocol):
    """What `ButtonPlan` needs of the floor plan."""

    tournament: TournamentFile
    moving: dict[str, str]
    first_buttons: dict[str, int | None]
    orders: dict[str, list[Any]]

    def _order(self, table: str, cmd: str, what: str, args: TableOrder) -> None: ...

    def _held(self) -> bool: ...


class ButtonPlan:
    """The draws for the button from the director's events: the tables drawing, every draw read back."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.drawing: dict[str, str] = {}        # table -> the ref of the draw sent, not yet read back
        self.draws: list[dict[str, Any]] = []     # every draw read back, as journaled

    def send(self, table: str, opening: Open) -> None:
        """The orders that open `table` for the draw: the hold, its `open` (`opening`, no button), the request."""
        ref = f"{self.plan.tournament.name}-{BUTTON_DRAW}-{table}"
        self.drawing[table] = ref
        self.plan.first_buttons[table] = None
        self.plan._order(table, "hold", f"hold-{BUTTON_DRAW}", {"reason": BUTTON_DRAW, "by": "tournament"})
        self.plan._order(table, "open", "open", {**opening})
        self.plan._order(table, BUTTON_DRAW, BUTTON_DRAW, {"by": "tournament", "ref": ref})

    def drawn(self, body: Mapping[str, Any]) -> None:
        """A `button` event: the draw read back; the table released. Raises TournamentError (nothing changed)."""
        table, button = str(body["table"]), int(body["button"])
        if self.drawing.get(table) != body.get("ref"):
            raise TournamentError(f"button: no draw {body.get('ref')!r} was sent to {table}")
        if str(button) not in dict(body["cards"]):
            raise TournamentError(f"button: seat {button} of {table} was dealt no card")
        del self.drawing[table]
        self.plan.first_buttons[table] = button
        self.draws.append(dict(body))
        if not self.plan._held() and table not in self.plan.moving:
            self.plan._order(table, "hold", "drawn", {"release": True})

    def view(self) -> list[ButtonDrawView]:
        """Every table's draw: the cards each player was dealt, and the button."""
        return [{"table": d["table"], "button": d["button"], "player": d["player"],
                 "cards": {str(d["players"].get(s, f"seat {s}")): c for s, c in dict(d["cards"]).items()}}
                for d in self.draws]


class _Watcher(Protocol):
    def latest(self, table: str) -> PublicState: ...


class ButtonWatch:
    """The floorman's part: each pass, a draw the table's feed shows done is journaled (`button`)."""

    def __init__(self, plan: ButtonPlan, watcher: _Watcher, seats: Callable[[str], Mapping[int, str]],
                 take: Callable[[str, dict[str, Any]], bool]) -> None:
        self.buttons = plan
        self.watcher = watcher
        self.seats = seats   # a table's seat map: seat -> player
        self.take = take     # the floorman's: the event journaled and applied, False when refused

    def turn(self) -> None:
        for table, ref in list(self.buttons.drawing.items()):
            if self.buttons.plan.orders.get(table):
                continue   # the draw is not sent yet (or the table has not taken it)
            draw = self.watcher.latest(table).get("button_draw")
            if isinstance(draw, Mapping) and draw.get("done") and draw.get("ref") == ref:
                self.take("button", drawn_body(table, draw, self.seats(table)))


def drawn_body(table: str, draw: ButtonDraw, seats: Mapping[int, str]) -> dict[str, Any]:
    """The `button` event from the draw a table's feed shows done (seats named by the seat map)."""
    cards = {str(s["seat"]): str(s["cards"][0]) for s in draw.get("seats") or [] if s.get("cards")}
    button = int(draw["button"])
    return {"table": table, "ref": draw.get("ref"), "cards": cards,
            "players": {seat: seats.get(int(seat), f"seat {seat}") for seat in cards},
            "button": button, "player": seats.get(button, f"seat {button}")}
