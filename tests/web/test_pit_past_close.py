"""A session left open since a gaming day gone, closed from /pit end to end: a real controller's journal archived in a real PostgreSQL, the pit's `rated` list read from it, the row's Close… in headless Chromium, the supervisor's PIN at the table, the close journaled and audited there, the archive and /pit following, and `croupier ratings --state DIR --json` saying it closed (English and French, 1280x720 and 1920x1080)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq
from playwright.sync_api import Page

from firmware_host.service.ratings import journal_ratings
from floor.figures import read_rated
from floor.migrate import migrate
from floor.ratings import upsert_sessions
from tests.firmware_host.processes import croupier_here
from tests.firmware_host.test_signoff import PIN
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)
from tests.web.test_pit_gaming_day import SHOTS
from tests.web.test_pit_rating import Floor, sign_in

CARD = "600077779999"
DONE = {"en": "Done at uth-1: Close the session at seat 5, signed off by ana",
        "fr": "Fait à uth-1 : Fermer la session à la place 5, visé par ana"}


def archived(floor: Floor, dsn: str) -> None:
    """The table's sessions as its journal has them, archived (the pit's archiver's upsert), and the pit's `rated`
    message read from the archive handed to the pages' hub (as the pit's figures reader does)."""
    with psycopg.connect(dsn) as conn:
        upsert_sessions(conn, journal_ratings(floor.table.c.journal, "uth-1").reports(), "pit-1")
    floor.loop.call_soon_threadsafe(floor.hub.show_rated, read_rated(dsn, ["uth-1"]))


@pytest.mark.parametrize("lang", [pytest.param("en", marks=pytest.mark.soak), "fr"])
def test_a_session_open_since_a_day_gone_is_closed_from_the_pit_end_to_end(
        tmp_path: Path, ctx: zmq.Context[Any], page: Page, db: str, lang: str) -> None:  # noqa: F811
    """English in `make soak` only (the steps are the same in both): `make test` checks the English row of a past day
    and its Close opening the dialog in test_pit_gaming_day's
    test_a_session_open_since_a_day_gone_is_shown_so_and_closed_from_the_pit[en]."""
    migrate(db)
    floor = Floor(tmp_path / lang, ctx, lang)
    floor.money("EUR", 2)
    try:
        two_days_ago = time.time() - 2 * 86400  # the player sat down two gaming days ago; the table never closed
        floor.table.c.clock = lambda: two_days_ago
        assert floor.table.client.request("player", seat=5, action="in", card=CARD, source="pit")["ok"]
        floor.table.c.clock = time.time
        archived(floor, db)

        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{floor.base}/pit")
        sign_in(page, "pat")
        row = page.locator('[data-rated-table="uth-1"] tr[data-rated-seat="5"]')
        row.wait_for(state="visible", timeout=15000)
        assert row.get_attribute("data-past-day") and row.get_attribute("data-status") == "open"
        assert CARD not in page.content()  # masked on the pit
        page.locator("#rating").wait_for(state="visible", timeout=15000)
        row.locator(".close-past").click()
        form = page.locator("#rating-form")
        form.wait_for(state="visible", timeout=5000)
        assert (form.locator("[name=table]").input_value(), form.locator("[name=seat]").input_value(),
                form.locator("[name=action]").input_value()) == ("uth-1", "5", "close")
        # he left two hours after he sat down, that day: the time typed is the first after his start, not today's
        left = page.evaluate("(s) => { const d = new Date((s + 7200) * 1000); d.setSeconds(0, 0); return [d.getTime() / 1000,"
                             " `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`]; }",
                             two_days_ago)
        form.locator("input[name=end]").fill(left[1])
        form.locator("input[name=reason]").fill("left yesterday" if lang == "en" else "parti hier")
        form.locator("input[name=user]").fill("ana")
        form.locator("input[name=pin]").fill(PIN)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"pit-past-close-dialog-{lang}-1280x720.png"))
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='done']", timeout=20000)
        assert page.locator("#rating-result").text_content() == DONE[lang]
        assert PIN not in page.content()

        event = floor.table.c.journal.last_of("rating")  # the table closed it: journaled, signed off, audited
        assert event is not None and event.body["action"] == "close" and event.body["seat"] == 5
        assert event.body["signed_off"] == {"user": "ana", "caller_role": "pit"} and event.req.startswith("pit-web:pat:")
        assert event.body["was"]["card"] == CARD
        granted = floor.table.audited("signoff_granted")
        assert [(g["user"], g["command"], g["at"]) for g in granted] == [("ana", "rating", "pat")]
        [report] = journal_ratings(floor.table.c.journal, "uth-1").reports()
        assert report["end"] == pytest.approx(left[0], abs=1)  # on his own day, two hours in (it read today's time before)

        archived(floor, db)  # the archiver folds the close: /pit lists it open no more
        page.wait_for_function("() => !document.querySelector('[data-rated-table=\"uth-1\"] tr[data-rated-seat=\"5\"]')",
                               timeout=15000)
        assert page.locator("[data-past-day]").count() == 0
        page.screenshot(path=str(SHOTS / f"pit-past-closed-{lang}-1280x720.png"), full_page=True)
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.screenshot(path=str(SHOTS / f"pit-past-closed-{lang}-1920x1080.png"), full_page=True)
    finally:
        floor.close()
    printed = croupier_here("ratings", "--state", str(tmp_path / lang / "state"), "--json")
    assert printed.returncode == 0, printed.stderr
    lines = [json.loads(line) for line in printed.stdout.splitlines() if line.strip()]
    [session] = [line for line in lines if line["kind"] == "session"]
    assert session["player"] == CARD and session["start"] == pytest.approx(two_days_ago)
    assert session["open"] is False and session["end"] == report["end"]  # closed when the pit said he left
