"""`croupier demo`: the simulated table: controller, emulated shoe, mock GPIO, bot players and dealer, a live view.

    croupier demo [--hands N] [--game GAME] [--structure S] [--seed S] [--state DIR] [--seats K] [--kill K] [--quiet] [--pace S]
                  [--secure | --key FILE --server-key FILE] [--web HOST:PORT | --web off]
                  [--dealer bots|web] [--bot-wait S]
    croupier demo --chips [--faults mispay=P,past_post=P,pinch=P,foreign=P,misread=P] [--chip-scan S] [--hands N] [--game uth|3cp] ...
    croupier demo --tournament [--players 24] [--tables 3] [--seed S] [--state DIR] [--in-process | --director]
                  [--web HOST:PORT]

Starts, each as its own process: the emulated shoe (`croupier sim-shoe` on a TCP port), the
controller (`croupier run --config ... --state DIR`, kept running as systemd would: restarted when it
dies) with its GPIO on gpiozero's mock pins served on the simulated panel, and the live view of
the public feed (`croupier watch`: a screen on a terminal, plain lines otherwise). This process is
the bot dealer and the bot players: they bet, deal and decide through the shoe, the panel's buttons
and the command channel. After N hands it prints one JSON line read back from the journal,
`{"hands": N, "settled": N, "voided": 0, "faults": 0, "house_net": ...}`, and exits 0 (1 when the
table could not be run, 2 for bad arguments). SIGINT or SIGTERM ends it early: every child ended, the
summary line of the hands closed so far, exit 130 or 143; the temporary state directory removed
(a `--state` given is kept).

With `--game` a poker variant (`engine.poker.VARIANTS`) and `--structure` its betting structure, the
table is a poker table and the poker bots (`sim.bots.poker`) deal and act for every
seat; the line gives the house's `rake` and `chips_conserved` instead of `house_net`.

With `--secure` every socket is a CURVE server on loopback TCP, with throwaway keys made in the
state directory's `keys/` (the table's, the bot dealer's, the display's; `sim.keys`).
With `--key FILE --server-key FILE` the bots and the view use that client key, and the controller
the table key's secret half beside `--server-key` and, as its clients, the directory of `--key`.

With `--web HOST:PORT` (default 127.0.0.1:8080; `off` not to serve; `--quiet` alone does not serve)
it also starts `croupier display` on the table and prints the pages' address first, one line
`pages: http://HOST:PORT/table http://HOST:PORT/pit http://HOST:PORT/surveillance (demo credentials:
surveillance demo-eye PIN ...)`; when that port is taken it says so on standard error and serves on
a free port instead. `demo-eye` (role surveillance, its PIN drawn for this run, in the table's users
file) signs in at `/surveillance`, which follows the table's full feed (`[display] full`,
`full_snapshot`, `commands` for the recall; with `--secure` a surveillance certificate `keys/eye/`,
among the controller's clients; with keys of your own, `--key`, the full feed is not served).

With `--dealer web` (it needs the pages: `--web` not off) the dealer's part is left to the dealer
console, `/dealer`: the demo adds a demo dealer and a demo supervisor with PINs drawn for this run
to the table's users file and prints them on the pages line after `/dealer` (`demo credentials: dealer
demo-dealer PIN ..., supervisor demo-floor PIN ..., surveillance demo-eye PIN ...`); the display gets
the command endpoint and the users file.
Nothing here bets, deals or confirms for the dealer: the emulated shoe deals a card whenever the
controller expects one (`sim.dealing.ShoeHand`), and the bot players bet and decide only for the
spots the console leaves alone for `--bot-wait` seconds (`sim.yielding`); at a poker table
(`--game holdem`...) no bot acts: every player's action is the console's (`static/dealer-poker.js`). It
runs until N hands are settled (or SIGINT/SIGTERM: then the summary of the hands closed so far).

With `--chips` a smart table: bots bet and are paid with chips on the emulated chip board (`sim/chips/bots.py`); with
`--dealer web` too, the bots bet with chips and the dealer's hands pay them while a person deals (`sim/chips/console.py`).

With `--tournament` (`cli/demo/tournament.py`) it plays a simulated tournament instead, to one winner: a simulated poker table
(shoe, controller, bot dealer) per tournament table, its journal in `DIR/<table>/`, the eliminations
read from the tables' feeds (`sim.tournament.devices`); with `--in-process` the bots
play engine hold'em hands in-process, no devices (`sim.tournament.hands`); with `--director` the
production director (`croupier tournament`'s `Director`) seats, moves and holds the devices' tables
(`sim.tournament.director`). Each table's
hands go to `DIR/<table>/hands.jsonl`, the whole record to `DIR/tournament.json`; it ends with one
JSON line `{"entries": N, "hands": H, "prize_pool": P, "places": [{"place": 1, "player": ...,
"prize": ...}, ...]}` (`docs/tournament.md`). With `--web HOST:PORT` (the director's run: the clock
is its feed) it also serves the pages once the tables run and prints them first, one line `pages:
http://HOST:PORT/tournament http://HOST:PORT/table?table=T1 ... http://HOST:PORT/pit`.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import secrets
import shutil
import faulthandler
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.games import HOUSE_GAMES, HOUSE_SEATS, POKER_GAMES, STRUCTURES, is_poker
from engine.poker import VARIANTS
from pages.words import LANGUAGES
from sim.chips.bots import SCAN_PERIOD_S, ChipDealer, chip_refusal, chip_summary, faults_option, scan_seconds
from sim.bots.dealer import BotDealer, DealerLog
from sim.bots.errors import BotError
from sim.bots.players import seat_players
from cli.demo.console import play_from_console, summary
from cli.demo.pages import eye_key, serve_pages, web_address
# the table is named here too (`X as X`): the benches and the tests take it from `cli.demo`
from cli.demo.table import SimTable as SimTable, croupier_argv as croupier_argv, tournament_table as tournament_table
from cli.demo.tournament import tournament_demo
from cli.watch import add_key_arguments, key_arguments
from firmware_host.service.journal import JournalError
from sim.keys import SimKeys
from sim.bots.poker import POKER_MID_HAND, poker_summary
from sim.restarter import RestarterError, end, spawn

log = logging.getLogger("croupier.demo")

DEFAULT_WEB = "127.0.0.1:8080"
DEMO_PEOPLE = {"demo-dealer": "dealer", "demo-floor": "supervisor"}
"""The demo's people at a console's table (`--dealer web`), by name and role; their PINs are drawn at each run."""
DEMO_EYE = {"demo-eye": "surveillance"}
"""The demo's surveillance user whenever the pages are served (/surveillance, the full feed); a PIN drawn at each run."""


class Stagehand:
    """Paces the dealer's steps for a human eye, and pulls the controller's plug when asked."""

    MID_HAND = ("deal", "preflop", "flop", "river", "decide", "showdown") + POKER_MID_HAND

    def __init__(self, table: SimTable, pace_s: float, kills: int, seed: int) -> None:
        self.table = table
        self.pace_s = pace_s
        self.kills_left = kills
        self.rng = random.Random(seed)

    def on_step(self, dealer: BotDealer, state: Mapping[str, Any]) -> None:
        if self.pace_s > 0:
            time.sleep(self.pace_s)
        if self.kills_left and state.get("phase") in self.MID_HAND and self.rng.random() < 0.1:
            if self.table.controller is not None and self.table.controller.kill(signal.SIGKILL) is not None:
                self.kills_left -= 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tournament", action="store_true",
                        help="play a simulated tournament across tables instead (bots, a table per controller; "
                             "docs/tournament.md)")
    parser.add_argument("--players", type=int, default=None, metavar="N", help="--tournament: entries (default 24)")
    parser.add_argument("--tables", type=int, default=None, metavar="T", help="--tournament: tables (default 3)")
    parser.add_argument("--director", action="store_true",
                        help="--tournament: the production director (croupier tournament) drives the tables")
    parser.add_argument("--in-process", action="store_true",
                        help="--tournament: engine hands in this process, no shoe, controller or journal")
    parser.add_argument("--hands", type=int, default=20, metavar="N", help="hands to play (default 20)")
    parser.add_argument("--game", choices=tuple(HOUSE_GAMES) + POKER_GAMES, default="uth", metavar="GAME",
                        help=f"the game (default uth): {', '.join(tuple(HOUSE_GAMES) + POKER_GAMES)}")
    parser.add_argument("--structure", choices=STRUCTURES, default=None,
                        help="a poker game's betting structure (default no-limit for holdem, pot-limit for the "
                             "Omahas, fixed-limit for the others)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the shoe and the bots (default 1)")
    parser.add_argument("--state", metavar="DIR", default=None,
                        help="the controller's journal directory (default: a temporary directory, removed after)")
    parser.add_argument("--seats", type=int, default=None, metavar="K",
                        help="bots at the table (default: 5 for uth, 6 for 3cp and poker; uth and 3cp 1 to 7 (the "
                             "demo's 3cp profile deals one spot), poker 2 to the game's most)")
    parser.add_argument("--quiet", action="store_true", help="no live view: only the summary line")
    parser.add_argument("--rated", type=float, default=None, metavar="P",
                        help="a share P (0..1) of the bot seats carry player cards, the builtin standard paytables "
                             "(their approved edges the published ones): `croupier ratings` after it (house games)")
    parser.add_argument("--chips", action="store_true", help="a smart table: the bots bet and the bot dealer pays with "
                        "the demo set's chips on the emulated chip board (uth, 3cp; docs/simulation.md)")
    parser.add_argument("--faults", type=faults_option, default={}, metavar="KIND=P,...", help="with --chips: chip "
                        "faults injected, each with a chance P a hand: mispay, past_post, pinch, foreign, misread")
    parser.add_argument("--chip-offline-at", type=int, default=None, metavar="HAND", help="with --chips --dealer web: "
                        "the chip reader unplugged for hand HAND (its bets and decisions tapped, audited as typed), back after it")
    parser.add_argument("--chip-scan", type=scan_seconds, default=SCAN_PERIOD_S, metavar="S",
                        help=f"with --chips: seconds between the emulated board's scans, 0.02 to 1 (default {SCAN_PERIOD_S}); "
                        "the reader's settle time is six scans")
    parser.add_argument("--kill", type=int, default=0, metavar="K",
                        help="SIGKILL the controller K times at random moments mid-hand, to watch it come back")
    parser.add_argument("--secure", action="store_true",
                        help="CURVE on every socket with throwaway keys made in the state directory's keys/")
    add_key_arguments(parser)
    parser.add_argument("--web", default=None, metavar="HOST:PORT",
                        help=f"serve the pages (croupier display) there, or off (default {DEFAULT_WEB}; off with --quiet; "
                             "--tournament: off unless given)")
    parser.add_argument("--pace", type=float, default=None, metavar="S",
                        help="pause S seconds between the dealer's steps (default 0.03 on a terminal, else 0)")
    parser.add_argument("--dealer", choices=("bots", "web"), default="bots",
                        help="who deals: the bot dealer (default), or a person at the dealer console /dealer (needs --web)")
    parser.add_argument("--language", choices=LANGUAGES, default="en",
                        help="the pages' language (the display's [display] language): en (default) or fr")
    parser.add_argument("--players-by", choices=("bots", "web"), default="bots",
                        help="with --dealer web: who plays the seats' bets and decisions: bot players yielding to "
                             "the console after --bot-wait (default), or web: the console takes every bet and "
                             "decision, no bot plays (the emulated shoe still deals)")
    parser.add_argument("--bot-wait", type=float, default=8.0, metavar="S",
                        help="with --dealer web: seconds a bot player leaves its spot to the console before it bets "
                             "or decides (default 8)")


def check_arguments(args: argparse.Namespace, seats: int) -> str | None:
    """What is wrong with the command line (None when nothing is)."""
    if args.hands < 1:
        return "--hands must be at least 1"
    if (wrong := chip_refusal(args.chips, args.faults, args.game, args.dealer, args.kill)) is not None:
        return wrong
    if args.chip_offline_at is not None and (not args.chips or args.dealer != "web" or args.chip_offline_at < 1):
        return "--chip-offline-at takes a hand number (1 or more), with --chips --dealer web"
    if args.rated is not None and (is_poker(args.game) or args.dealer == "web"):
        return "--rated is for the house games' bot dealer (uth, 3cp)"
    if is_poker(args.game):
        most = VARIANTS[args.game].max_players
        if not 2 <= seats <= most:
            return f"--seats {seats} is not possible for {args.game} (2..{most})"
        if args.dealer == "web":
            return web_refusal(args)
        return None
    if args.structure is not None:
        return f"--structure is for the poker games, not {args.game}"
    if args.rated is not None and not 0 <= args.rated <= 1:
        return f"--rated is a share of the seats, 0 to 1, not {args.rated}"
    low, high = HOUSE_SEATS
    if not low <= seats <= high:
        return f"--seats {seats} is not possible for {args.game} ({low}..{high})"
    if args.dealer == "web":
        return web_refusal(args)
    if args.players_by != "bots":
        return "--players-by web is for --dealer web (the console plays the seats)"
    return None


def web_refusal(args: argparse.Namespace) -> str | None:
    """What is wrong with `--dealer web`'s options (None when nothing is)."""
    if args.web is None and args.quiet or args.web == "off":
        return "--dealer web needs the pages: give --web HOST:PORT (not off)"
    if args.kill:
        return "--kill is for the bot dealer: not with --dealer web"
    if args.bot_wait < 0:
        return "--bot-wait must be 0 or more seconds"
    return None


def tournament(args: argparse.Namespace) -> int:
    """`--tournament` (`cli/demo/tournament.py`) on the demo's tables (`table.tournament_table`), its pages at `--web` when given."""
    try:
        web = web_address(args.web) if args.web is not None else None
    except ValueError as exc:
        print(f"croupier demo: {exc}", file=sys.stderr)
        return 2
    return tournament_demo(args, tournament_table, web)


class Terminated(KeyboardInterrupt):
    """SIGTERM: the demo ends as at SIGINT (its children ended, the summary line, a temporary state removed)."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


def main(args: argparse.Namespace) -> int:
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1`: every thread's stack on stderr
    signal.signal(signal.SIGINT, signal.default_int_handler)  # SIGINT ends it early even when started ignoring it
    # (a child of a background job starts with SIGINT ignored, and Python then keeps it so)
    if args.tournament:
        return tournament(args)
    if args.players is not None or args.tables is not None or args.in_process or args.director:
        print("croupier demo: --players and --tables (and --in-process, --director) are for --tournament",
              file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s demo %(levelname)s %(message)s")
    seats = args.seats if args.seats is not None else (6 if args.game == "3cp" or is_poker(args.game) else 5)
    wrong = check_arguments(args, seats)
    if wrong is not None:
        print(f"croupier demo: {wrong}", file=sys.stderr)
        return 2
    try:
        web = web_address(args.web if args.web is not None else ("off" if args.quiet else DEFAULT_WEB))
        key, server_key = key_arguments(args)
        given = SimKeys.given(key, server_key) if key is not None and server_key is not None else None
    except ValueError as exc:
        print(f"croupier demo: {exc}", file=sys.stderr)
        return 2
    if given is not None and args.secure:
        print("croupier demo: --secure makes its own keys: give it or --key/--server-key, not both", file=sys.stderr)
        return 2
    by_web = args.dealer == "web"
    state_dir = Path(args.state) if args.state else Path(tempfile.mkdtemp(prefix="croupier-demo-"))
    keys = SimKeys.make(state_dir / "keys") if args.secure else given
    demo_people = {**(DEMO_PEOPLE if by_web else {}), **(DEMO_EYE if web is not None else {})}
    people = {name: (role, f"{secrets.randbelow(10 ** 6):06d}") for name, role in demo_people.items()}
    table = SimTable(state_dir, game=args.game, seed=args.seed, seats=seats, restart_burst=max(5, args.kill + 1), keys=keys,
                     people=people, structure=args.structure, demo_profile=True, rated=args.rated is not None,
                     chips=args.faults if args.chips else None, chip_scan_s=args.chip_scan)
    table.eye_key = eye_key(keys) if args.secure and web is not None and keys is not None else None  # /surveillance's
    viewer: subprocess.Popen[bytes] | None = None
    if people:
        table.write_users()  # the display checks sign-ins against it from its start
    pages: list[subprocess.Popen[bytes]] | None = None
    dealer: BotDealer | None = None
    result: DealerLog | None = None
    at_console = DealerLog(first_hand=-1)
    status = 1  # when the table could not be played to the end
    ended_by = signal.signal(signal.SIGTERM, _terminated)  # SIGTERM: the summary of the hands closed so far, as SIGINT
    try:
        if web is not None:  # its address is the first line
            pages = serve_pages(table, *web, console=by_web, language=args.language, players_by=args.players_by)
        if by_web and pages is None:
            raise BotError("--dealer web: the dealer console could not be served")
        if not args.quiet:  # the view subscribes first, so it sees the table from its first message
            viewer = spawn(table.viewer_argv(), stdout=None, stderr=subprocess.DEVNULL)
        table.start()
        if by_web:
            result = play_from_console(table, seats, args, at_console)
        else:
            pace = args.pace if args.pace is not None else (0.03 if sys.stdout.isatty() and not args.quiet else 0.0)
            dealer = table.dealer(players=seat_players(seats, args.seed, args.rated or 0.0),
                                  on_step=Stagehand(table, pace, args.kill, args.seed).on_step)
            result = dealer.play(args.hands)
    except (BotError, RestarterError, OSError, JournalError) as exc:
        print(f"croupier demo: {exc}", file=sys.stderr)
        result = None
    except KeyboardInterrupt as stopped:
        status = 143 if isinstance(stopped, Terminated) else 130
        if by_web and at_console.first_hand >= 0:  # the hands closed so far
            result = DealerLog(first_hand=at_console.first_hand, hands=10 ** 9)
        elif dealer is not None and dealer.log.first_hand >= 0:
            result = DealerLog(first_hand=dealer.log.first_hand, hands=10 ** 9)
    finally:
        signal.signal(signal.SIGTERM, ended_by)
        if dealer is not None:
            dealer.close()
        if viewer is not None:
            viewer.terminate()
            viewer.wait()
        for proc in pages or []:
            end(proc)
        restarts = (table.controller.starts - 1) if table.controller is not None else 0
        table.stop()
    return finish(args, state_dir, result, restarts, status, dealer.chip_run() if isinstance(dealer, ChipDealer) else at_console.chips)


def finish(args: argparse.Namespace, state_dir: Path, result: DealerLog | None, restarts: int, status: int,
           chip_run: dict[str, int] | None = None) -> int:
    """Print the summary line read back from the journal (none when the table was not played) and
    give the exit status; remove a temporary state directory. With `--chips` the line ends with the
    chips' part (`chip_run`: the faults injected; `sim.chips.bots.chip_summary`: exit 1 unless all is well)."""
    if result is None:
        if not args.state:
            shutil.rmtree(state_dir, ignore_errors=True)
        return status
    try:
        count = args.hands if args.dealer == "bots" and status not in (130, 143) else result.hands
        line = (poker_summary if is_poker(args.game) else summary)(state_dir, result.first_hand, count)
        chips = chip_summary(state_dir, result.first_hand, count, chip_run) if chip_run is not None else None
    except JournalError as exc:
        print(f"croupier demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.state:
            shutil.rmtree(state_dir, ignore_errors=True)
    if restarts:
        line["restarts"] = restarts
    if chips is not None:  # the chips' part ends the line
        line["chips"] = chips[0]
    sys.stdout.flush()
    print(json.dumps(line), flush=True)
    if status in (130, 143):
        return status
    if args.dealer == "web":
        return 0 if line["settled"] == args.hands else 1  # what a person did with the chips: the line and stderr say
    ok = line["hands"] == args.hands and line["settled"] == args.hands and line.get("chips_conserved", True) \
        and (chips is None or chips[1])
    return 0 if ok else 1
