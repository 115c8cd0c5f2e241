"""At a smart table's showdown the console and surveillance say what makes each circle its due, as a dealer says it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.firmware_host.test_table_chips import ANTE, BLIND, DECK, PLAY_4X, Rig, chip_uids
from tests.web.test_accessibility import axe_violations, english_left
from tests.web.test_chip_circles import SHOTS, serve, states

SAID = {
    "en": ["Seat 3 Blind: pay €5.00 more (due €5.00, reads €0.00)",
           "Seat 3 Play: take back €5.00 (due €40.00, reads €45.00)",
           "Seat 3 Trips: take €1.00 (due €0.00, reads €1.00)"],
    "fr": ["Place 3 Blinde : payez encore 5,00 € (dû 5,00 €, lu 0,00 €)",
           "Place 3 Play : reprenez 5,00 € (dû 40,00 €, lu 45,00 €)",
           "Place 3 Trips : ramassez 1,00 € (dû 0,00 €, lu 1,00 €)"],
}
HELD = {"en": "{line}, one of 3 circles not reading their due: make each its due, or call a supervisor to accept",
        "fr": "{line}, une des 3 cases pas à leur dû : mettez chacune à son dû, ou appelez un superviseur pour les "
              "accepter"}


def _three_ways(r: Rig) -> None:
    """Seat 3 bets Ante and Blind (no Trips), plays 4x and wins: Ante and Blind push, the Play wins 1:1. The dealer's
    hands then take the Blind away, pay the Play a chip over and drop a chip in the Trips, which holds no bet."""
    r.put("spot3.ante", ANTE)
    r.put("spot3.blind", BLIND)
    r.ok("deal")
    r.card(*DECK[:4])
    r.put("spot3.play", PLAY_4X)
    r.ok("decide", seat=3, decision="play")
    r.card(*DECK[4:])
    r.put("spot3.blind", [])  # short: 0 of 500
    r.put("spot3.play", PLAY_4X + chip_uids(500, 5, 20))  # over: 4500 of 4000
    r.put("spot3.trips", chip_uids(100, 1, 30))  # no bet there: 100 to take


def _held(r: Rig) -> None:
    _three_ways(r)
    r.ok("confirm")


def _plain(text: str) -> str:
    return text.replace("\u202f", " ").replace("\xa0", " ")


@pytest.mark.parametrize(("language", "width", "height"),
                         [("en", 1280, 720), pytest.param("en", 1920, 1080, marks=pytest.mark.soak),
                          pytest.param("fr", 1280, 720, marks=pytest.mark.soak), ("fr", 1920, 1080)])
def test_each_circle_says_take_pay_more_or_take_back_with_its_figures(page: Page, language: str, width: int,
                                                                      height: int) -> None:
    """Each language's words and each size in `make test` (English at 1280x720, French at 1920x1080, as the held
    mispay's test below); the other two in `make soak`, the same words and checks."""
    page.set_viewport_size({"width": width, "height": height})
    showdown = states(_three_ways)
    assert {c["circle"]: c.get("make") for c in showdown["chips"]["circles"]} == {
        "ante": None, "blind": {"do": "pay", "amount": 500}, "play": {"do": "take_back", "amount": 500},
        "trips": {"do": "take", "amount": 100}}
    serve(page, "dealer", showdown, language=language)
    page.wait_for_selector("[data-mispaid] li[data-circle='trips']")
    assert [_plain(t) for t in page.eval_on_selector_all("[data-mispaid] li", "ns => ns.map(n => n.textContent)")] \
        == SAID[language]
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dealer-to-due-{language}-{width}x{height}.png"))


@pytest.mark.parametrize(("language", "width", "height"), [("en", 1280, 720), ("fr", 1920, 1080)])
def test_the_held_mispay_says_what_to_do_on_the_console_and_to_surveillance(page: Page, language: str, width: int,
                                                                           height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    first = HELD[language].format(line=SAID[language][0])  # the fault names the first circle and counts them all
    serve(page, "dealer", states(_held), language=language)
    page.wait_for_selector("#fault:not([hidden])")
    assert _plain(page.inner_text("#fault")) == first
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dealer-to-due-held-{language}-{width}x{height}.png"))
    serve(page, "surveillance", states(_held, full=True), language=language)
    page.wait_for_selector("#fault:not([hidden])")
    assert _plain(page.inner_text("#fault")) == {"en": "FAULT: ", "fr": "INCIDENT : "}[language] + first
    if language == "fr":
        assert english_left(page) == []
    page.screenshot(path=str(SHOTS / f"surveillance-to-due-held-{language}-{width}x{height}.png"))
