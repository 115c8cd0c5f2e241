"""The simulated floor of `croupier floor-sim`: many house tables in one thread, each with the real feed and a command channel answering `history`, hands the engine played, at K times real time.

Every table is a real `Feed` (boot, seq, updates, heartbeats, snapshots on its ROUTER) and a ROUTER
command channel taking `history` (the shape of `service.history`, each hand its `croupier history
--json` line built by `hand_line`) and `state`; anything else is refused `forbidden`. The hands are
played and settled by the engine through the table reducer (`TableState`: bets, `deal`, the shoe's
cards from a seeded deck, the spots' decisions, `confirm`; a few voided), so every step publishes
the public state the controller would. A table of hundreds in one process cannot afford the
engine's redaction at every step of every table, so each game's hands are played once into a
pool (`play_pool`, seeded) and every table deals its own sequence from it: its hand numbers, its
session, its last hands shown and its close times are the table's own. `FloorSim.run` schedules
the steps (about `HANDS_AN_HOUR` hands an hour a table at speed 1), answers snapshots and command
requests between them, and can restart a table mid-run (a new boot, its hands kept as a journal
keeps them).
"""

from __future__ import annotations

import heapq
import random
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import zmq

from engine.cards import DECK
from engine.games import MAX_SPOTS
from protocol.commands import Command, Malformed, encode_reply, error_reply
from protocol.feed import Feed, FeedError
from protocol.messages import HistoryHand, PublicState, Session
from protocol.records import HandRecord
from firmware_host.service.history import MAX_PAGE, hand_line
from firmware_host.service.journal import Event, HandRow
from firmware_host.service.table_events import event_line
from sim.ready import ReadySockets
from firmware_host.tables.house.opening import open_body
from firmware_host.tables.house.sign import HISTORY_HANDS
from firmware_host.tables.state import TableState

HANDS_AN_HOUR = 80
"""A house table's pace at speed 1 (a UTH or 3CP table deals 60 to 100 hands an hour)."""

GAMES = ("uth", "3cp")
LIMITS = {"minimum": 500, "maximum": 10000, "side_minimum": 100, "side_maximum": 5000, "chip": 100}
STEP_QUANTUM_S = 0.005
"""Steps due this soon are taken with those due now: one poll of every table's sockets per batch, not
per step (a poll of 2,000 sockets costs more than a step; 9,000 steps a second would poll 9,000 times)."""

SERVE_EVERY_S = 0.02
"""While steps are due, the tables' snapshot and command sockets are polled this often at most (a
request waits at most that long): a poll of every socket, 2,000 for 1,000 tables, costs ~5 ms."""

VOID_SHARE = 0.03
"""The share of the pool's hands voided after the deal (a misdeal)."""

_UTH_CHOICES = {"preflop": (("check", None), ("play", 3), ("play", 4)), "flop": (("check", None), ("play", 2)),
                "river": (("fold", None), ("play", 1))}


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """One hand as the engine played it: the public state after each step, and the record it closed with."""

    game: str
    states: tuple[PublicState, ...]
    record: HandRecord | dict[str, Any]  # dict: the idle table's first "hand", no record


def _bets(game: str, rng: random.Random) -> dict[str, int]:
    ante = rng.choice((500, 1000, 2500))
    bets = {"ante": ante, "blind": ante} if game == "uth" else {"ante": ante}
    if rng.random() < 0.4:
        bets["trips" if game == "uth" else "pair_plus"] = rng.choice((100, 500))
    return bets


def _decision(game: str, phase: str, rng: random.Random) -> dict[str, Any]:
    if game == "uth":
        decision, multiple = rng.choice(_UTH_CHOICES.get(phase, _UTH_CHOICES["preflop"]))
        return {"decision": decision, "multiple": multiple}
    return {"decision": "play" if rng.random() < 0.8 else "fold"}


def play_hand(state: TableState, game: str, rng: random.Random, event_id: int) -> tuple[PlayedHand, int]:
    """Play one hand on `state` (a house table open, between hands): returns it and the last event id."""
    steps: list[PublicState] = []
    closed: HandRecord | None = None

    def step(kind: str, body: Mapping[str, Any]) -> None:
        nonlocal event_id, closed
        event_id += 1
        applied = state.apply(kind, body, event_id)
        closed = applied.closed or closed
        steps.append(state.views()[0])

    seats = range(1, MAX_SPOTS + 1) if game == "uth" else range(1, 7)  # 3CP: six of the spots
    spots = rng.randint(2, 6) if game == "uth" else rng.randint(5, 6)  # a 3CP deal needs 5 spots (the shoe's rule)
    for seat in sorted(rng.sample(list(seats), spots)):
        step("bet", {"seat": seat, "bets": _bets(game, rng)})
    step("deal", {})
    deck = [str(card) for card in DECK]
    rng.shuffle(deck)
    cards, read = iter(deck), 0
    void = rng.random() < VOID_SHARE
    table = state.need_table()
    while table.phase not in ("showdown", "settled"):
        if void and read >= 4:
            break
        seat = table.round.to_act()  # type: ignore[attr-defined]  # a house table's round
        if seat is not None:
            step("decide", {"seat": seat, **_decision(game, table.phase, rng)})
        else:
            read += 1
            step("card", {"card": next(cards), "device": "shoe", "seq": read})
        table = state.need_table()
    step("void", {"reason": "misdeal"}) if void else step("confirm", {})
    assert closed is not None
    return PlayedHand(game, tuple(steps), closed), event_id


def play_pool(game: str, count: int, seed: int) -> tuple[dict[str, Any], list[PlayedHand]]:
    """`count` hands of `game` played from seeded decks on one table: (its `open` body, the hands; the
    first "hand" is the table just opened, no step taken: its one state is the idle table)."""
    body = open_body(game, "default", LIMITS, 7)
    state = TableState(7)
    state.apply("open", body, 1)
    event_id, hands = 1, [PlayedHand(game, (state.views()[0],), {})]
    for number in range(count):
        hand, event_id = play_hand(state, game, random.Random(seed * 100003 + number), event_id)
        hands.append(hand)
    return body, hands


@dataclass
class Endpoints:
    """Where one simulated table is reached (tcp on loopback or ipc)."""

    public: str
    snapshot: str
    commands: str


@dataclass
class FloorTable:
    """One simulated table: its feed, its command channel, the hands it closed (its journal)."""

    ctx: zmq.Context[Any]
    name: str
    game: str
    endpoints: Endpoints
    pool: list[PlayedHand]  # the idle table first, then the hands
    opened: Event
    heartbeat_s: float
    rng: random.Random
    hands: list[HandRow] = field(default_factory=list)
    hand: int = 1
    step: int = 0
    playing: PlayedHand | None = None
    shown: PublicState | None = None  # the state last published (a settled hand stays on show)
    session: Session = field(default_factory=lambda: Session(hands=0, voided=0, house_net=0))
    history: deque[HistoryHand] = field(default_factory=lambda: deque(maxlen=HISTORY_HANDS))
    messages: int = 0  # sent on the feeds of earlier boots
    boots: int = 0
    on_publish: Callable[[str, str, int], None] | None = None
    feed: Feed = field(init=False)
    shown_session: Session = field(init=False)  # the session and last hands shown since the last close
    shown_history: list[HistoryHand] = field(init=False)
    commands: zmq.Socket[Any] = field(init=False)

    def __post_init__(self) -> None:
        self._shown_closed()
        self.bind()

    def _shown_closed(self) -> None:
        """A hand closed (or none yet): the session and last hands shown from now on (the same objects
        until the next close: the feed's changes skip them by identity)."""
        self.shown_session, self.shown_history = self.session.copy(), list(self.history)

    def bind(self, tries: int = 1) -> None:
        """Bind the feed (a new boot) and the command channel. Raises FeedError."""
        for attempt in range(tries):
            try:
                self.feed = Feed(self.ctx, self.name, public=self.endpoints.public,
                                      snapshot=self.endpoints.snapshot, heartbeat_s=self.heartbeat_s)
                break
            except FeedError:
                if attempt + 1 == tries:
                    raise
                time.sleep(0.02)  # the closed sockets' ports are released by ZeroMQ's I/O thread
        self.endpoints.public = _bound(self.feed.pub)
        self.endpoints.snapshot = _bound(self.feed.snap)
        self.commands = self.ctx.socket(zmq.ROUTER)
        self.commands.setsockopt(zmq.LINGER, 0)
        for attempt in range(tries):
            try:
                self.commands.bind(self.endpoints.commands)
                break
            except zmq.ZMQError as exc:
                if attempt + 1 == tries:
                    self.feed.close()
                    raise FeedError(f"cannot bind command socket {self.endpoints.commands}: {exc}") from exc
                time.sleep(0.02)
        self.endpoints.commands = _bound(self.commands)
        self.boots += 1
        self.feed.set_state(self.public())

    def restart(self) -> None:
        """The table's controller restarted: its sockets closed and bound again under a new boot; its
        hands (the journal) and the hand in progress kept."""
        self.messages += self.feed.seq
        self.feed.close()
        self.commands.close(0)
        self.bind(tries=250)

    def public(self) -> PublicState:
        """The public state now: the pool's state of this step, as this table's."""
        if self.playing is None:
            if self.shown is not None:
                return self.shown
            base = self.pool[0].states[0]
        else:
            base = self.playing.states[self.step - 1]
            if base.get("hand") != self.playing.record.get("hand"):  # a voided hand gave way to the next at once
                return {**base, "hand": self.hand + 1, "session": self.shown_session, "history": self.shown_history}
        return {**base, "hand": self.hand, "session": self.shown_session, "history": self.shown_history}

    def hand_seconds(self, speed: float) -> float:
        return 3600.0 / HANDS_AN_HOUR / speed

    def advance(self) -> bool:
        """Take the next step of the hand (a new hand from the pool when none is in progress) and publish
        it. Returns whether the hand closed."""
        if self.playing is None:
            self.playing, self.step = self.rng.choice(self.pool[1:]), 0
        self.step += 1
        closed = self.step == len(self.playing.states)
        if closed:
            self._close(self.playing)
        self.shown = self.public()
        if self.on_publish is not None:  # noted before the send: the pit may pass it on before publish returns
            self.on_publish(self.name, self.feed.boot, self.feed.seq + 1)
        self.feed.publish(self.shown)
        if closed:
            self.playing = None
            self.hand += 1
        return closed

    def _close(self, played: PlayedHand) -> None:
        record = {**played.record, "hand": self.hand}
        shown = record.get("last_hand")
        if isinstance(shown, dict):
            record["last_hand"] = shown = {**shown, "hand": self.hand}
            self.history.append(cast(HistoryHand, shown))  # the record's `last_hand`, as the history lists it
        status = str(record["status"])
        if status == "settled":
            self.session["hands"] += 1
            self.session["house_net"] += int((record.get("settlement") or {}).get("house_net", 0))
        else:
            self.session["voided"] += 1
        self._shown_closed()
        self.hands.append(HandRow(self.hand, self.game, status, 2 + len(self.hands), time.time(), record))

    def steps_left(self) -> int:
        return 0 if self.playing is None else len(self.playing.states) - self.step

    def answer(self) -> int:
        """Answer every request waiting on the command channel. Returns how many."""
        answered = 0
        while True:
            try:
                frames = self.commands.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return answered
            self.commands.send_multipart([*frames[:-1], encode_reply(self.reply(frames[-1]))])
            answered += 1

    def reply(self, frame: bytes) -> Mapping[str, Any]:
        """The reply to one request frame: `history` pages, `state`; others refused."""
        try:
            cmd = Command.decode(frame)
        except Malformed as exc:
            return error_reply(None, "malformed", str(exc))
        if cmd.cmd == "state":
            state = self.public()
            return {"id": cmd.id, "ok": True, "hand": self.hand, "seq": self.feed.seq, "phase": state["phase"],
                    "state": state}
        if cmd.cmd != "history":
            return error_reply(cmd.id, "forbidden", f"a simulated floor table takes history and state, not {cmd.cmd}")
        limit = min(int(cmd.args.get("limit", MAX_PAGE)), MAX_PAGE)
        if cmd.args.get("events"):  # the table's open and close events (service/table_events.py): its one open
            opens = [event_line(self.opened)] if self.opened.id > int(cmd.args.get("after", 0)) else []
            return {"id": cmd.id, "ok": True, "events": opens, "more": False, "last": self.opened.id}
        if cmd.args.get("newest"):
            rows = self.hands[-(limit + 1):]
            more, rows = len(rows) > limit, rows[-limit:]
        else:
            after = int(cmd.args.get("after", 0))
            start = max(0, after)  # hand N is hands[N - 1]: the numbers run 1, 2, 3 ... with no hole
            rows = self.hands[start:start + limit + 1]
            more, rows = len(rows) > limit, rows[:limit]
        after = int(cmd.args.get("after", 0))
        return {"id": cmd.id, "ok": True, "hands": [hand_line(row, self.opened) for row in rows], "more": more,
                "last": rows[-1].hand if rows else after}

    def sent(self) -> int:
        """Messages sent on the table's feeds (updates and heartbeats, every boot)."""
        return self.messages + self.feed.seq

    def close(self) -> None:
        self.feed.close()
        self.commands.close(0)


def _bound(sock: zmq.Socket[Any]) -> str:
    endpoint = sock.getsockopt(zmq.LAST_ENDPOINT)
    return endpoint.decode() if isinstance(endpoint, bytes) else str(endpoint)


class FloorSim:
    """The tables and their schedule: `run(duration_s)` plays, `restarts` says which table restarts when."""

    def __init__(self, ctx: zmq.Context[Any], tables: int, speed: float, endpoints: Callable[[int], Endpoints], *,
                 seed: int = 1, pool: int = 16, heartbeat_s: float = 1.0, prefix: str = "sim",
                 clock: Callable[[], float] = time.monotonic, first: int = 0) -> None:
        """Play the pools and bind every table: tables `first` to `first + tables - 1` of the floor (its
        share when the floor plays in several processes: `floor_split`). Raises FeedError (an address in use)."""
        self.speed = speed
        self.clock = clock
        self.restarts: list[tuple[float, str]] = []  # (seconds into the run, table), soonest first
        self.restarted: list[str] = []
        self.on_batch: Callable[[], None] | None = None  # after each batch of steps (the watcher's notes passed on)
        pools = {game: play_pool(game, pool, seed + i) for i, game in enumerate(GAMES)}
        self.tables: list[FloorTable] = []
        try:
            for i in range(first, first + tables):
                game = GAMES[i % len(GAMES)]
                body, hands = pools[game]
                self.tables.append(FloorTable(ctx, f"{prefix}-{game}-{i + 1:04d}", game, endpoints(i), hands,
                                              Event(1, 1, time.time(), "open", body), heartbeat_s,
                                              random.Random(seed * 7919 + i)))
        except (FeedError, zmq.ZMQError):
            self.close()
            raise
        self.by_socket: dict[zmq.Socket[Any], FloorTable] = {}
        self.poller = ReadySockets()
        for table in self.tables:
            self._watch(table)

    def _watch(self, table: FloorTable) -> None:
        for sock in (table.feed.snap, table.commands):
            self.poller.register(sock)
            self.by_socket[sock] = table

    def _unwatch(self, table: FloorTable) -> None:
        for sock in (table.feed.snap, table.commands):
            self.poller.unregister(sock)
            del self.by_socket[sock]

    def serve(self, timeout_ms: int) -> None:
        """One poll: every snapshot and command request waiting answered."""
        for sock in self.poller.poll(timeout_ms):
            table = self.by_socket.get(sock)
            if table is None:
                continue
            if sock is table.commands:
                table.answer()
            else:
                table.feed.serve_snapshots(sock)

    def run(self, duration_s: float) -> None:
        """Play for `duration_s` seconds: each table starts at a random moment of its first hand's time,
        steps spread over 90% of a hand's time, the rest a pause between hands. Hands in progress at the
        end are left unfinished (not closed, not counted)."""
        start = self.clock()
        end = start + duration_s
        due: list[tuple[float, int]] = []
        hand_s = 3600.0 / HANDS_AN_HOUR / self.speed
        for i, table in enumerate(self.tables):
            heapq.heappush(due, (start + table.rng.uniform(0, hand_s), i))
        restarts = sorted(self.restarts)
        beat_at = served_at = start
        while True:
            now = self.clock()
            if now >= end:
                break
            stepped = False
            while due and due[0][0] <= now + STEP_QUANTUM_S:  # a batch between two polls of every socket
                _, i = heapq.heappop(due)
                table = self.tables[i]
                if table.playing is None:
                    table.advance()
                    gap = hand_s * 0.9 / len(table.playing.states) if table.playing is not None else hand_s
                elif table.advance():
                    gap = hand_s * 0.1
                else:
                    gap = hand_s * 0.9 / len(table.playing.states)
                heapq.heappush(due, (now + gap, i))
                stepped = True
            if stepped and self.on_batch is not None:
                self.on_batch()
            while restarts and start + restarts[0][0] <= now:
                self.restart(restarts.pop(0)[1])
            if self.tables and now - beat_at >= min(0.25, self.tables[0].heartbeat_s / 4):
                for table in self.tables:
                    table.feed.tick(now)
                beat_at = now
            wait = (due[0][0] - self.clock()) if due else 0.05
            if wait >= SERVE_EVERY_S or self.clock() - served_at >= SERVE_EVERY_S:
                self.serve(max(0, min(50, int(wait * 1000))))
                served_at = self.clock()
            elif wait > 0:
                time.sleep(wait)

    def restart(self, name: str) -> None:
        """Restart one table (a new boot on the same endpoints)."""
        table = next((t for t in self.tables if t.name == name), None)
        if table is None:
            return
        self._unwatch(table)
        table.restart()
        self._watch(table)
        self.restarted.append(name)

    def linger(self, until: Callable[[], bool], timeout_s: float, every_s: float = 0.25) -> bool:
        """Keep serving feeds, snapshots and requests (heartbeats too) until `until()` (asked every
        `every_s`; it must not block: the tables are not served meanwhile) or the timeout."""
        deadline = self.clock() + timeout_s
        checked = beat_at = 0.0
        while self.clock() < deadline:
            self.serve(20)
            now = self.clock()
            if self.tables and now - beat_at >= min(0.25, self.tables[0].heartbeat_s / 4):
                for table in self.tables:
                    table.feed.tick(now)
                beat_at = now
            if now - checked >= every_s:
                checked = now
                if until():
                    return True
        return until()

    def hands(self) -> int:
        return sum(len(t.hands) for t in self.tables)

    def last_hands(self) -> dict[str, int]:
        """Each table's last closed hand (its hands run 1 to n)."""
        return {t.name: len(t.hands) for t in self.tables}

    def messages(self) -> int:
        return sum(t.sent() for t in self.tables)

    def close(self) -> None:
        if hasattr(self, "poller"):  # not when a bind failed
            self.poller.close()
        for table in self.tables:
            table.close()
