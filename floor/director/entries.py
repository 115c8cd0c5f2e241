"""Players entered after the seat draw (late registration, re-entries): each seated by the director at a table with the fewest players.

Once the director has drawn the seats (`seat-draw`), an `enter` (late registration, open until the
tournament file's `late_registration_until_level`; a re-entry of a player out, when `re_entries`
allows one) is seated by the director as a room's floor seats him: at random, a table drawn among
those in play with the fewest players (a table held to break is not one), then a seat drawn among
its free ones, from a seed of the director's (os.urandom) journaled with what it drew, so a replay
seats him in the same seat. A re-entry is a new entry: seated as any other, wherever the draw puts
him. The `enter` event then reads

    enter    {"player", "seed", "table", "seat", "stack"}   (the starting stack)

and queues the table's orders (`director_seating.Order`, sent by `director_orders.OrderSender`, each
until taken): a `hold` from the table's next hand, the `seat` `move_in` with the starting stack, the
hold's release (no hold or release of its own while the tables are held for hand-for-hand or this one
for moves). `move_in` owes no blind: the new player is dealt in from the table's next hand, as the
players already there (a tournament has no missed blinds to post, no waiting for the big blind:
absent players are dealt in and post, docs/rules.md), except in a seat between the button and the
blinds, which the dead button deals in once the button has passed it (`engine/poker/seats.py`).
When every seat of the tables in play is taken, the tournament file allows one more table when its
`[tables] use` names one never in play yet (the draw used as few as held the field): the next in the
order the draw puts tables in play (`reserve`) is opened for him, at the level in force, with him
alone (the event then has `"open": {"stakes", "level"}`; the orders are the table's `level` and its
`open`, the button his seat); it deals once balancing has moved a player to it from the fullest
table. A table broken is never opened again. With no such table the entry is refused, nothing written.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import Any, Protocol, cast

from engine.errors import TournamentError
from engine.tournament import BlindLevel, TournamentFile
from engine.tournament.places import Registration
from protocol.messages import Stakes
from floor.director.seating import (
    GAME, RULES, STRUCTURE, TOURNAMENT, FloorPlan, Order, stakes_of, tables_in_use_order,
)


class _Tournament(Protocol):
    """What an entry's seat is drawn from (`director_state.TournamentState`, which imports this module)."""

    tournament: TournamentFile
    registration: Registration
    plan: FloorPlan

    def level_number(self, at: float) -> int: ...

    def level_in_force(self, at: float) -> tuple[int, BlindLevel] | None: ...


ENTRY_HOLD = "a player entered sits down"
"""The reason of the hold around a new entry's `move_in` (the table's feed shows it)."""


def entry_body(state: _Tournament, args: Mapping[str, Any], at: float) -> dict[str, Any]:
    """The `enter` event's body: `args` as they are before the draw; after it, with the seat drawn for
    the player (see the module docstring). Raises TournamentError when registration would refuse
    him or no seat is free (nothing drawn, nothing written)."""
    if not state.plan.drawn:
        return dict(args)
    state.registration.check(str(args["player"]), state.level_number(at))
    level = state.level_in_force(at)
    number, first = level if level is not None else (1, state.tournament.levels[0])
    body = draw_seat(state.plan, str(args["player"]), state.tournament.starting_stack, os.urandom(16).hex())
    if body["table"] not in state.plan.in_play:   # a table opened for him: at the level in force
        body["open"] = {"stakes": stakes_of(first.small_blind, first.big_blind, first.ante), "level": number}
    return {**args, **body}


def reserve(plan: FloorPlan) -> str | None:
    """The next table the tournament may open for an entry: of its tables (`[tables] use`), the first
    in the order the draw puts them in play that has never been in play (a broken table stays closed)."""
    return next((t for t in tables_in_use_order(plan.tournament) if t not in plan.first_buttons), None)


def draw_seat(plan: FloorPlan, player: str, stack: int, seed: str) -> dict[str, Any]:
    """A seat for `player` drawn from `seed`: a table among the tables in play with the fewest players,
    a free seat of it; with every seat taken, a seat of the next table kept in reserve (`reserve`).
    Raises TournamentError when every seat is taken and no table is left to open."""
    size = plan.tournament.seats_per_table
    chart = plan.seating.tables
    open_tables = [t for t in plan.in_play if plan.moving.get(t) != "break" and len(chart.get(t, {})) < size]
    spare = reserve(plan)
    if not open_tables and spare is None:
        raise TournamentError(f"{player} cannot be seated: every seat of the tables in play "
                              f"({', '.join(plan.in_play) or 'none'}, {size} seats each) is taken and no table of "
                              f"the tournament's is left to open; the entry is not taken")
    rng = random.Random(seed)
    if open_tables:
        fewest = min(len(chart.get(t, {})) for t in open_tables)
        table = rng.choice([t for t in open_tables if len(chart.get(t, {})) == fewest])
    else:
        assert spare is not None
        table = spare
    seat = rng.choice([s for s in range(1, size + 1) if s not in chart.get(table, {})])
    return {"seed": seed, "table": table, "seat": seat, "stack": stack}


def check_seat(plan: FloorPlan, body: Mapping[str, Any]) -> None:
    """An `enter` event's seat is one the player may take now. Raises TournamentError (nothing changed)."""
    table, seat = str(body["table"]), int(body["seat"])
    if "open" in body and table != reserve(plan):
        raise TournamentError(f"enter: {table} is not the next table to open")
    if "open" not in body and (table not in plan.in_play or plan.moving.get(table) == "break"):
        raise TournamentError(f"enter: {table} is not a table in play")
    if not 1 <= seat <= plan.tournament.seats_per_table:
        raise TournamentError(f"enter: seat {seat}: the tables have {plan.tournament.seats_per_table} seats")
    if seat in plan.seating.tables.get(table, {}):
        raise TournamentError(f"enter: seat {seat} of {table} is taken")
    if int(body["stack"]) <= 0:
        raise TournamentError("enter: a player sits down with chips")


def seat_entry(plan: FloorPlan, body: Mapping[str, Any], player: str, number: int) -> None:
    """The entry number `number` sits in the seat its event drew: the seat map follows, and its table's
    orders are queued (ids `<tournament>-entry-<number>-<table>-...`: one entry, one set of ids)."""
    table, seat, stack = str(body["table"]), int(body["seat"]), int(body["stack"])
    plan.seating.tables.setdefault(table, {})[seat] = player
    prefix = f"{plan.tournament.name}-entry-{number}-{table}"
    orders = plan.orders[table]
    if "open" in body:
        _open_for(plan, body, prefix)
        return
    wrap = not plan._held() and table not in plan.moving and table not in plan.buttons.drawing   # held already?
    if wrap:
        orders.append(Order(f"{prefix}-hold", table, "hold", {"reason": ENTRY_HOLD, "by": TOURNAMENT}))
    orders.append(Order(f"{prefix}-move-in-{seat}", table, "seat", {"seat": seat, "action": "move_in",
                                                                    "amount": stack}))
    if wrap:
        orders.append(Order(f"{prefix}-release", table, "hold", {"release": True}))


def _open_for(plan: FloorPlan, body: Mapping[str, Any], prefix: str) -> None:
    """The reserve table put in play for one entry: its level, then its open with him alone (the button
    his seat); it deals once balancing has moved a player to it."""
    table, seat, stack = str(body["table"]), int(body["seat"]), int(body["stack"])
    opening = dict(body["open"])
    plan.in_play = [t for t in plan.tournament.tables if t in plan.in_play or t == table]
    plan.first_buttons[table] = seat
    plan.orders[table].append(Order(f"{prefix}-level", table, "level", {
        "stakes": cast(Stakes, dict(opening["stakes"])), "level": int(opening["level"]),
        "tournament": plan.tournament.name}))
    plan.orders[table].append(Order(f"{prefix}-open", table, "open", {
        "game": GAME, "structure": STRUCTURE, "stakes": cast(Stakes, dict(opening["stakes"])),
        "seats": plan.tournament.seats_per_table, "rules": dict(RULES), "button": seat, "stacks": {str(seat): stack}}))
