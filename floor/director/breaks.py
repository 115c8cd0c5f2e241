"""The director's breaks: every table held for the clock's break, the colour-up's chip race at each, holds given back.

`BreakPlan` is the floor plan's part (`director_seating.FloorPlan`, from the director's events
alone); `BreakWatch` the floorman's (`director_floorman.Floorman.turn` calls it each pass, reading the
clock and the tables' feeds). One `break` event a step:

    {"step": "hold", "stage", "colour", "into"}   the clock reached the break `stage`: every table in
                       play is held from its next hand (the hand in play finishes; reason `break`);
                       `colour` the chip coloured up into `into` (`engine.tournament.colour_up_due`
                       on the chips still in play; both None when none is due)
    {"step": "join", "table"}   a table put in play during the break (opened for a late entry) is
                       held for it too
    {"step": "race", "table", "ref"}   the table waits between hands under the break: it is sent the
                       `race` request (`tables/chip_race_step.py`), its shoe dealing the cards
    {"step": "raced", "table", "ref", "seats": [{"seat", "player", "stack", "odd_chips", "cards", "after"}],
     "value", "chips_won", "winners": [players], "kept_in": [players], "change"}   the race as the
                       table's feed showed it run
    {"step": "release", "stage"}   the break is over on the clock (its time run, the clock resumed
                       after it) and every table has raced: each table gets back the hold another
                       reason wants (hand-for-hand's, with its round's hand), or none

A table raced is raced again when a player moved in afterwards brought odd chips of the colour (the
race then deals only to him), so no chip of the colour is left once the break ends. While a break
holds, a player out or a move needs no hold of its own and releases nothing, and hand-for-hand holds
nothing and begins no round (the tables are held for the break): a table is released only when no
reason holds it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypedDict

from engine.errors import TournamentError
from engine.tournament import TournamentFile, colour_up_due
from engine.tournament.clock import ClockReading
from floor.director.feeds import Seating
from floor.reports import BreakView, ChipRaceView
from protocol.messages import PublicState, Race
from protocol.requests import HoldTable, TableOrder

log = logging.getLogger("croupier.director")

BREAK = "break"
HAND_FOR_HAND = "hand-for-hand"
TOURNAMENT = "tournament"
"""Why and by whom a director's table is held, as its feed shows (`hold.reason`, `hold.by`)."""


class HandForHand(TypedDict):
    """Hand-for-hand as the director plays it (`seating.FloorPlan.hand_for_hand`): `holding` between rounds or a
    `round` numbered `round`, its hands (table -> the hand each deals) and the players out of each (table -> player
    -> the stack he started the hand with)."""

    phase: str
    round: int
    hands: dict[str, int]
    out: dict[str, dict[str, int]]


class _Plan(Protocol):
    """What `BreakPlan` needs of the floor plan."""

    tournament: TournamentFile
    seating: Seating
    drawn: bool
    in_play: list[str]
    moving: dict[str, str]
    hand_for_hand: HandForHand | None
    orders: dict[str, list[Any]]

    def _order(self, table: str, cmd: str, what: str, args: TableOrder) -> None: ...


class BreakPlan:
    """The breaks from the director's `break` events: the break holding, the races, the chips still in play."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.chips = list(plan.tournament.chips)   # the chips in play, smallest first
        self.stage: int | None = None               # the break holding the tables, if any
        self.colour: int | None = None
        self.into: int | None = None
        self.done: set[int] = set()                 # breaks held and released
        self.racing: dict[str, str] = {}            # table -> the ref of the race sent, not yet seen run
        self.raced: set[str] = set()                # tables raced in this break
        self.held: set[str] = set()                 # tables held for this break
        self.races: list[dict[str, Any]] = []       # every race run, as journaled

    @property
    def holding(self) -> bool:
        return self.stage is not None

    def apply(self, body: Mapping[str, Any]) -> None:
        """Apply one `break` event. Raises TournamentError (nothing changed) when it is refused."""
        step = body.get("step")
        if step == "hold":
            self._hold(body)
        elif self.stage is None:
            raise TournamentError(f"break {step}: no break holds the tables")
        elif step == "join":
            table = str(body["table"])
            if table not in self.plan.in_play or table in self.held:
                raise TournamentError(f"break join: {table} is not a table come into play during the break")
            self.held.add(table)
            self.plan._order(table, "hold", "break", {"reason": BREAK, "by": TOURNAMENT})
        elif step == "race":
            table = str(body["table"])
            if table not in self.plan.in_play or table in self.racing or self.colour is None or self.into is None:
                raise TournamentError(f"break race: {table} is not a table to race now")
            self.racing[table] = str(body["ref"])
            self.plan._order(table, "race", "race", {"colour": self.colour, "into": self.into, "by": TOURNAMENT,
                                                         "ref": str(body["ref"])})
        elif step == "raced":
            table = str(body["table"])
            if self.racing.get(table) != body.get("ref"):
                raise TournamentError(f"break raced: no race {body.get('ref')!r} was sent to {table}")
            del self.racing[table]
            self.raced.add(table)
            self.races.append({"stage": self.stage, "colour": self.colour, "into": self.into, **dict(body)})
        elif step == "release":
            self._release()
        else:
            raise TournamentError(f"unknown break step {step!r}")

    def _hold(self, body: Mapping[str, Any]) -> None:
        stage = int(body["stage"])
        if self.stage is not None or stage in self.done:
            raise TournamentError(f"break hold: the break of stage {stage} is held already")
        colour = body.get("colour")
        if colour is not None and (len(self.chips) < 2 or colour != self.chips[0] or body.get("into") != self.chips[1]):
            raise TournamentError(f"break hold: {colour} is not the smallest chip in play ({self.chips})")
        self.stage, self.colour, self.into = stage, colour, body.get("into")
        self.raced, self.racing, self.held = set(), {}, set(self.plan.in_play)
        if colour is not None:
            self.chips = self.chips[1:]
        for table in self.plan.in_play:
            self.plan._order(table, "hold", "break", {"reason": BREAK, "by": TOURNAMENT})

    def _release(self) -> None:
        """Each table's hold given back: hand-for-hand's (its round's hand still to deal), a move's kept, or none."""
        plan = self.plan
        assert self.stage is not None
        hff = plan.hand_for_hand
        for table in plan.in_play:
            if hff is not None:
                hands = hff["hands"] if hff["phase"] == "round" else {}
                hold: HoldTable = {"reason": HAND_FOR_HAND, "by": TOURNAMENT}
                if table in hands:
                    hold["from_hand"] = int(hands[table]) + 1
                plan._order(table, "hold", "after-break", hold)
            elif table not in plan.moving:   # a table held for moves is released by its moves
                plan._order(table, "hold", "after-break", {"release": True})
        self.done.add(self.stage)
        self.stage = self.colour = self.into = None
        self.racing, self.held = {}, set()

    def view(self) -> BreakView | None:
        """The break holding the tables, for the director's view (None when none)."""
        if self.stage is None:
            return None
        return {"stage": self.stage, "colour": self.colour, "into": self.into, "racing": sorted(self.racing),
                "raced": sorted(self.raced)}

    def races_view(self) -> list[ChipRaceView]:
        """Every table's race: its odd chips (in all, and each player's), the chips won and the change."""
        return [{"stage": r["stage"], "table": r["table"], "colour": r["colour"], "into": r["into"],
                 "odd_chips": sum(int(s["odd_chips"]) for s in r["seats"]),
                 "players": {str(s["player"]): int(s["odd_chips"]) for s in r["seats"] if s["odd_chips"]},
                 "value": r["value"], "chips_won": r["chips_won"], "winners": list(r["winners"]),
                 "kept_in": list(r["kept_in"]), "change": r["change"]} for r in self.races]


def odd_chips_left(state: PublicState, colour: int, into: int) -> int:
    """The odd chips of `colour` the stacks on a table's feed hold (those a race of `colour` into `into` deals for)."""
    return sum(int(s.get("stack") or 0) % into // colour for s in state.get("spots") or [])


class _Watcher(Protocol):
    def latest(self, table: str) -> PublicState: ...


class BreakWatch:
    """The floorman's part in a break (see the module docstring): each pass, the step due, if any."""

    def __init__(self, plan: BreakPlan, watcher: _Watcher, take: Callable[[str, dict[str, Any]], bool],
                 held: Callable[[PublicState, str], bool], clock: Callable[[], ClockReading | None]) -> None:
        self.breaks = plan
        self.watcher = watcher
        self.take = take    # the floorman's: the event journaled and applied, False when refused
        self.held = held    # director_orders.held_between_hands
        self.clock = clock  # the clock's reading now (None before the start)

    def turn(self) -> None:
        """One pass: the break's step due now, if any (once the director has seated the tables)."""
        brk, plan = self.breaks, self.breaks.plan
        reading = self.clock()
        if not plan.drawn or reading is None:
            return
        stage, on_break = reading.stage, reading.on_break
        if brk.stage is None:
            seated = sum(len(plan.seating.tables.get(t, {})) for t in plan.in_play)
            if on_break and stage not in brk.done and seated > 1:   # none once the tournament is won
                colour = colour_up_due(plan.tournament.stages, stage, brk.chips)
                self.take("break", {"step": "hold", "stage": stage, "colour": colour,
                                    "into": brk.chips[1] if colour is not None else None})
            return
        for table in [t for t in plan.in_play if t not in brk.held]:   # put in play since the break began
            self.take("break", {"step": "join", "table": table})
        if brk.colour is not None:
            for table in list(plan.in_play):
                self._race(table)
        if on_break and stage == brk.stage:
            return
        if all(self._done(table) for table in plan.in_play):
            self.take("break", {"step": "release", "stage": brk.stage})

    def _busy(self, table: str) -> bool:
        plan = self.breaks.plan
        return bool(plan.orders.get(table)) or table in plan.moving

    def _race(self, table: str) -> None:
        brk = self.breaks
        assert brk.colour is not None and brk.into is not None
        if self._busy(table):
            return
        latest = self.watcher.latest(table)
        if table in brk.racing:
            race = latest.get("race")
            if isinstance(race, Mapping) and race.get("done") and race.get("ref") == brk.racing[table]:
                self.take("break", raced_body(table, race, brk.plan.seating.tables.get(table, {})))
            return
        if not self.held(latest, BREAK):
            return
        if table not in brk.raced or odd_chips_left(latest, brk.colour, brk.into):
            ref = f"{brk.plan.tournament.name}-break-{brk.stage}-{table}-{len(brk.races) + 1}"
            self.take("break", {"step": "race", "table": table, "ref": ref})

    def _done(self, table: str) -> bool:
        """The table needs nothing more of this break (raced, nothing moving, no order waiting)."""
        brk = self.breaks
        if brk.colour is None:
            return True   # a table held for moves keeps its hold: its moves release it
        if table in brk.racing or table not in brk.raced or self._busy(table):
            return False
        assert brk.into is not None
        return not odd_chips_left(self.watcher.latest(table), brk.colour, brk.into)


def raced_body(table: str, race: Race, seats: Mapping[int, str]) -> dict[str, Any]:
    """The `raced` step from the race a table's feed shows run (seats named by the seat map)."""
    def player(seat: Any) -> str:
        return seats.get(int(seat), f"seat {seat}")

    return {"step": "raced", "table": table, "ref": race.get("ref"),
            "seats": [{"seat": int(s["seat"]), "player": player(s["seat"]), "stack": int(s["stack"]),
                       "odd_chips": int(s["odd_chips"]), "cards": list(s["cards"]), "after": int(s["after"])}
                      for s in race.get("seats") or []],
            "value": int(race.get("value") or 0), "chips_won": int(race.get("chips_won") or 0),
            "winners": [player(s) for s in race.get("winners") or []],
            "kept_in": [player(s) for s in race.get("kept_in") or []], "change": int(race.get("change") or 0)}
