"""A poker seat's marks on the dealer console as a dealer reads the table, in Chromium from a recorded hold'em feed:
a call said as the bet it matched, like a raise's "to"; a folded seat holding no cards; a check said as done."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from pages import words

from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_HOLE, Rig
from tests.web.money import shown as money
from tests.web.test_chip_circles import serve
from tests.web.test_poker_street_acts import SEAT_WORDS, SEQ


def small_blind_called() -> dict[str, Any]:
    """The public state pre-flop once seat 5 called the big blind (0.02), seat 6 folded and seat 1 completed from its
    small blind (0.01 posted, 0.01 added): seat 3, the big blind, to act."""
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **HOLDEM)
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)
        for seat, action in ((5, "call"), (6, "fold"), (1, "call")):
            rig.act(seat, action)
        state = {**rig.state(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}
        rig.c.journal.close()
    return json.loads(json.dumps(state))


@pytest.mark.parametrize("name", ["dealer", "table"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_call_is_said_as_the_bet_it_matched_like_a_raise_to(page: Page, name: str, language: str) -> None:
    """Found dealing hold'em at the console: the small blind's call read "CALLS €0.01" (the chips it added) beside
    "bet €0.02" and a raise's "RAISES TO" total: a dealer reads the chips in front of the seat, so a call says the
    bet it matched, the same total its bet line and the players' screen's circle show."""
    state = small_blind_called()
    page.set_viewport_size({"width": 1280, "height": 800} if name == "dealer" else {"width": 1920, "height": 1080})
    serve(page, name, state, language=language)
    page.wait_for_selector(SEQ[name].format(seq=1), state="attached")
    said = page.locator(SEAT_WORDS[name].format(seat=1)).inner_text().strip()
    matched = money(2, lang=language)
    key = "poker_console.did_calls" if name == "dealer" else "poker_table.act_call"
    assert said.lower() == words.catalogs()[language][key].format(amount=matched).lower(), said
    if name == "dealer":
        bet = page.locator("[data-poker] .pseat[data-seat='1'] .pseat-bet").inner_text().strip().lower()
        assert matched in bet, bet  # the same amount as its bet line: the chips in front of the seat


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_folded_seat_shows_no_cards_on_the_console(page: Page, language: str) -> None:
    """Found dealing hold'em at the console: a folded seat kept its two card backs as if still in the hand; its cards
    are in the muck, so the seat shows none, only its "folded" mark (a seat still in keeps its two)."""
    state = small_blind_called()
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector(SEQ["dealer"].format(seq=1), state="attached")
    seat = "[data-poker] .pseat[data-seat='{seat}']"
    assert page.locator(seat.format(seat=6)).get_attribute("data-folded") == ""
    assert page.locator(seat.format(seat=6) + " .cards > *").count() == 0
    assert page.locator(seat.format(seat=6) + " .pseat-status").inner_text().strip().lower() == \
        ("folded" if language == "en" else "couché")
    assert page.locator(seat.format(seat=5) + " .cards > *").count() == 2  # still in: its two cards


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_check_is_said_as_the_seat_did_it_not_as_the_buttons_word(page: Page, language: str) -> None:
    """Found on the French console: seat 1's check on the flop read "parole", the word of the button that asks for
    it; the seat's mark says it as its neighbours' do ("checke" as "suit", "mise"; English "checks")."""
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **HOLDEM)
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)
        for seat, action in ((5, "call"), (6, "fold"), (1, "call"), (3, "check")):
            rig.act(seat, action)
        rig.shoe("3d 7h 8c 9d")
        rig.act(1, "check")
        state = json.loads(json.dumps({**rig.state(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}))
        rig.c.journal.close()
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector(SEQ["dealer"].format(seq=1), state="attached")
    said = page.locator(SEAT_WORDS["dealer"].format(seat=1)).text_content()
    catalog = words.catalogs()[language]
    assert said == catalog["poker_console.did_checks"] and said.lower() != catalog["poker_console.check"].lower(), said
    assert said == {"en": "checks", "fr": "checke"}[language], said
