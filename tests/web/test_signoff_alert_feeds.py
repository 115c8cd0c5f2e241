"""The table's sign-offs slowed down at its display's dealer consoles reach the pit and surveillance: four accounts failing through the display's relay to a real controller (its gate on a fake clock) put `signoff_alert` on its feeds; the floor's follower gives it to a pit boss's tile (never a wall screen), /surveillance shows it (Chromium, 1280x720 and 1920x1080; French in make test, English in make soak: the English of the same throttle is checked on the pit's box by test_pit_rating_table_throttle's [en]), the dealer console's fifth person is told why she waits; an hour later it is gone."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page

from firmware_host.display import server as display_server, surveillance
from firmware_host.display.config import DisplayConfig
from firmware_host.display.dealer import Console, Relay
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from floor.web.hub import PitHub, PitScreen
from floor.web.server import make_app as floor_app
from pages import app as core
from pages.auth import Sessions
from pages.bridge import FeedFollower, Hub
from pages.config import TableFeed
from pages.words import catalogs
from protocol.audit import AuditLog
from protocol.config import SecurityConfig
from protocol.feed import Feed
from protocol.signoff_holds import MAX_FAILED, MAX_FAILED_RELAYED, THROTTLE_FORGET_S, THROTTLE_S
from protocol.users import Users
from tests.firmware_host.processes import wait_for
from tests.firmware_host.test_signoff import PIN, UTH
from tests.web.test_display_guard import cheap_user
from tests.web.test_pit_gaming_day import SHOTS

WEB_USERS = {"boss": ("pit", "2468"), "eve": ("surveillance", "1357")}
"""Signed in at the floor's /pit (a pit boss) and the display's /surveillance."""
DEALERS = [f"dealer{n}" for n in range(5)]
"""Signed in at the display's dealer consoles: four failing, a fifth with the supervisor's right PIN."""
WORDS = {"en": "Sign-offs slowed down at uth-1's dealer consoles: many supervisor PINs refused there since {time}, so the "
               "table checks them 5 s apart (each person's own hold stands)",
         "fr": "Validations ralenties aux postes croupier de uth-1 : beaucoup de codes PIN de superviseur y sont refusés "
               "depuis {time}, la table les vérifie donc à 5 s d’intervalle (le blocage de chaque personne reste en "
               "place)"}

ENDED = {"en": "Sign-offs no longer slowed down", "fr": "Les validations ne sont plus ralenties"}


class Rig:
    """A controller serving its command channel and its public and full feeds (ipc) from its own thread, its gate on a
    fake clock, the display's consoles' key (`local`, a dealer) in `signed_in_relays`; the floor's pages following its
    public feed (`FeedFollower` into the `PitHub`) and the display's /surveillance following its full feed."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], language: str) -> None:
        self.tmp, self.ctx, self.now = tmp, ctx, [1_800_000_000.0]
        Users({"ana": cheap_user("ana", "supervisor", PIN)}).save(tmp / "users.json")
        Users({n: cheap_user(n, role, pin) for n, (role, pin) in WEB_USERS.items()}).save(tmp / "web-users.json")
        self.audit = AuditLog.open(tmp / "state")
        ends = {k: f"ipc://{tmp}/{k}" for k in ("cmd", "pub", "snap", "full", "full-snap")}
        self.feed = Feed(ctx, "uth-1", public=ends["pub"], snapshot=ends["snap"], full=ends["full"],
                         full_snapshot=ends["full-snap"], heartbeat_s=0.5)
        security = SecurityConfig(users=str(tmp / "users.json"), local_role="dealer", signed_in_relays=("local",))
        self.c = Controller(Journal.open(tmp / "state"), table="uth-1", feed=self.feed, default_setup=UTH,
                            audit=self.audit, security=security, limits={"minimum": 100})
        self.c.signoff.clock = lambda: self.now[0]
        self.c.recover()
        self.c.raise_fault("device_silent", "the shoe said nothing for 3 s")
        self.thread = threading.Thread(target=self.c.run, args=(ctx, ends["cmd"]), daemon=True)
        self.thread.start()
        self.relay = Relay(ends["cmd"], timeout_s=10.0)  # a loaded machine: the PIN's hash waits its turn
        self.consoles = {name: Console(self.relay, name, ctx) for name in DEALERS}
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.pit, self.pit_base, self.display_base = asyncio.run_coroutine_threadsafe(
            self._start(ends, language), self.loop).result(30)

    async def _start(self, ends: dict[str, str], language: str) -> tuple[PitHub, str, str]:
        pit = PitHub([TableFeed("uth-1", ends["pub"], ends["snap"], heartbeat_s=0.5)])
        hub = Hub(0.5, coalesce=True)
        hub.listeners.append(pit.listener("uth-1"))
        self.follower = FeedFollower(hub, self.loop, ends["pub"], ends["snap"])  # as `croupier pit web` follows it
        self.follower.start()
        sessions = Sessions(self.tmp / "web-users.json")
        floor = floor_app(pit, sessions, language=language, pit_roles=("pit", "supervisor", "surveillance"))
        self.floor_runner, floor_port = await core.listen(floor, "127.0.0.1", 0, None)
        cfg = DisplayConfig(users=str(self.tmp / "web-users.json"), full=ends["full"], full_snapshot=ends["full-snap"],
                            heartbeat_s=0.5)
        display = display_server.make_app(Hub(0.5), Sessions(self.tmp / "web-users.json"), language=language)
        self.surveillance = surveillance.add_routes(display, cfg, self.loop)
        self.surveillance.start()
        self.display_runner, display_port = await core.listen(display, "127.0.0.1", 0, None)
        return pit, f"http://127.0.0.1:{floor_port}", f"http://127.0.0.1:{display_port}"

    def clear(self, dealer: str, pin: str) -> dict[str, Any]:
        """The fault's clear sent from `dealer`'s console with the supervisor's sign-off, one second later on the
        gate's clock (within its budget of PIN checks); the controller's reply."""
        self.now[0] += 1.0
        command = {"cmd": "clear", "reason": "shoe checked", "auth": {"user": "ana", "pin": pin}}
        answer = asyncio.run_coroutine_threadsafe(self.consoles[dealer].relay_command("c1", command),
                                                  self.loop).result(60)
        assert answer["kind"] == "reply", answer
        reply: dict[str, Any] = answer["reply"]
        return reply

    def state(self) -> dict[str, Any]:
        """The table's public state as its feed published it last (a `state` sent from a console)."""
        answer = asyncio.run_coroutine_threadsafe(self.consoles[DEALERS[0]].relay_command("s", {"cmd": "state"}),
                                                  self.loop).result(60)
        state: dict[str, Any] = answer["reply"]["state"]
        return state

    def table_alert(self) -> dict[str, Any] | None:
        """The pit's `table_signoff_alert` for uth-1 now (its hub's, read on its loop), or None."""
        async def read() -> str | None:
            return self.pit.table_alerts.get("uth-1")
        text = asyncio.run_coroutine_threadsafe(read(), self.loop).result(10)
        return None if text is None else dict(json.loads(text))

    def close(self) -> None:
        async def stop() -> None:
            self.follower.stop()
            self.surveillance.stop()
            await self.floor_runner.cleanup()
            await self.display_runner.cleanup()
            for console in self.consoles.values():
                await console.close()
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()
        self.feed.close()
        self.audit.close()


def sign_in(page: Page, base: str, path: str, user: str) -> None:
    """`user` signed in on `base`'s pages (as the sign-in page does: POST /api/signin), then `path` opened."""
    page.goto(f"{base}/words.json")
    page.evaluate("async ([u, p]) => { await fetch('/api/signin', {method: 'POST', headers: {'Content-Type': "
                  "'application/json'}, body: JSON.stringify({user: u, pin: p})}); }", [user, WEB_USERS[user][1]])
    page.goto(f"{base}{path}")


def logged(page: Page) -> list[str]:
    """The surveillance log's lines about the sign-offs slowed down, the newest first."""
    found: list[str] = page.eval_on_selector_all("[data-steps] > li[data-step='signoff']",
                                                 "lines => lines.map((e) => e.lastChild.textContent)")
    return found


def shots(page: Page, name: str) -> None:
    """The page at 1280x720 and 1920x1080, kept as NAME-WxH.png (looked at, not compared)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 720), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"{name}-{width}x{height}.png"), full_page=True)


@pytest.mark.parametrize("language", ["fr", pytest.param("en", marks=pytest.mark.soak)])
def test_consoles_failing_alert_the_pit_and_surveillance_until_the_throttle_ends(
        tmp_path: Path, ctx: zmq.Context[Any], page: Page, language: str) -> None:
    rig = Rig(tmp_path, ctx, language)
    try:
        wait_for(lambda: "uth-1" in rig.pit.states, "the table's state on the pit", 30)
        replies = [rig.clear(DEALERS[n // MAX_FAILED], "0000") for n in range(MAX_FAILED_RELAYED)]
        assert [r["say"]["key"] for r in replies] == ["refusal.sign_off_refused"] * MAX_FAILED_RELAYED
        assert replies[-1]["throttled_s"] == THROTTLE_S
        began = rig.now[0]
        # the table's own state says it (never a name or a PIN), and the floor's follower gives it to the pit
        assert rig.state()["signoff_alert"] == {"since": began, "spacing_s": THROTTLE_S, "kind": "consoles",
                                                         "until": began + THROTTLE_FORGET_S}
        told = wait_for(rig.table_alert, "the alert on the pit's hub", 30)
        assert told == {"kind": "table_signoff_alert", "name": "uth-1", "alert": {
            "since": began, "spacing_s": THROTTLE_S, "kind": "consoles", "until": began + THROTTLE_FORGET_S}}
        assert not any(PIN in json.dumps(v) or "dealer3" in json.dumps(v) for v in (told, rig.state()))
        wall = [json.loads(t)["kind"] for t in rig.pit._current(PitScreen(64, dealers=False))]
        assert "table_signoff_alert" not in wall and "table_signoff_alert" in [
            json.loads(t)["kind"] for t in rig.pit._current(PitScreen(64, dealers=True))]

        sign_in(page, rig.pit_base, "/pit", "boss")  # a pit boss's screen: the table's tile says it
        line = page.locator("[data-table='uth-1'] .signoff-alert-line")
        line.wait_for(state="visible", timeout=15000)
        time_shown = page.evaluate("(t) => new Date(t * 1000).toTimeString().slice(0, 5)", began)
        assert line.text_content() == WORDS[language].format(time=time_shown)
        assert page.locator("[data-table='uth-1']").get_attribute("data-signoff-alert") == f"{THROTTLE_S:g}"
        # the table's standing fault in the pit's language, the public fault's words (never the English message)
        words = catalogs()[language]
        assert page.locator("[data-table='uth-1'] .fault").text_content() == str(words["pit.fault"]).format(
            what=words["fault.device_silent"])
        # its limits as the players' sign says them: a minimum of 1.00 and no maximum (0 = none), no side bets
        assert page.locator("[data-table='uth-1'] .limits").text_content() == {
            "en": "from \u20ac1.00", "fr": "d\u00e8s 1,00\u00a0\u20ac"}[language]
        shots(page, f"pit-tile-signoff-alert-{language}")

        eye = page.context.new_page()
        sign_in(eye, rig.display_base, "/surveillance", "eve")
        box = eye.locator("#signoff-alert")
        box.wait_for(state="visible", timeout=15000)
        assert box.text_content() == WORDS[language].format(time=time_shown)
        assert logged(eye) == [WORDS[language].format(time=time_shown)]  # its log says when it began
        shots(eye, f"surveillance-signoff-alert-{language}")

        # the dealer console's fifth person, the right PIN: told plainly why she waits, then signed off at her turn
        waiting = rig.clear(DEALERS[4], PIN)
        assert waiting["code"] == "busy" and waiting["say"]["key"] == "refusal.sign_off_throttled", waiting
        seconds = waiting["say"]["args"]["seconds"]
        said = str(catalogs()[language]["refusal.sign_off_throttled"]).format(seconds=seconds)
        assert said.startswith({"en": "Many refused sign-offs from this console",
                                "fr": "Beaucoup de validations refusées depuis ce poste"}[language]), said
        rig.now[0] += waiting["retry_s"] - 1.0
        assert rig.clear(DEALERS[4], PIN)["ok"] is True

        rig.now[0] = began + THROTTLE_FORGET_S + 1.0  # an hour without a failure: the throttle ends
        wait_for(lambda: rig.table_alert() is None, "the pit's alert gone", 30)
        assert "signoff_alert" not in rig.state()
        line.wait_for(state="hidden", timeout=15000)
        box.wait_for(state="hidden", timeout=15000)
        assert page.locator("[data-table='uth-1']").get_attribute("data-signoff-alert") is None
        eye.wait_for_function("() => document.querySelectorAll(\"[data-steps] > li[data-step='signoff']\").length === 2")
        assert logged(eye) == [ENDED[language], WORDS[language].format(time=time_shown)]  # the newest on top
    finally:
        rig.close()
