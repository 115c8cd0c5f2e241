"""The table's own gate behind the floor's `/pit/rating` (its key in the table's `[security] signed_in_relays`): four pit bosses failing five times each slow the table's PIN checks, raise the pit's alert with the table's name (a pit boss's screen in Chromium, 1280x720 and 1920x1080; English in make test, French in make soak: the French of the table's throttle is checked on the tile and /surveillance by test_signoff_alert_feeds's [fr]), and a fifth pit boss signs off at her turn (the table's fake clock)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import zmq
from playwright.sync_api import Page

from floor.web.hub import PitHub
from floor.web.rating import RatingRelay
from floor.web.server import make_app
from pages import app as core
from pages.auth import SESSION_COOKIE, Sessions
from pages.config import TableFeed
from protocol.signoff_holds import MAX_FAILED, MAX_FAILED_RELAYED, THROTTLE_S
from protocol.users import Users
from tests.firmware_host.test_signoff import PIN
from tests.web.test_display_guard import cheap_user
from tests.web.test_pit_rating_past_holds import alert_shown
from tests.web.test_pit_rating import Floor, step

BOSSES = {f"boss{n}": f"24{n}8" for n in range(6)}
"""Pit bosses signed in at /pit (their sign-in PINs; the supervisor's sign-off PIN is the table's `PIN`)."""
ALERT = {"en": "Many refused supervisor PINs sent from this pit to uth-1 since {time} (the last sent by boss3 from "
               "127.0.0.1): the table checks them 5 s apart; each pit boss's own hold stands. Tell surveillance",
         "fr": "Beaucoup de codes PIN de superviseur envoyés par ce pit à uth-1 refusés depuis {time} (le dernier envoyé "
               "par boss3 depuis 127.0.0.1) : la table les vérifie à 5 s d’intervalle ; le blocage de chaque chef de "
               "partie reste en place. Prévenez la surveillance"}


class SignedInFloor(Floor):
    """The floor's pages as `Floor` serves them, /pit asking a sign-in (`[web] pit_roles`): a pit boss's screen gets
    the alert, a wall screen never."""

    async def _start(self, tmp: Path, language: str) -> str:
        commands = self.table.client.endpoint
        relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", commands=commands)},
                            timeout_s=10.0)  # a loaded machine: the PIN's hash waits its turn
        self.hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")])
        app = make_app(self.hub, Sessions(tmp / "web-users.json"), language=language, rating=relay,
                       pit_roles=("pit", "supervisor", "surveillance"))
        self.runner, port = await core.listen(app, "127.0.0.1", 0, None)
        return f"http://127.0.0.1:{port}"


def post(floor: Floor, user: str, body: Any) -> dict[str, Any]:
    """A step POSTed by pit boss `user` signed in at the floor's pages; the reply's JSON."""
    async def go() -> dict[str, Any]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
            origin = {"Origin": floor.base}
            async with http.post(f"{floor.base}/api/signin", json={"user": user, "pin": BOSSES[user]},
                                 headers=origin) as signed:
                assert signed.status == 200, await signed.text()
                cookie = {"Cookie": f"{SESSION_COOKIE}={signed.cookies[SESSION_COOKIE].value}"}
            async with http.post(f"{floor.base}/pit/rating", json=body, headers={**origin, **cookie}) as reply:
                found: dict[str, Any] = await reply.json(content_type=None)
                return found
    return asyncio.run_coroutine_threadsafe(go(), floor.loop).result(60)


@pytest.mark.parametrize("language", ["en", pytest.param("fr", marks=pytest.mark.soak)])
def test_four_pit_bosses_failing_slow_the_table_and_alert_the_pit_and_a_fifth_signs_off(
        tmp_path: Path, ctx: zmq.Context[Any], page: Page, language: str) -> None:
    floor = SignedInFloor(tmp_path, ctx, language)
    try:
        Users({n: cheap_user(n, "pit", pin) for n, pin in BOSSES.items()}).save(tmp_path / "web-users.json")
        Users({"ana": cheap_user("ana", "supervisor", PIN)}).save(tmp_path / "users.json")  # the table's, read again
        floor.table.c.signoff.throttled_keys = frozenset({"local"})  # `[security] signed_in_relays = ["local"]`
        floor.money("EUR", 2)  # the table's tile on the pit
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{floor.base}/pit/access.json")
        page.evaluate("async () => { await fetch('/api/signin', {method: 'POST', headers: {'Content-Type': "
                      "'application/json'}, body: JSON.stringify({user: 'boss5', pin: '2458'})}); }")
        page.goto(f"{floor.base}/pit")
        page.wait_for_function("() => document.querySelectorAll('[data-table]').length === 1")
        replies = []
        for n in range(MAX_FAILED_RELAYED):
            floor.table.now[0] += 1.0  # each pit boss within the table's budget of PIN checks
            replies.append(post(floor, f"boss{n // MAX_FAILED}", step(f"f{n}", pin="0000")))
        assert [r["say"]["key"] for r in replies] == ["refusal.sign_off_refused"] * MAX_FAILED_RELAYED
        assert replies[-1]["throttled_s"] == THROTTLE_S
        assert floor.hub.alert is not None
        alert = json.loads(floor.hub.alert)
        assert (alert["kind"], alert["table"], alert["at"], alert["spacing_s"]) == (
            "signoff_alert", "uth-1", "boss3", THROTTLE_S)
        assert [h["at"] for h in floor.table.audited("signoff_held")] == ["boss0", "boss1", "boss2", "boss3"]
        assert [t["spacing_s"] for t in floor.table.audited("signoff_throttled")] == [THROTTLE_S]
        alert_shown(page, ALERT[language], alert["since"], f"pit-table-signoff-alert-{language}")
        floor.table.now[0] += 1.0
        told = post(floor, "boss4", step("s1"))  # a fifth pit boss, the supervisor's right PIN
        assert told["code"] == "busy" and told["say"]["key"] == "refusal.sign_off_throttled", told
        assert 0 < told["say"]["args"]["seconds"] <= THROTTLE_S and told["retry_s"] == told["say"]["args"]["seconds"]
        floor.table.now[0] += told["retry_s"]  # her turn, kept for her
        signed = post(floor, "boss4", step("s1"))
        assert signed["ok"] is True, signed
        assert floor.table.audited("signoff_granted")[-1]["at"] == "boss4"
    finally:
        floor.close()
