"""The pit's rating steps from /pit (floor/web/rating.py, pit-rating.js) to a real controller on loopback: relayed only
for a pit boss or a supervisor signed in, from the page's own origin, each signed off by the supervisor's PIN at the
table, a step sent again applied once; the dialog in headless Chromium, in English and French at 1920x1080."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import zmq
from playwright.sync_api import Page

from engine.ratings import Ratings
from firmware_host.service.config import RatingsConfig
from firmware_host.service.ratings import journal_ratings
from floor.figures import closed_line, rated_line
from floor.web.hub import PitHub
from floor.web.rating import RatingRelay
from floor.web.server import make_app
from pages import app as core
from pages.auth import SESSION_COOKIE, Sessions
from pages.config import TableFeed
from protocol import keys
from protocol.users import User, Users
from tests.firmware_host.test_curve import SecureTable
from tests.firmware_host.test_signoff import PIN, Table
from tests.web.screens import check_screenshot
from tests.web.test_display_guard import cheap_user

PEOPLE = {"pat": ("pit", "2468"), "dan": ("dealer", "1357"), "sue": ("supervisor", "9753")}
"""Who signs in at the floor's pages (the supervisor's sign-off PIN is the table's users file's: `PIN`)."""


class Floor:
    """The floor's pages served in this process (their own loop in a thread), relaying to one table's controller."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], language: str = "en") -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.table = Table(tmp, ctx, local_role="pit", fault=False)  # the relay is the pit's client on loopback
        # the table's gaming day starts twelve hours from now: a session opened and adjusted within a test is never
        # across the day's start (at 06:00, the default, one was refused as of the day before)
        starts = datetime.now(timezone.utc) + timedelta(hours=12)
        self.table.c.ratings_day = RatingsConfig(day_starts=time(starts.hour, starts.minute))
        Users({n: cheap_user(n, role, pin) for n, (role, pin) in PEOPLE.items()}).save(tmp / "web-users.json")
        self.loop = asyncio.new_event_loop()
        self.beating: asyncio.TimerHandle | None = None
        self.closing = False
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.base: str = asyncio.run_coroutine_threadsafe(self._start(tmp, language), self.loop).result(30)

    async def _start(self, tmp: Path, language: str) -> str:
        commands = self.table.client.endpoint
        relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", commands=commands)},
                            timeout_s=10.0)  # a loaded machine: the PIN's hash waits its turn
        self.hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")])
        app = make_app(self.hub, Sessions(tmp / "web-users.json"), language=language, rating=relay)
        self.runner, port = await core.listen(app, "127.0.0.1", 0, None)
        return f"http://127.0.0.1:{port}"

    def money(self, currency: str, decimals: int) -> None:
        """The table's public state as its feed would bring it to the hub: its tile, and its money, on the pit; then
        its heartbeat every second, as a live table's follower relays it (a table heard once and silent since is
        shown offline three heartbeats later: at load 17 a page took longer than that to reach its screenshot)."""
        self.loop.call_soon_threadsafe(self.hub.publish, "uth-1", {
            "kind": "snapshot", "table": "uth-1", "game": "uth", "phase": "bets", "hand": 1, "currency": currency,
            "decimals": decimals})
        self.loop.call_soon_threadsafe(self._beat)

    def _beat(self) -> None:
        if not self.closing:
            self.hub.publish("uth-1", {"kind": "heartbeat"})
            self.beating = self.loop.call_later(1.0, self._beat)

    def close(self) -> None:
        self.closing = True
        if self.beating is not None:
            self.loop.call_soon_threadsafe(self.beating.cancel)
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        self.table.close()

    def post(self, user: str | None, body: Any, origin: str | None = "") -> tuple[int, Any]:
        """A step POSTed as `user` signed in (None: signed out), from `origin` ("": the page's own)."""
        async def go() -> tuple[int, Any]:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
                headers = {"Origin": self.base if origin == "" else origin} if origin is not None else {}
                if user is not None:
                    async with http.post(f"{self.base}/api/signin", json={"user": user, "pin": PEOPLE[user][1]},
                                         headers={"Origin": self.base}) as signed:
                        assert signed.status == 200, await signed.text()
                        headers["Cookie"] = f"{SESSION_COOKIE}={signed.cookies[SESSION_COOKIE].value}"
                async with http.post(f"{self.base}/pit/rating", json=body, headers=headers) as reply:
                    return reply.status, await reply.json(content_type=None) if reply.status != 403 else None
        return asyncio.run_coroutine_threadsafe(go(), self.loop).result(30)


@pytest.fixture
def floor(tmp_path: Path, ctx: zmq.Context[Any]) -> Any:
    f = Floor(tmp_path, ctx)
    yield f
    f.close()


def sign_in(page: Page, user: str) -> None:
    """`user` signed in on the pit page open (as the page's sign-in does: POST /api/signin), the page read again."""
    page.evaluate("async ([u, p]) => { await fetch('/api/signin', {method: 'POST', headers: {'Content-Type': "
                  "'application/json'}, body: JSON.stringify({user: u, pin: p})}); }", [user, PEOPLE[user][1]])
    page.reload()


def step(page_id: str = "s1", pin: str = PIN, **rating: Any) -> dict[str, Any]:
    return {"table": "uth-1", "id": page_id, "rating": rating or {"seat": 2, "action": "open"},
            "auth": {"user": "ana", "pin": pin}}


def test_only_a_signed_in_pit_boss_from_the_pages_origin_sends_a_step_and_the_table_checks_the_pin(floor: Floor) -> None:
    before = floor.table.events()
    assert floor.post(None, step())[0] == 401  # signed out
    assert floor.post("dan", step())[0] == 403  # a dealer's session: the console is the dealer's door
    assert floor.post("pat", step(), origin="http://evil.example")[0] == 403  # another origin (the guard)
    assert floor.post("pat", step(), origin="null")[0] == 403
    assert floor.table.events() == before
    status, wrong = floor.post("pat", step(pin="0000000000"))
    assert status == 200 and wrong["code"] == "forbidden" and wrong["say"]["key"] == "refusal.sign_off_refused"
    status, forged = floor.post("pat", {**step(), "signed_off": {"user": "ana"}})  # nothing but the four keys
    assert status == 400 and forged["code"] == "malformed"
    status, forged = floor.post("pat", step(seat=2, action="open", hands=3))  # the table's own check
    assert status == 200 and forged["code"] == "malformed"
    assert floor.table.events() == before
    status, done = floor.post("pat", step())
    assert status == 200 and done["ok"], done
    event = floor.table.events()[-1]
    assert event.kind == "rating" and event.req == "pit-web:pat:s1"
    assert event.body["signed_off"] == {"user": "ana", "caller_role": "pit"}
    again = floor.post("pat", step())[1]  # the same step sent again (a double click, a replay): applied once
    assert again["ok"] and again["duplicate"] is True and floor.table.events()[-1].id == event.id
    other = floor.post("sue", step())[1]  # another user's id is never this one's
    assert other["say"] == {"key": "refusal.seat_rated", "args": {"seat": 2}}
    assert floor.post("pat", {**step(), "table": "uth-9"})[1]["code"] == "unknown_table"


def test_the_relay_takes_a_closed_session_to_adjust_by_its_start(floor: Floor) -> None:
    assert floor.post("pat", step("c1", seat=3, action="open", card="60007777"))[1]["ok"]
    assert floor.post("pat", step("c2", seat=3, action="close"))[1]["ok"]
    [closed] = journal_ratings(floor.table.c.journal, "uth-1").reports()
    status, done = floor.post("pat", step("c3", seat=3, action="adjust", session=closed["start"], hands=4,
                                          average_bet=1000))
    assert status == 200 and done["ok"], done
    [s] = journal_ratings(floor.table.c.journal, "uth-1").reports()
    assert (s["end"], s["entered"]["hands"], s["adjustments"][-1]["by"]) == (closed["end"], 4, "ana")
    status, unknown = floor.post("pat", step("c4", seat=3, action="adjust", session=closed["start"] - 60, hands=4,
                                             average_bet=1000))
    assert status == 200 and unknown["say"] == {"key": "refusal.no_closed_session", "args": {"seat": 3}}


def test_a_flood_of_wrong_pins_through_the_pit_holds_that_pit_boss_at_the_table(floor: Floor) -> None:
    for n in range(5):
        assert floor.post("pat", step(f"w{n}", pin=f"1{n}00000000"))[1]["code"] == "forbidden"
    held = floor.post("pat", step("w9"))[1]
    assert held["say"]["key"] == "refusal.sign_off_held" and floor.table.audited("signoff_held")[0]["at"] == "pat"
    assert journal_ratings(floor.table.c.journal, "uth-1").reports() == []


@pytest.mark.parametrize("lang", [pytest.param("en", marks=pytest.mark.soak), "fr"])
def test_the_pit_opens_a_declined_players_session_in_the_dialog(tmp_path: Path, ctx: zmq.Context[Any],
                                                               page: Page, lang: str) -> None:
    """English in `make soak` only (the steps are the same in both): `make test` checks the English dialog, its result
    and its screenshot in test_the_pit_adjusts_a_closed_session_of_the_day_chosen_from_its_rated_players[en-size0]."""
    floor = Floor(tmp_path / lang, ctx, lang)
    floor.money("EUR", 2)
    try:
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.goto(f"{floor.base}/pit")
        assert page.locator("#rating").is_hidden()  # a wall screen, nobody signed in: no steps
        sign_in(page, "pat")
        page.click("#rating-open")
        form = page.locator("#rating-form")
        form.locator("select[name=table]").select_option("uth-1")
        form.locator("input[name=seat]").fill("4")
        form.locator("input[name=hands]").fill("30")
        form.locator("input[name=average_bet]").fill("25,50" if lang == "fr" else "25.50")
        form.locator("input[name=reason]").fill("declined the card" if lang == "en" else "refuse la carte")
        form.locator("input[name=user]").fill("ana")
        form.locator("input[name=pin]").fill(PIN)
        assert form.locator("input[name=end]").is_hidden()  # an open takes no end
        page.wait_for_function("() => !document.querySelector('[data-offline]')")  # a loaded machine's silent table back
        check_screenshot(page, f"pit-rating-dialog{'-fr' if lang == 'fr' else ''}-1920x1080",
                         mask=[page.locator("#source"), page.locator("[data-hour-hands]").locator("xpath=..")])
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='done']")
        words = {"en": "Done at uth-1: Open a session at seat 4, signed off by ana",
                 "fr": "Fait à uth-1 : Ouvrir une session à la place 4, visé par ana"}[lang]
        assert page.locator("#rating-result").text_content() == words
        [s] = journal_ratings(floor.table.c.journal, "uth-1").reports()
        assert s["declined"] and s["entered"]["hands"] == 30 and s["entered"]["average_bet"] == 2550
        page.click("#rating-open")  # the same seat again: the table's refusal in the page's words
        form.locator("input[name=user]").fill("ana")
        form.locator("input[name=pin]").fill(PIN)
        form.locator("input[name=hands]").fill("")
        form.locator("input[name=average_bet]").fill("")
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='refused']")
        refused = {"en": "A player is rated at seat 4 already: close that session first",
                   "fr": "Un joueur est déjà évalué à la place 4 : fermez d’abord cette session"}[lang]
        assert page.locator("#rating-result").text_content() == refused
        page.wait_for_function("() => !document.querySelector('[data-offline]')")  # a loaded machine's silent table back
        check_screenshot(page, f"pit-rating-refused{'-fr' if lang == 'fr' else ''}-1920x1080",
                         mask=[page.locator("#source"), page.locator("[data-hour-hands]").locator("xpath=..")])
        assert PIN not in page.content()
    finally:
        floor.close()


@pytest.mark.parametrize("lang,size", [("en", (1280, 800)), ("fr", (1280, 720))])
def test_the_pit_adjusts_a_closed_session_of_the_day_chosen_from_its_rated_players(
        tmp_path: Path, ctx: zmq.Context[Any], page: Page, lang: str, size: tuple[int, int]) -> None:
    """A player who left before the pit entered the play (the table closed since): the dialog offers the table's
    closed sessions of the gaming day from the `rated` message (the card masked), choosing one names its seat, and the
    step reaches the table named by the session's exact start; the table's refusal of an unknown one in words."""
    floor = Floor(tmp_path / lang, ctx, lang)
    floor.money("EUR", 2)
    try:
        for step_args in ({"seat": 3, "action": "in", "card": "600044441234", "source": "pit"},
                          {"seat": 3, "action": "out"}, {"seat": 5, "action": "in", "card": "600055555678",
                                                        "source": "pit"}):
            assert floor.table.client.request("player", **step_args)["ok"]
        assert floor.table.client.request("close")["ok"]  # the evening's close: seat 5's session ended by it
        reports = journal_ratings(floor.table.c.journal, "uth-1").reports()
        left = next(r for r in reports if r["player"] == "600044441234")
        floor.loop.call_soon_threadsafe(floor.hub.show_rated, {"source": "archive", "tables": {"uth-1": []},
                                        "closed": {"uth-1": [closed_line(r) for r in reversed(reports)]}})
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{floor.base}/pit")
        sign_in(page, "pat")
        page.click("#rating-open")
        form = page.locator("#rating-form")
        form.locator("select[name=table]").select_option("uth-1")
        form.locator("select[name=action]").select_option("adjust")
        page.wait_for_selector("select[name=session][data-sessions='2']")
        offered = form.locator("select[name=session] option").all_text_contents()
        assert len(offered) == 3 and "600044441234" not in page.content()
        assert offered[0] == {"en": "The one open at the seat", "fr": "Celle ouverte à la place"}[lang]
        assert offered[2].startswith({"en": "Seat 3 · ••••1234 · ", "fr": "Place 3 · ••••1234 · "}[lang])
        assert offered[1].startswith({"en": "Seat 5 · ••••5678 · ", "fr": "Place 5 · ••••5678 · "}[lang])
        form.locator("select[name=session]").select_option(str(left["start"]))
        assert form.locator("input[name=seat]").input_value() == "3"  # the seat it ended at
        form.locator("input[name=hands]").fill("12")
        form.locator("input[name=average_bet]").fill("25,50" if lang == "fr" else "25.50")
        form.locator("input[name=reason]").fill("left before the pit came" if lang == "en" else "parti avant le pit")
        form.locator("input[name=user]").fill("ana")
        form.locator("input[name=pin]").fill(PIN)
        assert form.locator("input[name=card]").is_hidden() and form.locator("input[name=end]").is_hidden()
        page.wait_for_function("() => !document.querySelector('[data-offline]')")  # a loaded machine's silent table back
        check_screenshot(page, f"pit-rating-closed{'-fr' if lang == 'fr' else ''}-{size[0]}x{size[1]}",
                         mask=[page.locator("#source"), page.locator("[data-hour-hands]").locator("xpath=.."),
                               form.locator("select[name=session]")])  # the session's times are the clock's
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='done']")
        words = {"en": "Done at uth-1: Adjust the session at seat 3, signed off by ana",
                 "fr": "Fait à uth-1 : Ajuster la session à la place 3, visé par ana"}[lang]
        assert page.locator("#rating-result").text_content() == words
        event = floor.table.c.journal.last_of("rating")
        assert event is not None and event.body["session"] == left["start"] and event.body["was"]["card"] == left["player"]
        adjusted = next(r for r in journal_ratings(floor.table.c.journal, "uth-1").reports() if r["start"] == left["start"])
        assert adjusted["entered"]["hands"] == 12 and adjusted["entered"]["average_bet"] == 2550
        assert adjusted["end"] == left["end"] and PIN not in page.content()
    finally:
        floor.close()


def test_the_average_bet_is_read_in_the_tables_own_money(tmp_path: Path, ctx: zmq.Context[Any], page: Page) -> None:
    """A table whose money has no decimals (yen): "2550" is 2550 of its smallest unit, "25.50" is refused in words,
    and before the pit knows the table's money at all the dialog sends nothing and says why."""
    floor = Floor(tmp_path, ctx)
    try:
        page.goto(f"{floor.base}/pit")
        sign_in(page, "pat")
        form = page.locator("#rating-form")

        def send(average_bet: str) -> str:
            if not page.locator("#rating-dialog[open]").count():  # a step refused on the page leaves it open
                page.click("#rating-open")
            form.locator("select[name=table]").select_option("uth-1")
            form.locator("input[name=seat]").fill("5")
            form.locator("input[name=hands]").fill("12")
            form.locator("input[name=average_bet]").fill(average_bet)
            form.locator("input[name=user]").fill("ana")
            form.locator("input[name=pin]").fill(PIN)
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#rating-result:not([data-status='sending'])")
            return f"{page.get_attribute('#rating-result', 'data-status')}: {page.text_content('#rating-result')}"

        before = floor.table.events()
        assert send("2550") == "refused: The money of uth-1 is not known yet: wait for its tile, then send the step"
        floor.money("JPY", 0)
        page.wait_for_selector("[data-table='uth-1'][data-phase='bets']")
        assert send("25.50") == ("refused: The average bet is an amount of the table's money, such as 25 or 25.50 "
                                 "(no more decimals than it has)")
        assert floor.table.events() == before  # neither was sent
        assert send("2550") == "done: Done at uth-1: Open a session at seat 5, signed off by ana"
        [s] = journal_ratings(floor.table.c.journal, "uth-1").reports()
        assert s["entered"]["hands"] == 12 and s["entered"]["average_bet"] == 2550  # not 255000
    finally:
        floor.close()


def test_the_relay_is_the_pits_own_curve_client_and_a_key_the_table_never_got_gets_nothing(
        tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    keys.create(tmp_path / "clients", "pit-web", "pit")  # `croupier keys new pit-web --role pit`, given to the table
    keys.create(tmp_path / "elsewhere", "forger", "pit")  # a pit key the table never got
    table = SecureTable(tmp_path, ctx)
    try:
        Users({"ana": User.with_pin("ana", "supervisor", PIN)}).save(tmp_path / "users.json")
        table.c.signoff.users = str(tmp_path / "users.json")

        def relay(key: Path, timeout_s: float = 10.0) -> RatingRelay:  # a loaded machine: the hash waits its turn
            feed = TableFeed("t1", "ipc:///unused-p", "ipc:///unused-s", server_key=str(tmp_path / "table" / "table.key"),
                             commands=table.cfg.commands.endpoint)
            return RatingRelay({"t1": feed}, key=str(key), timeout_s=timeout_s)

        signoff = {"user": "ana", "pin": PIN, "at": "pat"}
        reply = relay(tmp_path / "clients" / "pit-web.key_secret").send("t1", "pit-web:pat:c1",
                                                                         {"seat": 1, "action": "open"}, signoff)
        assert reply["ok"], reply
        event = table.c.journal.last_of("rating")
        assert event is not None and event.body["signed_off"] == {"user": "ana", "caller_role": "pit",
                                                                 "caller_key": "pit-web"}
        with pytest.raises(TimeoutError):  # the ZAP handler refuses it: nothing reaches the table
            relay(tmp_path / "elsewhere" / "forger.key_secret", 1.0).send("t1", "pit-web:pat:c2",
                                                                      {"seat": 2, "action": "open"}, signoff)
        assert table.c.journal.last_of("rating") == event
    finally:
        table.close()


def test_a_declined_players_session_reaches_the_pits_rated_list_as_such() -> None:
    r = Ratings("uth-1")
    r.event("rating", {"seat": 4, "action": "open", "signed_off": {"user": "ana"}}, 100.0)
    line = rated_line(r.reports(200.0)[0])
    assert (line["player"], line["declined"], line["seat"]) == ("declined", True, 4)
