"""The director reading eliminations from the tables' public feeds: who sits where (`seated`), and each settled hand's players left with no chips taken `out`.

The pit tells the director who sits where (`seated`: a table and its seats, seat -> player; a
director event like `enter`, replayed at start). Each `[[director.tables]]` entry with `public` and
`snapshot` has its public feed followed (`protocol/feed.py`'s `FeedClient`, over CURVE with the
director's `key` and the table's `server_key`) by `FeedWatcher`, a thread of its own. When a feed
shows a poker hand settled (`phase` `settled`, `results.net`) in which a seated player still in has a
stack of 0, the director's thread (`director_floorman.py`) takes one `out` for that hand: those
players, each with his stack at the start of the hand (his stack less his net: 0 - net), so players
out in one hand finish by those stacks as the rules say. The `out` event also holds the table and the hand's number; the last hand
taken per table is replayed from them, so a hand is taken once, a restart or a snapshot that shows it
again notwithstanding (only a hand numbered above the table's last one taken is taken).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgpack
import zmq

from engine.errors import TournamentError
from floor.director.config import TableLink
from protocol.commands import MAX_REQUEST_BYTES, Malformed, id_problem, request_id_of
from protocol.feed import FeedClient

log = logging.getLogger("croupier.director")

RETRY_S = 2.0
"""How often a table's feed that did not answer its snapshot is asked again."""


def request_id(frame: bytes) -> Any:
    """The id to echo in a refusal (`request_id_of`), also for a request whose maps have seat numbers
    as keys (`seated`), which the command channel's own decoding does not take."""
    rid = request_id_of(frame)
    if rid is not None or len(frame) > MAX_REQUEST_BYTES:
        return rid
    try:
        data = msgpack.unpackb(frame, raw=False, strict_map_key=False, max_str_len=4096, max_bin_len=0,
                               max_array_len=64, max_map_len=64, max_ext_len=0)
    except Exception:  # garbage: no id to echo
        return None
    rid = data.get("id") if isinstance(data, dict) else None
    return rid if id_problem(rid) is None else None


def seated_argument(cmd: str, name: str, value: Any) -> Any:
    """A `seated` request's `table` (a name) or `seats` (seat number -> player, seats 1 to 10). Raises Malformed."""
    if name == "table":
        if not isinstance(value, str) or not value.strip() or len(value) > 64:
            raise Malformed(f"{cmd}: table must be a table's name of 1 to 64 characters")
        return value
    if not isinstance(value, dict):
        raise Malformed(f"{cmd}: seats must be a map of seat number to player ({{}}: nobody seated)")
    seats: dict[str, str] = {}
    for seat, player in value.items():
        number = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        if isinstance(seat, str) and seat.isdigit():
            number = int(seat)
        if number is None or not 1 <= number <= 10:
            raise Malformed(f"{cmd}: seats: {seat!r} is not a seat number (1 to 10)")
        if not isinstance(player, str) or not player.strip() or len(player) > 64:
            raise Malformed(f"{cmd}: seats: seat {number}: a player's name of 1 to 64 characters")
        seats[str(number)] = player
    return seats


class Seating:
    """Who sits where at each table and the last hand taken from each table's feed, from the events."""

    def __init__(self, tables: tuple[str, ...], seats_per_table: int) -> None:
        self.names = tables
        self.seats_per_table = seats_per_table
        self.tables: dict[str, dict[int, str]] = {}
        self.hands: dict[str, int] = {}  # table -> the last hand whose players out were taken from its feed

    def seat(self, table: str, seats: Mapping[str, str], alive: set[str]) -> None:
        """The pit's word on `table`: these players in these seats (and nobody else). A player seated
        here leaves any other table (a move). Raises TournamentError (nothing changed)."""
        if table not in self.names:
            raise TournamentError(f"{table!r} is not a table of the tournament ({', '.join(self.names)})")
        chart = {int(seat): str(player) for seat, player in seats.items()}
        for seat, player in sorted(chart.items()):
            if seat > self.seats_per_table:
                raise TournamentError(f"seat {seat}: the tables have {self.seats_per_table} seats")
            if player not in alive:
                raise TournamentError(f"seat {seat}: {player} is not in the tournament")
        twice = sorted({p for p in chart.values() if list(chart.values()).count(p) > 1})
        if twice:
            raise TournamentError(f"{twice[0]} is given two seats at {table}")
        for other, their in self.tables.items():
            if other != table:
                self.tables[other] = {s: p for s, p in their.items() if p not in chart.values()}
        self.tables[table] = chart

    def leave(self, players: Mapping[str, int], table: Any = None, hand: Any = None) -> None:
        """Players out leave their seats; an `out` taken from a table's feed moves its last hand on."""
        for name, chart in self.tables.items():
            self.tables[name] = {s: p for s, p in chart.items() if p not in players}
        if isinstance(table, str) and isinstance(hand, int):
            self.hands[table] = max(hand, self.hands.get(table, 0))


@dataclass(frozen=True, slots=True)
class Settled:
    """A settled hand seen on a table's feed: the table, the hand's number, each seat's (stack, net)."""

    table: str
    hand: int
    seats: dict[int, tuple[int, int]]


def settled_hand(table: str, state: Mapping[str, Any]) -> Settled | None:
    """The settled poker hand a public state shows (None for any other state)."""
    results = state.get("results")
    hand = state.get("hand")
    if state.get("phase") != "settled" or not isinstance(results, Mapping) or not isinstance(hand, int):
        return None
    stacks = {spot.get("seat"): spot.get("stack") for spot in state.get("spots") or () if isinstance(spot, Mapping)}
    seats: dict[int, tuple[int, int]] = {}
    for row in results.get("net") or ():
        seat, net = (row.get("seat"), row.get("net")) if isinstance(row, Mapping) else (None, None)
        stack = stacks.get(seat)
        if isinstance(seat, int) and isinstance(net, int) and isinstance(stack, int):
            seats[seat] = (stack, net)
    return Settled(table, hand, seats) if seats else None


def out_of(settled: Settled, seating: Seating, alive: set[str]) -> dict[str, int]:
    """The seated players still in whom the hand left with no chips, each with his stack at its start."""
    chart = seating.tables.get(settled.table, {})
    if settled.hand <= seating.hands.get(settled.table, 0):
        return {}
    return {chart[seat]: -net for seat, (stack, net) in sorted(settled.seats.items())
            if stack == 0 and seat in chart and chart[seat] in alive}


class FeedWatcher(threading.Thread):
    """Follows the public feed of every table that has one, and queues each settled hand it shows
    (once a hand per boot of the watcher); owns its own context and sockets."""

    def __init__(self, tables: tuple[TableLink, ...], key: str | None, timeout_s: float = 1.0) -> None:
        super().__init__(name="director-feeds", daemon=True)
        self.tables = tuple(t for t in tables if t.public and t.snapshot)
        self.key = key
        self.timeout_s = timeout_s
        self.settled: queue.SimpleQueue[Settled] = queue.SimpleQueue()
        self.stopping = threading.Event()

    def run(self) -> None:
        if not self.tables:
            return
        ctx: zmq.Context[Any] = zmq.Context()
        clients: dict[str, FeedClient] = {}
        asked: dict[str, float] = {}
        seen: dict[str, int] = {}
        try:
            for table in self.tables:
                clients[table.name] = FeedClient(ctx, str(table.public), str(table.snapshot), self.timeout_s,
                                                 key=self.key, server_key=table.server_key)
            poller = zmq.Poller()
            for client in clients.values():
                poller.register(client.sub, zmq.POLLIN)
            while not self.stopping.is_set():
                for name, client in clients.items():
                    if client.state is None and time.monotonic() - asked.get(name, -RETRY_S) >= RETRY_S:
                        asked[name] = time.monotonic()
                        self._read(name, client, seen, snapshot=True)
                ready = dict(poller.poll(200))
                for name, client in clients.items():
                    if client.state is not None and client.sub in ready:
                        self._read(name, client, seen)
        except Exception:  # a reader never dies quietly
            log.exception("director: following the tables' feeds failed")
        finally:
            for client in clients.values():
                client.close()
            ctx.destroy(linger=0)

    def _read(self, name: str, client: FeedClient, seen: dict[str, int], snapshot: bool = False) -> None:
        """Take what the table's feed has (its snapshot first), queueing a settled hand not queued yet."""
        try:
            if snapshot:
                client.fetch_snapshot()
                self._look(name, client, seen)
                return
            while client.receive(0) is not None:  # each message looked at: a hand settled then left is seen
                self._look(name, client, seen)
        except TimeoutError:
            log.warning("director: table %s's feed gave no snapshot; asked again in %.0f s", name, RETRY_S)
            client.state = None

    def _look(self, name: str, client: FeedClient, seen: dict[str, int]) -> None:
        settled = settled_hand(name, client.state or {})
        if settled is not None and seen.get(name) != settled.hand:
            seen[name] = settled.hand
            self.settled.put(settled)

    def stop(self) -> None:
        self.stopping.set()
