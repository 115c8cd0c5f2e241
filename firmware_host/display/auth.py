"""Sign-in to the display's pages: a user and PIN checked against the users file, then a session cookie carrying the user's role.

The users file is the table's own (`[security] users`, written by `croupier users add`), named by
`[display] users`; it is re-read when it changes, so a user removed or re-PINned is out at the next
sign-in. A session is a random token in an HttpOnly, SameSite=Strict cookie (Secure when the pages
are served over TLS). The live sessions are kept beside the users file (`<users>.sessions`: each
token's SHA-256, never the token, with its user, role and end), so a display restarted mid-shift finds
its signed-in consoles again; a user no longer in the users file, or with another role, is out.

- `POST /api/signin` `{"user": "ana", "pin": "4821"}` -> 200 `{"user": "ana", "role": "dealer"}` and
  the cookie; a wrong user or PIN -> 401 `{"error": "wrong user or PIN"}` (which one is not said);
  more than `MAX_TRIES` failures for a user or a client address in `TRY_WINDOW_S` -> 429 until the
  window has passed.
- `POST /api/signout` ends the session; `GET /api/me` -> `{"user", "role"}` or 401.

A page that needs a role checks it with `require(request, roles)` (on the WebSocket's handshake);
the PIN is checked with scrypt off the event loop (`asyncio.to_thread`), so a sign-in never stalls
the screens.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from firmware_host.service.users import Users, UsersError

log = logging.getLogger(__name__)

SESSION_COOKIE = "croupier_session"
SESSION_TTL_S = 12 * 3600.0
"""A session's life: a shift and some (signing in again is a user and PIN)."""
MAX_TRIES = 5
TRY_WINDOW_S = 60.0
"""At most `MAX_TRIES` failed sign-ins per user, and per client address, in `TRY_WINDOW_S` seconds."""
MAX_SESSIONS = 1000


class SignInRefused(Exception):
    """A sign-in that is not let in; `status` is the HTTP status (401 wrong user or PIN, 429 too many tries)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in user: who, with which role, until when (on the sessions' clock)."""

    token: str
    user: str
    role: str
    expires: float


class Sessions:
    """The signed-in users of one display process, and the users file their PINs are checked against."""

    def __init__(self, users_path: str | Path | None, *, ttl_s: float = SESSION_TTL_S,
                 clock: Callable[[], float] = time.monotonic, store: str | Path | None = None) -> None:
        self.users_path = None if users_path is None else Path(users_path)
        self.ttl_s = ttl_s
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._failures: dict[str, deque[float]] = {}
        self._users: Users | None = None
        self._users_stamp: tuple[int, int] | None = None
        # `[display] sessions`, else beside the users file (a Pi's /etc/croupier is read-only to the display:
        # deploy/display.toml names its state directory)
        self._store = (Path(store) if store is not None else None if self.users_path is None
                       else self.users_path.with_name(self.users_path.name + ".sessions"))
        self._load_sessions()

    # -- the sessions kept over a restart --

    def _load_sessions(self) -> None:
        """The sessions a previous run of this display kept (their tokens' hashes), still live."""
        if self._store is None or not self._store.is_file():
            return
        try:
            kept = json.loads(self._store.read_text(encoding="utf-8"))
            now_wall, now = time.time(), self._clock()
            for digest, item in kept.items():
                left = float(item["ends"]) - now_wall
                if left > 0:
                    self._sessions[str(digest)] = Session(str(digest), str(item["user"]), str(item["role"]), now + left)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("the kept sessions %s cannot be read (everyone signs in again): %s", self._store, exc)
            self._sessions.clear()

    def _save_sessions(self) -> None:
        if self._store is None:
            return
        now_wall, now = time.time(), self._clock()
        kept = {digest: {"user": s.user, "role": s.role, "ends": now_wall + (s.expires - now)}
                for digest, s in self._sessions.items()}
        temp = self._store.with_name(self._store.name + ".tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(kept, out)
            os.replace(temp, self._store)
        except OSError as exc:
            log.warning("the sessions cannot be kept in %s (a restart signs everyone out): %s", self._store, exc)

    @staticmethod
    def _digest(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8")).hexdigest()

    def _load_users(self) -> Users:
        """The users file as it is now (re-read when its size or time changed). Raises SignInRefused."""
        if self.users_path is None:
            raise SignInRefused("sign-in is not set up on this display ([display] users)", 401)
        try:
            st = os.stat(self.users_path)
            stamp = (st.st_mtime_ns, st.st_size)
            if self._users is None or stamp != self._users_stamp:
                self._users, self._users_stamp = Users.load(self.users_path), stamp
        except (OSError, UsersError) as exc:
            log.error("users file %s cannot be read: %s", self.users_path, exc)
            raise SignInRefused("sign-in is unavailable: the users file cannot be read", 401) from None
        return self._users

    def _too_many(self, keys: Iterable[str]) -> bool:
        now = self._clock()
        for key in keys:
            tries = self._failures.get(key)
            while tries and now - tries[0] > TRY_WINDOW_S:
                tries.popleft()
            if tries is not None and len(tries) >= MAX_TRIES:
                return True
        return False

    def _failed(self, keys: Iterable[str]) -> None:
        now = self._clock()
        for key in keys:
            self._failures.setdefault(key, deque(maxlen=MAX_TRIES)).append(now)
        if len(self._failures) > 10 * MAX_SESSIONS:  # a spray of names: forget the oldest
            for key in list(self._failures)[: len(self._failures) // 2]:
                del self._failures[key]

    async def sign_in(self, user: Any, pin: Any, address: str = "?") -> Session:
        """A new session for `user` if `pin` is theirs. Raises SignInRefused."""
        if not isinstance(user, str) or not isinstance(pin, str) or not user or not pin or len(user) > 64 \
                or len(pin) > 64:
            raise SignInRefused("a user name and a PIN are needed", 401)
        keys = (f"user:{user}", f"address:{address}")
        if self._too_many(keys):
            raise SignInRefused(f"too many failed sign-ins: wait {TRY_WINDOW_S:.0f} s", 429)
        found = self._load_users().get(user)
        ok = found is not None and await asyncio.to_thread(found.pin_matches, pin)
        if not ok or found is None:
            self._failed(keys)
            log.warning("sign-in refused for user %r from %s", user, address)
            raise SignInRefused("wrong user or PIN", 401)
        self._expire()
        if len(self._sessions) >= MAX_SESSIONS:
            oldest = min(self._sessions.values(), key=lambda s: s.expires)
            del self._sessions[oldest.token]
        session = Session(secrets.token_urlsafe(32), found.name, found.role, self._clock() + self.ttl_s)
        digest = self._digest(session.token)
        self._sessions[digest] = Session(digest, session.user, session.role, session.expires)
        self._save_sessions()
        log.info("signed in: %s (%s) from %s", found.name, found.role, address)
        return session

    def get(self, token: str | None) -> Session | None:
        """The live session of a cookie's token, or None (unknown, ended or expired)."""
        if not token:
            return None
        digest = self._digest(token)
        session = self._sessions.get(digest)
        if session is None:
            return None
        if session.expires <= self._clock() or not self._still_user(session):
            del self._sessions[digest]
            self._save_sessions()
            return None
        return Session(token, session.user, session.role, session.expires)

    def _still_user(self, session: Session) -> bool:
        """The session's user is still in the users file with the same role."""
        try:
            found = self._load_users().get(session.user)
        except SignInRefused:
            return False
        return found is not None and found.role == session.role

    def sign_out(self, token: str | None) -> None:
        if token and self._sessions.pop(self._digest(token), None) is not None:
            self._save_sessions()

    def _expire(self) -> None:
        now = self._clock()
        for token in [t for t, s in self._sessions.items() if s.expires <= now]:
            del self._sessions[token]


SESSIONS: web.AppKey[Sessions] = web.AppKey("sessions", Sessions)
TLS: web.AppKey[bool] = web.AppKey("tls", bool)


def session_of(request: web.Request) -> Session | None:
    """The request's signed-in session, or None."""
    return request.app[SESSIONS].get(request.cookies.get(SESSION_COOKIE))


def require(request: web.Request, roles: Iterable[str]) -> Session:
    """The request's session if its role is one of `roles`. Raises HTTPUnauthorized (not signed in) or
    HTTPForbidden (signed in with another role), each with a JSON `error`."""
    session = session_of(request)
    allowed = tuple(roles)
    if session is None:
        raise web.HTTPUnauthorized(text='{"error": "sign in first"}', content_type="application/json")
    if session.role not in allowed:
        raise web.HTTPForbidden(text=f'{{"error": "{session.role} may not use this page (needs {" or ".join(allowed)})"}}',
                                content_type="application/json")
    return session


async def _signin(request: web.Request) -> web.Response:
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return web.json_response({"error": "send {\"user\": ..., \"pin\": ...} as JSON"}, status=400)
    try:
        session = await request.app[SESSIONS].sign_in(body.get("user"), body.get("pin"), request.remote or "?")
    except SignInRefused as exc:
        return web.json_response({"error": str(exc)}, status=exc.status)
    response = web.json_response({"user": session.user, "role": session.role})
    response.set_cookie(SESSION_COOKIE, session.token, httponly=True, samesite="Strict", path="/",
                        secure=request.app[TLS], max_age=int(request.app[SESSIONS].ttl_s))
    return response


async def _signout(request: web.Request) -> web.Response:
    request.app[SESSIONS].sign_out(request.cookies.get(SESSION_COOKIE))
    response = web.json_response({"signed_out": True})
    response.del_cookie(SESSION_COOKIE, path="/")
    return response


async def _me(request: web.Request) -> web.Response:
    session = session_of(request)
    if session is None:
        return web.json_response({"error": "not signed in"}, status=401)
    return web.json_response({"user": session.user, "role": session.role})


def add_routes(app: web.Application, sessions: Sessions, *, tls: bool) -> None:
    """Register the sign-in API on `app` and keep `sessions` there for `require`."""
    app[SESSIONS] = sessions
    app[TLS] = tls
    app.router.add_post("/api/signin", _signin)
    app.router.add_post("/api/signout", _signout)
    app.router.add_get("/api/me", _me)
