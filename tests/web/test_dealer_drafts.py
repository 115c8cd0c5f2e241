"""The dealer console between hands and over a reload, in Chromium: after Validate the next hand's betting starts on
clean circles (no last hand's amount or outcome left in them), and the bets tapped but not sent are kept for the table
and the hand being bet over a reload, sent once by Deal, dropped once the hand is dealt."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page

from tests.web.money import shown as money
from tests.web.test_dealer import ROOT, Console, console, public_state, sign_in, tablet  # noqa: F401 (the fixtures)
from tests.web.test_dealer_shift import Dealer, first_bets, play_hand

CIRCLES = """() => [...document.querySelectorAll('#spots .circle')].map((n) => ({
  seat: n.dataset.seat, circle: n.dataset.circle, stake: n.querySelector('.stake')?.textContent ?? '',
  result: n.dataset.result ?? null, says: n.querySelector('.says')?.textContent ?? null, draft: n.classList.contains('draft'),
  tone: ['win', 'lose', 'push', 'settled'].filter((c) => n.classList.contains(c)) }))"""
KEPT = "() => sessionStorage.getItem('croupier.console.drafts')"


def _circles(page: Page) -> dict[tuple[int, str], dict[str, Any]]:
    return {(int(c["seat"]), c["circle"]): c for c in page.evaluate(CIRCLES)}


def _reload(page: Page) -> None:
    page.reload()
    page.wait_for_selector(f"{ROOT}[data-phase]:not([hidden])")
    page.wait_for_function("() => document.querySelector('#spots .circle')")


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
    _reload(tablet)  # tapped between hands (the next hand's number not known yet): kept over a reload too
    assert tablet.get_attribute(ROOT, "data-phase") == "settled"
    ante = _circles(tablet)[(2, "ante")]
    assert (ante["stake"], ante["draft"], ante["tone"]) == (money(100), True, []), ante
    assert _circles(tablet)[(2, "blind")]["stake"] == money(100)  # the Blind followed the Ante, kept with it


def test_bets_tapped_and_not_sent_survive_a_reload_are_sent_once_and_dropped_once_dealt(
        console: Callable[..., Console], tablet: Page) -> None:
    work = console(game="uth", seed=5, seats=3)
    sent: list[dict[str, Any]] = []  # every command the console sends, over every page load
    tablet.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    sign_in(tablet, work.base, "ana")
    dealer = Dealer(tablet)
    dealer.tap("[data-seat='1'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='500']")
    dealer.tap("[data-seat='3'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='500']")
    dealer.tap("[data-seat='3'] [data-circle='trips']")
    dealer.tap("[data-chips] [data-chip='100']")
    dealer.tap("[data-seat='1'] [data-action='bet']")  # seat 1's sent; seat 3's still a draft
    dealer.ready()
    tablet.wait_for_selector(f"[data-seat='1'] [data-circle='ante']:not(.draft) .stake >> text={money(500)}")
    kept = json.loads(tablet.evaluate(KEPT))
    assert kept == {"table": tablet.locator("#name").inner_text(), "hand": 1,
                    "seats": {"3": {"ante": 500, "blind": 500, "trips": 100}}}, kept  # bets only, nothing of a card
    _reload(tablet)
    circles = _circles(tablet)
    assert {k: (c["stake"], c["draft"]) for k, c in circles.items() if k[0] != 2} == {
        (1, "ante"): (money(500), False), (1, "blind"): (money(500), False), (1, "trips"): ("\u2013", False),
        (3, "ante"): (money(500), True), (3, "blind"): (money(500), True), (3, "trips"): (money(100), True)}, circles
    dealer.tap("[data-action='deal']")  # Deal asks about seat 3's, restored, and sends them once
    tablet.wait_for_selector("#unsent[open]")
    assert [li.get_attribute("data-seat") for li in tablet.locator("#unsent-list li").all()] == ["3"]
    dealer.tap("#unsent-send")
    dealer.ready()
    assert dealer.refusal() is None, dealer.refusal()
    tablet.wait_for_selector(f"{ROOT}:not([data-phase='bets'])")
    bets = [m["command"] for m in sent if m.get("kind") == "command" and m["command"]["cmd"] == "bet"]
    assert [(b["seat"], b["bets"]) for b in bets] == [(1, {"ante": 500, "blind": 500}),
                                                     (3, {"ante": 500, "blind": 500, "trips": 100})], bets
    assert len([m for m in sent if m.get("kind") == "command" and m["command"]["cmd"] == "deal"]) == 1
    spots = {s["seat"]: s.get("bets") for s in public_state(work.table)["spots"]}
    assert spots == {1: {"ante": 500, "blind": 500}, 3: {"ante": 500, "blind": 500, "trips": 100}}, spots
    tablet.wait_for_function(f"() => {KEPT}() === null")  # dealt: nothing kept
    _reload(tablet)
    assert tablet.locator("#spots .circle.draft").count() == 0
