"""The display's doors (issue 22, 6-8): the sign-in's locks under a spray, the Origin of WebSockets and state-changing
requests, and the security headers of every response (`display/auth.py`, `display/guard.py`).

The display is served in this process (`server.make_app` on an aiohttp TestServer, loopback) with a users file whose
PINs are hashed at a tiny scrypt cost, a fake clock and a fake sleep: no test waits for real time.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from firmware_host.display import server, surveillance
from floor.web import server as floor_server
from floor.web.config import WebConfig
from floor.web.hub import PitHub
from pages import app, auth, guard, tournament
from pages.auth import MAX_TRIES, SESSION_COOKIE, SPRAY_BURST, SPRAY_DELAY_S, TRY_WINDOW_S, Sessions
from pages.bridge import Hub
from firmware_host.display.config import ConfigError, DisplayConfig
from protocol.users import User, Users

PINS = {"sue": ("supervisor", "5550"), "ana": ("dealer", "4821"), "sam": ("surveillance", "7391")}


def run(coroutine: Any) -> Any:
    """`asyncio.run` on a thread of its own (Playwright may keep a loop on this one in a browser-test session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def cheap_user(name: str, role: str, pin: str) -> User:
    """A user whose PIN is hashed at scrypt's smallest cost: thousands of checks in a second."""
    salt = secrets.token_bytes(16)
    return User(name, role, salt, hashlib.scrypt(pin.encode(), salt=salt, n=2, r=1, p=1, dklen=32), 2, 1, 1)


def users_file(tmp_path: Path) -> Path:
    path = tmp_path / "users.json"
    Users({name: cheap_user(name, role, pin) for name, (role, pin) in PINS.items()}).save(path)
    return path


class FakeTime:
    """The sessions' clock, moved by hand and by their sleeps (which return at once)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def sessions(tmp_path: Path, time: FakeTime) -> Sessions:
    return Sessions(users_file(tmp_path), clock=time.clock, sleep=time.sleep, store=tmp_path / "sessions.json")


async def attempt(s: Sessions, user: str, pin: str, address: str) -> int:
    try:
        await s.sign_in(user, pin, address)
    except auth.SignInRefused as exc:
        return exc.status
    return 200


# -- 6. the sign-in's locks ------------------------------------------------------------------------------------------

def test_a_spray_of_unknown_names_from_thousands_of_addresses_never_unlocks_a_user(tmp_path: Path) -> None:
    """The issue's attack: the supervisor locked from one address, then 5,200 failed sign-ins for unknown names from
    5,200 addresses; the supervisor is still locked, with the right PIN, from a fresh address."""
    time = FakeTime()
    s = sessions(tmp_path, time)

    async def scene() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        seen["locking"] = [await attempt(s, "sue", "0000", "10.0.0.1") for _ in range(MAX_TRIES)]
        seen["locked"] = await attempt(s, "sue", "5550", "10.0.0.2")
        spray = []
        for i in range(5200):
            time.now += 0.001  # 5,200 in 5.2 s, as in the issue
            spray.append(await attempt(s, f"nobody{i}", "1234", f"127.{i // 65536}.{i // 256 % 256}.{i % 256 + 1}"))
        seen["spray"] = spray
        time.now += 6.5
        seen["after"] = await attempt(s, "sue", "5550", "10.0.0.3")
        seen["other user"] = await attempt(s, "ana", "4821", "10.0.0.4")
        time.now += TRY_WINDOW_S
        seen["window passed"] = await attempt(s, "sue", "5550", "10.0.0.3")
        return seen

    seen = run(scene())
    assert seen["locking"] == [401] * MAX_TRIES and seen["locked"] == 429
    assert set(seen["spray"]) == {401}
    assert seen["after"] == 429, "the spray wore the supervisor's lock away"
    assert seen["other user"] == 200, "a user who signs in right is let in during and after a spray"
    assert seen["window passed"] == 200
    assert len(s.name_tries) <= auth.MAX_ADDRESSES and len(s.address_tries) <= auth.MAX_ADDRESSES
    # the spray spent the display's failure budget: all but its first SPRAY_BURST failures (and some refilled
    # while it ran) were answered SPRAY_DELAY_S late
    assert s.held > 5200 - SPRAY_BURST - 5.2 * auth.SPRAY_RATE - 2 and set(time.slept) == {SPRAY_DELAY_S}


def test_the_failure_answer_is_the_same_for_an_unknown_name_and_a_real_one(tmp_path: Path) -> None:
    """Same status, same words, and the same lock after MAX_TRIES: neither the answer nor the lock tells a real name."""
    time = FakeTime()
    s = sessions(tmp_path, time)

    async def answers(user: str, address: str) -> list[tuple[int, str]]:
        out = []
        for _ in range(MAX_TRIES + 1):
            try:
                await s.sign_in(user, "0000", address)
            except auth.SignInRefused as exc:
                out.append((exc.status, str(exc)))
        return out

    real, unknown = run(answers("ana", "10.0.0.1")), run(answers("anna", "10.0.0.2"))
    assert real == unknown == [(401, "wrong user or PIN")] * MAX_TRIES + [(429, auth.TOO_MANY)]


def test_an_unknown_name_is_checked_against_a_hash_of_the_files_own_cost(tmp_path: Path) -> None:
    """The time of the answer: an unknown name costs one scrypt check at the cost of the file's users."""
    s = sessions(tmp_path, FakeTime())
    checked: list[User] = []
    real_check = User.pin_matches

    def spy(user: User, pin: str) -> bool:
        checked.append(user)
        return real_check(user, pin)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(User, "pin_matches", spy)
        assert run(attempt(s, "nobody", "1234", "10.0.0.1")) == 401
        assert run(attempt(s, "ana", "1234", "10.0.0.1")) == 401
    dummy, ana = checked
    assert dummy.name != "ana" and (dummy.n, dummy.r, dummy.p, len(dummy.hash)) == (ana.n, ana.r, ana.p, len(ana.hash))


def test_an_address_is_throttled_whatever_names_it_tries(tmp_path: Path) -> None:
    time = FakeTime()
    s = sessions(tmp_path, time)

    async def scene() -> list[int]:
        return [await attempt(s, f"guess{i}", "1234", "10.0.0.9") for i in range(MAX_TRIES + 1)] + \
            [await attempt(s, "ana", "4821", "10.0.0.9"), await attempt(s, "ana", "4821", "10.0.0.10")]

    assert run(scene()) == [401] * MAX_TRIES + [429, 429, 200]


def test_a_flood_of_sign_ins_at_once_is_answered_busy_without_counting(tmp_path: Path) -> None:
    """More than MAX_WAITING sign-ins waiting for a PIN check: the next is answered 429 at once, and locks nothing."""
    time = FakeTime()
    s = sessions(tmp_path, time)
    s._waiting = auth.MAX_WAITING
    assert run(attempt(s, "sue", "0000", "10.0.0.1")) == 429
    s._waiting = 0
    assert run(attempt(s, "sue", "5550", "10.0.0.1")) == 200


# -- the display in this process ------------------------------------------------------------------------------------

def make_display(tmp_path: Path, time: FakeTime, origins: tuple[str, ...] = ()) -> web.Application:
    """The display's app with the sign-in (cheap users, fake time), the dealer console and /surveillance with a full
    feed configured (never followed: the handshake is what is tested) and /ws/tournament."""
    users = users_file(tmp_path)
    cfg = DisplayConfig(users=str(users), full=f"ipc://{tmp_path}/full", full_snapshot=f"ipc://{tmp_path}/full-s")
    app = server.make_app(Hub(1.0), Sessions(users, clock=time.clock, sleep=time.sleep), origins=origins)
    surveillance.add_routes(app, cfg, asyncio.get_running_loop())
    tournament.add_routes(app, cfg, asyncio.get_running_loop(), "display")  # a tournament table's clock
    return app


def make_floor(tmp_path: Path, time: FakeTime, pit_roles: tuple[str, ...] = ()) -> web.Application:
    """The floor's web app (`croupier pit web`) with the same sign-in and guard: /pit and /tournament."""
    users = users_file(tmp_path)
    app = floor_server.make_app(PitHub(()), Sessions(users, clock=time.clock, sleep=time.sleep), pit_roles=pit_roles)
    tournament.add_routes(app, WebConfig(users=str(users)), asyncio.get_running_loop(), "web")
    return app


async def sign_in_cookie(http: aiohttp.ClientSession, base: str, user: str) -> str:
    async with http.post(f"{base}/api/signin", json={"user": user, "pin": PINS[user][1]},
                         headers={"Origin": base}) as reply:
        assert reply.status == 200, await reply.text()
        return reply.cookies[SESSION_COOKIE].value


async def handshake(base: str, path: str, cookie: str | None, origin: str | None) -> int:
    """The status of a WebSocket handshake (101 when it opened)."""
    headers = {"Cookie": f"{SESSION_COOKIE}={cookie}"} if cookie else {}
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(base + path, headers=headers, origin=origin) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def test_the_spray_over_http_from_many_source_addresses(tmp_path: Path) -> None:
    """The peer address is the connection's (each client bound to its own 127.0.0.x), never X-Forwarded-For: a
    forged header does not escape the address throttle, and 300 sources do not unlock the supervisor."""
    time = FakeTime()

    async def scene() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with TestServer(make_display(tmp_path, time), host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")

            async def post(user: str, pin: str, source: str, forwarded: str | None = None) -> int:
                connector = aiohttp.TCPConnector(local_addr=(source, 0))
                headers = {"Origin": base, **({"X-Forwarded-For": forwarded} if forwarded else {})}
                async with aiohttp.ClientSession(connector=connector) as http:
                    async with http.post(f"{base}/api/signin", json={"user": user, "pin": pin},
                                         headers=headers) as reply:
                        return reply.status

            seen["forwarded"] = [await post(f"x{i}", "1234", "127.0.0.2", f"10.9.{i}.1") for i in range(MAX_TRIES + 1)]
            seen["locking"] = [await post("sue", "0000", "127.0.0.3") for _ in range(MAX_TRIES)]
            seen["spray"] = {await post(f"nobody{i}", "1234", f"127.0.{1 + i // 250}.{1 + i % 250}")
                             for i in range(300)}
            seen["after"] = await post("sue", "5550", "127.0.9.9")
            seen["dealer"] = await post("ana", "4821", "127.0.9.9")
        return seen

    seen = run(scene())
    assert seen["forwarded"] == [401] * MAX_TRIES + [429]
    assert seen["locking"] == [401] * MAX_TRIES and seen["spray"] == {401}
    assert (seen["after"], seen["dealer"]) == (429, 200)


# -- 7. Origin -------------------------------------------------------------------------------------------------------

def test_sockets_from_another_origin_are_refused_even_with_a_live_session(tmp_path: Path) -> None:
    """/ws/dealer and /ws/full with the signed-in user's cookie: opened from the display's own origin only (a page of
    the same host on another port, or none, or `null`, is refused 403)."""
    time = FakeTime()

    async def scene() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with TestServer(make_display(tmp_path, time), host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            other = f"http://127.0.0.1:{ts.port + 1}"
            async with aiohttp.ClientSession() as http:
                dealer, eye = await sign_in_cookie(http, base, "ana"), await sign_in_cookie(http, base, "sam")
            for path, cookie in (("/ws/dealer", dealer), ("/ws/full", eye)):
                for name, origin in (("own", base), ("other port", other), ("other host", "http://evil.example"),
                                     ("none", None), ("null", "null"), ("https", base.replace("http", "https"))):
                    seen[path, name] = await handshake(base, path, cookie, origin)
            for path in ("/ws/public", "/ws/tournament"):
                seen[path, "own"] = await handshake(base, path, None, base)
                seen[path, "other port"] = await handshake(base, path, None, other)
        async with TestServer(make_floor(tmp_path, time), host="127.0.0.1") as ts:  # the floor's pages alike
            base = str(ts.make_url("")).rstrip("/")
            other = f"http://127.0.0.1:{ts.port + 1}"
            for path in ("/ws/pit", "/ws/tournament"):
                seen["floor " + path, "own"] = await handshake(base, path, None, base)
                seen["floor " + path, "other port"] = await handshake(base, path, None, other)
        return seen

    seen = run(scene())
    for path in ("/ws/dealer", "/ws/full"):
        assert seen[path, "own"] == 101, seen
        for name in ("other port", "other host", "none", "null", "https"):
            assert seen[path, name] == 403, (path, name, seen)
    for path in ("/ws/public", "/ws/tournament", "floor /ws/pit", "floor /ws/tournament"):
        assert (seen[path, "own"], seen[path, "other port"]) == (101, 403), seen


def test_the_floors_pit_asks_the_roles_it_is_given_and_no_one_without(tmp_path: Path) -> None:
    """`[web] pit_roles`: /ws/pit opens for a signed-in user of those roles only (401 signed out, 403 another role),
    and /pit/access.json tells the page which; without them the pit is a wall screen anyone on the floor opens."""
    time = FakeTime()

    async def scene(roles: tuple[str, ...]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with TestServer(make_floor(tmp_path, time, roles), host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/pit/access.json") as reply:
                    seen["access"] = await reply.json()
                dealer, eye = await sign_in_cookie(http, base, "ana"), await sign_in_cookie(http, base, "sam")
            for name, cookie in (("signed out", None), ("dealer", dealer), ("surveillance", eye)):
                seen[name] = await handshake(base, "/ws/pit", cookie, base)
            seen["clock"] = await handshake(base, "/ws/tournament", None, base)  # the clock stays a wall screen
        return seen

    gated = run(scene(("pit", "surveillance")))
    assert gated["access"] == {"roles": ["pit", "surveillance"]}
    assert (gated["signed out"], gated["dealer"], gated["surveillance"], gated["clock"]) == (401, 403, 101, 101)
    open_ = run(scene(()))
    assert open_["access"] == {"roles": []} and open_["signed out"] == open_["dealer"] == 101


def test_a_cross_site_form_cannot_sign_in_or_out(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Login CSRF: a form of another site posting /api/signin (its Origin, `null`, or none at all with a foreign
    Referer) sets no session; the refusal is one clear line, and logged. The sign-out likewise."""
    time = FakeTime()
    form = "user=ana&pin=4821"
    text_plain = '{"user": "ana", "pin": "4821", "x": "="}'  # what enctype=text/plain can send

    async def scene() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with TestServer(make_display(tmp_path, time), host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            async with aiohttp.ClientSession() as http:
                for name, headers, body in (
                        ("form", {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
                         form),
                        ("text/plain", {"Origin": "http://evil.example", "Content-Type": "text/plain"}, text_plain),
                        ("json other port", {"Origin": f"http://127.0.0.1:{ts.port + 1}",
                                             "Content-Type": "application/json"}, text_plain),
                        ("null", {"Origin": "null", "Content-Type": "application/json"}, text_plain),
                        ("referer", {"Referer": "http://evil.example/x", "Content-Type": "application/json"},
                         text_plain),
                        ("nothing", {"Content-Type": "application/json"}, text_plain),
                        ("own, as a form", {"Origin": base, "Content-Type": "text/plain"}, text_plain),
                        ("own referer", {"Referer": f"{base}/dealer", "Content-Type": "application/json"},
                         text_plain)):
                    async with http.post(f"{base}/api/signin", data=body, headers=headers) as reply:
                        seen[name] = (reply.status, await reply.text(), SESSION_COOKIE in reply.cookies)
                async with http.post(f"{base}/api/signout", headers={"Origin": "http://evil.example"}) as reply:
                    seen["sign-out"] = reply.status
        return seen

    seen = run(scene())
    for name in ("form", "text/plain", "json other port", "null", "referer", "nothing"):
        status, text, cookie = seen[name]
        assert status == 403 and text.startswith("refused: ") and text.count("\n") == 1 and not cookie, (name, seen)
    assert seen["own, as a form"][0] == 415 and not seen["own, as a form"][2]
    assert seen["own referer"][0] == 200 and seen["own referer"][2]
    assert seen["sign-out"] == 403
    assert "refused POST /api/signin" in caplog.text and "evil.example" in caplog.text


def test_configured_origins_are_the_only_ones(tmp_path: Path) -> None:
    """`[display] origins` (a proxy's name): that origin only, the Host asked for no longer counts."""
    time = FakeTime()

    async def scene() -> tuple[int, int]:
        app = make_display(tmp_path, time, origins=("https://uth-1.example:8443",))
        async with TestServer(app, host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            return (await handshake(base, "/ws/public", None, "https://uth-1.example:8443"),
                    await handshake(base, "/ws/public", None, base))

    assert run(scene()) == (101, 403)
    assert DisplayConfig.parse('[display]\norigins = ["https://uth-1.local:8443", "http://10.0.0.7"]\n').origins == \
        ("https://uth-1.local:8443", "http://10.0.0.7")
    for bad in ('"https://x"', '["ftp://x"]', '["https://x/path"]', '["null"]', '[]', '[3]'):
        with pytest.raises(ConfigError, match=r"\[display\] origins"):
            DisplayConfig.parse(f"[display]\norigins = {bad}\n")


def test_parse_origin_fills_the_default_ports() -> None:
    assert guard.parse_origin("HTTP://Table.Local") == ("http", "table.local", 80)
    assert guard.parse_origin("https://[::1]:8443") == ("https", "::1", 8443)
    assert guard.parse_origin("null") is None and guard.parse_origin("file:///x") is None


# -- 8. headers -------------------------------------------------------------------------------------------------------

ROUTES = ["/", "/table", "/dealer", "/surveillance", "/static/table.js", "/static/table.css", "/static/common.js",
          "/words.json", "/schema/public.json", "/api/me", "/nothing-here", "/static/none.js", "/static/..%2fserver.py",
          "/pit", "/tournament", "/ws/dealer", "/ws/full"]
FLOOR_ROUTES = ["/", "/pit", "/tournament", "/static/pit.js", "/static/common.js", "/static/table.js", "/words.json",
                "/api/me", "/nothing-here", "/ws/pit"]


def test_every_response_carries_the_security_headers(tmp_path: Path) -> None:
    time = FakeTime()
    statuses: dict[str, int] = {}

    async def scene(secure: bool) -> dict[str, dict[str, str]]:
        seen: dict[str, dict[str, str]] = {}
        floor = make_floor(tmp_path, time)
        floor[guard.SECURE] = secure
        async with TestServer(floor, host="127.0.0.1") as ts, aiohttp.ClientSession() as http:
            base = str(ts.make_url("")).rstrip("/")
            for path in FLOOR_ROUTES:
                async with http.get(base + path, allow_redirects=False) as reply:
                    seen[f"floor {path}"] = dict(reply.headers)
                    statuses[f"floor {path}"] = reply.status
        app = make_display(tmp_path, time)
        app[guard.SECURE] = secure  # as served over TLS (the real TLS is test_signin.py's)
        async with TestServer(app, host="127.0.0.1") as ts:
            base = str(ts.make_url("")).rstrip("/")
            async with aiohttp.ClientSession() as http:
                for path in ROUTES:
                    async with http.get(base + path, allow_redirects=False) as reply:
                        seen[path] = dict(reply.headers)
                        statuses[path] = reply.status
                async with http.post(f"{base}/api/signin", json={"user": "ana", "pin": "0000"},
                                     headers={"Origin": "https" + base[4:] if secure else base}) as reply:
                    seen["POST /api/signin"] = dict(reply.headers)
                async with http.post(f"{base}/api/signin", json={}) as reply:
                    seen["POST refused"] = dict(reply.headers)
                async with http.ws_connect(f"{base}/ws/public",
                                           origin="https" + base[4:] if secure else base) as ws:
                    await ws.close()
                    seen["101 /ws/public"] = dict(ws._response.headers)
        return seen

    for secure in (False, True):
        seen = run(scene(secure))
        for path, headers in seen.items():
            for name, value in guard.HEADERS.items():
                assert headers.get(name) == value, (path, name, headers)
            assert ("Strict-Transport-Security" in headers) == secure, (path, headers)
    # each process serves its own pages and the shared modules, never the other's nor anything off its list
    assert [statuses[p] for p in ("/static/table.js", "/static/common.js", "/static/none.js", "/static/..%2fserver.py",
                                  "/pit", "/tournament")] == [200, 200, 404, 404, 404, 404], statuses
    assert [statuses[f"floor {p}"] for p in ("/static/pit.js", "/static/common.js", "/static/table.js", "/pit",
                                             "/tournament", "/")] == [200, 200, 404, 200, 200, 302], statuses
    # every module and style is asked again at each load (a console reloaded after an update runs the new code)
    for path in ("/static/table.js", "/static/table.css", "/static/common.js", "floor /static/pit.js"):
        assert seen[path].get("Cache-Control") == "no-cache", (path, seen[path])
    csp = guard.CSP
    for directive in ("default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                      "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"):
        assert directive in csp


def test_the_pages_hold_no_inline_script_or_style() -> None:
    files = [*app.static_files(Path(server.STATIC)).values(), *app.static_files(Path(floor_server.STATIC)).values()]
    for page in (p for p in files if p.suffix == ".html"):
        text = page.read_text(encoding="utf-8")
        assert "<style" not in text and " style=" not in text and "javascript:" not in text, page
        for tag in text.split("<script")[1:]:
            assert tag.split(">", 1)[0].strip().startswith('type="module" src="/static/'), (page, tag[:80])
            assert tag.split(">", 1)[1].startswith("</script>"), (page, tag[:80])
    for script in (p for p in files if p.suffix == ".js"):
        text = script.read_text(encoding="utf-8")
        assert " style=" not in text and "setAttribute(\"style\"" not in text and "eval(" not in text, script
        assert "new Function" not in text, script

