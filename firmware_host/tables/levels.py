"""A tournament level at a poker table: the blinds and ante the director sends (`level`), in force from the table's next hand.

The director's `level` request (`{"cmd": "level", "stakes": {"blinds": [sb, bb], "antes": ante},
"level": n, "tournament": name}`, the `pit` role's) is journaled as a `level` event. The table keeps
the stakes it names (`TableState.level`) and plays them from the next hand it begins: a table
between hands takes them at once, a hand in progress keeps the blinds it began with (000: "if the
blinds go up while the dealer is shuffling, they go up the next hand"). A later `open` sets its own
stakes and forgets the level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from protocol.messages import Tournament
from firmware_host.tables.base import GameTable, Refused
from firmware_host.tables.poker.table import PokerTable


def take_level(table: GameTable | None, body: Mapping[str, Any]) -> dict[str, Any]:
    """The stakes a `level` event sets (the table's, with the level's keys replaced). Raises Refused
    when no poker table is open, the blinds are not a small and a big blind (0 < small <= big), or
    the engine would refuse those stakes."""
    if table is None:
        raise Refused("level: no table is open")
    if not isinstance(table, PokerTable):
        raise Refused(f"level: a {table.setup.game} table has no blinds: only a poker table takes a level")
    stakes = {**table.setup.stakes, **dict(body.get("stakes") or {})}
    blinds = stakes.get("blinds")
    if not isinstance(blinds, list) or len(blinds) != 2 or not 0 < blinds[0] <= blinds[1]:
        raise Refused(f"level: a level's blinds are a small and a big blind, the small at most the big, "
                      f"not {blinds!r}")
    try:
        replace(table.setup, stakes=stakes).engine_stakes()
    except (ValueError, TypeError) as exc:
        raise Refused(f"level: {exc}") from None
    return stakes


def at_level(table: GameTable, stakes: Mapping[str, Any] | None) -> GameTable:
    """`table` (one whose hand has not begun) playing `stakes`: the same players, stacks and button;
    `table` itself when there is no level or it plays those stakes already."""
    if stakes is None or not isinstance(table, PokerTable) or dict(table.setup.stakes) == dict(stakes):
        return table
    return PokerTable(replace(table.setup, stakes=dict(stakes)), table.hand, table.session.to_dict())


def tournament_level(body: Mapping[str, Any]) -> Tournament:
    """What the players' screen shows of a `level` event: the tournament's name, the level's number
    (None when the director named none) and its blinds and ante, in force from the next hand."""
    stakes = dict(body.get("stakes") or {})
    return {"name": body.get("tournament"), "level": body.get("level"),
            "blinds": list(stakes.get("blinds") or []), "antes": stakes.get("antes")}
