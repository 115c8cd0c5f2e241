"""The poker console at the showdown of a hand with side pots, as a dealer reads it at arm's length, in Chromium at
1920x1080, 1280x800 and 1280x720, English and French: nothing below the fold or cut, no card's words past its edge."""

from __future__ import annotations

import copy
import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_HOLE, Rig
from tests.web.test_chip_circles import serve

BOARD = ["3d", "Tc", "2h", "5c", "8s", "4c", "9d", "Jh"]  # burns and cards; a ten: "10", the widest words


def side_pots(over: bool) -> dict[str, Any]:
    """Seats 5 (1.00) and 6 (0.50) all in pre-flop, seats 1 and 3 call, seat 1 bets 0.20 on the flop, seat 3 calls
    and they check it down: a main pot and two side pots; at the showdown (a seat to show) or, `over`, pushed with
    the results (as the feed sends it). A copy of the one this process made: the hand played once for each, not once
    for each of the twelve tests."""
    return copy.deepcopy(_side_pots(over))


@functools.cache
def _side_pots(over: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **HOLDEM)
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)
        board = list(BOARD)
        for _ in range(60):
            state = rig.c.public_state()
            if state["phase"] == "over" or (not over and state["phase"] == "showdown"):
                break
            if state["next"] is not None:
                rig.shoe(board.pop(0))
                continue
            legal, seat = state["legal"], state["to_act"]
            if legal["show"]:
                rig.act(seat, "show")
            elif seat in (5, 6) and legal["all_in"] is not None:
                rig.act(seat, "all_in")
            elif seat == 1 and state["street"] == "flop" and (legal["bet_or_raise"] or {}).get("kind") == "bet":
                rig.act(seat, "bet", 20)  # the second side pot, seats 1 and 3's
            elif legal["check"]:
                rig.act(seat, "check")
            else:
                rig.act(seat, "call")
        shown = rig.c.public_state()
        rig.c.journal.close()
    return json.loads(json.dumps({**shown, "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}))


FITS = """() => ({
  page: [document.documentElement.scrollHeight - innerHeight, document.documentElement.scrollWidth - innerWidth],
  below: [...document.querySelectorAll('[data-poker] button, [data-poker] .pseat, [data-poker] .pot')].filter((n) => {
    const r = n.getBoundingClientRect(); return r.width > 0 && r.bottom > innerHeight + 0.5; }).map((n) => n.textContent),
  cards: [...document.querySelectorAll('[data-poker] .card:not(.down)')].filter((c) => {
    const box = c.getBoundingClientRect(); const range = document.createRange(); range.selectNodeContents(c);
    const words = range.getBoundingClientRect(); return words.left < box.left - 0.5 || words.right > box.right + 0.5;
  }).map((c) => c.dataset.card),
  cut: [...document.querySelectorAll('[data-poker] .pseat-status, [data-poker] .hand-name, [data-poker] .pot *')]
    .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent),
})"""


@pytest.mark.parametrize("over", [False, True], ids=["showdown", "pushed"])
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 800), (1280, 720)])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_side_pot_showdown_fits_the_console(page: Page, language: str, width: int, height: int, over: bool) -> None:
    """Found dealing hold'em at a 1920x1080 console in French: the pushed side pots went to a second row and
    `Pots pushed - confirm` below the fold; the board's "10♣" ran past its card's edge; the seats' words were 15 px,
    unreadable at arm's length on a screen that large (at least 20 px there)."""
    page.set_viewport_size({"width": width, "height": height})
    serve(page, "dealer", side_pots(over), language=language)
    page.wait_for_selector("[data-poker] [data-action='confirm']" if over else "[data-poker] [data-action='show']")
    seen = page.evaluate(FITS)
    assert seen["page"] == [0, 0] and seen["below"] == [], seen
    assert seen["cards"] == [] and seen["cut"] == [], seen
    assert page.locator("[data-poker] [data-pot]").count() == 3, seen  # the main pot and two side pots
