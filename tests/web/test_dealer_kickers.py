"""Hands named alike at the showdown say why one beats the other, on the console and on /table, in English and
French: "Pair of kings, ace kicker" against the dealer's "Pair of kings, queen kicker" (engine/kickers.py decides,
the catalog's [hand_kicker] words it)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.firmware_host.test_table_steps import Rig
from tests.web.test_accessibility import english_left
from tests.web.test_chip_circles import serve

SHOTS = Path("/tmp/console12")
WORDS = {
    "en": {1: "Pair of kings, ace kicker", 2: "Pair of kings, jack kicker", 3: "Pair of aces", "dealer": "Pair of kings, queen kicker"},
    "fr": {1: "Paire de rois, kicker as", 2: "Paire de rois, kicker valet", 3: "Paire d'as",
           "dealer": "Paire de rois, kicker dame"},
}


def kings_at_the_showdown(confirmed: bool = False) -> dict[str, Any]:
    """Seats 1 and 2 pair their king with the board's, as the dealer does: seat 1's ace beats the dealer's queen, which
    beats seat 2's jack; seat 3's aces say why by their name. The public state at the showdown, as the feed sends it
    (with `confirmed`, once the payouts are confirmed: the hand among the last hands)."""
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        for seat in (1, 2, 3):
            rig.ok("bet", seat=seat, bets={"ante": 100, "blind": 100})
        rig.ok("deal")
        for card in "Ks Kc Ac Kh Ad Jh Ah Qc".split():  # seats 1, 2, 3, the dealer; again
            rig.ok("card", card=card)
        for seat in (1, 2, 3):
            rig.ok("decide", seat=seat, decision="play", multiple=4)
        for card in "Kd 9c 6h 4s 2d".split():
            rig.ok("card", card=card)
        if confirmed:
            rig.ok("confirm")
        shown = dict(rig.c.public_state())
        rig.c.journal.close()
    assert shown["phase"] == ("settled" if confirmed else "showdown")
    return {**shown, "kind": "update", "table": "uth-1", "boot": "b1", "seq": 1}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_hands_named_alike_name_the_kicker_that_decided(page: Page, language: str) -> None:
    state = kings_at_the_showdown()
    words = WORDS[language]
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("#console[data-phase='showdown'] #spots [data-seat='3'] .hand-name:not(:empty)")
    shown = {seat: page.inner_text(f"#spots [data-seat='{seat}'] .hand-name") for seat in (1, 2, 3)}
    assert shown == {seat: words[seat] for seat in (1, 2, 3)}
    assert page.inner_text("#dealer-name").startswith(words["dealer"] + " \u2013 ")
    if language == "fr":
        assert english_left(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"kickers-console-{language}-1280x720.png"))
    table = page.context.new_page()
    table.set_viewport_size({"width": 1920, "height": 1080})
    serve(table, "table", state, language=language)
    table.wait_for_selector(".spot[data-seat='3'] .hand-name:not(:empty)")
    assert {seat: table.inner_text(f".spot[data-seat='{seat}'] .hand-name") for seat in (1, 2, 3)} == shown
    assert words["dealer"] in table.inner_text("#dealer-name")
    table.screenshot(path=str(SHOTS / f"kickers-table-{language}-1920x1080.png"))
    table.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_tables_last_hands_name_the_dealers_kicker_that_decided(page: Page, language: str) -> None:
    """/table's last hands: the dealer's hand named as at the showdown, with its kicker (the same words, words.js)."""
    state = kings_at_the_showdown(confirmed=True)
    past = state["history"][-1]
    assert (past["hand"], past["dealer"]["hand_kickers"]) == (1, ["Q"])  # journaled with the hand (tables/house/sign.py)
    assert [spot["hand_kickers"] for spot in past["spots"]] == [["A"], ["J"], []]
    page.set_viewport_size({"width": 1920, "height": 1080})
    serve(page, "table", state, language=language)
    named = page.locator("[data-history] [data-hand='1'] .dealt > span:last-child")
    named.wait_for()
    assert named.inner_text() == WORDS[language]["dealer"]
    past_box = page.locator("[data-history] [data-hand='1']").evaluate("(n) => n.scrollWidth - n.clientWidth")
    assert past_box <= 1, past_box  # the kicker's words whole, inside the line
    if language == "fr":
        assert english_left(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"kickers-last-hands-{language}-1920x1080.png"))
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_function("() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(() => drawn(true))))")
    page.screenshot(path=str(SHOTS / f"kickers-last-hands-{language}-1280x720.png"))
