"""A poker seat's marks on the dealer console as a dealer reads the table, in Chromium from a recorded hold'em feed:
a call said as the bet it matched, like a raise's "to"; a folded seat holding no cards; a check said as done;
the players' screen in the same words (poker_act); an uncalled bet said handed back beside the push."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute

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


def flop_checked() -> dict[str, Any]:
    """The public state on the flop once seat 1 checked (pre-flop: 5 and 1 called, 6 folded, 3 checked)."""
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
    return state


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_console_and_the_players_screen_say_a_seats_act_in_the_same_words(page: Page, language: str) -> None:
    """Found dealing hold'em with the players' screen beside the console: one feed `act`, two catalogs of words for it
    ("calls €0.02" on the console, "Call €0.02" on the players' screen; French "checke" there, "Parole" here, the
    word a player says to check, not the check done): one set of words (`poker_act`), each page's case by its CSS."""
    catalog = words.catalogs()[language]
    assert not [k for k in catalog if k.startswith(("poker_console.did_", "poker_table.act_"))]
    for state, seat, said in ((small_blind_called(), 1, catalog["poker_act.calls"].format(amount=money(2, lang=language))),
                              (flop_checked(), 1, catalog["poker_act.checks"])):
        texts = {}
        for name in ("dealer", "table"):
            page.set_viewport_size({"width": 1280, "height": 800} if name == "dealer" else {"width": 1920, "height": 1080})
            serve(page, name, state, language=language)
            page.wait_for_selector(SEQ[name].format(seq=1), state="attached")
            texts[name] = page.locator(SEAT_WORDS[name].format(seat=seat)).text_content()
        assert texts == {"dealer": said, "table": said}, texts  # the same catalog text; only CSS sets its case


@pytest.mark.parametrize("name", ["dealer", "table"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_call_is_said_as_the_bet_it_matched_like_a_raise_to(page: Page, name: str, language: str) -> None:
    """Found dealing hold'em at the console: the small blind's call read "CALLS €0.01" (the chips it added) beside
    "bet €0.02" and a raise's "RAISES TO" total: a dealer reads the chips in front of the seat, so a call says the
    bet it matched, the same total the players' screen's circle shows (and the console's bet line shows no more)."""
    state = small_blind_called()
    page.set_viewport_size({"width": 1280, "height": 800} if name == "dealer" else {"width": 1920, "height": 1080})
    serve(page, name, state, language=language)
    page.wait_for_selector(SEQ[name].format(seq=1), state="attached")
    said = page.locator(SEAT_WORDS[name].format(seat=1)).inner_text().strip()
    matched = money(2, lang=language)
    assert said.lower() == words.catalogs()[language]["poker_act.calls"].format(amount=matched).lower(), said
    if name == "dealer":  # the call says the chips in front of the seat: its bet line does not say them again
        # (found on the French console: "mise 1,50 €" above "MISE 1,50 €"); the big blind's, with no act yet, does
        line = "[data-poker] .pseat[data-seat='{seat}'] .pseat-bet"
        assert page.locator(line.format(seat=1)).inner_text().strip() == ""
        assert page.locator(line.format(seat=3)).inner_text().strip().lower() == \
            words.catalogs()[language]["poker_console.seat_bet"].format(amount=matched).lower()


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
    state = flop_checked()
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector(SEQ["dealer"].format(seq=1), state="attached")
    said = page.locator(SEAT_WORDS["dealer"].format(seat=1)).text_content()
    catalog = words.catalogs()[language]
    assert said == catalog["poker_act.checks"] and said.lower() != catalog["poker_console.check"].lower(), said
    assert said == {"en": "checks", "fr": "checke"}[language], said


def test_an_amount_not_read_clears_the_controllers_refusal_of_the_one_before(page: Page) -> None:
    """Found dealing at a French console: "1000" typed, refused by the controller ("dépasse le maximum, à 7,25 €"),
    then "-5" typed: "pas un montant" beside the amount while the refusal of 1 000,00 € still stood above it, two
    answers at once, one of them about an amount no longer typed."""
    sockets: list[WebSocketRoute] = []
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", small_blind_called(), language="fr", sockets=sockets)
    page.wait_for_selector("[data-poker] [data-actions] input[data-amount]")
    refusal = {"ok": False, "code": "illegal", "error": "seat 3 may raise to 4..200, not 100000"}
    sockets[0].on_message(lambda text: sockets[0].send(json.dumps(
        {"kind": "reply", "id": json.loads(str(text))["id"], "reply": refusal})))
    page.fill("[data-poker] [data-actions] input[data-amount]", "1000")
    page.click("[data-poker] [data-actions] [data-action='raise']")
    page.wait_for_selector("[data-poker] .poker-refusal[data-refusal='illegal']")
    page.fill("[data-poker] [data-actions] input[data-amount]", "-5")
    page.click("[data-poker] [data-actions] [data-action='raise']")
    page.wait_for_selector("[data-poker] .entry-error[data-entry-error='-5']")
    assert page.locator("[data-poker] .poker-refusal").is_hidden()
    assert page.locator("[data-poker] .entry-error").inner_text() == words.catalogs()["fr"]["poker_console.not_an_amount"]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_uncalled_bet_is_said_handed_back_to_its_seat_beside_the_push(page: Page, language: str) -> None:
    """Found dealing hold'em at the console: seat 5 raised to 0.10, everyone folded; the push said "Push €0.05 to seat
    5" (the blinds and his call of the big blind) and nothing of the 0.08 nobody called, which the dealer hands back
    too: the feed's results say it (`returned`, public money) and the console shows it beside the push."""
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **HOLDEM)
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)
        rig.act(5, "raise", 10)
        before = json.loads(json.dumps({**rig.full(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}))
        for seat in (6, 1, 3):
            rig.act(seat, "fold")
        state = json.loads(json.dumps({**rig.state(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}))
        full = json.loads(json.dumps({**rig.full(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": 2}))
        rig.c.journal.close()
    results = state["results"]
    assert results["returned"] == [{"seat": 5, "amount": 8}], results
    assert [p["amount"] for p in results["pots"]] == [5] and sum(n["net"] for n in results["net"]) == 0, results
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector(SEQ["dealer"].format(seq=1), state="attached")
    back = page.locator("[data-poker] .pot.returned[data-returned='5']")
    said = words.catalogs()[language]["poker_console.returned"].format(amount=money(8, lang=language), seat=5)
    assert back.inner_text().strip() == said and back.get_attribute("data-amount") == "8"
    assert page.locator("[data-poker] .push-line[data-winner='5']").get_attribute("data-amount") == "5"
    # the players' screen says it under the pot, surveillance's log beside the pot won: the same words
    table = page.context.new_page()
    table.set_viewport_size({"width": 1920, "height": 1080})
    serve(table, "table", state, language=language)
    table.wait_for_selector(SEQ["table"].format(seq=1), state="attached")
    assert table.locator(".p-returned[data-returned='5']").inner_text().strip() == said
    eye = page.context.new_page()
    serve(eye, "surveillance", before, language=language, more=[full])
    line = eye.locator("[data-steps] > li[data-step='settlement']", has_text=said)
    line.wait_for(timeout=10000)
    assert line.count() == 1
