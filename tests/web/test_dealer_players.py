"""The dealer console's player cards in Chromium: a card scanned into the focused field (a USB reader types it and
its Enter) from the notices' Player cards or a spot's own seat action, the seat shown rated with the last four only,
the player leaving; a card set by the pit shown too; a console without the full feed still sets a card and says it
cannot show the rated seats; an unrated seat left unrated by a cancel; English and French, both console sizes, 48 px
targets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zmq
from playwright.sync_api import Page

from protocol.commands import CommandClient
from tests.web.screens import check_sizes
from tests.web.test_accessibility import axe_violations, english_left
from tests.web.test_dealer import (PINS, ROOT, Console, console, in_words, public_state, settled_reply,  # noqa: F401
                                   sign_in, tablet)
from tests.web.test_dealer_layout import check_targets

CARD = "6001234567890"
MASKED = "\u2022\u2022\u2022\u20227890"


def scan(page: Page, seat: int, card: str) -> None:
    """Open Player cards, tap the seat, and let the reader type the card and its Enter into the focused field."""
    page.tap("[data-action='players']")
    page.wait_for_selector("#players[open]")
    page.tap(f"#players [data-action='player-seat'][data-seat='{seat}']")
    page.keyboard.type(card)  # into the field focused by the seat's tap: no tap on the field itself
    page.keyboard.press("Enter")
    page.wait_for_selector("#players:not([open])", state="attached")
    settled_reply(page)


def scan_at_spot(page: Page, seat: int, card: str) -> None:
    """Tap the spot's own seat action (Player card), and let the reader type the card and its Enter."""
    page.tap(f"#spots [data-seat='{seat}'] [data-action='player-card']")
    page.wait_for_selector(f"#players[open][data-seat='{seat}']")
    assert page.evaluate("() => document.activeElement?.id") == "player-card"  # the scan goes where it should
    page.keyboard.type(card)
    page.keyboard.press("Enter")
    page.wait_for_selector("#players:not([open])", state="attached")
    settled_reply(page)


def rated(page: Page, seat: int) -> str | None:
    """The masked card a spot shows, or None."""
    node = page.locator(f"#spots [data-seat='{seat}'] .rated[data-player-card]")
    return node.get_attribute("data-player-card") if node.count() else None


def test_a_card_scanned_at_the_console_rates_the_seat_shown_masked_then_cleared(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=5, seats=3, full=True)
    sign_in(tablet, work.base, "ana")
    assert tablet.locator("#spots [data-seat='1'] [data-action='player-card']").inner_text() == "Player card"
    tablet.tap("#spots [data-seat='1'] [data-action='player-card']")  # opened, half typed, cancelled: nothing sent
    tablet.wait_for_selector("#players[open][data-seat='1']")
    tablet.keyboard.type(CARD[:6])
    tablet.tap("#players-cancel")
    scan_at_spot(tablet, 2, CARD)
    assert tablet.locator("[data-refusal]").count() == 0, tablet.locator("#refusal").inner_text()
    tablet.wait_for_selector(f"#spots [data-seat='2'] .rated[data-player-card='{MASKED}']")
    assert tablet.locator("#spots [data-seat='2'] .rated").inner_text() == f"Rated {MASKED}"
    assert rated(tablet, 1) is None and rated(tablet, 3) is None
    full = public_state(work.table, full=True)
    assert full["players"] == {"2": {"card": CARD, "source": "dealer", "away": False}}  # in full on the full feed only
    assert "players" not in public_state(work.table)
    assert CARD not in tablet.content() and CARD[-4:] + "\"" not in str(public_state(work.table))
    assert CARD not in work.log.read_text(encoding="utf-8")  # the relay's log masks it too
    assert tablet.locator("#spots [data-seat='1'] .rated").inner_text() == "Player card"  # seat 1 stays unrated

    tablet.tap("#spots [data-seat='2'] [data-action='player-card']")  # the rated seat's action: its dialog, masked
    tablet.wait_for_selector("#players[open][data-seat='2']")
    assert tablet.locator("#players-at").inner_text() == (
        f"Seat 2 is rated ({MASKED}): scan another card to replace it, or the player leaves")
    assert tablet.locator("#player-out").inner_text() == "Player leaves" and tablet.locator("#player-out").is_enabled()
    assert CARD not in tablet.content()
    check_sizes(tablet, "dealer-player-card-en", ("tablet",))
    tablet.tap("#players-cancel")

    def on_seat(seat: int) -> None:
        tablet.tap("[data-action='players']")
        tablet.wait_for_selector("#players[open]")
        tablet.tap(f"#players [data-action='player-seat'][data-seat='{seat}']")

    on_seat(2)  # a break: the rating paused, the seat still the player's
    tablet.tap("#players [data-action='player-away']")
    settled_reply(tablet)
    tablet.wait_for_selector("#spots [data-seat='2'] .rated.away")
    assert tablet.locator("#spots [data-seat='2'] .rated").inner_text() == f"On a break {MASKED}"
    assert public_state(work.table, full=True)["players"]["2"]["away"] is True
    on_seat(2)
    tablet.tap("#players [data-action='player-back']")
    settled_reply(tablet)
    tablet.wait_for_selector("#spots [data-seat='2'] .rated[data-player-card]:not(.away)")

    on_seat(1)  # the dialog shows who sits where; Clear and Break only where a card is
    assert tablet.get_attribute("#players [data-seat='2']", "data-player-card") == MASKED
    assert tablet.locator("#player-out").is_disabled() and tablet.locator("#player-pause").is_hidden()
    assert tablet.evaluate("() => document.activeElement?.id") == "player-card"
    tablet.tap("#players [data-action='player-seat'][data-seat='2']")
    tablet.tap("#player-out")
    settled_reply(tablet)
    tablet.wait_for_selector("#spots [data-seat='2'] .rated[data-player-card]", state="detached")
    assert public_state(work.table, full=True)["players"] == {}


def test_a_card_the_pit_sets_shows_on_the_console_and_a_move_follows_the_player(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=6, seats=3, full=True)
    sign_in(tablet, work.base, "ana")
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, work.table.endpoints.commands, timeout_s=5.0)
    try:
        reply = client.request("player", seat=3, action="in", card="ABCD1234", source="pit")
        assert reply["ok"], reply
        tablet.wait_for_selector("#spots [data-seat='3'] .rated[data-player-card='\u2022\u2022\u2022\u20221234']")
        reply = client.request("player", seat=3, action="away")
        assert reply["ok"], reply
        tablet.wait_for_selector("#spots [data-seat='3'] .rated.away")
        assert tablet.locator("#spots [data-seat='3'] .rated").inner_text() == "On a break \u2022\u2022\u2022\u20221234"
    finally:
        client.close()
        ctx.destroy(linger=0)
    scan(tablet, 1, "ABCD1234")  # the same card at another seat: the player moved
    tablet.wait_for_selector("#spots [data-seat='1'] .rated[data-player-card]")
    tablet.wait_for_selector("#spots [data-seat='3'] .rated[data-player-card]", state="detached")


def test_without_the_full_feed_a_card_is_still_set_and_a_refusal_is_in_words(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=7, seats=3)
    sign_in(tablet, work.base, "ana")
    tablet.tap("[data-action='players']")
    tablet.wait_for_selector("#players[open]")
    assert tablet.locator("#players-unknown").is_visible()
    tablet.tap("#players [data-action='player-seat'][data-seat='1']")
    tablet.tap("#player-out")  # not known here: the controller answers, in its words
    settled_reply(tablet)
    tablet.wait_for_selector("[data-refusal]")
    assert tablet.locator("#refusal").inner_text() == in_words(tablet, {"key": "refusal.no_player_card",
                                                                        "args": {"seat": 1}})
    scan(tablet, 1, "12")  # a misread: refused, in words, the number not repeated
    tablet.wait_for_selector("[data-refusal='malformed']")
    assert "4" in tablet.locator("#refusal").inner_text() and "12" not in tablet.locator("#refusal").inner_text()
    scan(tablet, 1, CARD)
    assert tablet.locator("[data-refusal]").count() == 0
    assert public_state(work.table, full=True)["players"]["1"]["card"] == CARD


def test_the_player_cards_in_french_at_both_sizes_every_target_48_px(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=5, seats=5, full=True, language="fr")
    sign_in(tablet, work.base, "ana")
    scan(tablet, 2, CARD)
    tablet.wait_for_selector("#spots [data-seat='2'] .rated[data-player-card]")
    rated_seat = tablet.locator("#spots [data-seat='2'] .rated")  # five seats: the last four shown, the words its name
    assert rated_seat.inner_text() == "7890"
    assert rated_seat.get_attribute("aria-label") == rated_seat.get_attribute("title") == f"Suivi {MASKED}"
    for size in ({"width": 1280, "height": 800}, {"width": 1280, "height": 720}):
        tablet.set_viewport_size(size)
        check_targets(tablet, f"the console with a rated seat at {size}")
    tablet.set_viewport_size({"width": 1280, "height": 800})
    check_sizes(tablet, "dealer-rated-fr", ("tablet", "1280"))
    tablet.tap("[data-action='players']")
    tablet.wait_for_selector("#players[open]")
    tablet.tap("#players [data-action='player-seat'][data-seat='2']")
    tablet.keyboard.type("12")
    for size in ({"width": 1280, "height": 800}, {"width": 1280, "height": 720}):
        tablet.set_viewport_size(size)
        check_targets(tablet, f"the player cards' dialog at {size}")
    tablet.set_viewport_size({"width": 1280, "height": 800})
    check_sizes(tablet, "dealer-players-fr", ("tablet", "1280"))
    assert axe_violations(tablet) == []  # the dialog's words readable on their grounds, its field labelled
    assert english_left(tablet) == []
    tablet.tap("#players-cancel")
    assert tablet.input_value("#player-card") == ""  # what was typed is not left in the page
