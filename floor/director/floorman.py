"""The director on the floor: seats drawn, players out placed, tables broken and balanced, hand-for-hand at the bubble.

`Floorman` works on the director's thread (`Director.run` calls `turn` each pass), with two threads
of its own: `TableWatcher` (the tables' public feeds: each settled hand, each table's latest
state) and `OrderSender` (the orders of `director_seating.FloorPlan`, sent until taken). A pass:

1. the orders the tables took are journaled (`acked`);
2. each settled hand: its players out are placed (`out`, one a hand, as `director_feeds.py` did),
   or, in a hand-for-hand round, kept with the round; then, when the players fit on fewer tables,
   the next table of the break order is held (`moving`) when it has just settled a hand, or, when
   the tables are more than one player apart, the fullest table that has just settled one, whose
   player due the big blind next moves to the worst seat of the shortest (`balance`);
3. a table held for moves that waits between hands gets them (`moves`: the players and their
   stacks read from its feed; a table broken is then closed, another released);
4. hand-for-hand: at the bubble (`at_the_bubble`, more than one table, the tournament's
   `hand_for_hand`) every table is held from its next hand; once all wait, each is let deal one hand
   (its hold moved on by one); once every table has settled it, the round's players out are placed
   together, and another round begins, or the bubble has burst and every table is released;
5. the clock's breaks: every table held for the break, the colour-up's chip race at each, the holds
   given back once it is over (`director_breaks.BreakWatch`);
6. each table opened by the seat draw whose shoe draws the button: once its feed shows the button
   drawn, the draw is journaled and the table released for its first hand (`director_button.ButtonWatch`).

The random draws (the seats, a broken table's players) are the director's: a seed from
`os.urandom`, journaled with what it drew, so a replay gives the same seats.
"""

from __future__ import annotations

import logging
import os
import queue
import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from engine.errors import TournamentError
from engine.tournament import Move, at_the_bubble, balance, break_table, tables_needed
from floor.director.breaks import BreakWatch
from floor.director.button import ButtonWatch
from floor.director.config import DirectorConfig
from floor.director.feeds import Settled, out_of
from floor.director.orders import OrderSender, TableWatcher, held_between_hands, next_hand
from floor.director.seating import HAND_FOR_HAND, FloorPlan, draw_body, stakes_of
from floor.director.state import DirectorStore, TournamentState
from protocol.access import Caller
from protocol.commands import Command

log = logging.getLogger("croupier.director")


class _Commander(Protocol):
    def again(self, table: str) -> None: ...

    def hold_back(self, table: str) -> None: ...


class _Director(Protocol):
    cfg: DirectorConfig
    state: TournamentState
    store: DirectorStore
    clock: Callable[[], float]

    @property
    def commander(self) -> _Commander: ...

    def handle(self, cmd: Command, caller: Caller | None = None) -> Mapping[str, Any]: ...

    def publish(self, force: bool = False) -> None: ...


def seed() -> str:
    """A fresh seed for the director's draws (journaled with what it drew)."""
    return os.urandom(16).hex()


class Floorman:
    """The director's hand on the tables (see the module docstring)."""

    def __init__(self, director: _Director) -> None:
        self.d = director
        self.watcher = TableWatcher(director.cfg.tables, director.cfg.key)
        self.sender = OrderSender(director.cfg.tables, director.cfg.key, tournament=director.cfg.tournament.name)
        self._considered: dict[str, int] = {}   # table -> the last settled hand looked at for moves
        self.breaks = BreakWatch(self.plan.breaks, self.watcher, self._take, held_between_hands,
                                 lambda: director.state.reading(director.clock()))   # the clock's breaks
        self.buttons = ButtonWatch(self.plan.buttons, self.watcher, lambda t: self.d.state.seating.tables.get(t, {}),
                                   self._take)   # the draws for the button by the tables' shoes

    @property
    def plan(self) -> FloorPlan:
        return self.d.state.plan

    def start(self) -> None:
        for table in self.plan.opened:   # opened before a restart: its levels go under the ids after the open
            self.d.commander.again(table)
        self._hold_back_levels()   # before the clock's first level goes out: none to a table whose open waits
        self.watcher.start()
        self.sender.start()

    def stop(self) -> None:
        self.watcher.stop()
        self.sender.stop()
        self.watcher.join(timeout=5.0)
        self.sender.join(timeout=5.0)

    # -- the seats drawn ------------------------------------------------------------------------

    def draw(self) -> dict[str, Any]:
        """The `seat-draw` event's body: every player in, seated at random (a new seed), each table to be
        opened at the level in force (the first before the start). Raises TournamentError."""
        state = self.d.state
        if self.plan.drawn:
            raise TournamentError("the seats are drawn already")
        level = state.level_in_force(self.d.clock())
        number, first = level if level is not None else (1, state.tournament.levels[0])
        stakes = stakes_of(first.small_blind, first.big_blind, first.ante)
        players = [e.player for e in state.registration.alive]
        shoe = [t.name for t in self.d.cfg.tables if t.shoe and t.public]   # whose button its shoe draws
        return {**draw_body(state.tournament, players, {t: stakes for t in state.tournament.tables}, seed(), shoe),
                "level": number}

    # -- a pass ---------------------------------------------------------------------------------

    def turn(self) -> None:
        """One pass (see the module docstring); the orders left go to the sender."""
        self._journal_taken()
        self._hold_back_levels()
        self._settled_hands()
        self._moves_due()
        self.breaks.turn()
        self.buttons.turn()
        self._hand_for_hand()
        self.sender.want(self.plan.pending())

    def _hold_back_levels(self) -> None:
        for table, orders in self.plan.orders.items():   # no level of the clock's until the director's open,
            if any(o.cmd == "open" for o in orders) or self.plan.drawn and table not in self.plan.in_play:
                self.d.commander.hold_back(table)          # nor to a table out of play (broken, or not used)

    def _take(self, kind: str, body: dict[str, Any]) -> bool:
        try:
            self.d.store.take(self.d.state, kind, body, self.d.clock())
        except TournamentError as exc:
            log.warning("director: %s %s refused: %s", kind, body, exc)
            return False
        log.info("director: %s %s", kind, body)
        self.d.publish(force=True)
        return True

    def _journal_taken(self) -> None:
        while True:
            try:
                order = self.sender.taken.get_nowait()
            except queue.Empty:
                return
            if any(o.id == order.id for o in self.plan.orders.get(order.table, ())):
                self._take("acked", {"id": order.id})
            if order.cmd == "open":   # an open forgets the table's level: the level in force is sent again
                self.d.commander.again(order.table)

    def _alive(self) -> set[str]:
        return {e.player for e in self.d.state.registration.alive}

    def _settled_hands(self) -> None:
        while True:
            try:
                settled = self.watcher.settled.get_nowait()
            except queue.Empty:
                return
            hff = self.plan.hand_for_hand
            players = out_of(settled, self.d.state.seating, self._alive())
            if (hff is not None and hff["phase"] == "round" and hff["hands"].get(settled.table) == settled.hand
                    and settled.table not in hff["out"]):
                self._take("hand-for-hand", {"step": "hand", "table": settled.table, "hand": settled.hand,
                                             "out": players})
                continue
            if players:
                self._out(settled, players)
            self._after_hand(settled.table, settled.hand)

    def _out(self, settled: Settled, players: dict[str, int]) -> None:
        cmd = Command("out", {"players": players, "table": settled.table, "hand": settled.hand},
                      id=f"{self.d.cfg.tournament.name}-{settled.table}-hand-{settled.hand}")
        reply = self.d.handle(cmd, Caller("pit", None, f"feed:{settled.table}"))
        if not reply["ok"]:
            log.warning("director: %s hand %s: out %s refused: %s", settled.table, settled.hand, players,
                        reply.get("error"))

    # -- breaking and balancing -----------------------------------------------------------------

    def _layout(self) -> dict[str, dict[int, str]]:
        return {t: dict(self.d.state.seating.tables.get(t, {})) for t in self.plan.in_play}

    def _buttons(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table in self.plan.in_play:
            button = self.watcher.latest(table).get("button")
            first = self.plan.first_buttons.get(table)
            if isinstance(button, int):
                out[table] = button
            elif first is not None:
                out[table] = first
        return out

    def due(self, table: str) -> str | None:
        """Why players are to be moved from `table` now ("break", "balance"), or None."""
        plan, t = self.plan, self.d.state.tournament
        left = self.d.state.standings.left
        if not plan.drawn or table not in plan.in_play or table in plan.moving or left <= 1:
            return None
        if len(plan.in_play) > tables_needed(left, t.seats_per_table):
            breaker = next((b for b in t.break_order if b in plan.in_play), None)
            return "break" if breaker == table else None
        moves = self._balance()
        return "balance" if moves and moves[0].from_table == table else None

    def _balance(self) -> list[Move]:
        try:
            return balance(self._layout(), self._buttons(), self.d.state.tournament.seats_per_table)
        except TournamentError as exc:
            log.warning("director: the tables cannot be balanced yet: %s", exc)
            return []

    def _after_hand(self, table: str, hand: int) -> None:
        hff = self.plan.hand_for_hand
        if (hff is not None and hff["phase"] == "round") or self._considered.get(table, 0) >= hand:
            return
        self._considered[table] = hand
        why = self.due(table)
        if why is not None:
            self._take("moving", {"table": table, "reason": why, "from_hand": hand + 1})

    def _moves_due(self) -> None:
        for table, why in list(self.plan.moving.items()):
            state = self.watcher.latest(table)
            if self.plan.orders.get(table) or not held_between_hands(state):
                continue
            stacks = {int(s["seat"]): int(s.get("stack") or 0) for s in state.get("spots") or []}
            body: dict[str, Any] = {"table": table, "close": False, "moves": []}
            still = self.due_while_held(table)
            moves: list[Move] = []
            if still == "break":
                body["seed"] = seed()
                try:
                    moves = break_table(self._layout(), table, self.d.state.tournament.seats_per_table,
                                        random.Random(body["seed"]))
                except TournamentError as exc:   # cannot be while the players fit; said, and tried again
                    log.error("director: %s cannot be broken now: %s", table, exc)
                    continue
                body["close"] = True
            elif still == "balance":
                moves = self._balance()[:1]
            body["moves"] = [{"player": m.player, "from_table": m.from_table, "from_seat": m.from_seat,
                              "to_table": m.to_table, "to_seat": m.to_seat, "stack": stacks.get(m.from_seat, 0)}
                             for m in moves]
            self._take("moves", body)

    def due_while_held(self, table: str) -> str | None:
        """`due` for a table held for moves (it is in `moving`): what is still due now."""
        why = self.plan.moving.pop(table)
        try:
            return self.due(table)
        finally:
            self.plan.moving[table] = why

    # -- hand-for-hand --------------------------------------------------------------------------

    def _bubble(self) -> bool:
        state, t = self.d.state, self.d.state.tournament
        playing = [x for x in self.plan.in_play if len(state.seating.tables.get(x, {})) >= 2]
        return (t.hand_for_hand and self.plan.drawn and state.registration.closed and len(playing) > 1
                and at_the_bubble(state.standings.left, state.standings.places_paid()))

    def _hand_for_hand(self) -> None:
        plan = self.plan
        hff = plan.hand_for_hand
        if hff is None:
            if self._bubble():
                self._take("hand-for-hand", {"step": "hold"})
            return
        if hff["phase"] == "round":
            self._round_voided()
            if plan.round_over():
                out = plan.round_out()
                if out:
                    cmd = Command("out", {"players": out},
                                  id=f"{self.d.cfg.tournament.name}-hand-for-hand-{hff['round']}")
                    reply = self.d.handle(cmd, Caller("pit", None, "hand-for-hand"))
                    if not reply["ok"]:
                        log.warning("director: hand-for-hand round %s: out %s refused: %s", hff["round"], out,
                                    reply.get("error"))
                self._take("hand-for-hand", {"step": "next"})
            return
        latest = {t: self.watcher.latest(t) for t in plan.in_play}
        if plan.moving or any(plan.orders.get(t) for t in plan.in_play):
            return
        if not all(held_between_hands(s, HAND_FOR_HAND) for s in latest.values()):
            return
        for table in plan.in_play:   # every table waits: the time to break or balance
            why = self.due(table)
            if why is not None:
                self._take("moving", {"table": table, "reason": why, "from_hand": next_hand(latest[table]) or 1})
                return
        if not self._bubble():
            self._take("hand-for-hand", {"step": "end"})
            return
        seated = self.d.state.seating.tables
        self._take("hand-for-hand", {"step": "round", "hands": {t: next_hand(s) for t, s in latest.items()
                                                                if len(seated.get(t, {})) >= 2}})

    def _round_voided(self) -> None:
        """A table of the round whose hand closed without a settled hand seen (voided): done, nobody out."""
        hff = self.plan.hand_for_hand
        assert hff is not None
        for table, hand in hff["hands"].items():
            if table in hff["out"] or self.plan.orders.get(table):
                continue
            upcoming = next_hand(self.watcher.latest(table))
            if upcoming is not None and upcoming > hand and self.watcher.settled.empty():
                self._take("hand-for-hand", {"step": "hand", "table": table, "hand": hand, "out": {}})
