"""The dealer console's server side: the `/dealer` page and `/ws/dealer`, the public feed plus the page's commands relayed to the table.

`GET /ws/dealer` needs a signed-in dealer or supervisor (`auth.require` on the handshake: 401, 403).
It sends `{"kind": "console", "user", "role", "chips", "commands", "paid_on"}`, then what `/ws/public` sends
(`hello`, the snapshot, the updates: the same `Hub`). The page sends

    {"kind": "command", "id": "c7", "command": {"cmd": "bet", "hand": 12, "seat": 3, "bets": {...}}}

`command` is the command channel's own request map (`protocol/commands/`, `docs/feed.md`) without
its `id`: the relay gives each one an id of its own, sends it with `service.commands.CommandClient`
(in the console's own thread, one request in flight per console, time-bounded, re-sent once under
the same id) and answers `{"kind": "reply", "id": "c7", "reply": {...}}` with the controller's reply
as it is (`ok`, or `code` and `error` untouched). A supervisor's sign-off (`auth`: {user, pin}) is
passed through in the command with `at`, the signed-in user (whatever the page sent as `at`): the
controller checks it (`protocol/signoff.py`), never this process, and counts a failed one against
that user at this display's key, so one person's failures hold only their own sign-offs.
A page message that is not such a command, a second command while one is in flight, or no answer in
time gets `{"kind": "error", "id": ..., "error": "why"}` (nothing is sent to the table for the first
two); the relay's own errors carry `say` (`{"key": "console.busy" | "console.no_answer" |
"console.no_commands", "args"}`), the words the console shows from its catalog. Each relayed command
is logged with the signed-in user's name (never the PIN). A console opened by a `dealer` signs that
dealer in at the table itself (`{"cmd": "dealer", "dealer": user, "action": "in"}`, before the page's
first command: the dealer figures, docs/ratings.md); the page may not send `dealer` itself. When the
display follows the full feed, the console also gets `{"kind": "players", "seats": {...}}`, each seat's
player card masked to its last four, and at a smart table `{"kind": "tray", "reads", "expected", "difference", ...}`,
on opening and at each change (`seats.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import zmq
from aiohttp import WSMsgType, web

from engine.chip_circles import PAID_ON
from engine.ratings import mask_card
from pages import app as core, auth
from firmware_host.display.seats import Followed, RatedSeats, TrayLine
from firmware_host.service.command_desk import SIGNED_OFF_WAIT_S
from pages.bridge import Hub
from protocol.commands import MAX_ID_CHARS, CommandClient

log = logging.getLogger(__name__)

ROLES = ("dealer", "supervisor")
"""Who may open the dealer console."""
REQUEST_TIMEOUT_S = 2.5
"""How long the relay waits for the controller's answer (twice: the request is re-sent once under its id); a
command carrying a supervisor's sign-off waits at least the desk's SIGNED_OFF_WAIT_S each time (its PIN's hash
waits for a pause in the cards: a relay giving up sooner re-sends it to be hashed again, behind the first)."""
MAX_MESSAGE_BYTES = 16 * 1024
"""A page message longer than this is refused (the command channel's own requests are far shorter)."""
_RESERVED = ("id", "req_id", "retries")


@dataclass(frozen=True, slots=True)
class Relay:
    """Where the console's commands go: the table's command endpoint, the CURVE keys used on it, the chips."""

    endpoint: str | None
    key: str | None = None
    server_key: str | None = None
    chips: tuple[int, ...] = (100, 500, 2500, 10000)
    timeout_s: float = REQUEST_TIMEOUT_S

    def wait_s(self, command: Mapping[str, Any]) -> float:
        """How long the relay waits for the answer to `command`, each of its two sends."""
        return max(self.timeout_s, SIGNED_OFF_WAIT_S) if command.get("auth") is not None else self.timeout_s


RELAY: web.AppKey[Relay] = web.AppKey("relay", Relay)
FOLLOWED: web.AppKey[list[Followed]] = web.AppKey("followed", list)
"""What the consoles are told of the full feed (who sits where, masked; the tray) when the display follows it
(`seats.py`); absent otherwise."""
DEALER_HUB: web.AppKey[Hub] = web.AppKey("dealer_hub", Hub)


class PageError(ValueError):
    """A page message that is not a command the relay can send; its text is the page's answer."""


def parse_message(text: str) -> tuple[str, dict[str, Any]]:
    """The page's `{"kind": "command", "id", "command"}` as (id, the command map). Raises PageError."""
    if len(text.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        raise PageError(f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except ValueError:
        raise PageError("not JSON: send {\"kind\": \"command\", \"id\": ..., \"command\": {\"cmd\": ...}}") from None
    if not isinstance(data, dict) or data.get("kind") != "command":
        raise PageError("the console sends only {\"kind\": \"command\", \"id\": ..., \"command\": {...}}")
    page_id = data.get("id")
    if not isinstance(page_id, str) or not 1 <= len(page_id) <= MAX_ID_CHARS:
        raise PageError(f"id must be a string of 1 to {MAX_ID_CHARS} characters")
    command = data.get("command")
    if not isinstance(command, dict) or not isinstance(command.get("cmd"), str) or not command["cmd"]:
        raise PageError("command must be an object with its cmd (the command channel's request, docs/feed.md)")
    if command["cmd"] == "dealer":
        raise PageError("command: dealer is the console's own: who signs in here is signed in at the table")
    reserved = sorted(k for k in command if k in _RESERVED)
    if reserved:
        raise PageError(f"command: {', '.join(reserved)} is the relay's own (each command gets an id of its own)")
    signoff = command.get("auth")
    if signoff is not None and not isinstance(signoff, dict):
        raise PageError("command: auth must be {\"user\": ..., \"pin\": ...} (a supervisor's sign-off)")
    extra = set(data) - {"kind", "id", "command"}
    if extra:
        raise PageError(f"unknown key(s) {', '.join(sorted(map(str, extra)))}")
    return page_id, command


class Console:
    """One open console: its own DEALER socket to the table, used only in its own thread, one request at a time."""

    def __init__(self, relay: Relay, user: str, ctx: zmq.Context[Any]) -> None:
        self.relay = relay
        self.user = user
        self.ctx = ctx
        self.in_flight: str | None = None
        self._name = f"web-{secrets.token_hex(4)}"
        self._count = 0
        self._client: CommandClient | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"console-{user}")

    def _send(self, command: Mapping[str, Any]) -> dict[str, Any]:
        """In the console's thread: send one command and wait for its answer. Raises TimeoutError, ValueError."""
        if self.relay.endpoint is None:
            raise ValueError("this display has no command endpoint ([display] commands)")
        if self._client is None:
            self._client = CommandClient(self.ctx, self.relay.endpoint, timeout_s=self.relay.timeout_s,
                                         name=self._name, key=self.relay.key, server_key=self.relay.server_key)
        self._count += 1
        args = {k: v for k, v in command.items() if k not in ("cmd", "auth")}
        signoff = command.get("auth")  # who is signed in here goes with it: a failed sign-off counts against them
        auth = {**signoff, "at": self.user} if isinstance(signoff, dict) else None
        self._client.timeout_ms = int(self.relay.wait_s(command) * 1000)
        try:
            return self._client.request(str(command["cmd"]), req_id=f"{self._name}-{self._count}", retries=1,
                                        auth=auth, **args)
        except TimeoutError:
            self._client.close()
            self._client = None
            raise

    async def relay_command(self, page_id: str, command: dict[str, Any]) -> dict[str, Any]:
        """The page's answer to one command: `reply` with the controller's reply, or `error`."""
        if self.in_flight is not None:
            return {"kind": "error", "id": page_id,
                    "error": f"one command at a time: {self.in_flight} is still waiting for the table's answer",
                    "say": {"key": "console.busy", "args": {}}}
        self.in_flight = page_id
        shown = {k: (mask_card(str(v)) if k == "card" and command.get("cmd") == "player" else v)
                 for k, v in command.items() if k != "auth"}  # a player card's number is private: its last four logged
        signer = command.get("auth", {}).get("user") if isinstance(command.get("auth"), dict) else None
        try:
            loop = asyncio.get_running_loop()
            reply = await loop.run_in_executor(self._thread, self._send, command)
        except TimeoutError:
            log.warning("dealer console: %s: %s: no answer from %s", self.user, shown, self.relay.endpoint)
            return {"kind": "error", "id": page_id,
                    "error": f"no answer from the table within {2 * self.relay.wait_s(command):.0f} s: nothing is "
                             "known to be applied; look at the table before sending it again",
                    "say": {"key": "console.no_answer", "args": {"seconds": round(2 * self.relay.wait_s(command))}}}
        except ValueError as exc:
            return {"kind": "error", "id": page_id, "error": str(exc), "say": {"key": "console.no_commands", "args": {}}}
        finally:
            self.in_flight = None
        log.info("dealer console: %s sent %s%s -> %s", self.user, shown,
                 f" signed off by {signer!r}" if signer else "",
                 "ok" if reply.get("ok") else f"{reply.get('code')}: {reply.get('error')}")
        return {"kind": "reply", "id": page_id, "reply": reply}

    async def sign_in(self) -> None:
        """The dealer signed in here is signed in at the table (`dealer` in), queued in the console's own
        thread before any command the page sends; logged, never shown to the page."""
        command = {"cmd": "dealer", "dealer": self.user, "action": "in"}
        try:
            reply = await asyncio.get_running_loop().run_in_executor(self._thread, self._send, command)
        except (TimeoutError, ValueError) as exc:
            log.warning("dealer console: %s: the sign-in at the table was not answered: %s", self.user, exc)
            return
        log.info("dealer console: %s signed in at the table -> %s", self.user,
                 "ok" if reply.get("ok") else f"{reply.get('code')}: {reply.get('error')}")

    def _close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._close)
        self._thread.shutdown(wait=False)


async def _page(request: web.Request) -> web.Response:
    return core.page(request, "dealer.html")


async def _dealer(request: web.Request) -> web.WebSocketResponse:
    """One dealer console: the public feed out, its commands relayed to the table."""
    session = auth.require(request, ROLES)
    relay = request.app[RELAY]
    ws = await core.screen_socket(request, max_msg_size=MAX_MESSAGE_BYTES * 2)
    hub = request.app[DEALER_HUB]
    console = Console(relay, session.user, request.app[_CTX])
    await ws.send_str(json.dumps({"kind": "console", "user": session.user, "role": session.role,
                                  "chips": list(relay.chips), "commands": relay.endpoint is not None,
                                  "paid_on": dict(PAID_ON)}))  # results paid on another circle's chips (3CP's Ante Bonus)
    screen = hub.join()

    async def send() -> None:
        while True:
            await ws.send_str(await screen.next())

    async def answer(page_id: str, command: dict[str, Any]) -> None:
        await ws.send_str(json.dumps(await console.relay_command(page_id, command)))

    sender = asyncio.create_task(send())
    pending: set[asyncio.Task[None]] = set()
    followed = request.app.get(FOLLOWED, [])

    def tell(text: str) -> None:  # the seats' cards (masked) or the tray changed: told to this console
        task = asyncio.create_task(ws.send_str(text))
        pending.add(task)
        task.add_done_callback(pending.discard)

    for fact in followed:
        fact.watchers.add(tell)
        if (known := fact.message()) is not None:
            tell(known)
    log.info("dealer console opened: %s (%s) from %s", session.user, session.role, request.remote)
    if session.role == "dealer" and relay.endpoint is not None:  # the dealer figures count from this (docs/ratings.md)
        signed = asyncio.create_task(console.sign_in())
        pending.add(signed)
        signed.add_done_callback(pending.discard)
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            if msg.type != WSMsgType.TEXT:
                await ws.send_str(json.dumps({"kind": "error", "error": "send JSON text, not binary frames"}))
                continue
            try:
                page_id, command = parse_message(msg.data)
            except PageError as exc:
                await ws.send_str(json.dumps({"kind": "error", "error": str(exc)}))
                continue
            task = asyncio.create_task(answer(page_id, command))
            pending.add(task)
            task.add_done_callback(pending.discard)
    finally:
        hub.leave(screen)
        for fact in followed:
            fact.watchers.discard(tell)
        sender.cancel()
        for task in list(pending):
            task.cancel()
        await console.close()
        log.info("dealer console closed: %s", session.user)
    return ws


_CTX: web.AppKey[zmq.Context[Any]] = web.AppKey("zmq_context", zmq.Context)


def add_routes(app: web.Application, hub: Hub, relay: Relay) -> None:
    """Register `/dealer` and `/ws/dealer` on `app` (the sign-in routes must be there: `auth.add_routes`)."""
    app[RELAY] = relay
    app[DEALER_HUB] = hub
    app[_CTX] = zmq.Context.instance()
    app.router.add_get("/dealer", _page)
    app.router.add_get("/ws/dealer", _dealer)


def follow_seats(app: web.Application, full: Hub) -> None:
    """The consoles shown who sits where (masked) and the tray from the display's full feed `full` (`seats.py`)."""
    app[FOLLOWED] = [RatedSeats(), TrayLine()]
    for fact in app[FOLLOWED]:
        full.listeners.append(fact.see)
