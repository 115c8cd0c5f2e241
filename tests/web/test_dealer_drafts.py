"""The dealer console between hands, in Chromium: after Validate the next hand's betting starts on clean circles (no
last hand's amount or outcome left in them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page

from tests.web.money import shown as money
from tests.web.test_dealer import ROOT, Console, console, sign_in, tablet  # noqa: F401 (the fixtures)
from tests.web.test_dealer_shift import Dealer, first_bets, play_hand

CIRCLES = """() => [...document.querySelectorAll('#spots .circle')].map((n) => ({
  seat: n.dataset.seat, circle: n.dataset.circle, stake: n.querySelector('.stake')?.textContent ?? '',
  result: n.dataset.result ?? null, says: n.querySelector('.says')?.textContent ?? null, draft: n.classList.contains('draft'),
  tone: ['win', 'lose', 'push', 'settled'].filter((c) => n.classList.contains(c)) }))"""


def _circles(page: Page) -> dict[tuple[int, str], dict[str, Any]]:
    return {(int(c["seat"]), c["circle"]): c for c in page.evaluate(CIRCLES)}


def test_after_validate_the_next_hands_bets_start_on_clean_circles(console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=3, seats=2)
    sign_in(tablet, work.base, "ana")
    dealer = Dealer(tablet)
    first_bets(dealer, {1: {"ante": 500, "blind": 500}, 2: {"ante": 2500, "blind": 2500}})
    shown = play_hand(dealer, lambda phase, actions: next(a for a in actions if a.startswith("play")))
    assert any(net != 0 for net in shown.values()), shown  # circles won or lost: green and red before Validate
    tablet.wait_for_selector(f"{ROOT}[data-phase='settled'] [data-chips] [data-chip]", state="attached")
    circles = _circles(tablet)
    assert set(circles) == {(s, c) for s in (1, 2) for c in ("ante", "blind", "trips")}, circles  # no last hand's Play
    for where, c in circles.items():  # no last hand's amount nor outcome: a bet read there is this hand's
        assert (c["stake"], c["result"], c["says"], c["tone"], c["draft"]) == ("\u2013", None, None, [], False), (where, c)
    assert tablet.locator("#spots .spot-total").count() == 0
    assert tablet.locator("#spots .card").count() > 0  # the last hand's cards stay on show above the clean circles
    dealer.tap("[data-seat='2'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='100']")
    assert tablet.locator("[data-seat='2'] [data-circle='ante'].selected.draft .stake").inner_text() == money(100)
    assert _circles(tablet)[(1, "ante")]["stake"] == "\u2013"
