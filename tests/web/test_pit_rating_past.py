"""A past gaming day's rating session adjusted from /pit in the archive (floor/web/rating_past.py, pit-rating.js), a
real PostgreSQL and headless Chromium: the day typed, its closed sessions offered masked, one chosen and its unrated
play sent, signed off by a supervisor's PIN checked at the floor; a wrong PIN refused in words; EN and FR at 1280x720
and 1920x1080 (`make test` English at 1280x720 and French at 1920x1080: each language's words and each size's screenshot;
`make soak` the other two, the same steps and words, each against its own screenshot)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq
from playwright.sync_api import Page

from engine.ratings import Ratings
from floor.migrate import migrate
from floor.ratings import upsert_sessions
from floor.web.hub import PitHub
from floor.web.rating import RatingRelay
from floor.web.server import make_app
from pages import app as core
from pages.auth import Sessions
from pages.config import TableFeed
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)
from tests.web.screens import check_screenshot
from tests.web.test_pit_rating import PEOPLE, Floor, sign_in

CARDS = {3: "600044441234", 5: "600055555678"}


class PastFloor(Floor):
    """The floor's pages with the archive at `db` for a past day's steps."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any], language: str, dsn: str) -> None:
        self.dsn = dsn
        super().__init__(tmp, ctx, language)

    async def _start(self, tmp: Path, language: str) -> str:
        relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s",
                                                commands=self.table.client.endpoint)}, timeout_s=10.0)
        self.hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")])
        app = make_app(self.hub, Sessions(tmp / "web-users.json"), language=language, rating=relay, past_dsn=self.dsn)
        self.runner, port = await core.listen(app, "127.0.0.1", 0, None)
        return f"http://127.0.0.1:{port}"


def evening(dsn: str) -> tuple[str, dict[int, float]]:
    """Two sessions of an evening two days ago at uth-1, the table closed after them (final in the archive): the gaming
    day, and each seat's session start."""
    migrate(dsn)
    t0 = time.time() - 2 * 86400
    r = Ratings("uth-1")
    r.event("player", {"seat": 3, "action": "in", "card": CARDS[3], "source": "dealer"}, t0)
    r.event("player", {"seat": 5, "action": "in", "card": CARDS[5], "source": "dealer"}, t0 + 600)
    r.event("player", {"seat": 3, "action": "out"}, t0 + 3600)
    r.event("player", {"seat": 5, "action": "out"}, t0 + 5400)
    with psycopg.connect(dsn) as conn:
        upsert_sessions(conn, r.reports(), None)
        conn.execute("INSERT INTO table_events (table_name, event, kind, at, hand, ts) VALUES "
                     "('uth-1', 10, 'close', to_timestamp(%s), 1, %s)", (t0 + 6000, t0 + 6000))
        conn.execute("INSERT INTO rating_marks VALUES ('uth-1', 10, 1)")
        row = conn.execute("SELECT (((to_timestamp(%s)) AT TIME ZONE time_zone) - starts)::date::text FROM gaming_day",
                           (t0,)).fetchone()
    assert row is not None
    return str(row[0]), {3: t0, 5: t0 + 600}


@pytest.mark.parametrize("lang,size", [("en", (1280, 720)), pytest.param("fr", (1280, 720), marks=pytest.mark.soak),
                                       pytest.param("en", (1920, 1080), marks=pytest.mark.soak), ("fr", (1920, 1080))])
def test_the_pit_adjusts_a_past_days_session_in_the_archive(tmp_path: Path, ctx: zmq.Context[Any], page: Page,
                                                            db: str, lang: str, size: tuple[int, int]) -> None:  # noqa: F811
    day, starts = evening(db)
    floor = PastFloor(tmp_path / lang, ctx, lang, db)
    floor.money("EUR", 2)
    try:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{floor.base}/pit")
        sign_in(page, "pat")
        page.click("#rating-open")
        form = page.locator("#rating-form")
        form.locator("select[name=table]").select_option("uth-1")
        form.locator("select[name=action]").select_option("adjust")
        typed = form.locator("input[name=day]")  # as the page's language writes a day, whatever the browser's
        assert typed.get_attribute("placeholder") == {"en": "dd/mm/yyyy", "fr": "jj/mm/aaaa"}[lang]
        year, month, dom = day.split("-")
        typed.fill(f"{int(dom)}/{month}/{year}")
        typed.press("Tab")
        assert typed.input_value() == f"{dom}/{month}/{year}"  # written back in full
        page.wait_for_selector("select[name=session][data-sessions='2']")
        offered = form.locator("select[name=session] option").all_text_contents()
        assert [o.split(" · ")[:2] for o in offered] == [[{"en": "Seat", "fr": "Place"}[lang] + " 5", "••••5678"],
                                                         [{"en": "Seat", "fr": "Place"}[lang] + " 3", "••••1234"]]
        assert CARDS[3] not in page.content() and CARDS[5] not in page.content()
        note = {"en": "2 closed sessions at uth-1 that day, from the archive",
                "fr": "2 sessions closes à uth-1 ce jour-là, de l’archive"}[lang]
        assert form.locator(".rating-day-note").text_content() == note
        form.locator("select[name=session]").select_option(str(starts[3]))
        assert form.locator("input[name=seat]").input_value() == "3"  # the seat it ended at
        form.locator("input[name=hands]").fill("12")
        form.locator("input[name=average_bet]").fill("25,50" if lang == "fr" else "25.50")
        form.locator("input[name=reason]").fill("rating slip found late" if lang == "en" else "fiche retrouvée")
        form.locator("input[name=user]").fill("sue")
        form.locator("input[name=pin]").fill("1111")  # a wrong PIN first: refused in words, nothing written
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='refused']")
        assert page.locator("#rating-result").text_content() == {
            "en": "Sign-off refused: wrong user or PIN, or not a supervisor",
            "fr": "Validation refusée : utilisateur ou code faux, ou pas superviseur"}[lang]
        with psycopg.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM rating_steps").fetchone() == (0,)
        page.click("#rating-open")
        form.locator("input[name=pin]").fill(PEOPLE["sue"][1])
        page.wait_for_function("() => !document.querySelector('[data-offline]')")
        check_screenshot(page, f"pit-rating-past{'-fr' if lang == 'fr' else ''}-{size[0]}x{size[1]}",
                         mask=[page.locator("#source"), page.locator("[data-hour-hands]").locator("xpath=.."),
                               form.locator("select[name=session]"), form.locator("input[name=day]")])
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#rating-result[data-status='done']")
        words = {"en": "Adjusted in the archive: uth-1, seat 3, signed off by sue; the table keeps what it saw",
                 "fr": "Ajusté dans l’archive : uth-1, place 3, visé par sue ; la table garde ce qu’elle a vu"}[lang]
        assert page.locator("#rating-result").text_content() == words
        with psycopg.connect(db) as conn:
            report, = conn.execute("SELECT report FROM rating_sessions WHERE player = %s", (CARDS[3],)).fetchone() or (None,)
            audit = conn.execute("SELECT sent_by, signed_off, reason FROM rating_steps").fetchall()
        assert report["entered"]["hands"] == 12 and report["entered"]["average_bet"] == 2550
        assert audit == [("pat", "sue", "rating slip found late" if lang == "en" else "fiche retrouvée")]
        assert "1111" not in page.content() and PEOPLE["sue"][1] not in page.content()
    finally:
        floor.close()
