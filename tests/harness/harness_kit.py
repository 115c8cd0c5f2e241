"""Shared checks of the harness tests: the journal read back with `croupier history`, re-settled with `croupier settle`."""

from __future__ import annotations

import json
import random
import signal
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import zmq

from sim.bots.dealer import BotDealer, DealerLog
from sim.bots.players import seat_players
from sim.bots.table import TableEndpoints
from cli.demo import SimTable
from protocol.feed import FeedClient
from tests.firmware_host.processes import croupier_here


def croupier(*args: str, stdin: str | None = None) -> str:
    """Run one `croupier` subcommand (in this process: `cli.main`, the same parsing and code, no second of start-up);
    its standard output (exit status must be 0)."""
    done = croupier_here(*args, stdin=stdin or "")
    assert done.returncode == 0, f"croupier {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}"
    return done.stdout


def history(state_dir: Path) -> list[dict[str, Any]]:
    """Every finished hand, as `croupier history --json` prints it."""
    out = croupier("history", "--state", str(state_dir), "--last", "0", "--json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def resettle(rounds: list[dict[str, Any]], table_toml: Path) -> list[dict[str, Any]]:
    """The rounds piped through `croupier settle --table` (the table's own limits)."""
    text = "".join(json.dumps(r) + "\n" for r in rounds)
    out = croupier("settle", "--table", str(table_toml), stdin=text)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class PublicAudit(threading.Thread):
    """Reads every message of the public feed while a test plays and notes any that shows what
    must stay hidden: a spot's or the dealer's card before the showdown, a burn, the full state.
    It follows the feed as a display does (`protocol.feed.FeedClient`: a snapshot, then the changes;
    a new boot after a restart, or a gap, answered with a new snapshot), and checks each whole state
    it is given. With `key` and `server_key` (a client's secret certificate, the table's public one)
    it is a CURVE client."""

    def __init__(self, endpoints: TableEndpoints, *, key: str | None = None, server_key: str | None = None) -> None:
        super().__init__(name="public-audit", daemon=True)
        self.ctx: zmq.Context[Any] = zmq.Context()
        # checks the keys before any socket is made; no bound on the queue: the audit reads every step
        self.client = FeedClient(self.ctx, endpoints.public, endpoints.snapshot, timeout_s=0.5,
                                 key=key, server_key=server_key, queue=0)
        self.stop = threading.Event()
        self.updates = 0
        self.snapshots = 0  # taken at the start and after each restart or gap
        self.leaks: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                message = self.client.receive(100)
            except TimeoutError:  # the controller is down (a restart): ask again
                continue
            if message is None or message.get("kind") == "heartbeat":
                continue
            if message.get("kind") == "update":
                self.updates += 1
            else:
                self.snapshots += 1
            problem = self.check(message)
            if problem:
                self.leaks.append(f"{problem}: {message}")

    @staticmethod
    def check(message: Mapping[str, Any]) -> str | None:
        if "burns" in message or "devices" in message or "discards" in message:
            return "a restricted field on the public feed"
        if message.get("phase") in ("showdown", "settled"):
            return None
        for spot in message.get("spots") or []:
            if any(card != "??" for card in spot.get("cards") or []):
                return f"seat {spot.get('seat')}'s cards shown before the showdown"
        if any(card != "??" for card in (message.get("dealer") or {}).get("cards") or []):
            return "the dealer's cards shown before the showdown"
        return None

    def close(self) -> None:
        self.stop.set()
        self.join(5)
        self.client.close()
        self.ctx.destroy(linger=0)


def round_cards(line: dict[str, Any]) -> list[str]:
    """Every card of a finished hand: burns, spots, dealer, board."""
    rnd = line["round"] or {}
    cards = list(line.get("burns") or [])
    for spot in rnd.get("spots") or []:
        cards += spot["cards"]
    cards += rnd.get("dealer") or []
    cards += rnd.get("board") or []
    return cards


def check_balanced(settlement: dict[str, Any]) -> None:
    nets = 0
    for spot in settlement["spots"]:
        assert spot["net"] == sum(spot["results"].values()), spot
        nets += spot["net"]
    assert nets + settlement["house_net"] == 0, settlement


def check_ledger(lines: list[dict[str, Any]], log: DealerLog, table_toml: Path,
                 voided: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """Every hand the dealer played is in the journal once, closed as expected, balanced, equal to
    `croupier settle` on its cards, and holds exactly the cards that left the shoe for it (less
    the ones set aside, plus none). Returns the settled lines."""
    mine = [line for line in lines if log.first_hand <= line["hand"] < log.first_hand + log.hands]
    numbers = [line["hand"] for line in mine]
    assert numbers == list(range(log.first_hand, log.first_hand + log.hands)), "a hand is missing or doubled"
    settled = []
    for line in mine:
        if line["hand"] in voided:
            assert line["status"] == "voided", line
            assert line["settlement"] is None
            continue
        assert line["status"] == "settled", line
        check_balanced(line["settlement"])
        cards = round_cards(line)
        assert len(set(cards)) == len(cards), f"hand {line['hand']}: a card twice: {cards}"
        out_of_shoe = Counter(log.draws.get(line["hand"], [])) - Counter(log.strays.get(line["hand"], []))
        assert Counter(cards) == out_of_shoe, (f"hand {line['hand']}: cards in the journal {sorted(cards)} != "
                                               f"cards dealt {sorted(out_of_shoe.elements())}")
        settled.append(line)
    again = resettle([line["round"] for line in settled], table_toml)
    assert len(again) == len(settled)
    for line, result in zip(settled, again, strict=True):
        assert result == line["settlement"], f"hand {line['hand']}: controller {line['settlement']} != settle {result}"
    return settled


# -- the controller killed mid-hand ----------------------------------------------------------------

MID_HAND = ("deal", "preflop", "flop", "river", "decide", "showdown")
PHASES = ("bets", "deal", "preflop", "flop", "river", "decide", "showdown", "settled")


def _cards(state: Mapping[str, Any]) -> dict[str, list[str]]:
    out = {f"spot {s['seat']}": list(s.get("cards") or []) for s in state.get("spots") or []}
    out["dealer"] = list((state.get("dealer") or {}).get("cards") or [])
    out["board"] = list(state.get("board") or [])
    out["burns"] = list(state.get("burns") or [])
    return out


def continuation_problem(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """Why `after` is not `before` carried at most one step further (None when it is)."""
    if after.get("hand") != before.get("hand"):
        next_hand = after.get("hand") == before.get("hand", 0) + 1 and after.get("phase") == "bets"
        if next_hand and before.get("phase") == "settled" and len(after.get("spots") or []) <= 1:
            return None  # the hand on show was over: the first bet of the next one came in
        return f"hand {before.get('hand')} became {after.get('hand')}"
    if PHASES.index(after["phase"]) < PHASES.index(before["phase"]):
        return f"phase went back from {before['phase']} to {after['phase']}"
    steps = 0
    was, now = _cards(before), _cards(after)
    for where, cards in was.items():
        if now.get(where, [])[:len(cards)] != cards:
            return f"{where}: {cards} became {now.get(where)}"
        steps += len(now.get(where, [])) - len(cards)
    spots_before = {s["seat"]: s for s in before.get("spots") or []}
    for spot in after.get("spots") or []:
        old = spots_before.get(spot["seat"])
        if old is None:
            steps += 1
            continue
        if old.get("decision") != spot.get("decision"):
            steps += 1
        if old.get("decision") in ("play", "fold", "dead") and old["decision"] != spot.get("decision"):
            return f"seat {spot['seat']}: decision {old['decision']} became {spot.get('decision')}"
    if steps > 1:
        return f"{steps} steps apart"
    if before.get("fault") and after.get("fault") != before.get("fault"):
        return f"fault {before['fault']} became {after.get('fault')}"
    return None


class Chaos:
    """Kills the controller at a random moment of the dealer's next step, once per hand at most
    (in one of the phases `mid_hand`)."""

    mid_hand: tuple[str, ...] = MID_HAND

    def __init__(self, table: SimTable, seed: int, kills: int) -> None:
        self.table = table
        self.limit = kills
        self.rng = random.Random(seed)
        self.kills = 0
        self.killed_hands: set[int] = set()
        self.restarts_checked = 0
        self.problems: list[str] = []
        self._armed: threading.Timer | None = None

    def on_step(self, dealer: BotDealer, state: Mapping[str, Any]) -> None:
        if self.kills >= self.limit or state.get("phase") not in self.mid_hand or state.get("hand") in self.killed_hands:
            return
        if self._armed is not None and self._armed.is_alive():
            return
        if self.rng.random() < 0.25:
            self.kills += 1
            self.killed_hands.add(int(state["hand"]))
            assert self.table.controller is not None
            self._armed = threading.Timer(self.rng.uniform(0.0, 0.004), self.table.controller.kill, (signal.SIGKILL,))
            self._armed.start()

    def on_boot(self, dealer: BotDealer, last: Mapping[str, Any], snapshot: Mapping[str, Any]) -> None:
        self.restarts_checked += 1
        problem = continuation_problem(last, snapshot)
        if problem is not None:
            self.problems.append(f"restart {self.restarts_checked}: {problem}\n  before {last}\n  after {snapshot}")


def kill_run(table: SimTable, game: str, seats: int, seed: int, kills: int, hands: int) -> tuple[Chaos, DealerLog]:
    """Play `hands` hands while the controller is SIGKILLed `kills` times mid-hand; check every
    restart and every hand. Returns what happened."""
    chaos = Chaos(table, seed, kills)
    dealer = table.dealer(players=seat_players(seats, seed), buttons=0.3, on_step=chaos.on_step, on_boot=chaos.on_boot)
    try:
        log = dealer.play(hands)
    finally:
        dealer.close()
    assert chaos.kills == kills, f"only {chaos.kills} kills in {hands} hands"
    assert table.controller is not None
    assert table.controller.starts == kills + 1, table.controller.exits
    assert table.controller.exits.count(-signal.SIGKILL) == kills
    assert chaos.restarts_checked == kills
    assert not chaos.problems, "\n".join(chaos.problems)
    assert not log.faults, log.faults  # a restart is not a fault: the devices carried on
    settled = check_ledger(history(table.state_dir), log, table.config_path)
    assert len(settled) == hands
    assert {line["hand"] for line in settled} >= chaos.killed_hands
    return chaos, log
