"""Sign-in to a web process's pages (the table's display, the floor's): a user and PIN checked against the users file, then a session cookie carrying the user's role.

The users file is the table's own (`[security] users`, written by `croupier users add`), named by
`[display] users` (the floor's `[web] users`); it is re-read when it changes, so a user removed or re-PINned is out at the next
sign-in. A session is a random token in an HttpOnly, SameSite=Strict cookie (Secure when the pages
are served over TLS). The live sessions are kept beside the users file (`<users>.sessions`: each
token's SHA-256, never the token, with its user, role and end), so a process restarted mid-shift finds
its signed-in consoles again; a user no longer in the users file, or with another role, is out.

- `POST /api/signin` `{"user": "ana", "pin": "4821"}` (as `application/json`) -> 200 `{"user": "ana",
  "role": "dealer"}` and the cookie; a wrong user or PIN -> 401 `{"error": "wrong user or PIN"}`
  (which one is not said, nor shown by the time taken: an unknown name is checked against a dummy
  hash of the file's own cost); `MAX_TRIES` failures for a name, or from a client address, in
  `TRY_WINDOW_S` -> 429 until the window has passed (`Tries` below: the rule is docs/security.md's
  "The display's sign-in").
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
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aiohttp import web

from protocol.users import User, Users, UsersError

log = logging.getLogger(__name__)

SESSION_COOKIE = "croupier_session"
SESSION_TTL_S = 12 * 3600.0
"""A session's life: a shift and some (signing in again is a user and PIN)."""
MAX_TRIES = 5
TRY_WINDOW_S = 60.0
"""At most `MAX_TRIES` failed sign-ins per user, and per client address, in `TRY_WINDOW_S` seconds."""
MAX_SESSIONS = 1000
SPRAY_RATE = 5.0
SPRAY_BURST = 20
"""The process's failure budget, all names and addresses together: `SPRAY_BURST` failures at once, then
`SPRAY_RATE` a second; a failure beyond it is answered `SPRAY_DELAY_S` later."""
SPRAY_DELAY_S = 2.0
MAX_ADDRESSES = 4096
"""Client addresses (and unknown names) whose failures are remembered: the oldest are forgotten past it."""
PIN_CHECKS = 2
"""PIN checks (scrypt) run at once: the Pi's other core stays with the screens."""
MAX_WAITING = 64
"""Sign-ins waiting for a PIN check; past it a new one is answered 429 at once (busy), nothing counted."""
WRONG = "wrong user or PIN"
TOO_MANY = f"too many failed sign-ins: wait {TRY_WINDOW_S:.0f} s"
BUSY = "too many sign-ins at once on these pages: wait a few seconds"


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


class Tries:
    """Failed sign-ins by key in the last `TRY_WINDOW_S`: `MAX_TRIES` of them lock the key until the oldest ages out.

    `limit` bounds the keys kept (the least recently failed are forgotten past it); None keeps every
    key: the users file's names, which a spray of other names or addresses can never push out."""

    def __init__(self, clock: Callable[[], float], limit: int | None = None) -> None:
        self._clock = clock
        self._limit = limit
        self._times: OrderedDict[str, deque[float]] = OrderedDict()

    def locked(self, key: str) -> bool:
        times = self._times.get(key)
        if times is None:
            return False
        now = self._clock()
        while times and now - times[0] >= TRY_WINDOW_S:
            times.popleft()
        if not times:
            del self._times[key]
            return False
        return len(times) >= MAX_TRIES

    def failed(self, key: str) -> bool:
        """Count one failure of `key`; True when it locks the key."""
        times = self._times.setdefault(key, deque(maxlen=MAX_TRIES))
        times.append(self._clock())
        self._times.move_to_end(key)
        if self._limit is not None:
            while len(self._times) > self._limit:
                self._times.popitem(last=False)
        return self.locked(key)

    def keep_only(self, keys: Iterable[str]) -> None:
        """Forget the keys not in `keys` (users removed from the file)."""
        kept = set(keys)
        for key in [k for k in self._times if k not in kept]:
            del self._times[key]

    def __len__(self) -> int:
        return len(self._times)


class Sessions:
    """The signed-in users of one web process, and the users file their PINs are checked against."""

    def __init__(self, users_path: str | Path | None, *, ttl_s: float = SESSION_TTL_S,
                 clock: Callable[[], float] = time.monotonic, store: str | Path | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.users_path = None if users_path is None else Path(users_path)
        self.ttl_s = ttl_s
        self._clock = clock
        self._sleep = sleep
        self._sessions: dict[str, Session] = {}
        # a user's lock is kept by the user's name alone, in a table no other name or address shares
        self.user_tries = Tries(clock)
        self.name_tries = Tries(clock, MAX_ADDRESSES)  # unknown names: locked alike, so a lock tells nothing
        self.address_tries = Tries(clock, MAX_ADDRESSES)
        self._budget = float(SPRAY_BURST)
        self._budget_at = clock()
        self.held = 0  # failures answered late (the spray brake), for the log and the tests
        self._checks: asyncio.Semaphore | None = None  # made on the serving loop
        self._waiting = 0
        self._dummy: User | None = None
        self._users: Users | None = None
        self._users_stamp: tuple[int, int] | None = None
        # `[display] sessions`, else beside the users file (a Pi's /etc/croupier is read-only to the display:
        # deploy/display.toml names its state directory)
        self._store = (Path(store) if store is not None else None if self.users_path is None
                       else self.users_path.with_name(self.users_path.name + ".sessions"))
        self._load_sessions()

    # -- the sessions kept over a restart --

    def _load_sessions(self) -> None:
        """The sessions a previous run of this process kept (their tokens' hashes), still live."""
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
            raise SignInRefused("sign-in is not set up on these pages (no users file: [display] or [web] users)", 401)
        try:
            st = os.stat(self.users_path)
            stamp = (st.st_mtime_ns, st.st_size)
            if self._users is None or stamp != self._users_stamp:
                self._users, self._users_stamp = Users.load(self.users_path), stamp
                self.user_tries.keep_only(self._users.by_name)
                self._dummy = None
        except (OSError, UsersError) as exc:
            log.error("users file %s cannot be read: %s", self.users_path, exc)
            raise SignInRefused("sign-in is unavailable: the users file cannot be read", 401) from None
        return self._users

    def _stand_in(self, users: Users) -> User:
        """A user no PIN matches, hashed at the cost of the file's first user: what an unknown name is checked
        against, so the answer takes as long as for a real name."""
        if self._dummy is None:
            model = next(iter(users.by_name.values()), None)
            salt = secrets.token_bytes(16)
            self._dummy = (User("-", "dealer", salt, secrets.token_bytes(32)) if model is None
                           else replace(model, name="-", salt=salt, hash=secrets.token_bytes(len(model.hash))))
        return self._dummy

    def _over_budget(self) -> bool:
        """Spend one failure of the process's budget (`SPRAY_BURST`, refilled at `SPRAY_RATE` a second); True
        when none was left."""
        now = self._clock()
        self._budget = min(float(SPRAY_BURST), self._budget + (now - self._budget_at) * SPRAY_RATE)
        self._budget_at = now
        if self._budget >= 1.0:
            self._budget -= 1.0
            return False
        return True

    async def _check(self, user: User, pin: str) -> bool:
        """The scrypt check, off the loop, at most `PIN_CHECKS` at once. Raises SignInRefused (busy)."""
        if self._waiting >= MAX_WAITING:
            raise SignInRefused(BUSY, 429)
        if self._checks is None:
            self._checks = asyncio.Semaphore(PIN_CHECKS)
        self._waiting += 1
        try:
            async with self._checks:
                return await asyncio.to_thread(user.pin_matches, pin)
        finally:
            self._waiting -= 1

    async def check(self, user: Any, pin: Any, address: str = "?") -> User:
        """The user of the users file whose PIN `pin` is, under the rule of `sign_in` (the same locks and brake: a
        supervisor's sign-off at the floor is checked as a sign-in is). Raises SignInRefused."""
        if not isinstance(user, str) or not isinstance(pin, str) or not user or not pin or len(user) > 64 \
                or len(pin) > 64:
            raise SignInRefused("a user name and a PIN are needed", 401)
        users = self._load_users()
        found = users.get(user)
        names = self.user_tries if found is not None else self.name_tries
        if names.locked(user) or self.address_tries.locked(address):
            log.warning("sign-in refused for user %r from %s: locked (too many failures)", user, address)
            raise SignInRefused(TOO_MANY, 429)
        ok = await self._check(found if found is not None else self._stand_in(users), pin)
        if not ok or found is None:
            locks = names.failed(user)
            self.address_tries.failed(address)
            late = self._over_budget()
            if late:
                self.held += 1
            log.warning("sign-in refused for user %r from %s%s%s", user, address,
                        ": the name is now locked" if locks else "", " (answered late: too many failures overall)"
                        if late else "")
            if late:
                await self._sleep(SPRAY_DELAY_S)
            raise SignInRefused(WRONG, 401)
        return found

    async def sign_in(self, user: Any, pin: Any, address: str = "?") -> Session:
        """A new session for `user` if `pin` is theirs. Raises SignInRefused.

        The rule (docs/security.md, "The display's sign-in"): a name, real or not, and a client address are
        each locked by `MAX_TRIES` failures in `TRY_WINDOW_S`; a real user's lock is kept apart from
        everything else, so no flood of other names or addresses wears it away; past the process's failure
        budget every failure is answered `SPRAY_DELAY_S` late, a right PIN at once."""
        found = await self.check(user, pin, address)
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
    """The client's address is the connection's peer (`request.remote`), never a header such as X-Forwarded-For."""
    if request.content_type != "application/json":  # a plain HTML form cannot send JSON (no CORS preflight either)
        return web.json_response({"error": "send {\"user\": ..., \"pin\": ...} as application/json"}, status=415)
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
