"""The scaffolding of a web process's app: the origin guard, sign-in, the words, the static files shared and its own, TLS and the listening socket.

Both web processes build on it: the table's display (`firmware_host/display/server.py`: /table, /dealer,
/surveillance) and the floor's (`floor/web/server.py`: /pit, /tournament). Each serves under `/static/`
the shared modules and styles of `pages/static/` (common.js, format.js, state.js, words.js, cards.js,
the sign-in form) beside its own pages' files, as one folder: a page imports `./common.js` from its
own folder's URL, and tsc reads the two folders as one (`rootDirs` in tsconfig.json).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import mimetypes
import re
import ssl
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, web

from pages import auth, guard, words

STATIC = Path(__file__).parent / "static"
"""The pages' shared modules and styles, served under /static/ by both web processes."""
WORDS: web.AppKey[str] = web.AppKey("words", str)  # /words.json: the process's language's catalog, as JSON


@dataclass(frozen=True)
class StaticFile:
    """A static file as read at the process's start: what /static/NAME (or its page) serves until the process ends."""

    body: bytes
    content_type: str
    etag: str


@dataclass(frozen=True)
class Build:
    """The pages' files and words as the process read them at its start, and their one build id (a hash of both)."""

    files: dict[str, StaticFile]
    build: str


FILES: web.AppKey[Build] = web.AppKey("static_files", Build)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
SHUTDOWN_S = 2.0
SOCKETS: web.AppKey[weakref.WeakSet[Any]] = web.AppKey("sockets", weakref.WeakSet)
"""The screens' open WebSockets (`screen_socket`): told "going away" at once when the process stops."""
"""Seconds the screens' connections are given at SIGTERM before they are closed."""


def static_files(own: Path) -> dict[str, Path]:
    """What `/static/NAME` serves for a process whose pages are in `own`: the shared files and its own, by name.
    Raises ValueError when a page's file has a shared file's name (one file, one place)."""
    shared = {p.name: p for p in sorted(STATIC.iterdir()) if p.is_file()}
    mine = {p.name: p for p in sorted(own.iterdir()) if p.is_file()}
    both = sorted(set(shared) & set(mine))
    if both:
        raise ValueError(f"{own}: {', '.join(both)} also in {STATIC}: keep one")
    return {**shared, **mine}


def load_build(own: Path, words_json: str) -> Build:
    """The static tree of a process whose pages are in `own` (`static_files`) read once, with the words it serves:
    files on disk updated later are not served until the process restarts, so a page's modules and its words are
    always of one version. Raises ValueError (`static_files`) or OSError (a file unreadable)."""
    files: dict[str, StaticFile] = {}
    digest = hashlib.sha256(words_json.encode())
    for name, path in static_files(own).items():
        body = path.read_bytes()
        tag = hashlib.sha256(body).hexdigest()[:20]
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        files[name] = StaticFile(body, "text/javascript" if name.endswith(".js") else kind, f'"{tag}"')
        digest.update(f"{name}\0{tag}\0".encode())
    return Build(files, digest.hexdigest()[:16])


def _served(request: web.Request, name: str, headers: dict[str, str] | None = None) -> web.Response:
    """A file of the build, by its plain name only (no path: nothing else is ever reached). Kept by the browser but
    asked again at each load (`no-cache`: a 304 while its ETag stands)."""
    found = request.app[FILES].files.get(name) if _NAME.fullmatch(name) else None
    if found is None:
        raise web.HTTPNotFound()
    head = {"Cache-Control": "no-cache", "ETag": found.etag, **(headers or {})}
    if request.headers.get("If-None-Match") == found.etag:
        return web.Response(status=304, headers=head)
    charset = "utf-8" if found.content_type.startswith(("text/", "image/svg")) else None
    return web.Response(body=found.body, content_type=found.content_type, charset=charset, headers=head)


async def _static(request: web.Request) -> web.Response:
    """/static/NAME: a file of the tree read at start (`load_build`)."""
    return _served(request, request.match_info["name"])


async def _words(request: web.Request) -> web.Response:
    """The pages' words in the process's language (`words.py`) and the build they are of: every page reads them
    before drawing."""
    return web.Response(text=request.app[WORDS], content_type="application/json", headers={"Cache-Control": "no-cache"})


async def _build(request: web.Request) -> web.Response:
    """/build.json: the build this process serves (a page that was loaded from another reloads: words.js)."""
    return web.json_response({"build": request.app[FILES].build}, headers={"Cache-Control": "no-store"})


async def _icon(request: web.Request) -> web.Response:
    """The pages' icon (a browser asks /favicon.ico of every page; without it, each page logged a 404)."""
    return _served(request, "favicon.svg")


def page(request: web.Request, name: str) -> web.Response:
    """A page's HTML (`name` in the process's own static folder), as read at start, never cached."""
    return _served(request, name)


def make_app(own: Path, sessions: auth.Sessions | None = None, *, tls: bool = False, language: str = "en",
             origins: tuple[str, ...] = ()) -> web.Application:
    """An app with the origin check and security headers (`guard.py`), the sign-in API (`auth.py`),
    /words.json in `language`, and /static/ (the shared files and those of `own`, read now: `load_build`), the
    build they make at /build.json. Raises ValueError (`static_files`; a bad origin) or OSError."""
    app = web.Application()
    guard.install(app, secure=tls, origins=origins)
    served = words.words_for(language)
    app[FILES] = build = load_build(own, json.dumps(served, ensure_ascii=False))
    app[WORDS] = json.dumps({**served, "build": build.build}, ensure_ascii=False)
    app.router.add_get("/words.json", _words)
    app.router.add_get("/build.json", _build)
    auth.add_routes(app, sessions or auth.Sessions(None), tls=tls)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/favicon.ico", _icon)
    app[SOCKETS] = weakref.WeakSet()
    app.on_shutdown.append(_going_away)
    return app


async def screen_socket(request: web.Request, **options: Any) -> web.WebSocketResponse:
    """A screen's WebSocket (`options`: aiohttp's), its handshake done, known to the app so that a stop closes it at
    once (`_going_away`)."""
    ws = web.WebSocketResponse(**options)
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    return ws


async def _going_away(app: web.Application) -> None:
    """At a stop (SIGTERM), every screen's WebSocket closed "going away" (1001) at once, the page reconnecting to the
    process that comes back, rather than each held until `SHUTDOWN_S` cut it; closing waits `SHUTDOWN_S` at most."""
    sockets: weakref.WeakSet[Any] = app[SOCKETS]
    closing = [asyncio.ensure_future(ws.close(code=WSCloseCode.GOING_AWAY, message=b"stopping")) for ws in list(sockets)]
    if closing:
        await asyncio.wait(closing, timeout=SHUTDOWN_S)


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    """The server side of TLS for the pages when a certificate and its key are given. Raises OSError
    (unreadable files) or ssl.SSLError (not a certificate and its key)."""
    if cert is None or key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


async def listen(app: web.Application, host: str, port: int,
                 tls: ssl.SSLContext | None) -> tuple[web.AppRunner, int]:
    """The app served on host:port (0: any free one): its runner (`cleanup()` at the end) and the port bound.
    At SIGTERM the screens' open WebSockets are told "going away" (`_going_away`) and anything else in flight is
    given `SHUTDOWN_S`, then cut (the pages reconnect): aiohttp's default of 60 s held every `systemctl stop` for a
    minute. Raises OSError when the address cannot be bound."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, ssl_context=tls)
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    server = site._server  # aiohttp keeps the bound sockets here; needed for the port of `listen = "...:0"`
    if isinstance(server, asyncio.Server) and server.sockets:
        port = server.sockets[0].getsockname()[1]
    return runner, port
