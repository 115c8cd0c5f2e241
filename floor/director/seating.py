"""The director's floor plan from its events: seats drawn, players moved, hand-for-hand rounds, the orders for each table.

The director seats the players itself (`seat-draw`) and moves them (`moves`), so the seat map
(`Seating`, `director_feeds.py`) follows its own events; each event that changes the floor also
queues the table orders it needs (`Order`: a table, a request id, a command and its arguments),
in order, per table. `director_orders.py` sends them, each until its table has taken it (an
`acked` event); the ids are derived from the tournament, the floor step and the table, so a re-send
after a restart is applied once by the table (the command channel's ids). The events
(`director_state.py`'s store, replayed at start):

    (an `out` event: each player out leaves his seat, a `seat` `leave` order)
    seat-draw      {"seed", "layout": {table: {seat: player}}, "cards": {table: {seat: card}},
                    "buttons": {table: seat}, "button_draw": [table], "stakes": {table: stakes}, "stack"}
                                                       each table opened; those of `button_draw` draw
                                                       the button with their shoe (`director_button.py`),
                                                       the others by the director's `cards`
    button         {"table", "ref", "cards", "players", "button", "player"}   a table's draw read back
    moving         {"table", "reason", "from_hand"}    the table held before players leave it
    moves          {"table", "moves": [{player, from_table, from_seat, to_table, to_seat, stack}],
                    "close": bool, "seed"}            players moved from the held table; it is released
                                                       (or closed, when it broke)
    hand-for-hand  {"step": "hold"}                    the bubble: every table held from its next hand
                   {"step": "round", "hands": {table: hand}}   each table deals that one hand
                   {"step": "hand", "table", "hand", "out": {player: stack}}   a table's hand of the round
                   {"step": "next"} | {"step": "end"}  the round's players out were placed together;
                                                       another round, or every table released
    break          {"step": "hold" | "race" | "raced" | "release", ...}   the clock's breaks: every table
                                                       held, the colour-up's chip races (`director_breaks.py`)
    acked          {"id"}                              a table took an order
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, cast

from engine.cards import DECK
from engine.errors import TournamentError
from engine.tournament import TournamentFile, button_by_high_card, draw_seats
from floor.director.breaks import BREAK, HAND_FOR_HAND, TOURNAMENT, BreakPlan, HandForHand
from floor.director.button import ButtonPlan
from floor.director.feeds import Seating
from floor.reports import FloorView
from protocol.messages import Stakes
from protocol.requests import HoldTable, Open, TableOrder

FLOOR_KINDS = ("seat-draw", "button", "moving", "moves", "hand-for-hand", "break", "acked")

GAME, STRUCTURE = "holdem", "no-limit"
RULES = {"button": "dead", "all_in_reveal": True}
"""The tournament tables' room rules: the dead button, hands turned up at an all-in showdown (the simulation's)."""

__all__ = ["BREAK", "HAND_FOR_HAND", "TOURNAMENT", "FLOOR_KINDS", "FloorPlan", "Order", "draw_body", "stakes_of"]


@dataclass(frozen=True, slots=True)
class Order:
    """One request the director is to send a table, under `id` (applied once by the table)."""

    id: str
    table: str
    cmd: str
    args: TableOrder


def stakes_of(small_blind: int, big_blind: int, ante: int) -> Stakes:
    """A level's stakes, spelt as the director's `level` request spells them (`director.level_request`)."""
    return {"blinds": [small_blind, big_blind], "antes": ante}


def tables_in_use_order(tournament: TournamentFile) -> list[str]:
    """The order the tables are put in play: the tables that break last first (the final table first)."""
    return [t for t in tournament.tables if t not in tournament.break_order] + list(reversed(tournament.break_order))


def draw_body(tournament: TournamentFile, players: list[str], stakes: Mapping[str, Stakes],
              seed: str, shoe: Collection[str] = ()) -> dict[str, Any]:
    """The `seat-draw` event: the players seated at random on the tables that break last (`draw_seats`),
    from `seed` (the director's, from os.urandom: journaled, so a replay gives the same seats). Each
    table of `shoe` draws its button with its shoe once opened (`button_draw`: `director_button.py`);
    any other's button is drawn here by high card (a card a seat from a deck shuffled by the same
    draw). `stakes`: each table's `open` stakes. Raises TournamentError."""
    if len(players) < 2:
        raise TournamentError("seat-draw: a tournament needs at least two players entered")
    rng = random.Random(seed)
    layout = draw_seats(players, tables_in_use_order(tournament), tournament.seats_per_table, rng)
    cards: dict[str, dict[str, str]] = {}
    buttons: dict[str, int] = {}
    for table, seats in layout.items():
        deck = list(DECK)
        rng.shuffle(deck)
        if table in shoe:
            continue
        dealt = {seat: deck[i] for i, seat in enumerate(seats)}
        cards[table] = {str(seat): str(card) for seat, card in dealt.items()}
        buttons[table] = button_by_high_card(dealt)
    return {"seed": seed, "layout": {t: {str(s): p for s, p in seats.items()} for t, seats in layout.items()},
            "cards": cards, "buttons": {t: b for t, b in buttons.items()}, "stakes": {t: stakes[t] for t in layout},
            "button_draw": [t for t in layout if t in shoe],
            "stack": tournament.starting_stack}


class FloorPlan:
    """The tables in play, the orders still to be taken, the hand-for-hand round: from the events alone."""

    def __init__(self, tournament: TournamentFile, seating: Seating) -> None:
        self.tournament = tournament
        self.seating = seating
        self.drawn = False
        self.step = 0            # floor events taken so far: each order's id says which
        self.in_play: list[str] = []
        self.orders: dict[str, list[Order]] = {t: [] for t in tournament.tables}
        self.moving: dict[str, str] = {}      # table held for moves -> why ("break", "balance")
        self.hand_for_hand: HandForHand | None = None
        self.rounds = 0
        self.outs = 0
        self.first_buttons: dict[str, int | None] = {}   # each table put in play: its first button (None: drawing)
        self.opened: set[str] = set()   # tables that took the director's open
        self.breaks = BreakPlan(self)   # the clock's breaks: the tables held, the chip races (`director_breaks.py`)
        self.buttons = ButtonPlan(self)  # the draws for the button by the tables' shoes (`director_button.py`)

    # -- the events -----------------------------------------------------------------------------

    def apply(self, kind: str, body: Mapping[str, Any], alive: set[str]) -> None:
        """Apply one floor event. Raises TournamentError (nothing changed) when it is refused."""
        if kind == "acked":
            self._acked(str(body["id"]))
            return
        if kind == "seat-draw":
            self._draw(body, alive)
        elif kind == "button":
            self.buttons.drawn(body)
        elif kind == "moving":
            self._moving(body)
        elif kind == "moves":
            self._moves(body)
        elif kind == "hand-for-hand":
            self._hand_for_hand(body)
        elif kind == "break":
            self.breaks.apply(body)
        else:
            raise TournamentError(f"unknown floor step {kind!r} (known: {', '.join(FLOOR_KINDS)})")
        self.step += 1

    def _order(self, table: str, cmd: str, what: str, args: TableOrder) -> None:
        self.orders[table].append(Order(f"{self.tournament.name}-{self.step}-{table}-{what}", table, cmd, args))

    def _acked(self, order_id: str) -> None:
        for table, orders in self.orders.items():
            if any(o.id == order_id for o in orders):
                if any(o.id == order_id and o.cmd == "open" for o in orders):
                    self.opened.add(table)
                self.orders[table] = [o for o in orders if o.id != order_id]
                return
        raise TournamentError(f"no order {order_id!r} is waiting to be taken")

    def _draw(self, body: Mapping[str, Any], alive: set[str]) -> None:
        if self.drawn:
            raise TournamentError("the seats are drawn already")
        layout = {str(t): {int(s): str(p) for s, p in dict(seats).items()} for t, seats in dict(body["layout"]).items()}
        seated = sorted(p for seats in layout.values() for p in seats.values())
        if seated != sorted(alive):
            raise TournamentError("seat-draw: the draw does not seat every player in the tournament once")
        size = self.tournament.seats_per_table
        if any(t not in self.tournament.tables or not all(1 <= s <= size for s in seats) for t, seats in layout.items()):
            raise TournamentError(f"seat-draw: a seat not of the tournament's tables ({size} seats each)")
        for table, seats in layout.items():
            self.seating.seat(table, {str(s): p for s, p in seats.items()}, alive)
        self.in_play = [t for t in self.tournament.tables if t in layout]
        for table in self.in_play:   # the level first: then the open's stakes are the table's, no sign-off needed
            stakes = cast(Stakes, dict(body["stakes"][table]))
            self._order(table, "level", "level", {"stakes": stakes, "level": int(body.get("level") or 1),
                                                   "tournament": self.tournament.name})
            opening: Open = {"game": GAME, "structure": STRUCTURE, "stakes": cast(Stakes, dict(body["stakes"][table])),
                             "seats": self.tournament.seats_per_table, "rules": dict(RULES),
                             "stacks": {str(s): int(body["stack"]) for s in sorted(layout[table])}}
            if table in body.get("button_draw", ()):   # held, opened, its button drawn by its shoe
                self.buttons.send(table, opening)
            else:
                self.first_buttons[table] = int(body["buttons"][table])
                self._order(table, "open", "open", {"button": int(body["buttons"][table]), **opening})
        self.drawn = True

    def _moving(self, body: Mapping[str, Any]) -> None:
        table = str(body["table"])
        if table not in self.in_play:
            raise TournamentError(f"{table} is not in play")
        self.moving[table] = str(body["reason"])
        if not self._held():
            self._order(table, "hold", "hold", {"reason": f"moving players ({body['reason']})", "by": TOURNAMENT,
                                              "from_hand": int(body["from_hand"])})

    def _held(self) -> bool:
        """Every table held by hand-for-hand or a break: a move or a player out needs no hold or release of its own."""
        return self.hand_for_hand is not None or self.breaks.holding

    def _moves(self, body: Mapping[str, Any]) -> None:
        source = str(body["table"])
        if source not in self.moving:
            raise TournamentError(f"{source} is not held for moves")
        moves = [dict(m) for m in body["moves"]]
        chart = {t: dict(seats) for t, seats in self.seating.tables.items()}
        for m in moves:
            if chart.get(str(m["from_table"]), {}).get(int(m["from_seat"])) != m["player"]:
                raise TournamentError(f"{m['player']} is not in seat {m['from_seat']} of {m['from_table']}")
            if int(m["to_seat"]) in chart.setdefault(str(m["to_table"]), {}):
                raise TournamentError(f"seat {m['to_seat']} of {m['to_table']} is taken")
            del chart[str(m["from_table"])][int(m["from_seat"])]
            chart[str(m["to_table"])][int(m["to_seat"])] = str(m["player"])
        self.seating.tables = chart
        for k, m in enumerate(moves):
            target = str(m["to_table"])
            wrap = not self._held() and target not in self.moving
            if wrap:
                self._order(target, "hold", f"hold-{k}", {"reason": "moving players (a player moved in)",
                                                                 "by": TOURNAMENT})
            self._order(source, "seat", f"leave-{m['from_seat']}", {"seat": int(m["from_seat"]), "action": "leave"})
            self._order(target, "seat", f"move-in-{m['to_seat']}", {"seat": int(m["to_seat"]), "action": "move_in",
                                                                      "amount": int(m["stack"])})
            if wrap:
                self._order(target, "hold", f"release-{k}", {"release": True})
        del self.moving[source]
        if body.get("close"):   # broken: closed, and never left held
            self._order(source, "close", "close", {})
            self._order(source, "hold", "release", {"release": True})
            self.in_play.remove(source)
        elif not self._held():
            self._order(source, "hold", "release", {"release": True})

    def _hand_for_hand(self, body: Mapping[str, Any]) -> None:
        step = body["step"]
        hff = self.hand_for_hand
        if step == "hold":
            if hff is not None:
                raise TournamentError("hand-for-hand is played already")
            self.hand_for_hand = {"phase": "holding", "round": self.rounds, "hands": {}, "out": {}}
            for table in self.in_play if not self.breaks.holding else ():   # held for the break: its end holds them
                self._order(table, "hold", "hand-for-hand", {"reason": HAND_FOR_HAND, "by": TOURNAMENT})
            return
        if hff is None:
            raise TournamentError(f"hand-for-hand {step}: no hand-for-hand is played")
        if step == "round":
            self.rounds += 1
            hands = {str(t): int(n) for t, n in dict(body["hands"]).items()}
            self.hand_for_hand = {"phase": "round", "round": self.rounds, "hands": hands, "out": {}}
            for table, hand in hands.items():   # one hand more, then held again
                self._order(table, "hold", f"round-{self.rounds}", {"reason": HAND_FOR_HAND, "by": TOURNAMENT,
                                                                          "from_hand": hand + 1})
        elif step == "hand":
            table, hand = str(body["table"]), int(body["hand"])
            if hff["phase"] != "round" or hff["hands"].get(table) != hand or table in hff["out"]:
                raise TournamentError(f"{table} hand {hand} is not a hand of this hand-for-hand round")
            hff["out"][table] = {str(p): int(s) for p, s in dict(body["out"]).items()}
            self.seating.hands[table] = max(hand, self.seating.hands.get(table, 0))
        elif step == "next":
            self.hand_for_hand = {"phase": "holding", "round": self.rounds, "hands": {}, "out": {}}
        elif step == "end":
            self.hand_for_hand = None
            for table in self.in_play:
                if table not in self.moving and not self.breaks.holding:
                    self._order(table, "hold", "end-of-hand-for-hand", {"release": True})
        else:
            raise TournamentError(f"unknown hand-for-hand step {step!r}")

    def busted(self, out: Mapping[str, int], hand: Any = None) -> None:
        """Players out (an `out` event; `hand` the hand they went out in, when read from a feed): once the
        director has seated the tables, each leaves his seat, his table held from its next hand meanwhile
        (unless held already) so that the seat is free before another hand is dealt."""
        if not self.drawn:
            return
        self.outs += 1
        for table, chart in self.seating.tables.items():
            seats = [seat for seat, player in sorted(chart.items()) if player in out]
            if not seats:
                continue
            wrap = not self._held() and table not in self.moving
            what = f"out-{self.outs}-{table}"
            if wrap:
                hold: HoldTable = {"reason": "players out leave", "by": TOURNAMENT}
                if isinstance(hand, int):
                    hold["from_hand"] = hand + 1
                self.orders[table].append(Order(f"{self.tournament.name}-{what}-hold", table, "hold", hold))
            for seat in seats:
                self.orders[table].append(Order(f"{self.tournament.name}-{what}-{seat}", table, "seat",
                                                {"seat": seat, "action": "leave"}))
            if wrap:
                self.orders[table].append(Order(f"{self.tournament.name}-{what}-release", table, "hold",
                                                {"release": True}))

    # -- reading it -----------------------------------------------------------------------------

    def round_over(self) -> bool:
        """Every table of the round has dealt its hand."""
        hff = self.hand_for_hand
        return hff is not None and hff["phase"] == "round" and set(hff["out"]) == set(hff["hands"])

    def round_out(self) -> dict[str, int]:
        """The round's players out, table by table (one elimination: they share places as in one hand)."""
        hff = self.hand_for_hand
        if hff is None:
            return {}
        return {p: s for t in hff["hands"] for p, s in hff["out"].get(t, {}).items()}

    def pending(self) -> dict[str, list[Order]]:
        return {t: list(orders) for t, orders in self.orders.items() if orders}

    def view(self) -> FloorView:
        """The floor on the director's feed: who sits where, the tables in play, hand-for-hand, orders waiting."""
        hff = self.hand_for_hand
        return {"drawn": self.drawn, "in_play": list(self.in_play),
                "seats": {t: {str(s): p for s, p in sorted(seats.items())} for t, seats in self.seating.tables.items()},
                "hand_for_hand": None if hff is None else {"phase": hff["phase"], "round": hff["round"]},
                "break": self.breaks.view(), "chip_races": self.breaks.races_view(),
                "button_draws": self.buttons.view(), "drawing": sorted(self.buttons.drawing),
                "orders_waiting": sum(len(o) for o in self.orders.values())}
