"""The dealer console at a smart table in Chromium, played by a person: the chips read in the circles, the payouts checked, the next hand dealt after a settled one, and the tray's buy-ins, colour-ups, fills and credits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.chip_hands import Hands
from tests.web.test_dealer import ROOT, Console, console, play_decisions, public_state, settled_reply, sign_in, tablet

__all__ = ["console", "tablet"]  # the fixtures this module uses, imported with the helpers


@pytest.fixture
def chip_table(console: Callable[..., Console]) -> Iterator[Callable[..., tuple[Console, Hands]]]:
    """`chip_table(language=...)`: a smart table (the emulated chip board, the demo chip set, its tray filled) worked
    from the console, the people's hands on the board."""
    made: list[Hands] = []

    def make(**options: Any) -> tuple[Console, Hands]:
        table = console(full=True, chips={}, seats=3, **options)
        hands = Hands(table.table.chips_info["control"])
        made.append(hands)
        hands.fill_tray()
        return table, hands

    yield make
    for hands in made:
        hands.close()


def no_refusal(page: Page) -> None:
    assert page.locator("[data-refusal]").count() == 0, page.locator("#refusal").inner_text()


def deal_read_bets(page: Page, hand: int) -> None:
    """Deal, once the console offers it (the readers took the chips), and wait for the hand's cards."""
    page.wait_for_selector("#deal:not([hidden]):not([disabled])")
    page.tap("#deal")
    settled_reply(page)
    no_refusal(page)
    page.wait_for_function("(hand) => { const r = document.getElementById('console');"
                           " return r.dataset.hand === String(hand) && r.dataset.phase !== 'bets'; }", arg=hand)


def fold_at_river(phase: str, seat: int) -> str:
    return "fold" if phase == "river" else "check"


def pay_and_confirm(page: Page, con: Console, hands: Hands) -> None:
    """The dealer pays every circle its due on the board, the console shows no circle unpaid, Confirm closes the hand."""
    hands.pay(public_state(con.table))
    page.wait_for_selector("[data-mispaid]", state="hidden")
    page.wait_for_selector("#confirm:not([hidden]):not([disabled])")
    page.tap("#confirm")
    settled_reply(page)
    no_refusal(page)
    page.wait_for_selector(f"{ROOT}[data-phase='settled']")


def test_the_next_hand_is_dealt_from_the_console_after_a_settled_one(chip_table: Callable[..., tuple[Console, Hands]],
                                                                     tablet: Page) -> None:
    con, hands = chip_table()
    sign_in(tablet, con.base, "ana")
    hands.bet(1, ante=500, blind=500)
    deal_read_bets(tablet, 1)
    play_decisions(tablet, fold_at_river)
    pay_and_confirm(tablet, con, hands)
    assert tablet.locator("#deal").is_hidden()  # the paid chips still lie in the circle: nothing new to read
    hands.take_back()
    hands.bet(1, ante=1000, blind=1000)
    deal_read_bets(tablet, 2)  # the bug: no Deal was offered after a settled hand, none typed
    spot = public_state(con.table)["spots"][0]
    assert spot["seat"] == 1 and spot["bets"] == {"ante": 1000, "blind": 1000}
