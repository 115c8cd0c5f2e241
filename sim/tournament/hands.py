"""A simulated tournament: bots play engine hold'em hands across tables, driven by engine.tournament's rules.

`TournamentRun` runs in-process (`croupier demo --tournament --in-process`): no shoe, no
controller, no devices; `sim.tournament.devices.DeviceTournamentRun` plays the same
rules on emulated devices, through the hooks of `TournamentRun`. Here each table is an
engine.poker `Session` counting in units of the smallest chip in play (so a split pot's odd chip is
a real chip; after a colour-up the unit is the next chip); a seeded `random.Random` shuffles the decks, draws the seats and makes the
bots' choices, so a run is replayed from its seed. The tables deal in rounds: every table in play
deals one hand, starting at the same moment of the simulated clock, and the round lasts as long as
its longest hand (a hand's length is drawn: 60 to 150 s). Between rounds every table is between
hands: players out are placed, tables are broken and balanced, and a break's colour-up and chip
race are done. Outside hand-for-hand the hands of a round finish in the order of their lengths and
each hand's players out are one elimination; at the bubble (hand-for-hand) the round's players out
are one elimination across the tables.

`TournamentRun(state_dir, players=24, tables=3, seed=1).run()` plays to one winner and returns the
result line (`result_line`); it writes `DIR/<table>/hands.jsonl` (one line a hand: its level, the
stacks before and after, the players out) and `DIR/tournament.json` (the whole record: entries,
places, prizes, levels, moves, chip races, hand-for-hand rounds).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any, TypedDict

from engine.cards import DECK, Card
from engine.poker import VARIANTS, Hand, Phase, Session, Stakes
from engine.tournament import (
    BlindLevel, Clock, HandForHand, Layout, Move, Registration, Standings, TableLevel, TournamentFile,
    apply_moves, at_the_bubble, balance, break_table, button_by_high_card, chip_race, colour_up_due, draw_seats,
    parse_tournament, tables_needed,
)

__all__ = ["DEMO_TOURNAMENT", "ResultLine", "TournamentRun", "SimError", "demo_tournament"]

DEMO_TOURNAMENT = """
name = "Demo 200+20"
buy_in = 20000
fee = 2000
starting_stack = 10000
seats_per_table = 9
late_registration_until_level = 2
chips = [25, 100, 500, 1000]

[tables]
use = ["T1"]

[[levels]]
small_blind = 25
big_blind = 50
duration_s = 600

[[levels]]
small_blind = 50
big_blind = 100
duration_s = 600

[[levels]]
small_blind = 100
big_blind = 200
ante = 25
duration_s = 600

[[levels]]
break_s = 300

[[levels]]
small_blind = 200
big_blind = 400
ante = 100
duration_s = 600

[[levels]]
small_blind = 300
big_blind = 600
ante = 100
duration_s = 600

[[levels]]
small_blind = 500
big_blind = 1000
ante = 100
duration_s = 600

[[levels]]
break_s = 300

[[levels]]
small_blind = 1000
big_blind = 2000
ante = 500
duration_s = 600

[[levels]]
small_blind = 2000
big_blind = 4000
ante = 500
duration_s = 600

[[levels]]
small_blind = 3000
big_blind = 6000
ante = 1000
duration_s = 600

[[levels]]
small_blind = 5000
big_blind = 10000
ante = 1000
duration_s = 600

[[levels]]
small_blind = 10000
big_blind = 20000
ante = 2000
duration_s = 600
"""
"""The demo's tournament file; its tables are named T1..Tn by `demo_tournament`."""

MAX_ROUNDS = 5000


class Place(TypedDict):
    place: int
    player: str
    prize: int


class ResultLine(TypedDict):
    """The simulated tournament's result line: the entries, the hands dealt, the prize pool, every entry's place."""

    entries: int
    hands: int
    prize_pool: int
    places: list[Place]


class SimError(RuntimeError):
    """The simulated tournament could not be played: says why."""


def demo_tournament(tables: int) -> TournamentFile:
    """The demo's tournament on `tables` tables T1..Tn (T1 the final table; the others break last first)."""
    names = tuple(f"T{i}" for i in range(1, tables + 1))
    base = parse_tournament(DEMO_TOURNAMENT, "the demo's tournament")
    return dataclasses.replace(base, tables=names, break_order=tuple(reversed(names[1:])))


def bot_step(hand: Hand, rng: random.Random) -> None:
    """One bot decision for the actor: mostly fold or call a big bet, check or call a small one, now
    and then raise; short of ten big blinds, all in more often; at showdown, show."""
    if hand.phase is Phase.SHOWDOWN:
        hand.show()
        return
    legal = hand.view().legal
    seat = hand.actor
    assert seat is not None
    stack = hand.stack(seat)
    big_blind = max(hand.stakes.blinds or (1,))
    short = stack + hand.bet(seat) < 10 * big_blind
    roll = rng.random()
    raise_to = legal.bet_or_raise
    if raise_to is not None and (roll < 0.08 or (short and roll < 0.25)):
        shove = legal.all_in is not None and (short or rng.random() < 0.1)
        hand.bet_or_raise(legal.all_in if shove and legal.all_in is not None else raise_to.min_to)
    elif legal.fold and (roll < 0.45 or (legal.call or 0) > stack // 3 and roll < 0.85):
        hand.fold()
    else:
        hand.check_or_call()


class TournamentRun:
    """One simulated tournament of `players` bots on `tables` tables, to one winner, in-process.

    The rules between hands (places, breaking, balancing, colour-ups, hand-for-hand) are applied
    here once; the tables themselves are reached through a few hooks (`open_table`, `deal_round`,
    `layout`, `buttons`, `stacks`, `move_player`, `set_stacks`, `close_table`), which
    `sim.tournament.devices.DeviceTournamentRun` gives real controllers instead of
    engine Sessions."""

    def __init__(self, state_dir: str | Path, *, players: int = 24, tables: int = 3, seed: int = 1,
                 tournament: TournamentFile | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.tournament = tournament if tournament is not None else demo_tournament(tables)
        if players < 2:
            raise SimError("a tournament needs at least two players")
        if tables_needed(players, self.tournament.seats_per_table) > len(self.tournament.tables):
            raise SimError(f"{players} players do not fit on {len(self.tournament.tables)} tables of "
                           f"{self.tournament.seats_per_table}")
        self.seed = seed
        self.rng = random.Random(seed)
        self.players = [f"bot{i:02d}" for i in range(1, players + 1)]
        self.registration = Registration(self.tournament)
        self.standings = Standings(self.registration)
        self.clock = Clock(self.tournament.stages)
        self.sessions: dict[str, Session] = {}
        self.levels: dict[str, TableLevel] = {}
        self.chips = list(self.tournament.chips)
        self.unit = self.chips[0]   # the tables count in chips of the smallest denomination in play
        self.now = 0.0
        self.hands = 0
        self.record: dict[str, Any] = {"moves": [], "breaks": [], "chip_races": [], "hand_for_hand": [],
                                       "levels": [], "buttons": {}}
        self.chip_total = 0

    # ---- the tables (hooks) -----------------------------------------------------------------
    def open_table(self, table: str, seats: dict[int, str], button: int) -> int:
        """Seat `seats` (seat -> player) at `table` with the starting stack; `button` the first button drawn
        from the run's deck. Returns the table's first button (a table on its devices draws its own)."""
        session = Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=self.tournament.seats_per_table,
                          first_button=button)
        for seat, player in seats.items():
            session.sit(seat, self.tournament.starting_stack // self.unit, player)
        self.sessions[table] = session
        return button

    def table_names(self) -> list[str]:
        """The tables not broken yet, in the order they were opened."""
        return list(self.sessions)

    def layout(self) -> Layout:
        return {t: {seat: p.name for seat, p in s.players.items()} for t, s in self.sessions.items()}

    def buttons(self) -> dict[str, int]:
        """Each table's last button (a table that has dealt no hand yet: none)."""
        return {table: s.button for table, s in self.sessions.items() if s.button is not None}

    def stacks(self, table: str) -> dict[int, int]:
        """Seat -> the player's chips (their value) at `table`, between hands."""
        return {seat: p.stack * self.unit for seat, p in self.sessions[table].players.items()}

    def deal_round(self, hands: dict[str, tuple[BlindLevel, int]]) -> dict[str, dict[str, Any]]:
        """Every table of `hands` deals one hand at its level (and level number); table -> the hand's
        line (`hand_line`). The players out have left their tables."""
        return {table: self.play_hand(table, level, number) for table, (level, number) in hands.items()}

    def move_player(self, move: Move) -> None:
        """A player moves with his chips; at the new table he owes no blind."""
        stack = self.sessions[move.from_table].leave(move.from_seat)
        self.sessions[move.to_table].sit(move.to_seat, stack, move.player, owes_big_blind=False)

    def set_stacks(self, table: str, stacks: dict[int, int], unit: int, level: BlindLevel) -> None:
        """After a colour-up: the players' chips (their value), counted from now on in `unit`; `level`
        the level the table plays next."""
        for seat, stack in stacks.items():
            self.sessions[table].players[seat].stack = stack // unit

    def close_table(self, table: str) -> None:
        """A table broken (its players all moved): out of play."""
        del self.sessions[table]

    # ---- the start --------------------------------------------------------------------------
    def seat_everyone(self) -> None:
        """Entries, the seats drawn, each table's button by high card, the starting stacks."""
        for player in self.players:
            self.registration.enter(player, 0)
        self.registration.close()   # the demo's players all enter before the start
        order = [t for t in self.tournament.tables if t not in self.tournament.break_order]
        order += list(reversed(self.tournament.break_order))   # the tables that break last are used first
        layout = draw_seats(self.players, order, self.tournament.seats_per_table, self.rng)
        for table, seats in layout.items():
            deck = list(DECK)
            self.rng.shuffle(deck)
            button = button_by_high_card({seat: deck[i] for i, seat in enumerate(seats)})
            (self.state_dir / table).mkdir(parents=True, exist_ok=True)
            (self.state_dir / table / "hands.jsonl").write_text("", encoding="utf-8")
            self.levels[table] = TableLevel()
            self.record["buttons"][table] = self.open_table(table, dict(seats), button)
        self.chip_total = len(self.players) * self.tournament.starting_stack
        self.clock.start(self.now)

    # ---- a hand -----------------------------------------------------------------------------
    def play_hand(self, table: str, level: BlindLevel, number: int) -> dict[str, Any]:
        """Deal and play one hand at `table` at `level`; returns its line of the table's record."""
        session = self.sessions[table]
        u = self.unit
        session.stakes = Stakes.no_limit(level.small_blind // u, level.big_blind // u, level.ante // u)
        before = {seat: p.stack * u for seat, p in session.players.items()}
        hand = session.start_hand()
        deck = list(DECK)
        self.rng.shuffle(deck)
        steps = 0
        while not hand.is_over:
            steps += 1
            if steps > 10_000:
                raise SimError(f"{table}: a hand did not end")
            if hand.expected_card() is not None:
                hand.deal(deck.pop())
            else:
                bot_step(hand, self.rng)
        start = hand.starting_stacks
        out = {session.players[s].name: start[s] * u for s in hand.seats if hand.stack(s) == 0}
        session.end_hand()
        after = {seat: p.stack * u for seat, p in session.players.items()}
        for seat in [seat for seat, p in session.players.items() if p.stack == 0]:
            session.leave(seat)          # out of the tournament
        return self.hand_line(table, session.hands_played, level, number, hand.button, before, after, out)

    def hand_line(self, table: str, hand: int, level: BlindLevel, number: int, button: int | None,
                  before: dict[int, int], after: dict[int, int], out: dict[str, int]) -> dict[str, Any]:
        """The hand's line of `DIR/<table>/hands.jsonl` (chips in their value), written; refuses a hand
        that changed the chips on the table."""
        if sum(after.values()) != sum(before.values()):
            raise SimError(f"{table}: hand {hand} changed the chips on the table")
        self.hands += 1
        line = {"hand": hand, "at_s": round(self.now, 1), "players": len(before), "level": number,
                "blinds": [level.small_blind, level.big_blind], "ante": level.ante, "unit": self.unit, "button": button,
                "chips_before": sum(before.values()), "chips_after": sum(after.values()), "out": out}
        with open(self.state_dir / table / "hands.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        return line

    def play_round(self) -> None:
        """Every table in play deals one hand at the clock's level; the players out are placed."""
        tables = [t for t, seats in self.layout().items() if len(seats) >= 2]
        bubble = (self.tournament.hand_for_hand and len(tables) > 1
                  and at_the_bubble(self.standings.left, self.standings.places_paid()))
        round_ = HandForHand(tables) if bubble else None
        lengths = {t: self.rng.uniform(60.0, 150.0) for t in tables}
        number = self.clock.reading(self.now).level_number
        lines = self.deal_round({t: (self.levels[t].begin_hand(self.clock, self.now), number) for t in tables})
        finished: list[tuple[float, str, dict[str, int]]] = []
        for table in tables:
            self.levels[table].end_hand()
            finished.append((lengths[table], table, lines[table]["out"]))
            if round_ is not None:
                round_.finished(table, lines[table]["out"])
        if round_ is not None:
            self.standings.eliminate(round_.eliminated())
            self.record["hand_for_hand"].append({"at_s": round(self.now, 1), "tables": tables,
                                                 "out": sorted(round_.eliminated())})
        else:
            for _, _, out in sorted(finished):
                self.standings.eliminate(out)
        self.now += max(lengths.values())

    # ---- between rounds ---------------------------------------------------------------------
    def break_and_balance(self) -> None:
        """Break tables while the players fit on fewer, then keep the rest within one player."""
        t = self.tournament
        while len(self.table_names()) > tables_needed(self.standings.left, t.seats_per_table):
            table = next(b for b in t.break_order if b in self.table_names())
            moves = break_table(self.layout(), table, t.seats_per_table, self.rng)
            self.move(moves)
            self.close_table(table)
            self.record["breaks"].append({"at_s": round(self.now, 1), "table": table, "players": len(moves)})
        self.move(balance(self.layout(), self.buttons(), t.seats_per_table))

    def move(self, moves: list[Move]) -> None:
        apply_moves(self.layout(), moves)   # refuses a move from a seat the player is not in
        for m in moves:
            self.move_player(m)
            self.record["moves"].append({**dataclasses.asdict(m), "at_s": round(self.now, 1)})

    def take_break(self) -> None:
        """The clock is on a break: colour up the smallest chip when no later level needs it, racing the
        odd chips at each table; then the clock runs to the end of the break."""
        reading = self.clock.reading(self.now)
        colour = colour_up_due(self.tournament.stages, reading.stage, self.chips)
        if colour is not None:
            into = self.chips[1]
            after = next(s for s in self.tournament.stages[reading.stage:] if isinstance(s, BlindLevel))
            for table in self.table_names():
                deck: list[Card] = list(DECK)
                self.rng.shuffle(deck)
                race = chip_race(self.stacks(table), colour, into, deck)
                self.set_stacks(table, dict(race.stacks), into, after)
                self.chip_total += race.change
                self.record["chip_races"].append({"table": table, "colour": colour, "into": into,
                                                  "odd_chips": sum(race.odd_chips.values()),
                                                  "chips_won": race.chips_won, "kept_in": list(race.kept_in),
                                                  "change": race.change})
            self.chips.pop(0)
            self.unit = into
        assert reading.left_s is not None
        self.now += reading.left_s

    # ---- the whole --------------------------------------------------------------------------
    def run(self) -> ResultLine:
        """Play to one winner; write the record; return the result line. Raises SimError."""
        self.seat_everyone()
        rounds = 0
        while self.standings.left > 1:
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise SimError(f"no winner after {MAX_ROUNDS} rounds")
            reading = self.clock.reading(self.now)
            if reading.on_break:
                self.take_break()
                continue
            if not self.record["levels"] or self.record["levels"][-1]["level"] != reading.level_number:
                self.record["levels"].append({"level": reading.level_number, "from_s": round(self.now, 1)})
            self.play_round()
            self.break_and_balance()
            on_tables = sum(sum(self.stacks(table).values()) for table in self.table_names())
            if on_tables != self.chip_total:
                raise SimError(f"{on_tables} chips on the tables, {self.chip_total} expected")
        line = self.result_line()
        record = {**line, "fees": self.registration.fees, "chip_total": self.chip_total,
                  "finishes": [dataclasses.asdict(f) for f in self.standings.finishes()], **self.record}
        (self.state_dir / "tournament.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        return line

    def result_line(self) -> ResultLine:
        """`{"entries", "hands", "prize_pool", "places": [{"place", "player", "prize"}, ...]}`, every entry placed."""
        return {"entries": len(self.registration.entries), "hands": self.hands,
                "prize_pool": self.registration.prize_pool,
                "places": [{"place": f.place, "player": f.player, "prize": f.prize} for f in self.standings.finishes()]}
