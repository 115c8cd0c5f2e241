"""The surveillance view: `/surveillance`, the table's full feed on `/ws/full` for signed-in surveillance users only, and the hands' recall over the command channel's `history`.

The full feed (hole cards, burns, the fault's detail) is followed by a second `bridge.FeedFollower`
into a `Hub` of its own, started only when `[display] full` is set, with `[display]
surveillance_key` (a certificate of role `surveillance`) when the table has CURVE keys; nothing of
it goes anywhere but `/ws/full`. The WebSocket's handshake needs a session of role `surveillance`
(`auth.require`: 401 signed out, 403 another role); each connection is logged with the user, and
the controller audits the full-feed subscription of the display's key.

On `/ws/full` the messages are those of `/ws/public` (`hello`, `snapshot`, `update`, `heartbeat`)
with the full state; the page may send `{"kind": "history", "limit": 10}` and gets `{"kind":
"history", "hands": [...]}` (the last `limit` closed hands as `croupier history --json` gives them,
at most `history.MAX_PAGE`) or `{"kind": "history", "error": "..."}`: the request is relayed to
the controller's `history` (`[display] commands`) from one worker thread that owns the command
socket, off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, NotRequired, TypedDict

import zmq
from aiohttp import WSMsgType, web

from pages import app as core, auth
from pages.bridge import FeedFollower, FollowedFeed, Hub, Screen
from firmware_host.display.config import DisplayConfig
from protocol.commands import HISTORY_PAGE, CommandClient
from protocol.history import HistoryLine

log = logging.getLogger("croupier.display.surveillance")

ROLES = ("surveillance",)
RECALL_TIMEOUT_S = 5.0


RecallWhy = Literal["not_set_up", "timeout", "forbidden", "refused"]
"""Why a recall failed: each names the page's words for it, `surveillance.recall_<why>` (pages/lang, EN and FR)."""


class RecallFailed(TypedDict):
    """A recall that failed, as the page gets it: `why` names its words, `error` says it in English for the log
    and a word the page lacks; `timeout_s` (the words' `{seconds}`) with `timeout` alone, whose words say it."""

    kind: Literal["history"]
    why: RecallWhy
    error: str
    timeout_s: NotRequired[float]


class Recalled(TypedDict):
    """The last hands recalled, oldest first, each its `croupier history --json` line; `more`: older ones exist."""

    kind: Literal["history"]
    hands: list[HistoryLine]
    more: bool


def _recall_error(why: RecallWhy, error: str) -> RecallFailed:
    """A recall that failed (`RecallFailed`)."""
    failed: RecallFailed = {"kind": "history", "why": why, "error": error}
    if why == "timeout":
        failed["timeout_s"] = RECALL_TIMEOUT_S
    return failed


class Recall:
    """The `history` requests of the surveillance pages, sent one at a time from a thread of their own."""

    def __init__(self, cfg: DisplayConfig) -> None:
        self.cfg = cfg
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="display-history")
        self._ctx: zmq.Context[Any] | None = None
        self._client: CommandClient | None = None

    def _request(self, limit: int) -> Recalled | RecallFailed:  # on the worker thread only: it owns the socket
        if self.cfg.commands is None:
            return _recall_error("not_set_up", "the recall is not set up on this display ([display] commands)")
        if self._client is None:
            self._ctx = zmq.Context()
            key = self.cfg.surveillance_key
            self._client = CommandClient(self._ctx, self.cfg.commands, timeout_s=RECALL_TIMEOUT_S, name="surveillance",
                                         key=key, server_key=self.cfg.server_key if key else None)
        try:
            reply = self._client.request("history", newest=True, limit=limit)
        except TimeoutError:
            self._client.close()
            self._client = None  # a fresh socket next time
            return _recall_error("timeout", f"the table did not answer within {RECALL_TIMEOUT_S:.0f} s")
        if not reply.get("ok"):
            why: RecallWhy = "forbidden" if reply.get("code") == "forbidden" else "refused"
            return _recall_error(why, f"the table refused: {reply.get('error')}")
        return {"kind": "history", "hands": reply.get("hands", []), "more": reply.get("more", False)}

    async def ask(self, limit: int) -> Recalled | RecallFailed:
        return await asyncio.get_running_loop().run_in_executor(self.pool, self._request, limit)

    def _close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._ctx is not None:
            self._ctx.destroy(linger=0)

    def close(self) -> None:
        self.pool.submit(self._close)
        self.pool.shutdown(wait=True)


class Surveillance(FollowedFeed):
    """The full feed's follower and hub, and the recall; `start`/`stop` with the display."""

    def __init__(self, cfg: DisplayConfig, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(Hub(cfg.heartbeat_s))
        self.cfg = cfg
        self.recall = Recall(cfg)
        if cfg.full is not None and cfg.full_snapshot is not None:
            key = cfg.surveillance_key
            self.follower = FeedFollower(self.hub, loop, cfg.full, cfg.full_snapshot, key=key,
                                         server_key=cfg.server_key if key else None)
            self.follower.name = "display-full-feed"

    def stop(self) -> None:
        super().stop()
        self.recall.close()


SURVEILLANCE: web.AppKey[Surveillance] = web.AppKey("surveillance", Surveillance)


async def _page(request: web.Request) -> web.Response:
    return core.page(request, "surveillance.html")


def _history_limit(text: str) -> int | None:
    """The `limit` of a page's `{"kind": "history", "limit": N}` (1..MAX_PAGE), or None for anything else."""
    try:
        asked = json.loads(text)
    except ValueError:
        return None
    if not isinstance(asked, dict) or asked.get("kind") != "history":
        return None
    limit = asked.get("limit", 10)
    if isinstance(limit, bool) or not isinstance(limit, int):
        return None
    return max(1, min(limit, HISTORY_PAGE))


async def _full(request: web.Request) -> web.WebSocketResponse:
    """The full feed for one signed-in surveillance screen, and its recall requests."""
    surveillance = request.app[SURVEILLANCE]
    try:
        session = auth.require(request, ROLES)
    except web.HTTPException:
        who = auth.session_of(request)
        log.warning("full feed refused to %s from %s", f"{who.user} ({who.role})" if who else "a client not signed in",
                    request.remote)
        raise
    if surveillance.follower is None:
        raise web.HTTPServiceUnavailable(text='{"error": "the full feed is not set up on this display ([display] full)"}',
                                         content_type="application/json")
    ws = await core.screen_socket(request)
    log.info("full feed to %s (%s) from %s", session.user, session.role, request.remote)
    screen: Screen = surveillance.hub.join()
    sending = asyncio.Lock()

    async def send() -> None:
        while True:
            text = await screen.next()
            async with sending:
                await ws.send_str(text)

    async def recall(limit: int) -> None:
        answer = json.dumps(await surveillance.recall.ask(limit), default=str)
        async with sending:
            await ws.send_str(answer)

    sender = asyncio.create_task(send())
    asked: set[asyncio.Task[None]] = set()
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            limit = _history_limit(msg.data) if msg.type == WSMsgType.TEXT else None
            if limit is not None and len(asked) < 2:  # at most two recalls of one screen in flight
                task = asyncio.create_task(recall(limit))
                asked.add(task)
                task.add_done_callback(asked.discard)
    finally:
        surveillance.hub.leave(screen)
        sender.cancel()
        for task in asked:
            task.cancel()
        log.info("full feed to %s ended", session.user)
    return ws


def add_routes(app: web.Application, cfg: DisplayConfig, loop: asyncio.AbstractEventLoop) -> Surveillance:
    """Register `/surveillance` and `/ws/full` on `app`; the caller starts and stops what it returns."""
    surveillance = Surveillance(cfg, loop)
    app[SURVEILLANCE] = surveillance
    app.router.add_get("/surveillance", _page)
    app.router.add_get("/ws/full", _full)
    return surveillance
