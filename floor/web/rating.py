"""The pit's rating steps relayed from /pit to a table: a rating session opened, closed or adjusted, signed off by a supervisor at the pit.

`GET /pit/rating.json` -> `{"tables": [names]}`: the tables whose command channel this process knows
(`[[web.tables]] commands`), to a user signed in with a role of `ROLES` (anyone else: none). `POST /pit/rating` (JSON, at most `MAX_BODY` bytes) from a user signed in with a
role of `ROLES` (`auth.require`: 401 signed out, 403 another role; the guard's origin checks as every POST):

    {"table": NAME, "id": PAGE_ID, "rating": {seat, action, card?, hands?, average_bet?, start?, end?, reason?, session?},
     "auth": {"user": NAME, "pin": PIN}}

`rating` is the `rating` command's arguments (`protocol/commands/arguments.py`, docs/feed.md), an `adjust` of a closed
`session` sent with the floor's gaming day added (`floor_day`: `day_starts`, `time_zone`); the relay sends it to the
table's command endpoint as this process's own client (`[web] key`, role `pit`, over CURVE with the table's
`server_key`), under the request id `pit-web:USER:PAGE_ID` (a page's request sent again is applied once; a
user's id is never another's) and with `auth` plus `at`, the signed-in user, so the controller checks the PIN
(`protocol/signoff.py`), never this process, and holds a wrong-PIN flood against that user at this key (the key
listed in the table's `[security] signed_in_relays`: its users' failures together space its PIN checks, never hold
it; a reply whose failure began or slowed that throttle, `throttled_s`, raises the pit's alert, `PitHub.signoff_alert`,
with the table's name). The answer is the controller's reply as it is (`ok`, or `code`, `error`, `say`), or `{"ok": false, "code":
"no_answer" | "malformed" | "unknown_table", "error", "say"}` from the relay (400 for what it refused, 504 for no
answer). Each step is logged with who sent it and who signed it, the card masked; never a PIN.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import zmq
from aiohttp import web

from engine.ratings import mask_card
from pages import auth
from pages.config import TableFeed
from protocol.commands import MAX_ID_CHARS, CommandClient

log = logging.getLogger("croupier.pit.rating")
ALERT: web.AppKey[Callable[[dict[str, Any]], None]] = web.AppKey("rating_alert")
"""Told when a table's reply says a failure began or slowed its throttle of this process's key (the pit's alert)."""

ROLES = ("pit", "supervisor")
"""Who may send a rating step from /pit (the supervisor's PIN signs it off besides)."""
MAX_BODY = 4096
"""The longest request body taken (a step is under 300 bytes)."""
TIMEOUT_S = 2.5
"""How long the relay waits for the table's answer (twice: the request is sent again once under its id)."""
FIELDS = ("seat", "action", "card", "hands", "average_bet", "start", "end", "reason", "session")
"""The `rating` command's arguments a page may send."""
_PAGE_ID = re.compile(r"[A-Za-z0-9_-]{1,24}")


@dataclass(slots=True)
class RatingRelay:
    """The tables' command endpoints and this process's keys; one request at a time, in its own thread."""

    tables: Mapping[str, TableFeed]
    key: str | None = None
    timeout_s: float = TIMEOUT_S
    day: Callable[[], dict[str, str] | None] = lambda: None  # the floor's gaming day, as the archive's figures say it
    ctx: zmq.Context[Any] = field(default_factory=zmq.Context.instance)
    _thread: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="pit-rating"))

    @classmethod
    def of(cls, tables: tuple[TableFeed, ...], key: str | None,
           day: Callable[[], dict[str, str] | None] = lambda: None) -> RatingRelay:
        """The relay of the `[[web.tables]]` that give their `commands`; `day`: the floor's gaming day (`floor_day`)."""
        return cls({t.name: t for t in tables if t.commands is not None}, key, day=day)

    def send(self, table: str, req_id: str, args: Mapping[str, Any], signoff: Mapping[str, str]) -> dict[str, Any]:
        """In the relay's thread: one `rating` request and its reply. Raises TimeoutError."""
        feed = self.tables[table]
        assert feed.commands is not None
        client = CommandClient(self.ctx, feed.commands, timeout_s=self.timeout_s, name="pit-web",
                               key=self.key if feed.server_key else None, server_key=feed.server_key)
        try:
            return client.request("rating", req_id=req_id, retries=1, auth=signoff, **args)
        finally:
            client.close()

    async def relay(self, table: str, req_id: str, args: Mapping[str, Any], signoff: Mapping[str, str]) -> dict[str, Any]:
        """One step relayed from the loop; an `adjust` of a closed `session` carries the floor's gaming day (`day`),
        which the table checks the session against."""
        if args.get("action") == "adjust" and "session" in args:
            args = {**args, **(self.day() or {})}
        return await asyncio.get_running_loop().run_in_executor(self._thread, self.send, table, req_id, args, signoff)


def floor_day(figures: str | None) -> dict[str, str] | None:
    """The floor's gaming day (`day_starts`, `time_zone`: the archive's `gaming_day`, `croupier stats gaming-day`) from
    the pit's latest `figures` message (JSON), which a `rating` step naming a closed session carries to the table: one
    gaming day per casino, the floor's, which the table checks the session against (docs/ratings.md, "One gaming
    day"). None when the figures are not the archive's (no `[web] floor_db`, or its server failed): the table's own.

    >>> floor_day('{"kind": "figures", "source": "archive", "starts": "06:00", "time_zone": "Europe/Paris"}')
    {'day_starts': '06:00', 'time_zone': 'Europe/Paris'}
    >>> floor_day('{"kind": "figures", "source": "archive", "error": "down"}') is None
    True
    """
    message = json.loads(figures) if figures else {}
    starts, zone = message.get("starts"), message.get("time_zone")
    return {"day_starts": starts, "time_zone": zone} if isinstance(starts, str) and isinstance(zone, str) else None


RELAY: web.AppKey[RatingRelay] = web.AppKey("rating_relay", RatingRelay)


def _refused(code: str, error: str, key: str, status: int = 400, **args: Any) -> web.Response:
    return web.json_response({"ok": False, "code": code, "error": error, "say": {"key": key, "args": args}},
                             status=status)


def parse_step(data: Any, tables: Mapping[str, TableFeed]) -> tuple[str, str, dict[str, Any], dict[str, str]]:
    """A page's step as (table, page id, the command's arguments, the sign-off). Raises ValueError saying what is
    wrong (the command's own checks are the controller's: `protocol.commands`)."""
    if not isinstance(data, dict) or set(data) - {"table", "id", "rating", "auth"}:
        raise ValueError("send {table, id, rating, auth}")
    if data.get("table") not in tables:
        raise LookupError(f"no command channel to table {data.get('table')!r} ([[web.tables]] commands)")
    page_id = data.get("id")
    if not isinstance(page_id, str) or not _PAGE_ID.fullmatch(page_id):
        raise ValueError("id: 1 to 24 letters, digits, - or _")
    step, signoff = data.get("rating"), data.get("auth")
    if not isinstance(step, dict) or set(step) - set(FIELDS):
        raise ValueError(f"rating: an object of {', '.join(FIELDS)}")
    if not isinstance(signoff, dict) or set(signoff) != {"user", "pin"} or \
            not all(isinstance(v, str) for v in signoff.values()):
        raise ValueError("auth: a supervisor's user and pin")
    return str(data["table"]), page_id, dict(step), {"user": signoff["user"], "pin": signoff["pin"]}


async def _rating(request: web.Request) -> web.Response:
    """One rating step relayed (see the module docstring)."""
    session = auth.require(request, ROLES)
    relay = request.app[RELAY]
    if (request.content_length or 0) > MAX_BODY:
        return _refused("malformed", f"a step is at most {MAX_BODY} bytes", "pit_rating.malformed", 413)
    try:
        table, page_id, step, signoff = parse_step(json.loads(await request.content.read(MAX_BODY + 1)), relay.tables)
    except LookupError as exc:
        return _refused("unknown_table", str(exc), "pit_rating.unknown_table")
    except ValueError as exc:  # a JSON error is a ValueError too
        return _refused("malformed", str(exc), "pit_rating.malformed")
    req_id = f"pit-web:{session.user}:{page_id}"
    if len(req_id) > MAX_ID_CHARS:
        return _refused("malformed", "the user's name is too long for a request id", "pit_rating.malformed")
    shown = {k: mask_card(str(v)) if k == "card" else v for k, v in step.items()}  # the card is private
    try:
        reply = await relay.relay(table, req_id, step, {**signoff, "at": session.user})
    except TimeoutError:
        log.warning("pit rating: %s: %s %s: no answer", session.user, table, shown)
        return _refused("no_answer", f"no answer from {table}: nothing is known to be applied", "pit_rating.no_answer",
                        504, table=table)
    log.info("pit rating: %s sent %s %s signed off by %r -> %s", session.user, table, shown, signoff["user"],
             "ok" if reply.get("ok") else f"{reply.get('code')}: {reply.get('error')}")
    if isinstance(reply.get("throttled_s"), (int, float)) and ALERT in request.app:
        request.app[ALERT]({"spacing_s": reply["throttled_s"], "at": session.user, "address": request.remote or "",
                            "time": time.time(), "table": table})
    return web.json_response(reply)


async def _tables(request: web.Request) -> web.Response:
    """The tables a step may be sent to by the user signed in (none: /pit shows no rating dialog; a wall screen, or
    another role, is told none rather than refused: the page asks at every load)."""
    session = auth.session_of(request)
    tables = sorted(request.app[RELAY].tables) if session is not None and session.role in ROLES else []
    return web.json_response({"tables": tables}, headers={"Cache-Control": "no-cache"})


def add_routes(app: web.Application, relay: RatingRelay, alert: Callable[[dict[str, Any]], None] | None = None) -> None:
    """`/pit/rating.json` and `POST /pit/rating` on the floor's app; `alert` told of each step of a table's throttle of
    this process's sign-offs."""
    app[RELAY] = relay
    if alert is not None:
        app[ALERT] = alert
    app.router.add_get("/pit/rating.json", _tables)
    app.router.add_post("/pit/rating", _rating)
