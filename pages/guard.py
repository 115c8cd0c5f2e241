"""A web process's doors for browsers (the table's display, the floor's pages): the `Origin` of every WebSocket and state-changing request, and the security headers of every response.

**Origin.** A WebSocket handshake (`Upgrade: websocket`), and any request but GET, HEAD and OPTIONS
(the sign-in, the sign-out), is served only when its `Origin` is the process's own: the
`[display] origins` (or `[web] origins`) list when it is given (the names the pages are opened by behind a proxy, and
the only ones then), else the scheme the process serves (https with TLS) with the request's own
`Host`. A browser sends `Origin` on every WebSocket and on every POST (a cross-site form sends its
site's, or `null`); a POST without it is let in only with a `Referer` of the process's origin, a
WebSocket never. Anything else is answered 403 with one line saying why, and logged. So a page of
another site, or of the same host on another port, can neither drive `/ws/dealer` nor read
`/ws/full` with a signed-in user's cookie, nor sign someone in (login CSRF).

**Headers.** Every response (pages, static files, the API, errors, the WebSocket handshakes) carries
the `CSP` below, `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`, `Referrer-Policy:
same-origin`, and over TLS `Strict-Transport-Security`. The pages hold no inline script or style:
their scripts are modules under /static/, their styles style sheets there (a script may still set
`element.style.x`, which CSP allows).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import hdrs, web
from yarl import URL

log = logging.getLogger("croupier.display.guard")

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin"}
HSTS = "max-age=31536000"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

Origin = tuple[str, str, int]
ORIGINS: web.AppKey[tuple[Origin, ...]] = web.AppKey("origins", tuple)
SECURE: web.AppKey[bool] = web.AppKey("secure", bool)


def parse_origin(text: str) -> Origin | None:
    """`scheme://host[:port]` as (scheme, host, port), the port filled in for http and https; None for anything
    else (`null`, a path, another scheme)."""
    try:
        url = URL(text.strip())
    except ValueError:
        return None
    if url.scheme not in ("http", "https") or not url.host or url.port is None:
        return None
    return url.scheme, url.host.lower().rstrip("."), url.port


def check_origins(values: Iterable[str]) -> tuple[Origin, ...]:
    """The `[display] origins` (or `[web] origins`) list parsed. Raises ValueError naming a value that is not `scheme://host[:port]`."""
    out = []
    for value in values:
        origin = parse_origin(value) if isinstance(value, str) else None
        if origin is None or URL(value).path not in ("", "/") or URL(value).query_string or URL(value).user:
            raise ValueError(f"{value!r} is not an origin: http(s)://HOST[:PORT], nothing after it")
        out.append(origin)
    return tuple(out)


def own_origins(request: web.Request) -> tuple[Origin, ...]:
    """The origins this request may come from: the configured origins, else the served scheme with the request's Host."""
    listed = request.app[ORIGINS]
    if listed:
        return listed
    scheme = "https" if request.app[SECURE] else "http"
    own = parse_origin(f"{scheme}://{request.host}")
    return (own,) if own is not None else ()


def refusal(request: web.Request) -> str | None:
    """Why this request is refused for its origin, or None when it may go on."""
    websocket = request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
    if not websocket and request.method in SAFE_METHODS:
        return None
    origin = request.headers.get(hdrs.ORIGIN)
    own = own_origins(request)
    if origin is None:
        referer = request.headers.get(hdrs.REFERER)
        if websocket:
            return "a WebSocket needs an Origin header (every browser sends one)"
        if referer is None:
            return f"{request.method} {request.path} needs an Origin (or Referer) header naming these pages"
        at = URL(referer) if parse_origin(referer) is not None else None
        if at is None or parse_origin(str(at.origin())) not in own:
            return f"Referer {referer[:200]!r} is not these pages' origin"
        return None
    if parse_origin(origin) not in own:
        return f"Origin {origin[:200]!r} is not these pages' origin"
    return None


@web.middleware
async def check_origin(request: web.Request,
                       handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Refuse (403, one line, logged) a WebSocket or state-changing request from another origin."""
    why = refusal(request)
    if why is not None:
        log.warning("refused %s %s from %s: %s", request.method, request.path, request.remote, why)
        raise web.HTTPForbidden(text=f"refused: {why}\n")
    return await handler(request)


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare`: the security headers on every response, errors and handshakes included."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.app[SECURE]:
        response.headers.setdefault("Strict-Transport-Security", HSTS)


def install(app: web.Application, *, secure: bool, origins: Iterable[str] = ()) -> None:
    """The origin check and the headers on `app` (`secure`: served over TLS)."""
    app[SECURE] = secure
    app[ORIGINS] = check_origins(origins)
    app.middlewares.append(check_origin)
    app.on_response_prepare.append(add_headers)
