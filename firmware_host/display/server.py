"""The display's web process: the shipped static pages and the WebSocket bridge of the table's public feed (aiohttp)."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import TextIO

from aiohttp import web

from firmware_host.display import dealer, surveillance
from firmware_host.display.config import DisplayConfig
from pages import app as core, auth, tournament
from pages.bridge import FeedFollower, Hub
from pages.pump import pump
from protocol.messages import PublicState
from protocol.schema import json_schema

STATIC = Path(__file__).parent / "static"
PAGES = {"/table": "table.html"}
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)  # the first table's: `/ws/public` without `?table=`
TABLES: web.AppKey[dict[str, Hub]] = web.AppKey("tables")  # every table's, by its name
PUBLIC_SCHEMA = json.dumps(json_schema(PublicState, "/schema/public.json"))
"""/schema/public.json: the JSON Schema of the public state the pages are sent (`protocol/messages.py`)."""


async def _page(request: web.Request) -> web.Response:
    return core.page(request, PAGES[request.path])


async def _schema(request: web.Request) -> web.Response:
    """The public state's contract, made from its typed definition (`protocol.schema`)."""
    return web.Response(text=PUBLIC_SCHEMA, content_type="application/schema+json", headers={"Cache-Control": "no-cache"})


async def _home(request: web.Request) -> web.Response:
    raise web.HTTPFound("/table")


async def _public(request: web.Request) -> web.WebSocketResponse:
    """The public feed for one screen: `hello`, the current state, then every update (`bridge.py`)."""
    hub = request.app[HUB]
    name = request.query.get("table")
    if name is not None:
        tables = request.app[TABLES]
        if name not in tables:
            raise web.HTTPNotFound(text=f"no table {name!r} on this display (tables: {', '.join(tables)})")
        hub = tables[name]
    ws = await core.screen_socket(request)
    screen = hub.join()
    await pump(ws, screen.next, lambda: hub.leave(screen))
    return ws


def make_app(hub: Hub, sessions: auth.Sessions | None = None, *, tls: bool = False,
             tables: dict[str, Hub] | None = None,
             relay: dealer.Relay | None = None, language: str = "en",
             origins: tuple[str, ...] = ()) -> web.Application:
    app = core.make_app(STATIC, sessions, tls=tls, language=language, origins=origins)  # guard, sign-in, words, /static/
    app[HUB] = hub
    app.router.add_get("/schema/public.json", _schema)
    dealer.add_routes(app, hub, relay or dealer.Relay(None))
    app.router.add_get("/", _home)
    for path in PAGES:
        app.router.add_get(path, _page)
    app.router.add_get("/ws/public", _public)
    app[TABLES] = tables if tables is not None else {"table": hub}  # for `/table?table=NAME`
    return app


async def serve(cfg: DisplayConfig, out: TextIO = sys.stdout) -> int:
    """Serve until SIGTERM or SIGINT; print one JSON line with the pages' address once listening.
    Raises OSError when the address cannot be bound."""
    loop = asyncio.get_running_loop()
    tables: dict[str, Hub] = {}
    followers: list[FeedFollower] = []
    for feed in cfg.feeds:  # one thread per table: fine for tens of tables (docs/display.md)
        tables[feed.name] = hub = Hub(feed.heartbeat_s, coalesce=True)  # each state the whole table
        followers.append(FeedFollower(hub, loop, feed.public, feed.snapshot, key=feed.key,
                                      server_key=feed.server_key))
    tls = core.tls_context(cfg.tls_cert, cfg.tls_key)
    relay = dealer.Relay(cfg.commands, cfg.dealer_key, cfg.server_key if cfg.dealer_key else None, cfg.chips)
    app = make_app(tables[cfg.feeds[0].name], auth.Sessions(cfg.users, store=cfg.sessions), tls=tls is not None, tables=tables,
                   relay=relay, language=cfg.language, origins=cfg.origins)
    full = surveillance.add_routes(app, cfg, loop)  # /surveillance and /ws/full (the full feed when [display] full)
    if full.follower is not None:  # the consoles show each seat's player card, masked (display/seats.py)
        dealer.follow_seats(app, full.hub)
    clock = tournament.add_routes(app, cfg, loop, "display")  # /ws/tournament: a tournament table's clock on /table
    runner, port = await core.listen(app, cfg.host, cfg.port, tls)
    stop = asyncio.Event()
    try:
        for follower in followers:
            follower.start()
        full.start()
        clock.start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        base = f"{cfg.scheme}://{cfg.host}:{port}"
        out.write(json.dumps({"display": base, "table": f"{base}/table",
                              "public": cfg.feeds[0].public,
                              **({"dealer": f"{base}/dealer"} if cfg.commands else {})}) + "\n")
        out.flush()
        await stop.wait()
    finally:
        for follower in followers:
            follower.stop()
        await runner.cleanup()
        full.stop()
        clock.stop()
    for follower in followers:
        follower.join(timeout=2.0)
    return 0
