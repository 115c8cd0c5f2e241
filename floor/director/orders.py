"""The director's orders sent to the tables until taken (`OrderSender`); the tables' latest states (`TableWatcher`).

`OrderSender`, a thread of its own with its own sockets, sends each table the first of its orders
(`director_seating.Order`: `open`, `seat` `leave` / `move_in`, `hold`, `race`, `close`) under the order's
id, then the next once the table has taken it (`ok`, or `duplicate`: taken before a restart); a
table that does not answer, or refuses (a `seat` step while a hand is played: "between hands
only"), is asked again every `RETRY_S`. Each order taken is queued for the director's thread, which
journals it (`acked`) so a restart sends only what was not taken; a re-send of one taken but not yet
journaled is answered `duplicate` by the table, applied once. An `open` refused for a sign-off (the
clock's level reached the table between the director's `level` and its `open`, so the table's stakes
are no longer the open's) has its stakes sent as the table's level again and is sent at once after
it: it never needs a sign-off for the clock's doing, and is not asked again for ever.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from typing import Any, cast

import zmq

from floor.director.config import TableLink
from floor.director.feeds import FeedWatcher
from floor.director.seating import Order
from protocol.commands import CommandClient
from protocol.feed import FeedClient
from protocol.messages import PublicState, TableFields
from protocol.requests import Level, Open

log = logging.getLogger("croupier.director")

RETRY_S = 2.0
"""How long an order refused or unanswered waits before it is sent again."""

RELEVELS = 5
"""How many times an `open` refused for a sign-off has its stakes sent again as the table's level."""


class OrderSender(threading.Thread):
    """Sends every table its orders in turn, each until taken; owns its own context and sockets."""

    def __init__(self, tables: tuple[TableLink, ...], key: str | None, timeout_s: float = 2.0,
                 tournament: str | None = None) -> None:
        super().__init__(name="director-orders", daemon=True)
        self.links = {t.name: t for t in tables}
        self.key = key
        self.tournament = tournament
        self._relevels: dict[str, int] = {}   # an open's id -> the levels sent again before it
        self.timeout_s = timeout_s
        self.taken: queue.SimpleQueue[Order] = queue.SimpleQueue()
        self.refusals: dict[str, str] = {}   # table -> why its first order was last refused
        self._lock = threading.Lock()
        self._orders: dict[str, list[Order]] = {}
        self._sent: set[str] = set()           # taken here, maybe not journaled yet
        self._next_try: dict[str, float] = {}
        self._changed = threading.Event()
        self.stopping = threading.Event()

    def want(self, orders: Mapping[str, list[Order]]) -> None:
        """The orders still to be taken, per table (from the director's thread)."""
        with self._lock:
            if dict(orders) != self._orders:
                self._orders = {t: list(o) for t, o in orders.items()}
                self._changed.set()

    def _due(self) -> list[Order]:
        now = time.monotonic()
        with self._lock:
            heads = [next((o for o in orders if o.id not in self._sent), None) for orders in self._orders.values()]
        return [o for o in heads if o is not None and self._next_try.get(o.table, 0.0) <= now]

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        clients: dict[str, CommandClient] = {}
        try:
            while not self.stopping.is_set():
                self._changed.clear()
                due = self._due()
                for order in due:
                    if self.stopping.is_set():
                        break
                    self._send(ctx, clients, order)
                if not self._due():
                    self._changed.wait(0.5)
        except Exception:  # a sender never dies quietly
            log.exception("director: sending the tables their orders failed")
        finally:
            for client in clients.values():
                client.close()
            ctx.destroy(linger=0)

    def _send(self, ctx: zmq.Context[Any], clients: dict[str, CommandClient], order: Order) -> None:
        link = self.links.get(order.table)
        if link is None:
            log.error("director: %s is not a table of [[director.tables]]: order %s not sent", order.table, order.id)
            self._next_try[order.table] = time.monotonic() + 3600
            return
        if order.table not in clients:
            clients[order.table] = CommandClient(ctx, link.commands, self.timeout_s, name="director", key=self.key,
                                                 server_key=link.server_key)
        client = clients[order.table]
        try:
            reply = client.request(order.cmd, req_id=order.id, **order.args)
            if not reply.get("ok") and self._level_again(client, order, reply):
                reply = client.request(order.cmd, req_id=order.id, **order.args)
        except TimeoutError:
            log.warning("director: table %s did not answer %s (%s)", order.table, order.cmd, order.id)
            clients.pop(order.table).close()
            self._next_try[order.table] = time.monotonic() + RETRY_S
            return
        if reply.get("ok"):
            with self._lock:
                self._sent.add(order.id)
            self.refusals.pop(order.table, None)
            self.taken.put(order)
            log.info("director: table %s took %s %s", order.table, order.cmd, order.args)
            return
        said = f"{order.id}: {reply.get('code')}: {reply.get('error')}"
        again = self.refusals.get(order.table) == said   # said once at warning; the retries quieter
        self.refusals[order.table] = said
        log.log(logging.DEBUG if again else logging.WARNING, "director: table %s refused %s (%s): %s; asked again "
                "every %.0f s", order.table, order.cmd, order.id, reply.get("error"), RETRY_S)
        self._next_try[order.table] = time.monotonic() + RETRY_S

    def _level_again(self, client: CommandClient, order: Order, reply: Mapping[str, Any]) -> bool:
        """An `open` refused for a sign-off: a level of the clock reached the table after the director's
        own `level` (the table's stakes are not the open's). The open's stakes go to the table as its
        level again (a new id each time: `<open's id>-level-again-<k>`), so that the open sent next
        changes no term. Returns whether the table took them; each open is given `RELEVELS` tries, then
        it is only asked again (a sign-off needed for another term: the table's configuration's)."""
        stakes = cast(Open, order.args).get("stakes") if order.cmd == "open" else None  # an open's arguments
        if stakes is None or reply.get("code") != "forbidden":
            return False
        tries = self._relevels.get(order.id, 0)
        while tries < RELEVELS:
            tries += 1
            self._relevels[order.id] = tries
            args: Level = {"stakes": stakes}
            if self.tournament:
                args["tournament"] = self.tournament
            level = client.request("level", req_id=f"{order.id}-level-again-{tries}", **args)
            if level.get("ok") and not level.get("duplicate"):
                log.warning("director: table %s refused %s for a sign-off: its level was changed after the "
                            "director's; the open's stakes sent as its level again", order.table, order.id)
                return True
            if not level.get("ok"):
                return False
        return False

    def stop(self) -> None:
        self.stopping.set()
        self._changed.set()


class TableWatcher(FeedWatcher):
    """`FeedWatcher` that also keeps each table's latest public state (its hold, button, stacks, phase)."""

    def __init__(self, tables: tuple[TableLink, ...], key: str | None, timeout_s: float = 1.0) -> None:
        super().__init__(tables, key, timeout_s)
        self._latest: dict[str, PublicState] = {}
        self._latest_lock = threading.Lock()

    def _look(self, name: str, client: FeedClient, seen: dict[str, int]) -> None:
        super()._look(name, client, seen)   # queued before it is the latest: a hand settled is never missed
        with self._latest_lock:
            self._latest[name] = cast(PublicState, dict(client.state or {}))

    def latest(self, table: str) -> PublicState:
        """The table's public state as its feed last showed it ({} before any)."""
        with self._latest_lock:
            return cast(PublicState, dict(self._latest.get(table, {})))


def next_hand(state: TableFields) -> int | None:
    """The next hand a table's public state will begin, when it is between hands (None while a hand is played)."""
    hand = state.get("hand")
    if not isinstance(hand, int):
        return None
    if state.get("phase") == "settled":
        return hand + 1
    return hand if state.get("phase") in ("waiting", "closed", "voided") else None


def held_between_hands(state: TableFields, reason: str | None = None) -> bool:
    """The table is held (for `reason`, when given) and waits between hands: no hand can begin."""
    hold = state.get("hold")
    upcoming = next_hand(state)
    if not isinstance(hold, Mapping) or upcoming is None or upcoming < int(hold.get("from_hand") or 0):
        return False
    return reason is None or hold.get("reason") == reason
