"""The simulated tournament driven by the production director: devices' tables and bot dealers, the `Director` seating them.

`DirectorTournamentRun` shares the director's logic with production (`floor/
director_floorman.py`) instead of the simulation's own driver (`sim/tournament/devices.py`): the
tables are the same simulated tables (`SimTable`: the emulated shoe and `croupier run`, each
journal in `DIR/<table>/`), each configured as the tournament's first level (`[poker]`) and letting
its local clients, the director's among them, send what the pit does (`open`, `close`, `level`,
`hold`). The director serves in a thread of this process on ipc sockets, its state in
`DIR/director/`, its clock the room's sped up `speed` times (a 10-minute level lasts 10 s at 60).
The players enter, registration closes, a supervisor (a PIN drawn for the run) starts the clock,
and `seat-draw` seats them; from then on the director alone opens the tables, places the players
out, breaks and balances the tables, plays hand-for-hand, and holds every table for the clock's
breaks, where it colours up and races the odd chips (`floor/director/breaks.py`). Each table's bot
dealer (`HeldDealer`, the tournament bot of `tournament_devices.py`) deals a hand whenever its table
may begin one: not while it is held, closed, or has fewer than two players with chips; while its
table is in a chip race, or in the draw for its first button (`floor/director/button.py`), it draws
the cards from the emulated shoe, one a card the step awaits.
The run ends when one player is left: every table's journal is read back (each hand settled, its
chips conserved), the chips on the tables are the entries' less the races' recorded changes, and
the result line is the director's standings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import zmq

from engine.tournament import TournamentFile, parse_tournament
from floor.director.service import Director
from floor.director.config import DirectorConfig
from floor.director.orders import held_between_hands
from protocol import access
from protocol.commands import CommandClient
from protocol.messages import FullState
from firmware_host.service.journal import JournalError
from sim.bots.errors import BotError
from sim.bots.table import make_supervisor
from sim.restarter import RestarterError
from sim.tournament.hands import DEMO_TOURNAMENT, ResultLine, SimError
from sim.tournament.devices import (GAME, STRUCTURE, SimTableLike, TableFactory, TableSections,
                                   TournamentDealer, check_journals)

__all__ = ["DirectorTournamentRun", "HeldDealer", "director_table_sections", "director_tournament"]

SPEED = 60.0
"""How much faster than the room's the run's clock goes."""


def director_tournament(tables: int, text: str = DEMO_TOURNAMENT) -> tuple[str, TournamentFile]:
    """The demo's tournament file on `tables` tables T1..Tn (T1 the final table; the others break last
    first), as the director reads it: its text and what it says."""
    names = [f"T{i}" for i in range(1, tables + 1)]
    use = ", ".join(f'"{n}"' for n in names)
    order = ", ".join(f'"{n}"' for n in reversed(names[1:]))
    text = text.replace('use = ["T1"]', f"use = [{use}]" + (f"\nbreak_order = [{order}]" if tables > 1 else ""))
    return text, parse_tournament(text, "the demo's tournament")


def director_table_sections(seats: int, blinds: tuple[int, int]) -> TableSections:
    """A table's `[poker]` as the tournament's first level (the director's `open` then needs no sign-off) and
    rights letting its local clients, the director's, send the pit's steps too."""
    rights = tuple(dict.fromkeys((*access.DEFAULT_RIGHTS["dealer"], "open", "close", "level", "hold", "race",
                                  "button-draw")))
    return TableSections(f'\n[poker]\nstructure = "{STRUCTURE}"\nblinds = [{blinds[0]}, {blinds[1]}]\n'
                         'button_rule = "dead"\nall_in_reveal = true\n', rights)


class HeldDealer(TournamentDealer):
    """The tournament bot dealer at a table the director commands: it deals a hand only when the table may
    begin one (not held, open, two players with chips), and otherwise waits on the feed."""

    def waits(self, st: FullState) -> bool:
        """Nothing to deal now: the table is held, not open for hold'em, or short of players with chips."""
        if st.get("phase") not in ("settled", "waiting", "voided", "closed"):
            return False
        with_chips = [s for s in st.get("spots") or [] if int(s.get("stack") or 0) > 0]
        return held_between_hands(st) or st.get("game") != GAME or len(with_chips) < 2

    def step(self) -> None:
        st = self.state
        for key in ("race", "button_draw"):   # a chip race's or the button draw's cards, face up
            face_up = st.get(key)
            if not st.get("fault") and isinstance(face_up, Mapping) and not face_up.get("done"):
                self.deal_face_up(key, face_up)
                return
        if not st.get("fault") and self.waits(st):
            self._last_progress = time.monotonic()   # waiting for the director is no stall
            self.pump(0.2)
            return
        super().step()

    def _deal(self, hand: int) -> None:
        try:
            super()._deal(hand)
        except BotError as exc:   # held (or a player out still seated) between the look and the deal: wait
            if "held" not in str(exc) and "illegal" not in str(exc):
                raise
            self.pump(0.2)


TablesHook = Callable[[dict[str, SimTableLike], str, str], None]
"""Called once the tables run, before the director starts: the tables by name, the director's feed and snapshot."""


class DirectorTournamentRun:
    """One simulated tournament of `players` bots on `tables` tables, driven by the production director."""

    def __init__(self, state_dir: str | Path, factory: TableFactory, tournament: TournamentFile, text: str, *,
                 players: int = 24, seed: int = 1, speed: float = SPEED, progress_timeout_s: float = 60.0,
                 on_tables: TablesHook | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.factory = factory
        self.tournament = tournament
        self.text = text
        self.players = [f"bot{i:02d}" for i in range(1, players + 1)]
        self.seed = seed
        self.speed = speed
        self.progress_timeout_s = progress_timeout_s
        self.sims: dict[str, SimTableLike] = {}
        self.dealers: dict[str, HeldDealer] = {}
        self.errors: dict[str, BaseException] = {}
        self.over = threading.Event()
        self.on_tables = on_tables  # the tables started: (their processes by name, the director's feed endpoints)

    # -- the pieces -----------------------------------------------------------------------------

    def _tables(self) -> None:
        first = self.tournament.levels[0]
        size = self.tournament.seats_per_table
        for index, name in enumerate(self.tournament.tables, start=1):
            sim = self.factory(self.state_dir / name, name, self.seed * 100 + index, size,
                               director_table_sections(size, (first.small_blind, first.big_blind)))
            self.sims[name] = sim
            try:
                sim.start()
            except RestarterError as exc:
                raise SimError(f"{name}: the table could not be started: {exc}") from None
            self.dealers[name] = HeldDealer(sim.endpoints, sim.shoe_info["control"], [], game=GAME,
                                            seed=self.seed * 100 + index, structure=STRUCTURE, seats=size,
                                            supervisor=sim.supervisor, progress_timeout_s=self.progress_timeout_s)

    def _config(self) -> tuple[Path, dict[str, str]]:
        home = self.state_dir / "director"
        home.mkdir(parents=True, exist_ok=True)
        (home / "tournament.toml").write_text(self.text, encoding="utf-8")
        supervisor = make_supervisor(home / "users.json", name="demo-director")
        links = "".join(f'\n[[director.tables]]\nname = "{name}"\ncommands = "{sim.endpoints.commands}"\n'
                        f'public = "{sim.endpoints.public}"\nsnapshot = "{sim.endpoints.snapshot}"\n'
                        for name, sim in self.sims.items())
        config = home / "director.toml"
        config.write_text(f'[director]\ntournament = "tournament.toml"\npublic = "ipc://{home}/pub"\n'
                          f'snapshot = "ipc://{home}/snap"\ncommands = "ipc://{home}/cmd"\nusers = "users.json"\n'
                          f"heartbeat_s = 1.0\n{links}", encoding="utf-8")
        return config, supervisor

    def _deal(self, name: str) -> None:
        dealer = self.dealers[name]
        try:
            dealer.sync()
            while not self.over.is_set():
                dealer.step()
        except Exception as exc:  # the run reports it: the thread must not die silently
            self.errors[name] = exc
            self.over.set()

    # -- the whole ------------------------------------------------------------------------------

    def run(self) -> ResultLine:
        """Play to one winner; check every table's journal; stop every process. Raises SimError."""
        ctx: zmq.Context[Any] = zmq.Context()
        threads: list[threading.Thread] = []
        director: Director | None = None
        serving: threading.Thread | None = None
        try:
            self._tables()
            config, supervisor = self._config()
            if self.on_tables is not None:  # e.g. `croupier demo --tournament --web`: the clock and each table served
                home = self.state_dir / "director"
                self.on_tables(dict(self.sims), f"ipc://{home}/pub", f"ipc://{home}/snap")
            base = time.time()
            director = Director(DirectorConfig.load(config), str(self.state_dir / "director"), ctx,
                                clock=lambda: base + (time.time() - base) * self.speed)
            serving = threading.Thread(target=director.run, name="director", daemon=True)
            serving.start()
            client = CommandClient(ctx, director.cfg.commands, timeout_s=10.0, name="demo-pit")
            try:
                view = self._start(client, supervisor)
                threads = [threading.Thread(target=self._deal, args=(n,), name=f"deal-{n}", daemon=True)
                           for n in self.sims]
                for thread in threads:
                    thread.start()
                view = self._until_one_left(client, view)
                self._check_chips(ctx, view)
            finally:
                client.close()
        except (BotError, JournalError, RestarterError) as exc:
            raise SimError(str(exc)) from None
        finally:
            self.over.set()
            for thread in threads:
                thread.join(timeout=10)
            if director is not None and serving is not None:
                director.stopping.set()
                serving.join(timeout=10)
            for dealer in self.dealers.values():
                dealer.close()
            for sim in self.sims.values():
                sim.stop()
            ctx.destroy(linger=0)
        hands = self.check_journals()
        return {"entries": view["entries"], "hands": hands, "prize_pool": view["prize_pool"],
                "places": [{"place": f["place"], "player": f["player"], "prize": f["prize"]} for f in view["finishes"]]}

    def _start(self, client: CommandClient, supervisor: dict[str, str]) -> dict[str, Any]:
        """Entries, registration closed, the clock started (signed off), the seats drawn."""
        def ok(cmd: str, **args: Any) -> dict[str, Any]:
            reply = client.request(cmd, **args)
            if not reply.get("ok"):
                raise SimError(f"the director refused {cmd}: {reply.get('code')}: {reply.get('error')}")
            state: dict[str, Any] = reply["state"]
            return state

        for player in self.players:
            ok("enter", player=player)
        ok("close")
        ok("start", auth=supervisor)
        return ok("seat-draw")

    def _until_one_left(self, client: CommandClient, view: dict[str, Any]) -> dict[str, Any]:
        """Follow the director's state until one player is left and every order is taken. Raises SimError
        when a dealer failed or nobody was placed and no order taken for `progress_timeout_s`."""
        progress, since = None, time.monotonic()
        while True:
            if self.errors:
                table, error = next(iter(self.errors.items()))
                raise SimError(f"{table}: {error}")
            reply = client.request("state")
            view = reply["state"]
            if view["players_left"] == 1 and view["floor"]["orders_waiting"] == 0:
                return view
            now = (view["players_left"], view["floor"]["orders_waiting"], view["floor"]["hand_for_hand"],
                   sum(d.state.get("hand") or 0 for d in self.dealers.values()))
            if now != progress:
                progress, since = now, time.monotonic()
            elif time.monotonic() - since > self.progress_timeout_s:
                raise SimError(f"the tournament made no progress for {self.progress_timeout_s:.0f} s: "
                               f"{view['players_left']} left, floor {view['floor']}")
            time.sleep(0.2)

    def _check_chips(self, ctx: zmq.Context[Any], view: Mapping[str, Any]) -> None:
        """The chips on the tables are every entry's starting stack, changed only by the chip races'
        recorded changes (the director's `chip_races`). Raises SimError."""
        on_tables = 0
        for sim in self.sims.values():
            table = CommandClient(ctx, sim.endpoints.commands, timeout_s=10.0, name="demo-count")
            try:
                state = table.request("state").get("state") or {}
            except TimeoutError:
                raise SimError(f"{sim.endpoints.commands}: no answer to state: the chips cannot be counted") from None
            finally:
                table.close()
            on_tables += sum(int(s.get("stack") or 0) for s in state.get("spots") or [])
        changes = sum(int(r["change"]) for r in view["floor"]["chip_races"])
        expected = int(view["entries"]) * self.tournament.starting_stack + changes
        if on_tables != expected:
            raise SimError(f"the tables hold {on_tables} chips: the entries brought "
                           f"{expected - changes} and the chip races changed them by {changes}")

    def check_journals(self) -> int:
        """Every hand of every table's journal settled, its chips conserved; returns how many. Raises SimError."""
        return check_journals(self.state_dir, self.tournament.tables)
