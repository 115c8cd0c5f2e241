"""The pit's rated players (/pit) in headless Chromium, read from a real PostgreSQL archive: each table's open sessions with the card masked, time, hands, average bet, theo to the cent, the player's win or loss, open or on a break; refreshed as the fold writes a hand; in English and French, screenshots at 1920x1080 and 1280x800."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import psycopg
import pytest
from playwright.sync_api import Page

from engine.ratings import BetEdges, Ratings
from floor.figures import pit_figures, pit_rated, read_rated
from floor.migrate import migrate
from floor.ratings import upsert_sessions
from floor.web.figures import PitFigures
from floor.web.hub import PitHub
from floor.web.server import make_app
from pages import app as core
from pages.config import TableFeed
from tests.engine.test_ratings import record
from tests.own_loop import LoopThread
from tests.floor.conftest import db, pg  # noqa: F401  (the real PostgreSQL server and a database per test)
from tests.web.money import shown as money
from tests.web.screens import SIZES, check_screenshot

TABLES = {"uth-1": "uth", "3cp-2": "3cp", "uth-3": "uth"}
"""The pit's tables: uth-3 has no rated player."""

EDGES = {"uth": {"ante": Fraction(50643648973, 2317817502000), "blind": Fraction(0), "play": Fraction(0),
                 "trips": Fraction(233985, 6689228)},
         "3cp": {"ante": Fraction(3373, 100000), "play": Fraction(0), "pair_plus": Fraction(23167, 1000000)}}
"""The circles' edges (the standard profiles' UTH exact figures; 3CP's published, to keep the numbers short); the
3CP table's 6-card bonus has none: a session staking it has its theo incomplete."""

CARDS = {"uth-1": {1: "600011112222", 3: "600033334444", 6: "600055556666"}, "3cp-2": {2: "600077778888"}}

READ_RATED = """() => Object.fromEntries([...document.querySelectorAll("[data-rated-table]")].map((box) =>
  [box.dataset.ratedTable, [...box.querySelectorAll("tbody tr")].map((tr) => ({seat: Number(tr.dataset.ratedSeat),
    player: tr.dataset.player, hands: Number(tr.dataset.hands), averageBet: Number(tr.dataset.averageBet),
    theoCents: Number(tr.dataset.theoCents), win: Number(tr.dataset.win), status: tr.dataset.status,
    cells: [...tr.children].map((td) => td.textContent)}))]))"""


PAST_DAY = {"en": " · open since 31 Dec, a past day Close…", "fr": " · ouverte depuis le 31 déc., jour passé Fermer…"}
"""The Shift's sessions began in 1970 (00:16 UTC: the gaming day of 31 Dec 1969, the archive's 06:00 UTC) and are
open still: each open since a gaming day gone (docs/ratings.md, "A session left open from a gaming day gone")."""


def summary(name: str, game: str, hand: int) -> dict[str, Any]:
    """A table's public snapshot as the pit hub keeps it."""
    return {"kind": "snapshot", "table": name, "game": game, "phase": "betting", "hand": hand, "seq": hand, "boot": "b1",
            "limits": {"minimum": 1000, "maximum": 50000, "side_minimum": 500, "side_maximum": 10000},
            "session": {"hands": hand - 1, "house_net": 0}, "currency": "EUR", "decimals": 2}


class Shift:
    """Each rated table's fold (`engine.ratings`, the archive's own), fed hands at fixed times and written to the
    archive as the catch-up's fold writes it."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.folds: dict[str, Ratings] = {}
        self.hand = 0
        for table, cards in CARDS.items():
            game = TABLES[table]
            r = self.folds[table] = Ratings(table)
            r.edges[f"{game}:sha"] = BetEdges(game, "sha", EDGES[game], {})
            for seat, card in cards.items():
                r.event("player", {"seat": seat, "action": "in", "card": card, "source": "reader"}, 1000.0 + seat)
        r = self.folds["uth-1"]  # a player who left before: their session is closed, not listed
        r.event("player", {"seat": 5, "action": "in", "card": "600099990000", "source": "dealer"}, 900.0)
        r.event("player", {"seat": 5, "action": "out"}, 950.0)

    def deal(self, hands: int) -> None:
        """`hands` hands at every rated table; at hand 3 seat 6 of uth-1 goes on a break."""
        for _ in range(hands):
            self.hand += 1
            at = 1000.0 + 95 * self.hand
            uth = self.folds["uth-1"]
            if self.hand == 3:
                uth.event("player", {"seat": 6, "action": "away"}, at - 10)
            uth.hand(record(self.hand, "uth", {1: {"ante": 2500, "blind": 2500, "play": 10000, "trips": 500},
                                               3: {"ante": 1000, "blind": 1000}, 6: {"ante": 5000, "blind": 5000}},
                            {1: 7500 if self.hand % 2 else -13000, 3: -2000, 6: 10000}, sha="sha"), at)
            tcp = self.folds["3cp-2"]
            tcp.hand(record(self.hand, "3cp", {2: {"ante": 2000, "play": 2000, "pair_plus": 1000, "bonus": 500}},
                            {2: -3500}, sha="sha"), at)
        with psycopg.connect(self.dsn) as conn:
            for r in self.folds.values():
                upsert_sessions(conn, r.reports(), "pit-1")

    def open_sessions(self) -> dict[str, list[dict[str, Any]]]:
        return {t: [s for s in r.reports() if s["open"]] for t, r in self.folds.items()}


class PitPages(LoopThread):
    """The floor's pages served in this process (a loop of their own in a thread): the pit hub with the tables'
    summaries and heartbeats, and its archive readings every 0.2 s (`PitFigures`, as `croupier pit web` runs it)."""

    def __init__(self, dsn: str, language: str) -> None:
        super().__init__()
        self.base: str = self.run(self._start(dsn, language))

    async def _start(self, dsn: str, language: str) -> str:
        self.pit = PitHub([TableFeed(name, "ipc:///unused-p", "ipc:///unused-s", 1.0) for name in TABLES])
        for n, (name, game) in enumerate(TABLES.items()):
            self.pit.publish(name, summary(name, game, 40 + n))
        self.runner, port = await core.listen(make_app(self.pit, language=language), "127.0.0.1", 0, None)
        self.figures = PitFigures(self.pit, dsn, 0.2, pit_figures, pit_rated)
        self.figures.start()
        self.beat = asyncio.get_running_loop().create_task(self._beat())
        return f"http://127.0.0.1:{port}"

    async def _beat(self) -> None:
        while True:
            for name in TABLES:
                self.pit.publish(name, {"kind": "heartbeat"})
            await asyncio.sleep(0.3)

    async def _stop(self) -> None:
        self.beat.cancel()
        await self.figures.stop()
        await self.runner.cleanup()

    def close(self) -> None:
        self.stop(self._stop())


@pytest.fixture
def shift(db: str) -> Shift:  # noqa: F811
    migrate(db)
    return Shift(db)


@pytest.fixture
def pages(db: str) -> Iterator[dict[str, PitPages]]:  # noqa: F811
    served: dict[str, PitPages] = {}
    yield served
    for each in served.values():
        each.close()


def played(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


def expected_rows(shift: Shift, lang: str) -> dict[str, list[dict[str, Any]]]:
    """What the page must show: each open session of the fold, by seat, the card masked, money in the locale."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    for table, sessions in shift.open_sessions().items():
        for s in sorted(sessions, key=lambda s: s["seats"][-1]["seat"]):
            seat = s["seats"][-1]["seat"]
            status = "break" if s["on_break"] else "open"
            words = {("en", "open"): "playing", ("en", "break"): "on a break",
                     ("fr", "open"): "en jeu", ("fr", "break"): "en pause"}[(lang, status)]
            out[table].append({
                "seat": seat, "player": "••••" + s["player"][-4:], "hands": s["hands"], "averageBet": s["average_bet"],
                "theoCents": s["theo_cents"], "win": s["win"], "status": status,
                "cells": [str(seat), "••••" + s["player"][-4:], played(s["played_s"]), str(s["hands"]),
                          money(s["average_bet"], lang=lang), money(s["theo_cents"], lang=lang)
                          + ("" if s["theo_complete"] else "*"), money(s["win"], lang=lang, signed=True),
                          words + PAST_DAY[lang]]})
    return out


def test_the_rated_message_masks_every_card_and_lists_only_open_sessions(shift: Shift, db: str) -> None:  # noqa: F811
    shift.deal(4)
    message = read_rated(db, list(TABLES))
    text = json.dumps(message, ensure_ascii=False)
    assert not any(card in text for cards in CARDS.values() for card in cards.values()) and "600099990000" not in text
    assert [line["seat"] for line in message["tables"]["uth-1"]] == [1, 3, 6] and message["tables"]["uth-3"] == []
    uth = {line["seat"]: line for line in message["tables"]["uth-1"]}
    assert uth[6]["on_break"] and not uth[1]["on_break"] and uth[1]["player"] == "••••2222"
    [tcp] = message["tables"]["3cp-2"]
    assert not tcp["theo_complete"] and tcp["theo_cents"] == round(4 * (2000 * Fraction(3373, 100000)
                                                                         + 1000 * Fraction(23167, 1000000)))
    assert "the archive's server" in pit_rated(db + " connect_timeout=3 port=1", ["uth-1"])["error"]



def test_the_rated_message_offers_the_gaming_days_closed_sessions_to_adjust_masked(shift: Shift, db: str) -> None:  # noqa: F811
    """The rating dialog's closed sessions: those of the current gaming day (the archive's `gaming_day`), the last
    ended first, each named by its exact start, the card masked; an older day's (the Shift's, of 1970) not offered."""
    shift.deal(1)
    now = time.time()
    r = Ratings("uth-1")
    r.event("player", {"seat": 2, "action": "in", "card": "600077771234", "source": "dealer"}, now - 120.25)
    r.event("player", {"seat": 2, "action": "out"}, now - 60.0)
    r.event("player", {"seat": 4, "action": "in", "card": "600088885678", "source": "dealer"}, now - 50.5)
    r.event("player", {"seat": 4, "action": "out"}, now - 30.0)
    with psycopg.connect(db) as conn:
        upsert_sessions(conn, r.reports(), "pit-1")
        day = conn.execute("SELECT ((now() AT TIME ZONE time_zone) - starts)::date = "
                           "((to_timestamp(%s) AT TIME ZONE time_zone) - starts)::date FROM gaming_day", (now - 120.25,))
        row = day.fetchone()
        same_day = bool(row and row[0])
    message = read_rated(db, list(TABLES))
    offered = [(c["seat"], c["player"], c["start"], c["end"]) for c in message["closed"]["uth-1"]]
    assert offered == ([(4, "••••5678", now - 50.5, now - 30.0), (2, "••••1234", now - 120.25, now - 60.0)]
                       if same_day else [(4, "••••5678", now - 50.5, now - 30.0)])  # a day starting in between
    assert message["closed"]["3cp-2"] == [] and "600077771234" not in json.dumps(message)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_pit_lists_the_rated_players_of_each_table_and_follows_the_fold(
        shift: Shift, pages: dict[str, PitPages], db: str, page: Page, lang: str) -> None:  # noqa: F811
    shift.deal(4)
    served = pages[lang] = PitPages(db, lang)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{served.base}/pit")
    page.wait_for_selector("[data-rated-table='uth-1'] tbody tr[data-rated-seat='6']")
    page.wait_for_function("() => document.querySelectorAll('[data-table]:not([data-offline])').length === 3")
    want = expected_rows(shift, lang)
    assert page.evaluate(READ_RATED) == want
    assert page.evaluate("() => [...document.querySelectorAll('[data-rated-table]')].map((b) => b.dataset.ratedTable)"
                         ) == list(TABLES)  # in the tiles' order
    assert "6000" + "1111" not in page.content() and "600011112222" not in page.content()
    title = {"en": "Rated players", "fr": "Joueurs suivis"}[lang]
    assert page.locator("#rated h2").text_content() == title
    assert page.locator("[data-rated-table='uth-3'] .none").is_visible()

    for size in ("1920", "tablet"):  # the pit's screen and a 1280x800 one, scrolled down to the rated players
        width, height = SIZES[size]
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        check_screenshot(page, f"pit-rated{'-fr' if lang == 'fr' else ''}-{width}x{height}",
                         mask=[page.locator("#source"), page.locator("#day"), page.locator("svg.spark")])  # the day, the clock

    shift.deal(1)  # a hand closed and folded: the next reading shows it
    page.wait_for_function("() => document.querySelector(\"[data-rated-table='uth-1'] tr[data-rated-seat='1']\")"
                           ".dataset.hands === '5'")
    assert page.evaluate(READ_RATED) == expected_rows(shift, lang)
