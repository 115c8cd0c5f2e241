"""The smart table's console at the showdown on a 10" tablet, in Chromium: every UTH seat's four circles (Ante, Blind, Trips, Play), each with its due and its read, whole on screen at 1280x720 and 1280x800, in English and in French; a full table's seat heads (name, decision, player card) whole."""

from __future__ import annotations

import copy
import functools
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from engine.cards import RANKS, SUITS
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.test_table_chips import Rig, chip_uids
from tests.web.test_accessibility import axe_violations, english_left
from tests.web.screens import check_screenshot
from tests.web.test_chip_circles import SHOTS, serve
from tests.web.test_dealer_layout import check_targets

DECK = [f"{rank}{suit}" for rank in reversed(RANKS) for suit in SUITS]


def to_the_showdown(r: Rig, seats: int) -> None:
    """`seats` seats bet Ante, Blind and Trips in chips, each plays 4x from its Play circle; nobody paid yet (every
    circle with its due against its read). The deck's quads give each winner the longest words: a Blind at 10:1."""
    for seat in range(1, seats + 1):  # the test set's 60 chips of 500: six a seat
        r.put(f"spot{seat}.ante", chip_uids(500, 1, seat * 6))
        r.put(f"spot{seat}.blind", chip_uids(500, 1, seat * 6 + 1))
        r.put(f"spot{seat}.trips", chip_uids(100, 1, seat))
    r.ok("deal")
    r.card(*DECK[:2 * seats + 2])
    for seat in range(1, seats + 1):
        r.put(f"spot{seat}.play", chip_uids(500, 4, seat * 6 + 2))
        r.ok("decide", seat=seat, decision="play")
    r.card(*DECK[2 * seats + 2:2 * seats + 7])
    assert r.c.table is not None and r.c.table.phase == "showdown"


CUT = """() => [...document.querySelectorAll('#spots .spot')].flatMap((spot) => {
  const box = spot.getBoundingClientRect();
  const out = [...spot.querySelectorAll('.circle, .spot-total')].filter((n) => {
    const r = n.getBoundingClientRect();
    return r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5 || r.bottom > innerHeight;
  }).map((n) => `seat ${spot.dataset.seat} ${n.dataset.circle ?? 'total'}`);
  const over = spot.scrollHeight - spot.clientHeight;
  return over > 1 ? [...out, `seat ${spot.dataset.seat} scrolls ${over} px`] : out;
})"""


def showdown_state(seats: int) -> dict[str, Any]:
    """The public state of a UTH table of `seats` seats, every one played to the showdown, as the feed sends it (a
    copy of the one this run made: the table played once for each number of seats, not once a test)."""
    return copy.deepcopy(_showdown_state(seats))


@functools.cache
def _showdown_state(seats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root), HouseSetup("uth", "default", {"minimum": 100}, seats))
        rig.reader()
        to_the_showdown(rig, seats)
        shown = rig.c.public_state()
        rig.c.journal.close()
    return {**shown, "kind": "update", "table": "uth-1", "boot": "b1", "seq": 1}


@pytest.mark.parametrize("seats", [4, 5, 7])  # the demo's table, and a full one: its seats at their narrowest
@pytest.mark.parametrize(("language", "height"), [("fr", 720), ("en", 800), pytest.param("en", 720, marks=pytest.mark.soak),
                                                  pytest.param("fr", 800, marks=pytest.mark.soak)])
def test_every_circle_of_every_seat_shows_at_the_payout(page: Page, language: str, height: int, seats: int) -> None:
    """`make test` French at 1280x720 (the longer words on the shorter screen) and English at 1280x800, as the tests
    below; `make soak` English at 720 and French at 800 too, the same checks."""
    state = showdown_state(seats)
    page.set_viewport_size({"width": 1280, "height": height})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("#console[data-phase='showdown'] [data-mispaid] li")
    assert page.locator("#spots .spot .circle").count() == 4 * seats
    assert page.locator("#spots .circle .reads.unpaid").count() >= seats  # the dues against the reads, unpaid
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dealer-showdown-{seats}-seats-{language}-1280x{height}.png"))
    assert page.evaluate(CUT) == []
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []  # the reads legible on every circle's colour, at every size


SEAT_HEADS = """() => ({
  page: [document.documentElement.scrollHeight - innerHeight, document.documentElement.scrollWidth - innerWidth],
  heads: [...document.querySelectorAll('#spots .spot')].map((spot) => {
    const name = spot.querySelector('.seat-name'), card = spot.querySelector('.rated');
    return { seat: spot.dataset.seat, name: name.textContent, cut: [name, card, ...spot.querySelectorAll('.decision')]
      .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.className),
      card: card.getAttribute('aria-label'), title: card.title };
  }),
})"""


@pytest.mark.parametrize("seats", [4, 5, 7])
@pytest.mark.parametrize(("language", "height"), [("fr", 720), ("en", 800)])
def test_a_full_house_tables_seat_heads_are_whole(page: Page, language: str, height: int, seats: int) -> None:
    """Four, five and seven seats: each seat's name on one line, its decision and its player card's button uncut, the
    button 48 px with its words (Rated ••••7890) as its name and title; nothing scrolls."""
    state = showdown_state(seats)
    players = {"kind": "players", "seats": {"2": {"card": "\u2022\u2022\u2022\u20227890", "source": "dealer", "away": False},
                                            "3": {"card": "\u2022\u2022\u2022\u20221234", "source": "pit", "away": True}}}
    page.set_viewport_size({"width": 1280, "height": height})
    serve(page, "dealer", state, language=language, more=[players])
    page.wait_for_selector("#spots [data-seat='3'] .rated.away[data-player-card]")
    seen = page.evaluate(SEAT_HEADS)
    assert seen["page"] == [0, 0], seen["page"]
    heads = seen["heads"]
    assert len(heads) == seats
    for head in heads:
        assert head["cut"] == [] and head["name"].endswith(head["seat"]), head
    names = {h["seat"]: h for h in heads}
    assert names["2"]["card"] == names["2"]["title"] == ("Suivi" if language == "fr" else "Rated") + " \u2022\u2022\u2022\u20227890"
    assert names["3"]["card"] == ("En pause" if language == "fr" else "On a break") + " \u2022\u2022\u2022\u20221234"
    assert names["1"]["card"] == ("Carte joueur" if language == "fr" else "Player card")
    shown = page.locator("#spots [data-seat='2'] .rated").inner_text()
    assert shown in ("7890", names["2"]["card"]), shown  # the last four (the dealer's check), or the words in full
    tops = page.eval_on_selector_all("#spots .spot .seat-name", "ns => ns.map((n) => n.getBoundingClientRect().height)")
    assert max(tops) < 30, tops  # one line each, never "Place / 1"
    check_targets(page, f"{seats} seats at 1280x{height} {language}")
    assert page.evaluate(CUT) == []
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []
    if seats == 7:
        check_screenshot(page, f"dealer-seven-seats-{language}-1280x{height}")


# Each chip to tap: its face's words inside the chip's round face (the chord at the words' top and bottom lines).
CHIP_FACES = """() => [...document.querySelectorAll('[data-chips] [data-chip]')].map((chip) => {
  const box = chip.getBoundingClientRect(), style = getComputedStyle(chip);
  const r = box.width / 2 - parseFloat(style.borderLeftWidth), cx = box.left + box.width / 2, cy = box.top + box.height / 2;
  const range = document.createRange(); range.selectNodeContents(chip); const words = range.getBoundingClientRect();
  const dy = Math.max(Math.abs(words.top - cy), Math.abs(words.bottom - cy));
  const half = Math.sqrt(Math.max(0, r * r - dy * dy));
  return { chip: chip.dataset.chip, face: chip.textContent, font: parseFloat(style.fontSize), round: box.width === box.height,
           inside: words.left >= cx - half - 0.5 && words.right <= cx + half + 0.5, spills: chip.scrollWidth > chip.clientWidth };
})"""


def betting_state(seats: int) -> dict[str, Any]:
    """A smart table of `seats` seats taking bets with its reader offline: the console's chips to tap."""
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root), HouseSetup("uth", "default", {"minimum": 100}, seats))
        rig.reader(online=False)
        shown = rig.c.public_state()
        rig.c.journal.close()
    return {**shown, "kind": "update", "table": "uth-1", "boot": "b1", "seq": 1}


@pytest.mark.parametrize(("language", "height"), [("fr", 720), ("en", 800)])
def test_every_chip_to_tap_shows_its_value_whole_inside_the_chip(page: Page, language: str, height: int) -> None:
    """Seven seats at 1280x720 and 1280x800: each chip's face is its value as chips are printed ("100 €", "€25": whole
    units without decimals; "100,00 €" was cut by the chip's edge), a long one ("10 000 €") a step smaller, every face
    whole inside its round chip at 12 px at least."""
    console = {"kind": "console", "user": "ana", "role": "dealer", "chips": [100, 500, 2500, 10000, 1000000], "commands": []}
    page.set_viewport_size({"width": 1280, "height": height})
    serve(page, "dealer", betting_state(7), language=language, more=[console])
    page.click("#spots [data-seat='1'] [data-circle='ante']")
    page.wait_for_selector("[data-chips] [data-chip='1000000']:not([disabled])")
    faces = page.evaluate(CHIP_FACES)
    euro = {"fr": ["1\u00a0€", "5\u00a0€", "25\u00a0€", "100\u00a0€", "10\u202f000\u00a0€"],
            "en": ["€1", "€5", "€25", "€100", "€10,000"]}[language]
    assert [f["face"] for f in faces] == euro, faces
    for face in faces:
        assert face["round"] and face["inside"] and not face["spills"] and face["font"] >= 12, face
    check_targets(page, f"seven seats' chips at 1280x{height} {language}")
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []
    check_screenshot(page, f"dealer-chips-seven-seats-{language}-1280x{height}")
