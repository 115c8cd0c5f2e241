"""The tournament director's clock, followed and bridged to browsers over `/ws/tournament`: the floor's wall page (`/tournament`) and a tournament table's own page (its level's clock) read it alike.

`[web] tournament` (the floor's pages) or `[display] tournament` (a table's display) and
`tournament_snapshot` are the director's feed (`croupier tournament`, `floor/director/service.py`):
the same frames and clone pattern as a table's public feed, so one `FeedFollower` follows it into one
`Hub`, and every screen gets the `bridge.py` messages: `hello`, then the tournament's view as a
`snapshot`, its `update`s and `heartbeat`s. The pages draw what they are sent (level, blinds and ante,
time left, next level, the break countdown, players left of entries, average stack, prize pool and
payouts) and count the seconds down themselves between updates while the clock runs. Without
`tournament` the socket says no tournament is followed (`{"kind": "none"}`).
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from aiohttp import web

from pages import app as core
from pages.bridge import FeedFollower, FollowedFeed, Hub
from pages.pump import pump


class Follows(Protocol):
    """What a web process's configuration says of the director's feed."""

    @property
    def heartbeat_s(self) -> float: ...
    @property
    def tournament(self) -> str | None: ...
    @property
    def tournament_snapshot(self) -> str | None: ...
    @property
    def tournament_server_key(self) -> str | None: ...
    @property
    def key(self) -> str | None: ...


class TournamentFeed(FollowedFeed):
    """The director's feed: its follower (when configured) and hub; `start`/`stop` with the process."""

    def __init__(self, cfg: Follows, loop: asyncio.AbstractEventLoop, section: str) -> None:
        super().__init__(Hub(cfg.heartbeat_s, coalesce=True))  # each state the whole tournament: a late one replaces it
        self.section = section
        if cfg.tournament is not None and cfg.tournament_snapshot is not None:
            curve = cfg.tournament_server_key is not None  # the director's CURVE feed, with the process's key
            self.follower = FeedFollower(self.hub, loop, cfg.tournament, cfg.tournament_snapshot,
                                         key=cfg.key if curve else None, server_key=cfg.tournament_server_key)
            self.follower.name = f"{section}-tournament-feed"


TOURNAMENT: web.AppKey[TournamentFeed] = web.AppKey("tournament", TournamentFeed)


async def _feed(request: web.Request) -> web.WebSocketResponse:
    """The tournament's view for one screen: `hello`, the current view, then every update."""
    feed = request.app[TOURNAMENT]
    ws = await core.screen_socket(request)
    screen = feed.hub.join()
    if feed.follower is None:
        await ws.send_json({"kind": "none", "reason": f"no tournament is followed: [{feed.section}] tournament"})
    await pump(ws, screen.next, lambda: feed.hub.leave(screen))
    return ws


def add_routes(app: web.Application, cfg: Follows, loop: asyncio.AbstractEventLoop, section: str) -> TournamentFeed:
    """Register `/ws/tournament` on `app` (`section`: the configuration's, named when none is followed); the
    caller starts and stops what it returns."""
    feed = TournamentFeed(cfg, loop, section)
    app[TOURNAMENT] = feed
    app.router.add_get("/ws/tournament", _feed)
    return feed
