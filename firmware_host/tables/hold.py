"""A hold on the table: the pit (the tournament director) stops it from beginning a new hand until it releases it.

The `hold` request (`{"cmd": "hold", "reason": str, "by": str, "from_hand": n}`, the `pit` role's;
`{"cmd": "hold", "release": true}` releases it) is journaled as a `hold` event. Under a hold the
table refuses to begin hand `from_hand` or any later one: a `deal`, the first card of a hand, the
`next` button or a house table's first bet is refused with the code `held`, nothing applied (a card
the shoe reads then is journaled as refused, a fault, as any reading the table cannot take). A hand already begun plays
to its end; the seats may still change between hands (`seat` `leave`, `move_in`: players moved by
the director while the table waits). Without `from_hand` the hold is from the next hand to begin
(the hand in progress, if any, finishes); the controller writes that number into the body before
it is journaled, so the hold is a pure function of the last `hold` event: a restart finds it (the
journal's last `hold` before the events replayed, then those) and `from_hand` moved on by one lets
exactly one more hand be dealt (hand-for-hand: each table deals one hand, then waits).

The public feed shows it as `hold`: `{"by", "reason", "from_hand"}` or null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import say
from firmware_host.tables.base import GameTable, Refused

HELD = "held"
"""The refusal code of a step that would begin a hand the table is held from."""


def next_to_begin(table: GameTable | None, hand: int) -> int:
    """The number of the next hand to begin: `hand` between hands, the one after it while a hand is played."""
    if table is None or table.closed is not None or not table.started:
        return hand
    return hand + 1


def hold_body(table: GameTable | None, hand: int, body: Mapping[str, Any]) -> dict[str, Any]:
    """The `hold` event as journaled: `from_hand` spelt out (the next hand to begin when the request gives none)."""
    if body.get("release"):
        return {"release": True}
    return {"reason": str(body.get("reason") or "held by the pit"), "by": str(body.get("by") or "pit"),
            "from_hand": int(body.get("from_hand") or next_to_begin(table, hand))}


def take_hold(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The hold a `hold` event leaves on the table (None: released). Raises Refused for a body with
    no `from_hand` (a journal's event is always spelt out: `hold_body`)."""
    if body.get("release"):
        return None
    if not isinstance(body.get("from_hand"), int):
        raise Refused("hold: from_hand is missing (the hand the table is held from)")
    return {"by": str(body.get("by") or "pit"), "reason": str(body.get("reason") or "held by the pit"),
            "from_hand": int(body["from_hand"])}


def refuse_if_held(hold: Mapping[str, Any] | None, table: GameTable | None, hand: int) -> None:
    """Raise Refused (`held`) when the step about to begin hand `hand` is one the hold stops."""
    if hold is None or table is None or next_to_begin(table, hand) != hand or hand < int(hold["from_hand"]):
        return
    raise Refused(f"the table is held from hand {hold['from_hand']} ({hold['reason']}, by {hold['by']}): "
                  f"no new hand until it is released", HELD,
                  say("refusal.held", hand=int(hold["from_hand"]), reason=str(hold["reason"]), by=str(hold["by"])))
