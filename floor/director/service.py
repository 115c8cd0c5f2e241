"""`croupier tournament`: the tournament director beside the pit, running the clock, publishing it and the standings, commanding the tables.

One thread owns the tournament (`Director.run`): it takes the director's requests on a ROUTER,
answers snapshot requests, and publishes the clock and the standings on a PUB (`protocol/feed.py`'s
frames and clone pattern: `{"table": <tournament name>, "boot", "seq", "kind", ...view}`; the view
is `TournamentState.view`) at every change and once a second while the clock runs, so a late joiner
or a wall screen is never more than a second behind. The state is `director_state.py`'s events in
`DIR/director.sqlite`, replayed at start: a restart finds the clock where it was.

Requests (one msgpack map a frame, answered with one; `protocol/commands/codec.py`'s framing):

    {"id": ..., "cmd": "start" | "pause" | "resume" | "state" | "close", "auth": {"user", "pin"} (optional)}
    {"id": ..., "cmd": "adjust", "seconds": int, "auth": ...}
    {"id": ..., "cmd": "enter", "player": str}
    {"id": ..., "cmd": "out", "players": {player: stack at the start of the hand}}
    {"id": ..., "cmd": "seated", "table": str, "seats": {seat: player}}
    {"id": ..., "cmd": "seat-draw"}       the seats drawn and the tables opened (`director_floorman.py`)
    -> {"id": ..., "ok": true, "event": N, "state": view} | {"id": ..., "ok": false, "code", "error"}

The clock's steps (`start`, `pause`, `resume`, `adjust`) need a supervisor's sign-off whoever sends
them (`protocol/signoff.py`, against `[director] users`); entries, eliminations and closing
registration are the pit's (`DIRECTOR_RIGHTS`). A request over CURVE acts in its certificate's role, a
local one in `[director] role` (default `pit`); each is audited taken or refused (`director_gate.py`).
With `[director] db` the tournament's record goes to the floor's archive once it is over
(`tournament_record.py`).

The tables: at each new level (on a break, the level after it) `TableCommander`, a thread of its
own, sends every table of `[[director.tables]]` the `level` request (`tables/levels.py`: the blinds
and ante, in force from the table's next hand) under the id `<tournament>-level-<n>`, so a re-send
after a restart is applied once; a table that does not answer or refuses is tried again every
`RETRY_S`. Each table's last level taken is in the view (`tables`). A table with `public` and
`snapshot` has its feed followed (`director_feeds.py`): a seated player left with no chips in a
settled hand is taken `out` by the director itself, audited as the pit's `out` is. Once the seats
are drawn (`seat-draw`) the director opens the tables, breaks and balances them and plays
hand-for-hand itself (`director_floorman.py`), each table's orders journaled and sent until taken;
a player entered after the draw is seated by it too (`director_entries.py`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgpack
import zmq

from engine.errors import TournamentError
from engine.tournament.config import BlindLevel
from floor.director.config import DirectorConfig, TableLink
from floor.director.entries import entry_body
from floor.director.feeds import request_id, seated_argument
from floor.director.floorman import Floorman
from floor.director.gate import DIRECTOR_PER_TURN, DirectorGate
from floor.director.state import CLOCK_KINDS, DirectorStore, TournamentState
from floor.reports import DirectorView, TableLevel
from floor.tournament_record import TournamentRecorder
from protocol.access import Caller
from protocol.commands import (
    MAX_REQUEST_BYTES, Auth, Command, CommandClient, Malformed, encode_reply, error_reply, id_problem, too_large,
)
from protocol.config import RightsConfig
from protocol.feed import Feed
from protocol.requests import Level
from protocol.signoff import SignOff
from protocol.signoff_holds import HOLDS_FILE

log = logging.getLogger("croupier.director")

DIRECTOR_COMMANDS = ("start", "pause", "resume", "adjust", "enter", "out", "close", "seated", "seat-draw", "state")
DIRECTOR_RIGHTS = RightsConfig(dealer=(), supervisor=DIRECTOR_COMMANDS,
                               pit=("enter", "out", "close", "seated", "seat-draw", "state"),
                               surveillance=("state",), technician=("state",), display=("state",), table=())
"""Who may send what to the director: the clock is the supervisor's (signed off), the field the pit's."""

PUBLISH_S = 1.0
RETRY_S = 2.0
_MAX_PLAYERS_OUT = 64


def parse_request(frame: bytes) -> Command:
    """One director request, checked. Raises Malformed saying what is wrong."""
    if len(frame) > MAX_REQUEST_BYTES:
        raise Malformed(too_large(len(frame), MAX_REQUEST_BYTES))
    try:
        data = msgpack.unpackb(frame, raw=False, max_str_len=4096, max_bin_len=0, max_array_len=64,
                               max_map_len=_MAX_PLAYERS_OUT, max_ext_len=0, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise Malformed(f"not msgpack: {exc}") from None
    if not isinstance(data, dict):
        raise Malformed("a request is a msgpack map")
    problem = id_problem(data.get("id"))
    if problem is not None:
        raise Malformed(problem)
    cmd = data.get("cmd")
    if cmd not in DIRECTOR_COMMANDS:
        raise Malformed(f"unknown cmd {cmd!r} (known: {', '.join(DIRECTOR_COMMANDS)})")
    allowed = {"adjust": ("seconds",), "enter": ("player",), "out": ("players",),
               "seated": ("table", "seats")}.get(cmd, ())
    extra = sorted(set(map(str, data)) - set(allowed) - {"id", "cmd", "auth"})
    if extra:
        raise Malformed(f"{cmd}: unknown argument(s) {', '.join(extra)}")
    args: dict[str, Any] = {}
    for name in allowed:
        if name not in data:
            raise Malformed(f"{cmd}: missing {name}")
        args[name] = _argument(cmd, name, data[name])
    auth = Auth.from_value(data["auth"]) if data.get("auth") is not None else None
    return Command(cmd=str(cmd), args=args, id=data.get("id"), auth=auth)


def _argument(cmd: str, name: str, value: Any) -> Any:
    if name == "seconds":
        if isinstance(value, bool) or not isinstance(value, int) or value == 0:
            raise Malformed(f"{cmd}: seconds must be a whole number of seconds, not {value!r}")
        return value
    if name == "player":
        if not isinstance(value, str) or not value.strip() or len(value) > 64:
            raise Malformed(f"{cmd}: player must be a name of 1 to 64 characters")
        return value
    if name in ("table", "seats"):
        return seated_argument(cmd, name, value)
    if not isinstance(value, dict) or not value:
        raise Malformed(f"{cmd}: players must be a map of player to his stack at the start of the hand")
    for player, stack in value.items():
        if not isinstance(player, str) or isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
            raise Malformed(f"{cmd}: players: {player!r}: a player's name and a stack of 0 chips or more")
    return dict(value)


def level_request(tournament: str, number: int, level: BlindLevel) -> Level:
    """The `level` request a table gets for level `number` (`tables/levels.py`)."""
    return {"stakes": {"blinds": [level.small_blind, level.big_blind], "antes": level.ante},
            "level": number, "tournament": tournament}


class TableCommander(threading.Thread):
    """Sends the level in force to every table until each has taken it; owns its own sockets."""

    def __init__(self, tournament: str, tables: tuple[TableLink, ...], key: str | None,
                 timeout_s: float = 2.0) -> None:
        super().__init__(name="director-tables", daemon=True)
        self.tournament = tournament
        self.tables = tables
        self.key = key
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._wanted: tuple[int, BlindLevel] | None = None
        self.taken: dict[str, int] = {t.name: 0 for t in tables}  # table -> the last level it took
        self._changed = threading.Event()
        self._opened: set[str] = set()
        self._waiting: set[str] = set()
        self.stopping = threading.Event()

    def want(self, level: tuple[int, BlindLevel] | None) -> None:
        """The level the tables are to play from their next hand (from the director's thread)."""
        with self._lock:
            if level != self._wanted:
                self._wanted = level
                self._changed.set()

    def again(self, table: str) -> None:
        """`table` was opened by the director (an open forgets its level): the level in force goes to it
        again, under ids of their own (`<tournament>-level-<n>-opened`)."""
        with self._lock:
            self.taken[table] = 0
            self._opened.add(table)
            self._waiting.discard(table)
            self._changed.set()

    def hold_back(self, table: str) -> None:
        """No level to `table` until `again`: the director's own open for it is on its way."""
        with self._lock:
            self._waiting.add(table)

    def status(self) -> list[TableLevel]:
        with self._lock:
            return [{"name": t.name, "level": self.taken[t.name]} for t in self.tables]

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        clients: dict[str, CommandClient] = {}
        try:
            while not self.stopping.is_set():
                with self._lock:
                    wanted = self._wanted
                    due = [t for t in self.tables if wanted is not None and self.taken[t.name] != wanted[0]
                           and t.name not in self._waiting]
                self._changed.clear()
                for table in due:
                    if self.stopping.is_set():
                        break
                    assert wanted is not None
                    if table.name not in clients:
                        clients[table.name] = CommandClient(ctx, table.commands, self.timeout_s, name="director",
                                                            key=self.key, server_key=table.server_key)
                    self._send(clients, table, *wanted)
                self._changed.wait(RETRY_S if due else 1.0)
        except Exception:  # a reader never dies quietly
            log.exception("director: commanding the tables failed")
        finally:
            for client in clients.values():
                client.close()
            ctx.destroy(linger=0)

    def _send(self, clients: dict[str, CommandClient], table: TableLink, number: int, level: BlindLevel) -> None:
        request = level_request(self.tournament, number, level)
        try:
            opened = "-opened" if table.name in self._opened else ""
            reply = clients[table.name].request("level", req_id=f"{self.tournament}-level-{number}{opened}", **request)
        except TimeoutError:
            log.warning("director: table %s did not answer the level %d request", table.name, number)
            clients.pop(table.name).close()
            return
        if reply.get("ok"):
            with self._lock:
                self.taken[table.name] = number
            log.info("director: table %s takes level %d (%d/%d, ante %d) from its next hand", table.name, number,
                     level.small_blind, level.big_blind, level.ante)
        else:
            log.warning("director: table %s refused level %d: %s", table.name, number, reply.get("error"))

    def stop(self) -> None:
        self.stopping.set()
        self._changed.set()


class Director:
    """The director's thread: the state, the feed, the command socket and the tables' commander."""

    def __init__(self, cfg: DirectorConfig, state_dir: str, ctx: zmq.Context[Any],
                 clock: Callable[[], float] = time.time) -> None:
        """Open the store, replay it, open the audit log, bind the sockets (CURVE servers with the keys).
        Raises DirectorError, FeedError, ConfigError (a key file) or zmq.ZMQError; nothing is left open."""
        self.cfg = cfg
        self.clock = clock
        self.state = TournamentState(cfg.tournament)
        self.store = DirectorStore(state_dir, cfg.tournament_text)
        opened: list[Callable[[], None]] = [self.store.close]
        try:
            self.replayed = self.store.replay(self.state)
            self.gate = DirectorGate(cfg, state_dir, ctx)
            opened.append(self.gate.close)
            self.feed = Feed(ctx, cfg.tournament.name, public=cfg.public, snapshot=cfg.snapshot,
                             heartbeat_s=cfg.heartbeat_s, keys=self.gate.keys)
            opened.append(self.feed.close)
            self.gate.guard(self.feed)
            self.commands = self.gate.bind_commands(ctx, cfg.commands)
        except BaseException:
            for close in reversed(opened):
                close()
            raise
        self.signoff = SignOff(cfg.users, DIRECTOR_RIGHTS, audit=self.gate.audit,
                               holds_file=Path(state_dir) / HOLDS_FILE)  # held sign-offs kept across restarts
        self.caller = Caller(cfg.role)
        self.record = TournamentRecorder(cfg, self.store) if cfg.db else None
        self.commander = TableCommander(cfg.tournament.name, cfg.tables, cfg.key)
        self.floorman = Floorman(self)  # the tables' feeds followed, the seats drawn, players moved, hand-for-hand
        self._last: DirectorView | None = None
        self._last_sent = 0.0
        self.stopping = threading.Event()

    def view(self) -> DirectorView:
        return {**self.state.view(self.clock()), "tables": self.commander.status(), "floor": self.state.plan.view()}

    def handle(self, cmd: Command, caller: Caller | None = None) -> Mapping[str, Any]:
        """Admit, take and answer one request (the reply map), from `caller` (default: a local client
        in `[director] role`); the audit log gets it, taken or refused (`director_gate`)."""
        caller = caller or self.caller
        reply, signer = self._take(cmd, caller)
        self.gate.audited(caller, cmd.cmd, cmd.args, reply, signer)
        return reply

    def _take(self, cmd: Command, caller: Caller) -> tuple[Mapping[str, Any], str | None]:
        if cmd.cmd in CLOCK_KINDS and cmd.auth is None:
            return self.signoff.needs_sign_off(cmd, caller, f"the clock's {cmd.cmd}"), None
        admitted = self.signoff.admit(cmd, caller)
        if admitted.refusal is not None:
            return admitted.refusal, None
        signer = admitted.signed_off["user"] if admitted.signed_off else None
        if cmd.cmd == "state":
            return {"id": cmd.id, "ok": True, "state": self.view()}, signer
        if cmd.cmd == "seat-draw" and self.state.plan.drawn:  # the same draw answered again: drawn once
            return {"id": cmd.id, "ok": True, "duplicate": True, "state": self.view()}, signer
        try:
            args = (self.floorman.draw() if cmd.cmd == "seat-draw"   # the draws' seeds are the director's
                    else entry_body(self.state, cmd.args, self.clock()) if cmd.cmd == "enter" else cmd.args)
            event = self.store.take(self.state, cmd.cmd, args, self.clock(), admitted.signed_off)
        except TournamentError as exc:
            return error_reply(cmd.id, "illegal", str(exc)), signer
        log.info("director: %s %s%s", cmd.cmd, cmd.args or "", f" (signed off by {signer})" if signer else "")
        self.publish(force=True)
        if self.record is not None:
            self.record.when_over(self.state)
        return {"id": cmd.id, "ok": True, "event": event, "state": self.view()}, signer

    def publish(self, force: bool = False) -> None:
        """The view on the feed when it changed (or, while the clock runs, once every PUBLISH_S)."""
        view = self.view()
        now = time.monotonic()
        if force or view != self._last and (view["running"] is False or now - self._last_sent >= PUBLISH_S
                                            or _shape(view) != _shape(self._last)):
            self.feed.publish(view)
            self._last, self._last_sent = view, now
        self.commander.want(self.state.level_in_force(self.clock()))

    def _serve_commands(self) -> None:
        for _ in range(DIRECTOR_PER_TURN):  # the rest at the next turn: the clock goes out meanwhile
            try:
                received = self.commands.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            caller = self.gate.caller(received[-1])
            if caller is None:  # a key revoked since it connected: not taken, no reply
                continue
            envelope, payload, refusal = self.gate.screen(received, caller)  # too big, not one frame, busy
            if refusal is not None:
                self.commands.send_multipart([*envelope, encode_reply(refusal)])
                continue
            frame = bytes(payload)
            reply: Mapping[str, Any]
            try:
                reply = self.handle(parse_request(frame), caller)
            except Malformed as exc:
                reply = error_reply(request_id(frame), "malformed", str(exc))
                self.gate.audited(caller, None, {}, reply)
            self.commands.send_multipart([*envelope, encode_reply(reply)])

    def run(self) -> None:
        """Serve until `stopping` is set."""
        self.commander.start()
        self.floorman.start()
        if self.record is not None:
            self.record.start()
            self.record.when_over(self.state)  # over before a restart: written unless it is already
        self.publish(force=True)
        poller = zmq.Poller()
        poller.register(self.commands, zmq.POLLIN)
        poller.register(self.feed.snap, zmq.POLLIN)
        if self.gate.zap is not None:
            poller.register(self.gate.zap.socket, zmq.POLLIN)
        try:
            while not self.stopping.is_set():
                ready = dict(poller.poll(100))
                self.gate.turn()
                if self.commands in ready:
                    self._serve_commands()
                self.floorman.turn()
                if self.feed.snap in ready:
                    self.feed.serve_snapshots(self.feed.snap)
                self.publish()
                self.feed.tick()
        finally:
            self.commander.stop()
            self.floorman.stop()
            if self.record is not None:
                self.record.stop()
            self.commander.join(timeout=5.0)
            self.feed.close()
            self.commands.close(0)
            self.store.close()
            self.gate.close()


def _shape(view: DirectorView | None) -> tuple[Any, ...]:
    """What is more than the seconds ticking: a change of stage, of the field, of the tables."""
    if view is None:
        return ()
    return tuple((k, repr(v)) for k, v in sorted(view.items()) if k not in ("left_s", "next_break"))
