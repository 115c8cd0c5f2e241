"""A house-game seat's head on the dealer console, in Chromium from recorded UTH states: the decision it took this
hand said as done (French "Checké", not the button's "Parole"); between hands nothing of the last hand's decision."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from pages import words
from tests.firmware_host.test_table_chips import DECK, Rig, bets_down, pay, to_showdown
from tests.web.test_chip_circles import serve, states

HEAD = ".spot[data-seat='3'] .seat"


def _checked_pre_flop(r: Rig) -> None:
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])
    r.ok("decide", seat=3, decision="check")


def _settled(r: Rig) -> None:
    to_showdown(r)
    pay(r)
    r.ok("confirm")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_seats_check_is_said_as_done_not_as_the_buttons_word(page: Page, language: str) -> None:
    """Found on the French console: seat 3's check read "PAROLE", the word of the button that asks for it, so a
    dealer could not tell a check taken from one to take. It reads as the act done ("Checké", as "Couché";
    English "Checked")."""
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", states(_checked_pre_flop), language=language)
    page.wait_for_selector(f"#console:not([hidden]) {HEAD} .decision")
    said = page.locator(f"{HEAD} .decision").text_content()
    catalog = words.catalogs()[language]
    assert said == catalog["decided.check"] and said != catalog["decision.check"], said
    assert said == {"en": "Checked", "fr": "Checké"}[language], said


@pytest.mark.parametrize("language", ["en", "fr"])
def test_between_hands_a_seats_head_shows_nothing_of_the_last_hands_decision(page: Page, language: str) -> None:
    """Found between two UTH hands: seat 3's head still read "PLAY" (its 4x never shown) while the dealer took the
    next hand's bets, its Play circle already gone from the seat: the head is the next hand's, with no decision."""
    page.set_viewport_size({"width": 1280, "height": 800})
    state = states(_settled)
    assert state["steps"]["between_hands"] and state["spots"][0]["decision"] == "play"  # the feed still has it
    serve(page, "dealer", state, language=language)
    page.wait_for_selector(f"#console:not([hidden]) {HEAD} .seat-name")
    assert page.locator(f"{HEAD} .decision").count() == 0
    assert "folded" not in (page.locator(".spot[data-seat='3']").get_attribute("class") or "")
