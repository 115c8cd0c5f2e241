"""The tournament clock page (`/tournament`): the director's feed followed and bridged to wall screens over `/ws/tournament`.

`[display] tournament` and `tournament_snapshot` are the director's feed (`croupier tournament`,
`floor/director/service.py`): the same frames and clone pattern as a table's public feed, so one
`FeedFollower` follows it into one `Hub`, and every screen gets the `bridge.py` messages:
`hello`, then the tournament's view as a `snapshot`, its `update`s and `heartbeat`s. The page draws
what it is sent (level, blinds and ante, time left, next level, the break countdown, players left of
entries, average stack, prize pool and payouts) and counts the seconds down itself between
updates while the clock runs. Without `[display] tournament` the page says no tournament is followed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp import web

from pages.bridge import FeedFollower, Hub
from firmware_host.display.config import DisplayConfig
from pages.pump import pump

STATIC = Path(__file__).parent / "static"


class TournamentFeed:
    """The director's feed: its follower (when configured) and hub; `start`/`stop` with the display."""

    def __init__(self, cfg: DisplayConfig, loop: asyncio.AbstractEventLoop) -> None:
        self.hub = Hub(cfg.heartbeat_s, coalesce=True)  # each state the whole tournament: a late one replaces it
        self.follower: FeedFollower | None = None
        if cfg.tournament is not None and cfg.tournament_snapshot is not None:
            curve = cfg.tournament_server_key is not None  # the director's CURVE feed, with the display's key
            self.follower = FeedFollower(self.hub, loop, cfg.tournament, cfg.tournament_snapshot,
                                         key=cfg.key if curve else None, server_key=cfg.tournament_server_key)
            self.follower.name = "display-tournament-feed"

    def start(self) -> None:
        if self.follower is not None:
            self.follower.start()

    def stop(self) -> None:
        if self.follower is not None:
            self.follower.stop()
            self.follower.join(timeout=2.0)


TOURNAMENT: web.AppKey[TournamentFeed] = web.AppKey("tournament", TournamentFeed)


async def _page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "tournament.html", headers={"Cache-Control": "no-cache"})


async def _feed(request: web.Request) -> web.WebSocketResponse:
    """The tournament's view for one wall screen: `hello`, the current view, then every update."""
    feed = request.app[TOURNAMENT]
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    screen = feed.hub.join()
    if feed.follower is None:
        await ws.send_json({"kind": "none", "reason": "no tournament is followed: [display] tournament"})
    await pump(ws, screen.next, lambda: feed.hub.leave(screen))
    return ws


def add_routes(app: web.Application, cfg: DisplayConfig, loop: asyncio.AbstractEventLoop) -> TournamentFeed:
    """Register `/tournament` and `/ws/tournament` on `app`; the caller starts and stops what it returns."""
    feed = TournamentFeed(cfg, loop)
    app[TOURNAMENT] = feed
    app.router.add_get("/tournament", _page)
    app.router.add_get("/ws/tournament", _feed)
    return feed
