"""The floor's web process's own sign-off of a past day's step (`POST /pit/rating/past`) under a security officer's attacks: the table's gate, holds and audit writer (`floor.pit_signoff`), on loopback with no archive (a step signed off then says the archive cannot be written)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Page

from floor.pit_signoff import HOLDS_FILE
from floor.web.hub import PitHub, PitScreen
from floor.web.rating import RatingRelay
from floor.web.rating_past import CLOCK, REFUSED, WEB_KEY
from floor.web.server import make_app
from pages import app as core
from pages.auth import SESSION_COOKIE, Sessions
from pages.config import TableFeed
from protocol.audit import AUDIT_FILE, AuditLog
from protocol.signoff_holds import HOLD_S, MAX_FAILED, MAX_FAILED_RELAYED, THROTTLE_S
from protocol.users import Users
from sim.pgserver import free_port
from tests.own_loop import LoopThread, in_own_loop
from tests.web.test_pit_gaming_day import SHOTS
from tests.web.test_display_guard import cheap_user

PEOPLE = {"pat": ("pit", "2468"), "kim": ("pit", "1470"), "dan": ("dealer", "1357"), "sue": ("supervisor", "9753")}
PIN = PEOPLE["sue"][1]
BOSSES = [f"boss{n}" for n in range(6)]
Post = Callable[..., Awaitable[tuple[int, Any]]]


def users(tmp: Path) -> Path:
    path = tmp / "floor" / "web-users.json"
    path.parent.mkdir(exist_ok=True)
    people = {**PEOPLE, **{b: ("pit", "1111") for b in BOSSES}}
    Users({n: cheap_user(n, role, pin) for n, (role, pin) in people.items()}).save(path)
    return path


def step(pin: str, page_id: str = "p1", supervisor: str = "sue") -> dict[str, Any]:
    return {"table": "uth-1", "id": page_id, "session": {"start": 1700000000.5, "seat": 3, "version": 0},
            "rating": {"hands": 4, "average_bet": 2500}, "auth": {"user": supervisor, "pin": pin}}


@asynccontextmanager
async def floor(path: Path, clock: Callable[[], float] | None = None) -> AsyncIterator[Post]:
    """The floor's pages on loopback, the archive a port with no server; `post(user, body, origin="")` signs `user`
    in (None: no one) and POSTs the step from `origin` ("": the pages' own), returning the status and JSON.
    `clock`: the sign-offs' (a fake one; None: the wall clock)."""
    relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", commands="ipc:///unused-c")})
    dsn = f"host=127.0.0.1 port={free_port()} user=nobody dbname=none connect_timeout=2"
    app = make_app(PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")]), Sessions(path), rating=relay,
                   past_dsn=dsn)
    if clock is not None:
        app[CLOCK] = clock
    runner, port = await core.listen(app, "127.0.0.1", 0, None)
    base = f"http://127.0.0.1:{port}"
    http = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())

    async def post(user: str | None, body: Any, origin: str | None = "", referer: str | None = None) -> tuple[int, Any]:
        headers = {"Origin": base if origin == "" else origin} if origin is not None else {}
        if referer is not None:
            headers["Referer"] = referer
        if user is not None:
            pin = PEOPLE[user][1] if user in PEOPLE else "1111"
            async with http.post(f"{base}/api/signin", json={"user": user, "pin": pin},
                                 headers={"Origin": base}) as signed:
                assert signed.status == 200, await signed.text()
                headers["Cookie"] = f"{SESSION_COOKIE}={signed.cookies[SESSION_COOKIE].value}"
        async with http.post(f"{base}/pit/rating/past", data=json.dumps(body), headers=headers) as reply:
            text = await reply.text()
            return reply.status, json.loads(text) if text.startswith("{") else text
    try:
        yield post
    finally:
        await http.close()
        await runner.cleanup()


def audited(path: Path) -> list[tuple[str, dict[str, Any]]]:
    log = AuditLog.open(path.parent, readonly=True)
    try:
        assert log.verify().ok
        return [(e.kind, e.details) for e in log.entries()]
    finally:
        log.close()


def signed_off(answer: tuple[int, Any]) -> bool:
    """Past the gate: the step went on to the archive, which is not there."""
    return answer[0] == 503 and answer[1]["code"] == "archive"


def held(answer: tuple[int, Any]) -> bool:
    return answer[0] == 429 and answer[1]["say"]["key"] == "pit_rating.held" and answer[1]["say"]["args"]["seconds"] > 0


def refused(answer: tuple[int, Any]) -> bool:
    return answer[0] == 403 and answer[1]["error"] == REFUSED and answer[1]["say"]["key"] == "refusal.sign_off_refused"



def alert_shown(page: Page, words: str, since: float, shot: str) -> None:
    """The pit's alert box shown with `words` (its `{time}` the page's clock time of `since`) and the throttle's
    spacing; screenshots `shot`-1280x720 and -1920x1080 (looked at by a person, not compared)."""
    alert = page.locator("#signoff-alert")
    alert.wait_for(state="visible", timeout=15000)
    time_shown = page.evaluate("(t) => new Date(t * 1000).toTimeString().slice(0, 5)", since)
    assert page.locator("#signoff-alert-text").text_content() == words.format(time=time_shown)
    assert alert.get_attribute("data-spacing") == f"{THROTTLE_S:g}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}-1280x720.png"), full_page=True)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.screenshot(path=str(SHOTS / f"{shot}-1920x1080.png"), full_page=True)

def test_wrong_pins_at_the_web_route_are_audited_and_held_like_the_tables(tmp_path: Path) -> None:
    """Five wrong PINs from one pit boss hold that pit boss (the right PIN after them too), not another pit boss;
    each attempt in the pit's audit log with who, the address and the step, never a PIN; the holds survive a restart
    of the web process."""
    path = users(tmp_path)
    wrong = [f"8{n}61{n}" for n in range(6)]

    async def first() -> list[tuple[int, Any]]:
        async with floor(path) as post:
            return [await post("pat", step(pin, f"w{n}")) for n, pin in enumerate(wrong)] + \
                [await post("pat", step(PIN, "r1")), await post("kim", step(PIN, "r2"))]
    answers = in_own_loop(first())
    assert all(refused(a) for a in answers[:5]), answers[:5]
    assert held(answers[5]) and held(answers[6]), answers[5:7]  # the right PIN after the fifth: held, never hashed
    assert signed_off(answers[7]), answers[7]  # another pit boss signs off at once
    entries = audited(path)
    step_of = {"via": "POST /pit/rating/past", "table": "uth-1", "session": 1700000000.5, "seat": 3, "action": "adjust"}
    refusals = [d for kind, d in entries if kind == "signoff_refused"]
    assert [d["reason"] for d in refusals[:5]] == ["wrong PIN for 'sue'"] * 5
    assert all({"user": "sue", "at": "pat", "key": WEB_KEY, "role": "pit"}.items() <= d.items()
               and step_of.items() <= d.items() for d in refusals) and len(refusals) == 7, refusals
    assert [d["address"] for kind, d in entries if kind == "signoff_held"] == ["127.0.0.1"]
    assert [d["at"] for kind, d in entries if kind == "signoff_granted"] == ["kim"]
    disk = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(AUDIT_FILE))
    assert not any(pin.encode() in disk for pin in wrong) and PIN.encode() not in disk

    async def again() -> tuple[int, Any]:  # the web process started again: the holds are in the file
        async with floor(path) as post:
            return await post("pat", step(PIN, "r3"))
    assert held(in_own_loop(again()))


def throttled(answer: tuple[int, Any]) -> int:
    """The seconds a throttled answer says the pit boss's turn comes in (0: not throttled)."""
    if answer[0] == 429 and answer[1]["say"]["key"] == "pit_rating.throttled":
        seconds = answer[1]["say"]["args"]["seconds"]
        assert isinstance(seconds, int) and seconds > 0
        return seconds
    return 0


def test_four_accounts_failing_slow_the_web_process_and_a_fifth_pit_boss_still_signs_off(tmp_path: Path) -> None:
    """The insider's attack on the old rule (twenty failures held every pit boss): four pit-boss accounts guess five
    times each, each held after its fifth; the web process is then throttled, never held: a fifth pit boss's right
    PIN is answered with their turn (at most one spacing away), kept for them while a held account asks, and signs
    off at it; the throttle audited and kept across a restart of the web process (a fake clock, no sleeps)."""
    path = users(tmp_path)
    now = [1_800_000_000.0]

    async def attack() -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        async with floor(path, lambda: now[0]) as post:
            guesses = []
            for n in range(MAX_FAILED_RELAYED):
                now[0] += 1.0
                guesses.append(await post(BOSSES[n // MAX_FAILED], step(f"0{n:03d}", f"g{n}")))
            return guesses, [await post("kim", step(PIN, "k1")), await post(BOSSES[0], step(PIN, "h1"))]
    guesses, (kim, boss) = in_own_loop(attack())
    assert all(refused(a) for a in guesses), guesses
    assert 0 < throttled(kim) <= THROTTLE_S and held(boss), (kim, boss)  # kim waits a turn; boss0 is held
    entries = audited(path)
    assert [(d["at"], d["spacing_s"]) for kind, d in entries if kind == "signoff_throttled"] == [("boss3", THROTTLE_S)]
    assert sorted(d["at"] for kind, d in entries if kind == "signoff_held") == BOSSES[:4]
    holds = json.loads((path.parent / HOLDS_FILE).read_text(encoding="utf-8"))
    assert f"{WEB_KEY} relaying" not in holds["keys"] and holds["throttles"][f"{WEB_KEY} relaying"]["turns"] == {
        "kim": now[0] + throttled(kim)}

    async def later(seconds: float) -> tuple[int, Any]:  # the web process started again meanwhile
        now[0] += seconds
        async with floor(path, lambda: now[0]) as post:
            return await post("kim", step(PIN, "k2"))
    assert throttled(in_own_loop(later(0.0))) == throttled(kim)  # the turn kept across the restart
    assert signed_off(in_own_loop(later(float(throttled(kim))))), "kim signs off at the turn kept for her"
    assert [d["at"] for kind, d in audited(path) if kind == "signoff_granted"] == ["kim"]


def test_the_throttle_never_holds_a_pit_boss_who_is_not_held(tmp_path: Path) -> None:
    """Six accounts guessing a second apart for a minute (the checks 5 s apart past twenty failures): each answer a
    refusal, a hold of that account or a turn; then a pit boss who is not held asks, and at the turn given signs off."""
    path = users(tmp_path)
    now = [1_800_000_000.0]

    async def run() -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        answers, kims = [], []
        async with floor(path, lambda: now[0]) as post:
            for n in range(60):
                now[0] += 1.0
                answers.append(await post(BOSSES[n % len(BOSSES)], step(f"1{n:03d}", f"f{n}")))
            while not kims or throttled(kims[-1]):
                now[0] += throttled(kims[-1]) if kims else 0.0
                kims.append(await post("kim", step(PIN, f"k{len(kims)}")))
        return answers, kims
    answers, kims = in_own_loop(run())
    assert all(refused(a) or held(a) or throttled(a) for a in answers), answers
    assert MAX_FAILED_RELAYED < sum(refused(a) for a in answers) <= MAX_FAILED * len(BOSSES)  # spaced, then held
    assert any(throttled(a) for a in answers)
    assert signed_off(kims[-1]) and len(kims) <= 2 and not any(held(a) for a in kims), kims


def test_wrong_role_and_another_origin_never_reach_the_pin(tmp_path: Path) -> None:
    """A dealer, no one signed in, a cross-site POST (another Origin, a `null` one, none with another site's Referer):
    refused before any PIN is looked at, nothing counted or audited; the pages' own Referer with no Origin is let in."""
    path = users(tmp_path)

    async def run() -> list[tuple[int, Any]]:
        async with floor(path) as post:
            return [await post("dan", step("0000")), await post(None, step("0000")),
                    await post("pat", step("0000"), origin="http://evil.example"),
                    await post("pat", step("0000"), origin="null"),
                    await post("pat", step("0000"), origin=None, referer="http://evil.example/pit"),
                    await post("pat", step("0000"), origin=None)]
    answers = in_own_loop(run())
    assert [status for status, _ in answers] == [403, 401, 403, 403, 403, 403], answers
    assert not (path.parent / HOLDS_FILE).exists()
    assert not any(kind.startswith("signoff_") for kind, _ in audited(path)) if (path.parent / AUDIT_FILE).exists() \
        else True


def test_pins_sent_at_once_race_the_hold_and_lose(tmp_path: Path) -> None:
    """Eight wrong PINs at once, then a replay of a right one: five hashed and refused, three held, the replay held;
    the same request replayed after is held too (the holds count the pit boss, not the request)."""
    path = users(tmp_path)

    async def run() -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        async with floor(path) as post:
            flood = await asyncio.gather(*(post("pat", step(f"9{n:03d}", f"f{n}")) for n in range(8)))
            replayed = [await post("pat", step(PIN, "same")) for _ in range(2)]
            return list(flood), replayed
    flood, replayed = in_own_loop(run())
    assert sum(refused(a) for a in flood) == 5 and sum(held(a) for a in flood) == 3, flood
    assert all(held(a) for a in replayed), replayed


def test_a_holds_file_that_cannot_be_written_refuses_every_sign_off_in_words(tmp_path: Path) -> None:
    path = users(tmp_path)
    (path.parent / HOLDS_FILE).mkdir()  # what no one writes a file over, root included

    async def run() -> tuple[int, Any]:
        async with floor(path) as post:
            return await post("pat", step(PIN))
    status, body = in_own_loop(run())
    assert status == 503 and body["say"]["key"] == "pit_rating.signoff_unusable" and "cannot be written" in body["error"]


def test_failures_counted_before_a_restart_still_count_after_it(tmp_path: Path) -> None:
    """Three wrong PINs, the web process started again, two more: the fifth holds (a restart in the middle of a guess
    run is no fresh start), and the holds file is the only state it needed."""
    path = users(tmp_path)

    async def wrong(n: int, first: int) -> list[tuple[int, Any]]:
        async with floor(path) as post:
            return [await post("pat", step(f"5{first + k:03d}", f"x{first + k}")) for k in range(n)]
    before = in_own_loop(wrong(3, 0))
    after = in_own_loop(wrong(3, 3))
    assert all(refused(a) for a in before + after[:2]), before + after
    assert held(after[2]), after[2]


ALERT = {"en": ("Many refused supervisor PINs at this pit since {time} (the last sent by boss3 from 127.0.0.1): PIN "
                "checks are 5 s apart; each pit boss's own hold stands. Tell surveillance"),
         "fr": ("Beaucoup de codes PIN de superviseur refusés à ce pit depuis {time} (le dernier envoyé par boss3 depuis "
                "127.0.0.1) : les codes sont vérifiés à 5 s d’intervalle ; le blocage de chaque chef de partie reste "
                "en place. Prévenez la surveillance")}


class Served(LoopThread):
    """The floor's pages with the past day's route in a loop of their own (a browser reads them), a fake clock."""

    def __init__(self, path: Path, language: str, now: list[float]) -> None:
        super().__init__()
        self.path, self.now = path, now
        self.base: str = self.run(self._start(language))

    async def _start(self, language: str) -> str:
        relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", commands="ipc:///unused-c")})
        dsn = f"host=127.0.0.1 port={free_port()} user=nobody dbname=none connect_timeout=2"
        self.hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")])
        app = make_app(self.hub, Sessions(self.path), language=language, rating=relay, past_dsn=dsn,
                       pit_roles=("pit", "supervisor", "surveillance"))
        app[CLOCK] = lambda: self.now[0]
        self.runner, port = await core.listen(app, "127.0.0.1", 0, None)
        return f"http://127.0.0.1:{port}"

    def attack(self) -> list[tuple[int, Any]]:
        """Four pit-boss accounts, five wrong PINs each, a second apart."""
        async def run() -> list[tuple[int, Any]]:
            answers = []
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                for n in range(MAX_FAILED_RELAYED):
                    self.now[0] += 1.0
                    async with http.post(f"{self.base}/api/signin", json={"user": BOSSES[n // 5], "pin": "1111"},
                                         headers={"Origin": self.base}) as signed:
                        cookie = f"{SESSION_COOKIE}={signed.cookies[SESSION_COOKIE].value}"
                    async with http.post(f"{self.base}/pit/rating/past", json=step(f"0{n:03d}", f"a{n}"),
                                         headers={"Origin": self.base, "Cookie": cookie}) as reply:
                        answers.append((reply.status, await reply.json()))
            return answers
        result: list[tuple[int, Any]] = self.run(run(), 60.0)
        return result

    def close(self) -> None:
        self.stop(self.runner.cleanup())


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_throttle_is_an_alert_on_the_floors_pit_screens_not_on_a_wall_screen(
        tmp_path: Path, page: Page, language: str) -> None:
    """Twenty wrong PINs from four pit bosses: the pit screen of a pit boss signed in says the sign-offs are slowed,
    when, the last one's account and address, and the spacing (English and French); a screen joining later is told;
    a wall screen's queue never holds it."""
    path = users(tmp_path)
    now = [datetime(2026, 12, 5, 2, 40, tzinfo=timezone.utc).timestamp()]
    served = Served(path, language, now)

    async def wall() -> PitScreen:
        return served.hub.join(dealers=False)
    wall_screen = served.run(wall())
    try:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{served.base}/pit/access.json")
        page.evaluate("async () => { await fetch('/api/signin', {method: 'POST', headers: {'Content-Type': "
                      "'application/json'}, body: JSON.stringify({user: 'pat', pin: '2468'})}); }")
        page.goto(f"{served.base}/pit")
        page.wait_for_function("() => document.querySelectorAll('[data-table]').length === 1")
        assert all(refused(a) for a in served.attack())
        alert_shown(page, ALERT[language], now[0], f"pit-signoff-alert-{language}")
        page.reload()  # a screen joining later gets the latest alert
        page.locator("#signoff-alert").wait_for(state="visible", timeout=15000)

        async def walled() -> list[str]:
            return [wall_screen.queue.get_nowait() for _ in range(wall_screen.queue.qsize())]
        assert not any('"signoff_alert"' in text for text in served.run(walled()))
    finally:
        served.close()
