"""The simulated tournament on emulated devices: a `croupier run` controller and shoe per table, bots on each command channel, eliminations read from the tables' feeds.

`DeviceTournamentRun` applies the same rules between hands as the in-process run
(`sim.tournament.hands.TournamentRun`: places, breaking, balancing, colour-ups and chip
races, hand-for-hand) to real tables: each table is a simulated table (`SimTable` of `croupier
demo`: the emulated shoe and `croupier run` under its restarter, its journal in `DIR/<table>/`),
worked by a `TournamentDealer` (the poker bot dealer: it shuffles, deals, draws every card from the
shoe, acts for the seat to act with a tournament bot's choice, confirms). The driver here stands
in for the tournament director on each table's command channel:

- `open` with the players' stacks (`stacks`, in chips of the smallest denomination in play), the
  level's stakes, the dead button and the all-in reveal; then the `button-draw`: the bot dealer
  deals a card a seat face up from the shoe, and the highest takes the button
  (`tables/button_draw_step.py`);
- `level` before a table's next hand when the clock's level changed (`tables/levels.py`);
- `seat` `leave` for a player out and for a player moved away, `move_in` (with his stack, owing no
  blind) where he is moved to; after a colour-up, `open` again with the raced stacks counted in the
  next chip and `last_button` (the button moves on from it).

Every table in play deals one hand of a round at once (a thread a table) and the round waits
for all of them; the hand's result is **read from the table's full feed**: its settled state says
each seat's stack after the hand and its net, so who has no chips is out, with his stack at the start
of that hand (stack less net). The simulated clock runs as in the in-process run (a hand lasts 60 to
150 s, drawn), so levels change only between hands and a run is as long as its hands take on the
controllers. At the end every table's journal is read back: each hand settled, its nets adding up.
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.tournament import BlindLevel, Move, TournamentFile
from protocol import access
from protocol.messages import FullSpot, FullState, PokerLegal, Stakes
from firmware_host.service.journal import Journal, JournalError
from sim.bots.errors import BotError
from sim.bots.table import TableEndpoints
from sim.bots.poker import Choice, PokerDealer, chips_conserved, legal_of
from sim.restarter import RestarterError
from sim.tournament.hands import ResultLine, SimError, TournamentRun

__all__ = ["DeviceTournamentRun", "TournamentDealer", "SimTableLike", "TableFactory", "TableSections", "table_sections",
           "tournament_choice", "check_journals"]

GAME, STRUCTURE = "holdem", "no-limit"
RULES = {"button": "dead", "all_in_reveal": True}
"""The tournament tables' room rules: the dead button, hands turned up at an all-in showdown."""


def check_journals(state_dir: Path, tables: Iterable[str]) -> int:
    """Every hand of each table's journal (`state_dir/<table>`) settled, its nets and stacks adding up;
    returns how many hands. Raises SimError."""
    count = 0
    for table in tables:
        if not (state_dir / table).is_dir():
            continue
        try:
            journal = Journal.open(state_dir / table, readonly=True)
            try:
                rows = list(journal.hands())
            finally:
                journal.close()
        except JournalError as exc:
            raise SimError(f"{table}: {exc}") from None
        for row in rows:
            if row.status != "settled" or not chips_conserved(row.record):
                raise SimError(f"{table}: hand {row.hand} is {row.status}, its chips "
                               f"{'conserved' if chips_conserved(row.record) else 'not conserved'}")
        count += len(rows)
    return count


class SimTableLike(Protocol):
    """What the run needs of a simulated table (`croupier demo`'s `SimTable`)."""

    endpoints: TableEndpoints
    shoe_info: dict[str, Any]
    supervisor: dict[str, str] | None

    def start(self) -> dict[str, Any]: ...

    def stop(self) -> None: ...


@dataclass(frozen=True, slots=True)
class TableSections:
    """A tournament table's own configuration: `poker`, its `[poker]` section's text, and `dealer_rights`, the
    commands its role `dealer` (the local clients: the bot dealer, the director's) may send, its `[rights]`."""

    poker: str
    dealer_rights: tuple[str, ...]


TableFactory = Callable[[Path, str, int, int, TableSections], SimTableLike]
"""(journal directory, table name, seed, seats, the table's own sections) -> a simulated table not started."""


def table_sections(seats: int) -> TableSections:
    """The tournament table's `[poker]` section (nobody seated: the driver's `open` seats the players)
    and rights letting the bot dealer, standing in for the director, send `level` and `button-draw` too."""
    return TableSections(f'\n[poker]\nstructure = "{STRUCTURE}"\nblinds = [1, 2]\nbutton_rule = "dead"\n'
                         "all_in_reveal = true\n", (*access.DEFAULT_RIGHTS["dealer"], "level", "button-draw"))


def tournament_choice(seed: str, legal: PokerLegal, stack: int, bet: int, big_blind: int) -> Choice:
    """The in-process run's bot (`sim.tournament.bot_step`) on the published `legal`: mostly fold or
    call a big bet, check or call a small one, now and then raise; short of ten big blinds, all in
    more often; never a fold when checking is free; at showdown, show."""
    rng = random.Random(seed)
    if legal.get("show") or legal.get("muck"):
        return Choice("show")
    short = stack + bet < 10 * big_blind
    roll = rng.random()
    raising = legal.get("bet_or_raise")
    if raising is not None and (roll < 0.08 or (short and roll < 0.25)):
        if legal.get("all_in") is not None and (short or rng.random() < 0.1):
            return Choice("all_in")
        return Choice(str(raising["kind"]), int(raising["min_to"]))
    call = legal.get("call")
    if legal.get("fold") and not legal.get("check") and (roll < 0.45 or (call or 0) > stack // 3 and roll < 0.85):
        return Choice("fold")
    if legal.get("check"):
        return Choice("check")
    return Choice("call") if call is not None else Choice("fold")


class TournamentDealer(PokerDealer):
    """The poker bot dealer at a tournament table: no rebuys and no reopening (the driver seats the
    players), the tournament bot's choices."""

    def _ready_to_deal(self, st: FullState, hand: int) -> bool:
        return True  # the driver opened the table and seats the players: nobody buys in again

    def _choose(self, st: FullState, spot: FullSpot, hand: int, key: str) -> Choice:
        blinds = (st.get("stakes") or {}).get("blinds") or [1, 2]
        return tournament_choice(f"{self.seed}:{key}", legal_of(st), int(spot.get("stack") or 0),
                                 int((spot.get("bets") or {}).get("bet") or 0), int(blinds[-1]))

    _face_up_shuffled = ""

    def deal_face_up(self, key: str, step: Mapping[str, Any]) -> None:
        """The next card of a step dealt face up (`key`: a chip race's `race`, the `button_draw`) out of the
        shoe (the shoe shuffled once for the step, and again for the next hand); wait until the table
        took it. Raises BotError when it never does."""
        ref = f"{key}:{step.get('ref')}"
        if self._face_up_shuffled != ref:
            self.shoe.request(f"shuffle {self.seed * 100003 + zlib.crc32(ref.encode())}")
            self._face_up_shuffled, self._shuffled = ref, None
        card = self.shoe.request("draw").split()[-1].split(":")[-1]
        self._last_progress = time.monotonic()
        if not self.wait_for(lambda s: s.get(key) != step or bool(s.get("fault")), self.progress_timeout_s,
                             f"{key} card {card}"):
            raise BotError(f"{key} card {card} left the shoe but the controller never took it")


class DeviceTable:
    """One tournament table on its devices: the simulated table, its dealer, who sits where."""

    def __init__(self, name: str, sim: SimTableLike, dealer: TournamentDealer) -> None:
        self.name = name
        self.sim = sim
        self.dealer = dealer
        self.players: dict[int, str] = {}
        self.stakes: Stakes | None = None   # the stakes the table plays now, in units
        self.error: BaseException | None = None
        self._requests = 0

    def request(self, cmd: str, key: str, **args: Any) -> dict[str, Any]:
        """One request on the table's command channel, for the hand to come. Raises SimError when refused."""
        hand = self.dealer.next_hand()
        self._requests += 1
        try:
            reply = self.dealer.request(cmd, f"{hand}-{key}-{self._requests}", hand=hand, **args)
        except BotError as exc:
            raise SimError(f"{self.name}: {exc}") from None
        if not reply.get("ok"):
            raise SimError(f"{self.name}: {cmd} refused: {reply.get('code')}: {reply.get('error')}")
        return reply

    def spots(self) -> dict[int, FullSpot]:
        return {int(s["seat"]): s for s in self.dealer.state.get("spots") or []}

    def play_hand(self) -> None:
        """Deal one hand to the end (in a thread of its own; an error is kept in `error`)."""
        try:
            self.dealer.play(1)
        except Exception as exc:  # the round reports it: the thread must not die silently
            self.error = exc

    def close(self) -> None:
        try:
            self.dealer.close()
        finally:
            self.sim.stop()


def level_stakes(level: BlindLevel, unit: int) -> Stakes:
    """A level's stakes in units of the smallest chip in play."""
    return {"blinds": [level.small_blind // unit, level.big_blind // unit], "antes": level.ante // unit}


class DeviceTournamentRun(TournamentRun):
    """The simulated tournament with a real controller, shoe and bot dealer per table (see the module
    docstring). `factory` makes each table's processes (`croupier demo` gives its `SimTable`);
    `progress_timeout_s` is how long a table may make no progress before the run stops."""

    def __init__(self, state_dir: str | Path, factory: TableFactory, *, players: int = 24, tables: int = 3,
                 seed: int = 1, tournament: TournamentFile | None = None, progress_timeout_s: float = 30.0) -> None:
        super().__init__(state_dir, players=players, tables=tables, seed=seed, tournament=tournament)
        self.factory = factory
        self.progress_timeout_s = progress_timeout_s
        self.tables: dict[str, DeviceTable] = {}
        self._all: list[DeviceTable] = []

    # ---- the tables -------------------------------------------------------------------------
    def open_table(self, table: str, seats: dict[int, str], button: int) -> int:
        index = list(self.tournament.tables).index(table) + 1
        size = self.tournament.seats_per_table
        sim = self.factory(self.state_dir / table, table, self.seed * 100 + index, size, table_sections(size))
        try:
            sim.start()
        except RestarterError as exc:
            sim.stop()
            raise SimError(f"{table}: the table could not be started: {exc}") from None
        dealer = TournamentDealer(sim.endpoints, sim.shoe_info["control"], [], game=GAME, seed=self.seed * 100 + index,
                                  structure=STRUCTURE, seats=size, supervisor=sim.supervisor,
                                  progress_timeout_s=self.progress_timeout_s)
        device = DeviceTable(table, sim, dealer)
        self._all.append(device)
        self.tables[table] = device
        try:
            dealer.sync()
        except BotError as exc:
            raise SimError(f"{table}: {exc}") from None
        first = next(s for s in self.tournament.stages if isinstance(s, BlindLevel))
        device.stakes = level_stakes(first, self.unit)
        device.request("open", "open", game=GAME, structure=STRUCTURE, stakes=device.stakes, seats=size,
                       stacks={str(s): self.tournament.starting_stack // self.unit for s in seats}, rules=RULES)
        device.players = dict(seats)
        return self.draw_button(device) if len(seats) > 1 else button

    def draw_button(self, device: DeviceTable) -> int:
        """The table's first button by high card, dealt by its shoe: the `button-draw`, then a card a seat
        face up from the shoe until the table has drawn it. Raises SimError."""
        device.request("button-draw", "button-draw", by="tournament", ref=f"{device.name}-first-button")
        dealer = device.dealer
        while True:
            draw = dealer.state.get("button_draw")
            if isinstance(draw, Mapping) and draw.get("done"):
                return int(draw["button"])
            if not isinstance(draw, Mapping) or dealer.state.get("fault"):
                raise SimError(f"{device.name}: the draw for the button stopped: {draw} (fault "
                               f"{dealer.state.get('fault')})")
            try:
                dealer.deal_face_up("button_draw", draw)
            except BotError as exc:
                raise SimError(f"{device.name}: {exc}") from None

    def table_names(self) -> list[str]:
        return list(self.tables)

    def layout(self) -> dict[str, dict[int, str]]:
        return {name: dict(t.players) for name, t in self.tables.items()}

    def buttons(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, t in self.tables.items():
            button = t.dealer.state.get("button")
            if button is not None:
                out[name] = int(button)
        return out

    def stacks(self, table: str) -> dict[int, int]:
        t = self.tables[table]
        spots = t.spots()
        return {seat: int(spots[seat]["stack"]) * self.unit for seat in t.players}

    def deal_round(self, hands: dict[str, tuple[BlindLevel, int]]) -> dict[str, dict[str, Any]]:
        for table, (level, number) in hands.items():
            self.take_level(self.tables[table], level, number)
        threads = [threading.Thread(target=self.tables[t].play_hand, name=f"table-{t}", daemon=True) for t in hands]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for table in hands:
            error = self.tables[table].error
            if error is not None:
                raise SimError(f"{table}: {error}")
        return {table: self.read_hand(self.tables[table], level, number) for table, (level, number) in hands.items()}

    def take_level(self, table: DeviceTable, level: BlindLevel, number: int) -> None:
        """The `level` request when the table's next hand is played at other stakes than its last."""
        stakes = level_stakes(level, self.unit)
        if stakes != table.stakes:
            table.request("level", f"level-{number}", stakes=stakes, level=number, tournament=self.tournament.name)
            table.stakes = stakes

    def read_hand(self, table: DeviceTable, level: BlindLevel, number: int) -> dict[str, Any]:
        """The hand just settled, from the table's full feed: who is out, with his stack at its start;
        the players out leave the table. Its line of `hands.jsonl`."""
        state = table.dealer.state
        if state.get("phase") != "settled":
            raise SimError(f"{table.name}: hand {state.get('hand')} is {state.get('phase')}, not settled")
        spots = table.spots()
        u = self.unit
        after = {seat: int(spot["stack"]) * u for seat, spot in spots.items()}
        before = {seat: (int(spot["stack"]) - int(spot.get("net") or 0)) * u for seat, spot in spots.items()}
        broke = [seat for seat, spot in spots.items() if spot.get("in_hand") and int(spot["stack"]) == 0]
        out = {table.players[seat]: before[seat] for seat in broke}
        line = self.hand_line(table.name, int(state["hand"]), level, number, state.get("button"), before, after, out)
        for seat in broke:
            table.request("seat", f"out-{seat}", seat=seat, action="leave")
            del table.players[seat]
        return line

    def move_player(self, move: Move) -> None:
        source, target = self.tables[move.from_table], self.tables[move.to_table]
        stack = int(source.spots()[move.from_seat]["stack"])
        source.request("seat", f"away-{move.from_seat}", seat=move.from_seat, action="leave")
        del source.players[move.from_seat]
        target.request("seat", f"in-{move.to_seat}", seat=move.to_seat, action="move_in", amount=stack)
        target.players[move.to_seat] = move.player

    def set_stacks(self, table: str, stacks: dict[int, int], unit: int, level: BlindLevel) -> None:
        t = self.tables[table]
        t.stakes = level_stakes(level, unit)
        args: dict[str, Any] = {"game": GAME, "structure": STRUCTURE, "stakes": t.stakes,
                                "seats": self.tournament.seats_per_table, "rules": RULES,
                                "stacks": {str(seat): stack // unit for seat, stack in stacks.items()}}
        button = t.dealer.state.get("button")
        if button is not None:
            args["last_button"] = int(button)
        t.request("open", f"colour-up-{unit}", **args)

    def close_table(self, table: str) -> None:
        self.tables.pop(table).close()

    # ---- the whole --------------------------------------------------------------------------
    def run(self) -> ResultLine:
        """Play to one winner on the devices; check every table's journal; stop every process. Raises SimError."""
        try:
            line = super().run()
        finally:
            for t in self._all:
                t.close()
        self.check_journals()
        return line

    def check_journals(self) -> None:
        """Every hand of every table's journal settled, its nets and stacks adding up. Raises SimError."""
        check_journals(self.state_dir, self.tournament.tables)
