"""The demo's simulated table: its processes (the emulated shoe, the chip board, the controller under its restarter) and its bot dealer."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.games import MAX_SPOTS, is_poker
from sim.bots.dealer import BotDealer
from sim.bots.players import BotPlayer, seat_players
from sim.bots.poker import DEFAULT_STRUCTURE, PokerDealer, poker_section
from sim.bots.table import SimLimits, TableEndpoints, make_supervisor, write_config
from sim.chips.bots import SCAN_PERIOD_S, ChipDealer, chip_sections, fill_tray, start_chip_board
from sim.demo_chips import demo_chip_set
from sim.demo_pit import DemoArchive
from sim.demo_profile import rated_profile, write_demo_profile
from sim.keys import SimKeys, plain_access_text, rights_text
from sim.restarter import Restarter, end, read_json_line, spawn
from sim.tournament.devices import TableSections

__all__ = ["SimTable", "croupier_argv", "tournament_table"]


def croupier_argv(*args: str) -> list[str]:
    """The command line of a `croupier` subcommand, run by this interpreter."""
    return [sys.executable, "-m", "cli", *args]


class SimTable:
    """The simulated table's processes: the emulated shoe and the controller under its restarter.

    `run_dir` holds the configuration, the logs and the ipc sockets (a short temporary directory
    when not given); `state_dir` the controller's journal. Use as a context manager, or call
    `start()` and `stop()`; `stop()` always ends every child.
    """

    def __init__(self, state_dir: str | Path, *, game: str = "uth", seed: int = 0, seats: int = MAX_SPOTS,
                 run_dir: str | Path | None = None, limits: SimLimits = SimLimits(), silent_s: float = 3.0,
                 heartbeat_s: float = 0.5, shoe_heartbeat_s: float = 0.5, restart_s: float = 0.1,
                 restart_burst: int = 5, table: str | None = None, keys: SimKeys | None = None,
                 sections: str = "", rights: Sequence[str] | None = None,
                 people: Mapping[str, tuple[str, str]] | None = None,
                 structure: str | None = None, demo_profile: bool = False, rated: bool = False,
                 chips: Mapping[str, float] | None = None, chip_scan_s: float = SCAN_PERIOD_S) -> None:
        self.state_dir = Path(state_dir)
        self.chips = dict(chips) if chips is not None else None  # `--chips`: the chip board's faults' chances (sim/chips/bots.py)
        self.chip_scan_s = chip_scan_s  # `--chip-scan`: the board's seconds between scans, the reader's settle six of them
        self.chips_proc: subprocess.Popen[bytes] | None = None
        self.chips_info: dict[str, Any] = {}
        self.rated = rated  # `--rated`: the builtin standard paytables, their edges approved (`sim/demo_profile.py`)
        self.demo_profile = demo_profile  # 3CP under the demo's profile (one spot deals: `sim/demo_profile.py`)
        # a poker table: its betting structure, and its [poker] section (sim.bots.poker) unless given
        self.structure = (structure or DEFAULT_STRUCTURE.get(game, "fixed-limit")) if is_poker(game) else None
        if self.structure is not None and not sections:
            sections = poker_section(game, self.structure, seats)
        self.keys = keys  # CURVE on every socket: then the sockets are on loopback TCP
        self.game = game
        self.seed = seed
        self.seats = seats
        self.limits = limits
        self.silent_s = silent_s
        self.heartbeat_s = heartbeat_s
        self.shoe_heartbeat_s = shoe_heartbeat_s
        self.restart_s = restart_s
        self.restart_burst = restart_burst
        self.table = table or f"sim-{game}-1"
        self.sections = sections  # more sections of the controller's configuration (a poker table's [poker])
        # the role dealer's [rights] when the table has its own (a tournament's), else the demo's (`access_text`)
        self.rights = tuple(rights) if rights is not None else None
        self._own_run_dir = run_dir is None
        self.run_dir = Path(run_dir) if run_dir is not None else Path(tempfile.mkdtemp(prefix="crp-"))
        self.endpoints = TableEndpoints.tcp() if keys is not None else TableEndpoints.ipc(self.run_dir)
        self.shoe_proc: subprocess.Popen[bytes] | None = None
        self.shoe_info: dict[str, Any] = {}
        self.controller: Restarter | None = None
        self.config_path = self.run_dir / "table.toml"
        self.users_path = self.state_dir / "users.json"  # the bot supervisor's, with a PIN drawn at each start
        self.supervisor: dict[str, str] | None = None
        self.people = dict(people or {})  # name -> (role, PIN): more users of the users file (the console's)
        self.eye_key: Path | None = None  # the surveillance certificate of the demo's display (--secure)
        self.archive: DemoArchive | None = None  # `--rated` with the pages: the pit's archive (sim/demo_pit.py)

    def __enter__(self) -> SimTable:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> dict[str, Any]:
        """Start the shoe and the controller; return the controller's ready line. Raises RestarterError."""
        try:
            self.start_shoe()
            if self.chips is not None:
                self.chips_proc, self.chips_info = start_chip_board(self.run_dir, self.game, self.seats, self.seed,
                                                                      self.chip_scan_s)
                fill_tray(self.chips_info["control"], demo_chip_set())  # the opening inventory: the whole float
            self.write_users()
            demo = self.demo_profile and self.game == "3cp"
            profile: str | Path = write_demo_profile(self.run_dir / "demo-profile.toml") if demo else "default"
            if self.rated and self.structure is None:
                profile = rated_profile(self.game, self.run_dir)
            write_config(self.config_path, endpoints=self.endpoints, shoe_url=self.shoe_info["port"],
                         game=self.game, table=self.table, seats=self.seats, limits=self.limits, profile=str(profile),
                         silent_s=self.silent_s, heartbeat_s=self.heartbeat_s, users=self.users_path.resolve(),
                         security=self.keys.security_lines() if self.keys is not None else "",
                         extra=self.access_text() + self.sections
                         + (chip_sections(self.chips_info["port"], period_s=self.chip_scan_s) if self.chips is not None else ""))
            self.controller = Restarter(croupier_argv("run", "--config", str(self.config_path), "--state",
                                                       str(self.state_dir), "--log-level", "WARNING"),
                                         name="controller", restart_s=self.restart_s, burst=self.restart_burst,
                                         log_path=self.run_dir / "controller.log")
            return self.controller.start()
        except BaseException:
            self.stop()
            raise

    def access_text(self) -> str:
        """The table's `[rights]`: its own when given (`rights`: a tournament's), else the keys' (`--secure`), or
        without keys the local role's recall of the last hands."""
        if self.rights is not None:
            return rights_text(self.rights)
        if self.keys is not None:
            return self.keys.access_text()
        return plain_access_text()

    def write_users(self) -> None:
        """Write the table's users file: the bot supervisor (a PIN drawn now) and `people`."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        # One write: a display reading the file meanwhile never sees it without `people`.
        self.supervisor = make_supervisor(self.users_path, people=self.people)

    def start_shoe(self, *extra: str, port: int = 0) -> dict[str, Any]:
        """Start the emulated shoe process (on `port`, or a free TCP port). Raises RestarterError."""
        with open(self.run_dir / "shoe.log", "ab") as err:
            self.shoe_proc = spawn(croupier_argv("sim-shoe", "--tcp", f"127.0.0.1:{port}", "--seed", str(self.seed),
                                                 "--heartbeat", str(self.shoe_heartbeat_s), "-v", *extra),
                                   stderr=err)
        self.shoe_info = read_json_line(self.shoe_proc, 20.0, "sim-shoe")
        return self.shoe_info

    def replace_shoe(self, *extra: str) -> dict[str, Any]:
        """Swap the shoe: end the shoe process (as if unplugged) and start another on the same port
        (a new boot; `extra` options such as `--firmware 2.0.0`). Raises RestarterError."""
        port = int(str(self.shoe_info["port"]).rsplit(":", 1)[1])
        self.kill_shoe()
        return self.start_shoe(*extra, port=port)

    def kill_shoe(self) -> None:
        """Pull the shoe's plug: SIGKILL the shoe process."""
        if self.shoe_proc is not None and self.shoe_proc.poll() is None:
            self.shoe_proc.kill()
            self.shoe_proc.wait()

    def dealer(self, players: list[BotPlayer] | None = None, **options: Any) -> BotDealer:
        """A bot dealer for this table (players: one bot per seat by default; the dealer's key); at a poker
        table the poker dealer, whose bots act for every seat (`players` unused)."""
        if self.keys is not None:
            options = {"key": str(self.keys.dealer), "server_key": str(self.keys.table_public),
                       "feed_key": str(self.keys.watcher), **options}
        if self.chips is not None:  # the bots bet, pay and take chips on the emulated board (sim/chips/bots.py)
            options = {"board": self.chips_info["control"], "chip_set": demo_chip_set(), "faults": self.chips, **options}
        if self.structure is not None:  # a poker table: the poker bots act for the players
            options.pop("players", None)
            return PokerDealer(self.endpoints, self.shoe_info["control"], [], game=self.game, seed=self.seed,
                               structure=self.structure, seats=self.seats,
                               **{"supervisor": self.supervisor, **options})
        return (ChipDealer if self.chips is not None else BotDealer)(self.endpoints, self.shoe_info["control"],
                         players if players is not None else seat_players(self.seats, self.seed),
                         game=self.game, seed=self.seed, limits=self.limits,
                         **{"supervisor": self.supervisor, **options})

    def viewer_argv(self) -> list[str]:
        """The live view's command line: `croupier watch` on the public feed (with the display's key)."""
        argv = croupier_argv("watch", self.endpoints.public, "--snapshot", self.endpoints.snapshot)
        if self.keys is not None:
            argv += ["--key", str(self.keys.display), "--server-key", str(self.keys.table_public)]
        return argv

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
        if self.shoe_proc is not None:
            end(self.shoe_proc)
        if self.chips_proc is not None:
            end(self.chips_proc)
        if self.archive is not None:
            self.archive.close()
        if self._own_run_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)


def tournament_table(state_dir: Path, name: str, seed: int, seats: int, sections: TableSections) -> SimTable:
    """A tournament table's processes (`sim.tournament.devices.TableFactory`): a no-limit hold'em table, its
    `[poker]` and its dealer's rights the tournament's."""
    return SimTable(state_dir, game="holdem", seed=seed, seats=seats, table=name, sections=sections.poker,
                    rights=sections.dealer_rights, structure="no-limit")
