"""The display's web process: the shipped static pages and the WebSocket bridge of the table's public feed (aiohttp)."""

from __future__ import annotations

import asyncio
import json
import signal
import ssl
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any, TextIO

from aiohttp import web

from firmware_host.display import auth, dealer, guard, surveillance, tournament, words
from firmware_host.display.pit import floor as pit_floor
from firmware_host.display.bridge import FeedFollower, Hub
from firmware_host.display.config import DisplayConfig
from firmware_host.display.pit.hub import PitHub
from firmware_host.display.pit.figures import PitFigures
from firmware_host.display.pump import pump
from protocol.messages import PublicState
from protocol.schema import json_schema

STATIC = Path(__file__).parent / "static"
PAGES = {"/table": "table.html"}
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)  # the first table's: `/ws/public` without `?table=`
TABLES: web.AppKey[dict[str, Hub]] = web.AppKey("tables")  # every table's, by its name
PIT: web.AppKey[PitHub] = web.AppKey("pit", PitHub)
WORDS: web.AppKey[str] = web.AppKey("words", str)  # /words.json: the display's language's catalog, as JSON
PUBLIC_SCHEMA = json.dumps(json_schema(PublicState, "/schema/public.json"))
"""/schema/public.json: the JSON Schema of the public state the pages are sent (`protocol/messages.py`)."""


async def _page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / PAGES[request.path], headers={"Cache-Control": "no-cache"})


async def _words(request: web.Request) -> web.Response:
    """The pages' words in the display's language (`words.py`): every page reads them before drawing."""
    return web.Response(text=request.app[WORDS], content_type="application/json", headers={"Cache-Control": "no-cache"})


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
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    screen = hub.join()
    await pump(ws, screen.next, lambda: hub.leave(screen))
    return ws


async def _pit_feed(request: web.Request) -> web.WebSocketResponse:
    """Every table's latest summary for one pit screen, then their updates (`pit.py`)."""
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    pit = request.app[PIT]
    screen = pit.join()
    await pump(ws, screen.next, lambda: pit.leave(screen))
    return ws


async def _pit_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "pit.html", headers={"Cache-Control": "no-cache"})


def add_pit_routes(app: web.Application, tables: dict[str, Hub], pit: PitHub) -> None:
    """The pit view: `/pit`, `/ws/pit`, and every table by name for `/ws/public?table=NAME`."""
    app[TABLES] = tables
    app[PIT] = pit
    app.router.add_get("/pit", _pit_page)
    app.router.add_get("/ws/pit", _pit_feed)


def make_app(hub: Hub, sessions: auth.Sessions | None = None, *, tls: bool = False,
             tables: dict[str, Hub] | None = None, pit: PitHub | None = None,
             relay: dealer.Relay | None = None, language: str = "en",
             origins: tuple[str, ...] = ()) -> web.Application:
    app = web.Application()
    guard.install(app, secure=tls, origins=origins)  # Origin checks and security headers (guard.py)
    app[HUB] = hub
    app[WORDS] = json.dumps(words.words_for(language), ensure_ascii=False)
    app.router.add_get("/words.json", _words)
    app.router.add_get("/schema/public.json", _schema)
    auth.add_routes(app, sessions or auth.Sessions(None), tls=tls)
    dealer.add_routes(app, hub, relay or dealer.Relay(None))
    app.router.add_get("/", _home)
    for path in PAGES:
        app.router.add_get(path, _page)
    app.router.add_get("/ws/public", _public)
    add_pit_routes(app, tables if tables is not None else {"table": hub}, pit if pit is not None else PitHub(()))
    app.router.add_static("/static/", STATIC, append_version=False)
    return app


def _tls_context(cfg: DisplayConfig) -> ssl.SSLContext | None:
    """The server side of TLS for the pages, when `[display] tls_cert` and `tls_key` are given. Raises OSError
    (unreadable files) or ssl.SSLError (not a certificate and its key)."""
    if cfg.tls_cert is None or cfg.tls_key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cfg.tls_cert, cfg.tls_key)
    return context


SHUTDOWN_S = 2.0
"""Seconds the screens' connections are given at SIGTERM before they are closed."""


async def serve(cfg: DisplayConfig, out: TextIO = sys.stdout,
                figures: Callable[[str, list[str]], dict[str, Any]] | None = None) -> int:
    """Serve until SIGTERM or SIGINT; print one JSON line with the pages' address once listening. `figures`:
    the floor's reader of the pit's figures for `[display] floor_db` (`floor.figures.pit_figures`).
    Raises OSError when the address cannot be bound."""
    loop = asyncio.get_running_loop()
    pit, floor = pit_floor.pit_source(cfg, loop)  # /pit: the pit aggregator's tables, or the display's own
    pit_figures = PitFigures(pit, cfg.floor_db, cfg.figures_s, figures)
    tables: dict[str, Hub] = {}
    followers: list[FeedFollower] = []
    for feed in cfg.feeds:  # one thread per table: fine for tens of tables (docs/display.md)
        tables[feed.name] = hub = Hub(feed.heartbeat_s, coalesce=True)  # each state the whole table
        if floor is None:
            hub.listeners.append(pit.listener(feed.name))
        followers.append(FeedFollower(hub, loop, feed.public, feed.snapshot, key=feed.key,
                                      server_key=feed.server_key))
    threads: list[FeedFollower | pit_floor.FloorFollower] = [*followers, *([floor] if floor else [])]
    tls = _tls_context(cfg)
    relay = dealer.Relay(cfg.commands, cfg.dealer_key, cfg.server_key if cfg.dealer_key else None, cfg.chips)
    app = make_app(tables[cfg.feeds[0].name], auth.Sessions(cfg.users, store=cfg.sessions), tls=tls is not None, tables=tables, pit=pit,
                   relay=relay, language=cfg.language, origins=cfg.origins)
    full = surveillance.add_routes(app, cfg, loop)  # /surveillance and /ws/full (the full feed when [display] full)
    clock = tournament.add_routes(app, cfg, loop)  # /tournament and /ws/tournament (the director's feed)
    # at SIGTERM the screens' open WebSockets are given 2 s, then cut (they reconnect to the next
    # display): aiohttp's default of 60 s held every `systemctl stop` of the display for a minute
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    stop = asyncio.Event()
    try:
        site = web.TCPSite(runner, cfg.host, cfg.port, ssl_context=tls)
        await site.start()
        port = cfg.port
        server = site._server  # aiohttp keeps the bound sockets here; needed for the port of `listen = "...:0"`
        if isinstance(server, asyncio.Server) and server.sockets:
            port = server.sockets[0].getsockname()[1]
        for follower in threads:
            follower.start()
        pit_figures.start()
        full.start()
        clock.start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        base = f"{cfg.scheme}://{cfg.host}:{port}"
        out.write(json.dumps({"display": base, "table": f"{base}/table", "pit": f"{base}/pit",
                              **({"tournament": f"{base}/tournament"} if cfg.tournament else {}),
                              "public": cfg.feeds[0].public,
                              **({"dealer": f"{base}/dealer"} if cfg.commands else {})}) + "\n")
        out.flush()
        await stop.wait()
    finally:
        for follower in threads:
            follower.stop()
        await pit_figures.stop()
        await runner.cleanup()
        full.stop()
        clock.stop()
    for follower in threads:
        follower.join(timeout=2.0)
    return 0
