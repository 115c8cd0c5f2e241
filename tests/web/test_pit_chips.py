"""The pit's chip alerts and dealers' panel (/pit) in headless Chromium: a mispay, moved and foreign chips named with their table, circle and amounts until cleared, a tray difference told though the table deals on; the dealers' figures from a real PostgreSQL archive, to a floor role only (a dealer or a wall screen never gets them)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page

from engine.errors import circle, money
from firmware_host.service.tray import tray_alert
from firmware_host.tables.base import Fault, FaultKind
from floor.archive import Archive, connect
from floor.migrate import migrate
from floor.shift_counts import dealer_figures
from floor.web.hub import PitHub
from floor.web.server import make_app
from pages import app as core, auth
from protocol.users import Users
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)
from tests.floor.test_floor_chip_alerts import EVENTS, HANDS
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import check
from tests.web.test_display_guard import cheap_user

CLOCK = 1_780_000_000.0  # the pit's clock: its "hands since" times are fixed
PINS = {"pat": ("pit", "2468"), "ana": ("dealer", "4821"), "sue": ("supervisor", "1357")}

ALERTS = """() => [...document.querySelectorAll("#chip-alert-list [data-alert]")].map(
  (li) => [li.dataset.alertTable, li.dataset.alert, li.textContent])"""
DEALERS = """() => [...document.querySelectorAll("#dealers-table tbody tr")].map((tr) => ({dealer: tr.dataset.dealer,
  table: tr.dataset.dealerTable, hands: Number(tr.dataset.hands), mispays: Number(tr.dataset.mispays),
  moved: Number(tr.dataset.movedChips), cells: [...tr.children].map((td) => td.textContent)}))"""


class PitServer(threading.Thread):
    """The floor's pit pages in this process (`floor.web.server.make_app`) on their own loop; the test hands the
    hub what the tables' feeds and the archive would."""

    def __init__(self, users: Path | None, roles: tuple[str, ...], language: str) -> None:
        super().__init__(daemon=True)
        self.users, self.roles, self.language = users, roles, language
        self.ready = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pit = PitHub([], clock=lambda: CLOCK)
        self.port = 0
        self.stopping: asyncio.Event | None = None

    def run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self.loop, self.stopping = asyncio.get_running_loop(), asyncio.Event()
        app = make_app(self.pit, auth.Sessions(self.users), language=self.language, pit_roles=self.roles)
        runner, self.port = await core.listen(app, "127.0.0.1", 0, None)
        self.ready.set()
        await self.stopping.wait()
        await runner.cleanup()

    def call(self, fn: Any, *args: Any) -> None:
        assert self.loop is not None
        self.loop.call_soon_threadsafe(fn, *args)

    def stop(self) -> None:
        if self.loop is not None and self.stopping is not None:
            self.loop.call_soon_threadsafe(self.stopping.set)
        self.join(10)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def pit_server(tmp_path: Path) -> Iterator[Any]:
    servers: list[PitServer] = []
    users = tmp_path / "users.json"
    Users({name: cheap_user(name, role, pin) for name, (role, pin) in PINS.items()}).save(users)

    def start(roles: tuple[str, ...] = ("pit", "supervisor"), language: str = "en") -> PitServer:
        server = PitServer(users if roles else None, roles, language)
        server.start()
        assert server.ready.wait(10)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def table(name: str, hand: int, fault: Fault | None = None, tray: dict[str, Any] | None = None) -> dict[str, Any]:
    """A smart UTH table's public state as its feed sends it (the fault's public form, the tray's alert)."""
    state: dict[str, Any] = {
        "kind": "update", "table": name, "boot": "b1", "seq": hand * 10, "game": "uth", "hand": hand,
        "phase": "showdown" if fault else "betting", "currency": "EUR", "decimals": 2,
        "limits": {"minimum": 1000, "maximum": 50000, "side_minimum": 500, "side_maximum": 10000, "chip": 500},
        "session": {"hands": hand - 1, "house_net": 12500}, "fault": fault.public() if fault else None}
    if tray is not None:
        state["tray_alert"] = tray
    return state


MISPAY = Fault(FaultKind.MISPAY, FaultKind.MISPAY.message, "seat 3 Play: due 3000, reads 2500", 412,
               more={"seat": 3, "circle": circle("play"), "due": money(3000), "reads": money(2500), "more": 0, "circles": 1,
                     "make": {"word": "to_due.pay", "args": {"amount": money(500)}}})  # as tables/house/chips.py says it
MOVED = Fault(FaultKind.CHIPS_MOVED, FaultKind.CHIPS_MOVED.message, "chips moved in seat 1 Trips", 77,
              more={"seat": 1, "circle": circle("trips"), "change": money(2500), "cards": 4})
FOREIGN = Fault(FaultKind.FOREIGN_CHIP, FaultKind.FOREIGN_CHIP.message, "foreign chip E004 in seat 5 Ante", 90,
                situation="circle", more={"seat": 5, "circle": circle("ante")}, uid="E00401500000FFFF")
TRAY = tray_alert({"reads": 0, "settled": True, "expected": 0, "opening": 0, "closing": None, "fills": 0, "credits": 0,
                   "chips_sold": 0, "house_net": 0, "difference": -2500, "flagged": 2,
                   "flags": [{"value": 2500, "hand": 5, "between": True, "event": 300},
                             {"value": -5000, "hand": 7, "between": False, "event": 350}]})


def archived_dealers(dsn: str) -> list[dict[str, Any]]:
    """Ana's and Bo's figures at uth-9 from a real archive (`tests/floor/test_floor_chip_alerts.py`'s hands)."""
    migrate(dsn)
    with Archive(dsn, pit="pit-1") as a:
        a.write("uth-9", HANDS)
        a.write_events("uth-9", EVENTS)
        a.rate("uth-9")
    with connect(dsn) as conn:
        return dealer_figures(conn, None, ["uth-9", "uth-2", "uth-3"])


def sign_in(page: Page, user: str, pin: str) -> None:
    form = page.locator("[data-signin]")
    form.locator("input[name='user']").fill(user)
    form.locator("input[name='pin']").fill(pin)
    form.locator("button[type='submit']").click()
    page.wait_for_selector("[data-signin]", state="detached")


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page whose content security policy lets axe in (`tests/web/test_accessibility.py`)."""
    context = browser.new_context(bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_pit_names_each_chip_alert_until_cleared_and_shows_the_dealers(
        pit_server: Any, page: Page, db: str, language: str) -> None:  # noqa: F811
    server = pit_server(language=language)
    for state in (table("uth-2", 12, MISPAY), table("uth-3", 30, MOVED, TRAY), table("uth-9", 5, FOREIGN),
                  table("uth-1", 40)):
        server.call(server.pit.publish, state["table"], state)
    server.call(server.pit.show_figures, {"source": "feed", "day": "2026-12-01", "dealers": archived_dealers(db)})
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{server.base}/pit")
    sign_in(page, "pat", "2468")
    page.wait_for_selector("#chip-alerts:not([hidden])[data-alerts='4']")
    page.wait_for_selector("#dealers:not([hidden])[data-dealers='2']")
    alerts = page.evaluate(ALERTS)
    assert [(t, kind) for t, kind, _ in alerts] == [
        ("uth-2", "mispay"), ("uth-3", "chips_moved"), ("uth-3", "tray"), ("uth-9", "foreign_chip")]
    texts = {kind: text for _, kind, text in alerts}
    if language == "en":
        assert texts["mispay"] == "HELD uth-2 · seat 3 Play mispaid: due €30.00, reads €25.00"
        assert texts["chips_moved"] == "HELD uth-3 · chips moved in seat 1 Trips with 4 cards out (€25.00)"
        assert texts["tray"] == ("uth-3 · tray differences this shift: 2, −€25.00 in all; the latest −€50.00 in hand 7")
        assert texts["foreign_chip"] == "HELD uth-9 · a foreign chip in seat 5 Ante"
    else:
        assert texts["mispay"] == "BLOQUÉE uth-2 · place 3 Play mal payée : dû 30,00\u00a0€, lu 25,00\u00a0€"
        assert "dû" in texts["mispay"] and "écarts de caisse" in texts["tray"]
    assert all("E004" not in text for _, _, text in alerts)  # the public words never name the chip's UID
    assert page.get_attribute("[data-table='uth-3']", "data-chip-alert") == "chips_moved tray"
    dealers = page.evaluate(DEALERS)
    assert [(d["dealer"], d["table"], d["hands"], d["mispays"], d["moved"]) for d in dealers] == [
        ("ana", "uth-9", 2, 2, 2), ("bo", "uth-9", 2, 0, 0)]
    assert dealers[0]["cells"][2] == "4:00"
    check(page, language, "/pit with chip alerts and dealers", "#dealers:not([hidden])")  # axe; no English in French
    check_screenshot(page, f"pit-chips-{language}-1920")
    page.set_viewport_size({"width": 1280, "height": 800})
    check_screenshot(page, f"pit-chips-{language}-1280")
    page.locator("#dealers").scroll_into_view_if_needed()  # below the tiles on a 1280x800 screen
    check_screenshot(page, f"pit-dealers-{language}-1280")
    page.evaluate("window.scrollTo(0, 0)")
    # the mispay paid right and cleared, the foreign chip cleared: their alerts go; the tray's stays for the shift
    server.call(server.pit.publish, "uth-2", table("uth-2", 13))
    server.call(server.pit.publish, "uth-9", table("uth-9", 6))
    server.call(server.pit.publish, "uth-3", table("uth-3", 31, None, TRAY))
    page.wait_for_selector("#chip-alerts[data-alerts='1']")
    assert [(t, kind) for t, kind, _ in page.evaluate(ALERTS)] == [("uth-3", "tray")]
    assert page.get_attribute("[data-table='uth-2']", "data-chip-alert") is None


async def _messages(base: str, user: str | None, pin: str | None) -> tuple[int, list[dict[str, Any]]]:
    """Sign in as `user` (none: not signed in) and open /ws/pit: its status, then the messages of its first burst."""
    async with aiohttp.ClientSession(headers={"Origin": base}, cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # an IP
        if user is not None:
            async with http.post(f"{base}/api/signin", json={"user": user, "pin": pin}) as reply:
                assert reply.status == 200, await reply.text()
        try:
            ws = await http.ws_connect(f"{base}/ws/pit")
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, []
        out = []
        async with ws:
            while not any(m.get("kind") == "figures" for m in out):
                out.append(json.loads((await ws.receive(timeout=10)).data))
            try:  # the dealers' message, when it comes, follows the figures at once
                out.append(json.loads((await ws.receive(timeout=1)).data))
            except asyncio.TimeoutError:
                pass
        return 101, out


def ask(base: str, user: str | None, pin: str | None) -> tuple[int, list[dict[str, Any]]]:
    """`_messages` on a loop of its own thread (Playwright's keeps this one's)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _messages(base, user, pin)).result(30)


def test_a_dealer_or_a_wall_screen_never_gets_the_dealers_figures(pit_server: Any) -> None:
    figures = {"source": "feed", "day": "2026-12-01", "dealers": [{"dealer": "ana", "table": "uth-9", "hands": 2}]}
    gated = pit_server(("pit", "supervisor"))
    gated.call(gated.pit.show_figures, figures)
    assert ask(gated.base, "ana", "4821")[0] == 403  # a dealer may not open the pit at all
    assert ask(gated.base, None, None)[0] == 401
    status, messages = ask(gated.base, "pat", "2468")
    assert status == 101 and [m["dealers"] for m in messages if m["kind"] == "dealers"] == [figures["dealers"]]
    assert all("dealers" not in m for m in messages if m["kind"] == "figures")
    # a pit opened to dealers too (a podium screen they sign in at) still keeps the dealers' figures from them
    open_to_dealers = pit_server(("pit", "dealer"))
    open_to_dealers.call(open_to_dealers.pit.show_figures, figures)
    status, messages = ask(open_to_dealers.base, "ana", "4821")
    assert status == 101 and messages and not any(m["kind"] == "dealers" or "dealers" in m for m in messages)
    wall = pit_server(())  # no sign-in asked: a wall screen on the floor
    wall.call(wall.pit.show_figures, figures)
    status, messages = ask(wall.base, None, None)
    assert status == 101 and not any(m["kind"] == "dealers" or "dealers" in m for m in messages)


def test_a_real_tables_mispay_is_named_on_the_pit_until_a_supervisor_clears_it(
        pit_server: Any, page: Page, tmp_path: Path) -> None:
    """A smart table's controller (`tests/firmware_host/test_table_chips.py`'s rig) mispays seat 3's Play: its public
    state, as its feed sends it, names the circle and the amounts on the pit; the supervisor's clear takes it off."""
    from tests.firmware_host.test_table_chips import PLAY_4X, TRIPS, Rig, chip_uids, to_showdown

    rig = Rig(tmp_path / "smart")
    rig.reader()
    server = pit_server()
    seq = iter(range(1, 100))

    def publish() -> None:
        server.call(server.pit.publish, "uth-5", {**rig.public(), "kind": "update", "table": "uth-5", "boot": "b",
                                                  "seq": next(seq)})

    try:
        to_showdown(rig)
        rig.put("spot3.play", PLAY_4X + chip_uids(500, 3, 20))  # paid 1500 of 2000
        rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))
        rig.ok("confirm")
        publish()
        page.goto(f"{server.base}/pit")
        sign_in(page, "sue", "1357")  # a supervisor
        page.wait_for_selector("#chip-alerts:not([hidden])[data-alerts='1']")
        assert page.evaluate(ALERTS) == [["uth-5", "mispay", "HELD uth-5 · seat 3 Play mispaid: due €40.00, reads €35.00"]]
        rig.ok("clear", reason="player accepted")
        publish()
        page.wait_for_selector("#chip-alerts[hidden][data-alerts='0']", state="attached")
        assert page.get_attribute("[data-table='uth-5']", "data-chip-alert") is None
    finally:
        rig.c.journal.close()
