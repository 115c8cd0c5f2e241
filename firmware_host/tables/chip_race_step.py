"""The chip race at a poker table: a colour-up's odd chips raced with cards the table's shoe deals face up (000).

The pit's `race` request (`{"cmd": "race", "colour": 25, "into": 100, "by": "tournament", "ref": "..."}`,
the `pit` role's; the tournament director sends it to each table it holds for a break; `ref`: the
sender's words for this race, shown with it) is journaled as a `race` event. Between hands only, at
a poker table, no fault standing. It opens the table's chip-race step on the stacks as they stand:
each player's chips of `colour` are to be changed for chips of `into`, and his odd chips
(`stack % into // colour`) raced. While the step is open every
card the shoe reads is a race card, dealt face up: one per odd chip, from the lowest seat (seat 1,
left of the dealer) clockwise, so the table knows whose card each one is by the count alone. With
the last card the race is run (`engine.tournament.chip_race`) and the stacks changed: coloured up,
one higher chip to each of the highest cards, nobody raced out. A race with no odd chip is run at once.

While the step is open the table begins no hand and changes no seat: `deal`, the `next` button,
`seat`, `open`, `close`, another `race` and a `button-draw` are refused `racing`. A card the race
cannot take (one dealt already in this race) is refused as any reading the table cannot take:
journaled `refused`, a fault; once a supervisor clears it the race waits for the card still due. A card read once the
race is run is no race card: it would begin a hand (refused while the table is held). A card keyed
in by hand (`card`, signed off) is taken as the shoe's and marked `manual` in the race.

The table counts in chips' value: a stack that is not made of chips of `colour` (a split pot's odd
unit) keeps its whole chips only; what is under one chip is removed by the race and counted in its
`change`. The step is a pure function of the `race` event and the cards after it, so a replay runs
the same race. The feeds show it as `race` (public: the race cards are face up by the rule) until
the next hand begins:

    {"colour", "into", "by", "ref", "done": bool, "next": the seat whose card is due (None once done),
     "seats": [{"seat", "stack", "odd_chips", "cards": [...], "after" (once done)}], "manual": [cards],
     once done: "value" (the odd chips' worth), "chips_won", "winners": [seats, highest card first],
     "kept_in": [seats given one chip], "change" (the table's chip total after less before)}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.tournament import chip_race
from protocol.messages import Race, RaceSeat
from firmware_host.tables.base import GameTable, Refused
from firmware_host.tables.face_up_step import deal_face_up, open_step, refuse_while_open
from firmware_host.tables.poker.table import PokerTable

RACING = "racing"
"""The refusal code of a step the open chip race stops."""

STOPPED = frozenset({"deal", "seat", "open", "close", "race", "button-draw"})
"""The steps refused while a race is being dealt (a hand, a seat or the table would change under it)."""


def racing(race: Race | None) -> bool:
    """A race is being dealt: its cards are still due."""
    return open_step(race)


def refuse_while_racing(race: Race | None, kind: str) -> None:
    """Raise Refused (`racing`) for a `kind` step the race being dealt stops."""
    refuse_while_open(race, kind, STOPPED, RACING,
                      lambda r: f"a chip race is being dealt (chips of {r['colour']} into {r['into']}; "
                                f"the card for seat {r['next']} is due)")


def start_race(table: GameTable | None, body: Mapping[str, Any]) -> tuple[Race, GameTable]:
    """The race a `race` event opens on `table` (the table for the next hand), and the table: changed
    when the race is run at once (no odd chip). Raises Refused when no poker table is open, a hand is
    in progress, or `into` is not a whole multiple of `colour` above it."""
    if not isinstance(table, PokerTable):
        what = "no table is open" if table is None else f"a {table.setup.game} table has no tournament stacks"
        raise Refused(f"race: {what}: chips are raced at a poker table")
    if table.started:
        raise Refused("race: a hand is in progress: the chips are raced between hands")
    colour, into = int(body["colour"]), int(body["into"])
    if colour <= 0 or into <= colour or into % colour:
        raise Refused(f"race: chips of {colour} are coloured up into a whole multiple of them, not {into}")
    seats: list[RaceSeat] = [{"seat": seat, "stack": p.stack, "odd_chips": p.stack % into // colour, "cards": []}
                             for seat, p in sorted(table.session.players.items()) if p.stack > 0]
    race: Race = {"colour": colour, "into": into, "by": str(body.get("by") or "pit"), "ref": str(body.get("ref") or ""),
                  "done": False, "seats": seats, "manual": [], "next": None}
    race["next"] = _due(race)
    if race["next"] is None:
        return _run(race, table)
    return race, table


def take_race_card(race: Race, table: GameTable, card: str, manual: bool = False) -> tuple[Race, GameTable]:
    """The race with `card` dealt to the seat whose card is due, and the table (changed when that was
    the last card: the race is run). Raises Refused for a card that is no card or was dealt already
    in this race (nothing changed)."""
    taken = deal_face_up(race, card, manual, "race", _due)
    if taken["next"] is None:
        return _run(taken, table)
    return taken, table


def _due(race: Race) -> int | None:
    return next((int(s["seat"]) for s in race["seats"] if len(s["cards"]) < s["odd_chips"]), None)


def _run(race: Race, table: GameTable) -> tuple[Race, GameTable]:
    """The race run on its cards: the stacks coloured up and raced, the table with them."""
    assert isinstance(table, PokerTable)
    colour, into = race["colour"], race["into"]
    whole = {int(s["seat"]): int(s["stack"]) - int(s["stack"]) % colour for s in race["seats"]}
    cards = [c for s in race["seats"] for c in s["cards"]]
    result = chip_race(whole, colour, into, cards)
    seating = table.session.to_dict()
    for seat, stack in result.stacks.items():
        seating["seats"][str(seat)]["stack"] = stack
    raced = PokerTable(table.setup, table.hand, seating)
    done: Race = {**race, "done": True, "next": None,
            "seats": [{**s, "after": result.stacks[int(s["seat"])]} for s in race["seats"]],
            "value": result.odd_value, "chips_won": result.chips_won, "winners": list(result.winners),
            "kept_in": list(result.kept_in),
            "change": sum(result.stacks.values()) - sum(int(s["stack"]) for s in race["seats"])}
    return done, raced
