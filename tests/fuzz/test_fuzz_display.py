"""Fuzzing the web processes' HTTP and WebSocket endpoints, with and without a session: a real `croupier display`,
and a real `croupier pit web` (the floor's pages, its pit asking a role), on loopback each take any method, path, query, header and body, and any WebSocket text or bytes on every socket; it
answers each below 500 (never an internal error), stays up, and logs no traceback. Each request and socket goes as a
visitor, a signed-in dealer or a signed-in surveillance user, from the display's own origin, another, `null` or none
(`guard.py`); a session a fuzzed sign-out ended is signed in again (from 127.0.0.2, whose sign-ins the fuzzed ones,
from 127.0.0.1, never lock).

Requests go only to 127.0.0.1, one at a time; `make test` sends QUICK examples per property, `make soak` SOAK.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import strategies as st

from protocol.users import User, Users
from tests.fuzz.fuzzing import quick_and_soak

PATHS = ["/", "/table", "/dealer", "/pit", "/pit/access.json", "/surveillance", "/tournament", "/words.json", "/api/signin",
         "/api/signout", "/api/me", "/ws/public", "/ws/dealer", "/ws/full", "/ws/pit", "/ws/tournament",
         "/static/words.js", "/static/../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/",
         "/ws/public?table=", "/ws/public?table=%00", "/table?table=x" * 3]
SOCKETS = ["/ws/public", "/ws/dealer", "/ws/full", "/ws/pit", "/ws/tournament"]  # each process answers 404 to the other's
PIN = "482913"


def run(coroutine: Any) -> Any:
    """`asyncio.run` on a thread of its own: in a session with the browser tests, Playwright keeps a loop running
    on this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


SESSIONS = {"dealer": "dee", "surveillance": "eve"}
ORIGINS = ["own", "own", "other", "none", "null"]


async def _sign_in(base: str, user: str) -> str:
    """A session cookie for `user`, signed in from 127.0.0.2 (never locked by the fuzzed sign-ins from 127.0.0.1)."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))) as http:
        async with http.post(f"{base}/api/signin", json={"user": user, "pin": PIN}, headers={"Origin": base}) as reply:
            assert reply.status == 200, await reply.text()
            return reply.cookies["croupier_session"].value


async def _live(base: str, cookie: str) -> bool:
    async with aiohttp.ClientSession(cookies={"croupier_session": cookie}) as http:
        async with http.get(f"{base}/api/me") as reply:
            return reply.status == 200


@dataclass
class Display:
    base: str
    log: Path
    proc: subprocess.Popen[str]
    cookies: dict[str, str]
    home: str = "/table"  # the process's own first page

    def origin(self, which: str) -> dict[str, str]:
        """The Origin header sent: the display's own, another port's, `null`, or none."""
        port = int(self.base.rsplit(":", 1)[1])
        return {"own": {"Origin": self.base}, "other": {"Origin": f"http://127.0.0.1:{port + 1}"},
                "null": {"Origin": "null"}, "none": {}}[which]

    def renew(self) -> None:
        """Sign in again the sessions a fuzzed sign-out ended."""
        async def renew() -> None:
            for role, user in SESSIONS.items():
                if not await _live(self.base, self.cookies[role]):
                    self.cookies[role] = await _sign_in(self.base, user)
        run(renew())

    def alive(self) -> None:
        assert self.proc.poll() is None, f"the display died: {self.log.read_text()[-3000:]}"
        said = self.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in said and "Error handling request" not in said, said[-3000:]


@pytest.fixture(scope="module", params=["display", "pit web"])
def display(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Display]:
    """`croupier display` on a free loopback port with a users file and a console (its table absent: the
    pages show it offline), or `croupier pit web` with the same users file and its pit for surveillance only
    (no pit aggregator: no table); the signed-in users' session cookies."""
    root = tmp_path_factory.mktemp("display")
    users = root / "users.json"
    Users({"dee": User.with_pin("dee", "dealer", PIN), "eve": User.with_pin("eve", "surveillance", PIN)}).save(users)
    config = root / "display.toml"
    if request.param == "display":
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\nusers = "{users}"\n'
                          f'commands = "ipc://{root}/commands"\nfull = "ipc://{root}/full"\n'
                          f'full_snapshot = "ipc://{root}/full-snapshot"\n', encoding="utf-8")
    else:
        config.write_text(f'[web]\nlisten = "127.0.0.1:0"\nusers = "{users}"\npit_roles = ["surveillance"]\n',
                          encoding="utf-8")
    log = root / "display.log"
    proc = subprocess.Popen([sys.executable, "-m", "cli", *request.param.split(), "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    assert line, log.read_text()
    ready = json.loads(line)
    base = ready.get("display") or ready["web"]

    running = Display(base, log, proc, {role: run(_sign_in(base, user)) for role, user in SESSIONS.items()},
                      "/table" if request.param == "display" else "/pit")
    yield running
    proc.terminate()
    proc.wait(timeout=10)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=10)
header_values = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)
requests = st.fixed_dictionaries({
    "method": st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]),
    "path": st.sampled_from(PATHS) | st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126),
                                             max_size=40).map(lambda t: "/" + t.replace("#", "")),
    "headers": st.dictionaries(st.sampled_from(["Origin", "Content-Type", "Cookie", "Referer", "Upgrade",
                                                "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
                                                "X-Forwarded-For", "Accept-Language"]), header_values, max_size=4),
    "body": st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries({"user": json_values, "pin": json_values}).map(lambda v: json.dumps(v).encode()),
    "session": st.sampled_from([None, *SESSIONS]),
    "origin": st.sampled_from(ORIGINS),
})


async def _one_request(d: Display, r: dict[str, Any]) -> int:
    cookies = {"croupier_session": d.cookies[r["session"]]} if r["session"] else {}
    async with aiohttp.ClientSession(cookies=cookies) as http:
        try:
            headers = {**d.origin(r.get("origin", "own")), **r["headers"]}
            async with http.request(r["method"], d.base + r["path"], data=r["body"], headers=headers,
                                    allow_redirects=False, timeout=aiohttp.ClientTimeout(total=10)) as reply:
                await reply.read()
                return reply.status
        except (aiohttp.ClientError, ValueError):  # a request the client itself will not send, or a closed socket
            return 0


ANSWERED: list[int] = []  # the fuzzed requests' statuses (0: the client would not send it)


def check_request(display: Display, r: dict[str, Any]) -> None:
    status = run(_one_request(display, r))
    assert status < 500, (r, status)
    ANSWERED.append(status)
    display.alive()
    display.renew()


messages = st.lists(st.text(max_size=300) | st.binary(max_size=100)
                    | json_values.map(json.dumps)
                    | st.fixed_dictionaries({"id": st.text(max_size=8), "cmd": st.sampled_from(
                        ["bet", "deal", "decide", "void", "clear", "confirm", "correct", "card", "state", "act"])},
                        optional={"seat": json_values, "bets": json_values, "auth": json_values,
                                  "card": json_values}).map(json.dumps), min_size=1, max_size=5)


async def _one_socket(d: Display, path: str, sent: list[str | bytes], session: str | None, origin: str) -> None:
    cookies = {"croupier_session": d.cookies[session]} if session else {}
    async with aiohttp.ClientSession(cookies=cookies) as http:
        try:
            async with http.ws_connect(d.base + path, headers=d.origin(origin),
                                       timeout=aiohttp.ClientWSTimeout(ws_close=5)) as ws:
                for message in sent:
                    await (ws.send_bytes(message) if isinstance(message, bytes) else ws.send_str(message))
                try:
                    await asyncio.wait_for(ws.receive(), 0.2)
                except asyncio.TimeoutError:
                    pass
        except aiohttp.WSServerHandshakeError as exc:
            assert exc.status < 500, (path, exc.status)
        except (aiohttp.ClientError, ConnectionResetError):
            pass


def check_socket(display: Display, path: str, sent: list[str | bytes], session: str | None, origin: str) -> None:
    run(_one_socket(display, path, sent, session, origin))
    display.alive()


test_any_request_is_answered_below_500, test_any_request_is_answered_below_500_soak = \
    quick_and_soak(r=requests, quick=60)(check_request)
test_any_socket_message_is_taken, test_any_socket_message_is_taken_soak = \
    quick_and_soak(path=st.sampled_from(SOCKETS), sent=messages, session=st.sampled_from([None, *SESSIONS]),
                   origin=st.sampled_from(ORIGINS), quick=40)(check_socket)


def test_the_fuzzer_reaches_the_display_as_a_visitor_and_signed_in(display: Display) -> None:
    """The fuzzer's own requests, fixed ones: they reach the pages, and the session cookie it sends is live."""
    base = {"method": "GET", "headers": {}, "body": b""}
    assert run(_one_request(display, {**base, "path": display.home, "session": None})) == 200
    assert run(_one_request(display, {**base, "path": "/api/me", "session": None})) == 401
    assert run(_one_request(display, {**base, "path": "/api/me", "session": "dealer"})) == 200
    assert run(_one_request(display, {**base, "path": "/api/me", "session": "surveillance"})) == 200

    async def opens(path: str, role: str, origin: str) -> int:
        async with aiohttp.ClientSession(cookies={"croupier_session": display.cookies[role]}) as http:
            try:
                async with http.ws_connect(display.base + path, headers=display.origin(origin)):
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    # the fuzzed messages reach the signed-in sockets' handlers from the process's own origin, and only from it
    if display.home == "/table":
        assert [run(opens(path, role, "own")) for path, role in (("/ws/dealer", "dealer"), ("/ws/full", "surveillance"))] \
            == [101, 101]
        assert run(opens("/ws/dealer", "dealer", "other")) == 403
    else:  # the floor's pit, for surveillance only
        assert [run(opens("/ws/pit", role, "own")) for role in ("surveillance", "dealer")] == [101, 403]
        assert run(opens("/ws/pit", "surveillance", "other")) == 403
    display.alive()
    # after the property above (file order, one worker): most fuzzed requests were answered, not refused by the client
    assert sum(1 for status in ANSWERED if status) >= len(ANSWERED) // 2, ANSWERED
