"""The floor's web process: the pit's pages (/pit, /ws/pit) and the tournament director's clock (/tournament, /ws/tournament) on aiohttp, with the sign-in and origin checks every web process has (`pages/app.py`).

`croupier pit web --config FILE` runs `serve`: /pit shows a pit aggregator's tables (`[web] pit`, its floor
feed followed by `pit_feed.py`) or the tables followed here (`[[web.tables]]`, one `FeedFollower` each
feeding the `PitHub`), with the day's figures from the archive (`[web] floor_db`, `figures.py`); /tournament
the director's feed (`pages/tournament.py`, which a tournament table's display follows too); `/pit/rating` relays
the pit's signed-off rating steps to the tables that give their `commands` (`rating.py`). Once listening
it prints one JSON line: `{"web", "pit", "tournament"?}`, the pages' addresses.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import TextIO

from aiohttp import web

from floor.web import pit_feed
from floor.web.rating import RatingRelay, add_routes as add_rating_routes, floor_day
from floor.web.rating_past import add_routes as add_past_routes
from floor.web.config import WebConfig
from floor.web.figures import FiguresReader, PitFigures, RatedReader
from floor.web.hub import DEALER_FIGURE_ROLES, PitHub
from pages import app as core, auth, tournament
from pages.bridge import FeedFollower, Hub
from pages.pump import pump

STATIC = Path(__file__).parent / "static"
PIT: web.AppKey[PitHub] = web.AppKey("pit", PitHub)
PIT_ROLES: web.AppKey[tuple[str, ...]] = web.AppKey("pit_roles", tuple)  # `[web] pit_roles`: () asks no sign-in


async def _home(request: web.Request) -> web.Response:
    raise web.HTTPFound("/pit")


async def _pit_page(request: web.Request) -> web.Response:
    return core.page(request, "pit.html")


async def _tournament_page(request: web.Request) -> web.Response:
    return core.page(request, "tournament.html")


async def _pit_access(request: web.Request) -> web.Response:
    """Who may open /pit (`{"roles": [...]}`, none: no sign-in): the page shows the sign-in form for them first."""
    roles: tuple[str, ...] = request.app[PIT_ROLES]
    return web.json_response({"roles": list(roles)}, headers={"Cache-Control": "no-cache"})


async def _pit_feed(request: web.Request) -> web.WebSocketResponse:
    """Every table's latest summary for one pit screen, then their updates (`hub.py`). With `[web] pit_roles` the
    handshake needs a session of one of them (`auth.require`: 401 signed out, 403 another role); the dealers'
    figures go only to a session of `DEALER_FIGURE_ROLES` (a wall screen, without sign-in, never gets them)."""
    roles: tuple[str, ...] = request.app[PIT_ROLES]
    session = auth.require(request, roles) if roles else None
    ws = await core.screen_socket(request)
    pit = request.app[PIT]
    screen = pit.join(dealers=session is not None and session.role in DEALER_FIGURE_ROLES)  # never a wall screen
    await pump(ws, screen.next, lambda: pit.leave(screen))
    return ws


def make_app(pit: PitHub, sessions: auth.Sessions | None = None, *, tls: bool = False, language: str = "en",
             origins: tuple[str, ...] = (), pit_roles: tuple[str, ...] = (),
             rating: RatingRelay | None = None, past_dsn: str | None = None) -> web.Application:
    """The floor's app with the pit's routes (`/`, `/pit`, `/ws/pit`, the rating steps' `/pit/rating` relayed by
    `rating`: none, no table) and the clock's page (`/tournament`); `serve` adds its feed (`/ws/tournament`)."""
    app = core.make_app(STATIC, sessions, tls=tls, language=language, origins=origins)  # guard, sign-in, words, /static/
    app[PIT] = pit
    app[PIT_ROLES] = pit_roles
    app.router.add_get("/", _home)
    app.router.add_get("/pit/access.json", _pit_access)
    app.router.add_get("/pit", _pit_page)
    app.router.add_get("/ws/pit", _pit_feed)
    app.router.add_get("/tournament", _tournament_page)
    add_rating_routes(app, rating if rating is not None else RatingRelay({}), pit.signoff_alert)
    add_past_routes(app, past_dsn, pit.signoff_alert)  # a past gaming day's sessions adjusted in the archive
    return app


def _archive_readers(cfg: WebConfig) -> tuple[FiguresReader | None, RatedReader | None]:
    """The archive's readers of the pit's figures and of its rated players with `[web] floor_db` (psycopg: the
    `floor` extra, which the configuration checked)."""
    if cfg.floor_db is None:
        return None, None
    from floor.figures import pit_figures, pit_rated
    return pit_figures, pit_rated


async def serve(cfg: WebConfig, out: TextIO = sys.stdout,
                figures: FiguresReader | None = None, rated: RatedReader | None = None) -> int:
    """Serve until SIGTERM or SIGINT; print one JSON line with the pages' addresses once listening. `figures`: the
    reader of the pit's figures (default: the archive's, `floor.figures.pit_figures`, with `[web] floor_db`);
    `rated`: of the rated players (default `floor.figures.pit_rated`).
    Raises OSError when the address cannot be bound, ssl.SSLError for a bad certificate."""
    loop = asyncio.get_running_loop()
    pit, floor = pit_feed.pit_source(cfg, loop)
    archive_figures, archive_rated = _archive_readers(cfg)
    pit_figures = PitFigures(pit, cfg.floor_db, cfg.figures_s, figures or archive_figures, rated or archive_rated)
    threads: list[FeedFollower | pit_feed.FloorFollower] = [*([floor] if floor else [])]
    for feed in cfg.tables:  # one thread per table: fine for tens of tables; a floor's many go through `croupier pit`
        hub = Hub(feed.heartbeat_s, coalesce=True)
        hub.listeners.append(pit.listener(feed.name))
        follower = FeedFollower(hub, loop, feed.public, feed.snapshot, key=feed.key, server_key=feed.server_key)
        follower.name = f"pit-web-{feed.name}"
        threads.append(follower)
    tls = core.tls_context(cfg.tls_cert, cfg.tls_key)
    app = make_app(pit, auth.Sessions(cfg.users, store=cfg.sessions), tls=tls is not None, language=cfg.language,
                   origins=cfg.origins, pit_roles=cfg.pit_roles,
                   rating=RatingRelay.of(cfg.tables, cfg.key, lambda: floor_day(pit.figures)),  # the pit's rating steps
                   past_dsn=cfg.floor_db)
    clock = tournament.add_routes(app, cfg, loop, "web")  # /ws/tournament (the director's feed)
    runner, port = await core.listen(app, cfg.host, cfg.port, tls)
    stop = asyncio.Event()
    try:
        for thread in threads:
            thread.start()
        pit_figures.start()
        clock.start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        base = f"{cfg.scheme}://{cfg.host}:{port}"
        out.write(json.dumps({"web": base, "pit": f"{base}/pit",
                              **({"tournament": f"{base}/tournament"} if cfg.tournament else {})}) + "\n")
        out.flush()
        await stop.wait()
    finally:
        for thread in threads:
            thread.stop()
        await pit_figures.stop()
        await runner.cleanup()
        clock.stop()
    for thread in threads:
        thread.join(timeout=2.0)
    return 0
