"""The dealer console between hands, over a reload and a restart, in Chromium: after Validate the next hand's betting
starts on clean circles (no last hand's amount or outcome left in them); the bets tapped but not sent are kept for the
table and the hand being bet over a reload, sent once by Deal, dropped once the hand is dealt; the display, then the
controller, restarted mid-hand: the console says it is offline, keeps its drafts, sends nothing twice and resumes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page

from cli.demo import SimTable
from protocol.commands import CommandClient
from tests.web.money import shown as money
from tests.web.test_accessibility import axe_violations
from tests.web.test_dealer import PINS, ROOT, Console, console, public_state, sign_in, tablet  # noqa: F401 (the fixtures)
from tests.web.test_dealer_shift import Dealer, _deal_with_bets, first_bets, play_hand, restartable  # noqa: F401 (the fixture)

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
    assert tablet.inner_text("#hint") == "Bets for the next hand (hand 1 stays on show): tap a circle, then chips"
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


OFFLINE = {"en": "OFFLINE \u2014 waiting for the table", "fr": "HORS LIGNE \u2014 en attente de la table"}


def _commands(sent: list[dict[str, Any]], cmd: str) -> list[dict[str, Any]]:
    return [m["command"] for m in sent if m.get("kind") == "command" and m["command"]["cmd"] == cmd]


def _bet(table: SimTable, seat: int) -> None:
    """Seat's Ante and Blind of 500 sent to the table straight (not from the page)."""
    ctx: zmq.Context[Any] = zmq.Context()
    direct = CommandClient(ctx, table.endpoints.commands, timeout_s=5.0, name="setup")
    try:
        assert direct.request("bet", seat=seat, bets={"ante": 500, "blind": 500})["ok"]
    finally:
        direct.close()
        ctx.destroy(linger=0)


def _away_and_back(page: Page, run: dict[str, Any], language: str, tap: str,
                   meanwhile: Callable[[], None] = lambda: None) -> None:
    """The display stopped and started again, then the controller killed (its restarter starts it): the console says
    it is offline in its language, and comes back by itself, signed in, on the controller's new boot. `tap`
    tapped while the display is down is not sent: "not connected", said until the console is connected again."""
    run["stop"]()
    page.wait_for_selector("#offline:not([hidden])")
    assert page.inner_text("#offline") == OFFLINE[language]
    assert axe_violations(page) == []  # offline: the banner and the last state still readable (grey, not faded)
    page.tap(tap)
    words = page.evaluate("async () => (await import('/static/words.js')).t('console.not_connected')")
    assert (page.get_attribute("#refusal", "data-refusal"), page.inner_text("#refusal")) == ("offline", words)
    meanwhile()
    run["start"]()
    page.wait_for_selector("#offline[hidden]", state="attached", timeout=30_000)
    assert page.locator("#refusal").is_hidden()  # connected again: no "not connected" left on screen
    table: SimTable = run["table"]
    assert table.controller is not None
    boot = page.get_attribute(ROOT, "data-boot")
    table.controller.kill()  # back within a heartbeat or two: the console may not even show it offline
    page.wait_for_function("(boot) => document.getElementById('console').dataset.boot !== boot"
                           " && document.getElementById('offline').hidden", arg=boot, timeout=60_000)
    assert page.locator("[data-signin]").count() == 0


@pytest.mark.parametrize("language", ["fr"])  # the restarts alike in both: English's 17 s left out of `make test`
def test_the_display_then_the_controller_restart_mid_hand_and_the_console_resumes(
        restartable: Callable[..., dict[str, Any]], tablet: Page, language: str) -> None:
    """Betting: seat 1's bets sent, seat 2's tapped; the display, then the controller, restart: seat 2's draft is
    still there and Deal sends it once. Mid-hand, seat 1 checked: they restart again and the console is on seat 2's
    decision of the same hand; every bet, the deal and every decision were sent once."""
    run = restartable(game="uth", seed=5, seats=3, language=language)
    sent: list[dict[str, Any]] = []
    tablet.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    sign_in(tablet, run["start"](), "ana")
    dealer = Dealer(tablet)
    dealer.tap("[data-seat='1'] [data-circle='ante']")
    dealer.tap("[data-chips] [data-chip='500']")
    dealer.tap("[data-seat='1'] [data-action='bet']")
    dealer.ready()
    tablet.wait_for_selector(f"[data-seat='1'] [data-circle='ante']:not(.draft) .stake >> text={dealer.money(500)}")
    for seat in (2, 3):
        dealer.tap(f"[data-seat='{seat}'] [data-circle='ante']")
        dealer.tap("[data-chips] [data-chip='500']")
    # seat 3's bets as tapped reach the table while the display is down (a Bet whose reply the restart lost): on
    # coming back seat 3 is posted, no draft; seat 2's, never sent, is still its draft
    _away_and_back(tablet, run, language, "[data-seat='2'] [data-action='bet']", meanwhile=lambda: _bet(run["table"], 3))
    assert tablet.get_attribute(ROOT, "data-hand") == "1" and tablet.get_attribute(ROOT, "data-phase") == "bets"
    circles = _circles(tablet)
    assert {seat: (circles[(seat, "ante")]["stake"], circles[(seat, "ante")]["draft"]) for seat in (1, 2, 3)} == {
        1: (dealer.money(500), False), 2: (dealer.money(500), True), 3: (dealer.money(500), False)}, circles
    dealer.tap("[data-action='deal']")
    tablet.wait_for_selector("#unsent[open]")
    assert [li.get_attribute("data-seat") for li in tablet.locator("#unsent-list li").all()] == ["2"]
    dealer.tap("#unsent-send")
    dealer.ready()
    assert dealer.refusal() is None, dealer.refusal()
    tablet.wait_for_selector(f"{ROOT}[data-to-act='1'] [data-decisions] [data-action='check']:not([disabled])")
    dealer.tap("[data-decisions] [data-action='check']")
    dealer.ready()
    tablet.wait_for_selector(f"{ROOT}[data-to-act='2'] [data-decisions] [data-action='check']:not([disabled])")
    checked = tablet.locator("#spots [data-seat='1'] .seat .decision").text_content()
    assert checked == {"en": "Checked", "fr": "Checké"}[language]  # taken, in the past: not the button's "Check"
    _away_and_back(tablet, run, language, "[data-decisions] [data-action='check']")
    tablet.wait_for_selector(f"{ROOT}[data-to-act='2'] [data-decisions] [data-action='check']:not([disabled])")
    assert (tablet.get_attribute(ROOT, "data-hand"), tablet.get_attribute(ROOT, "data-phase")) == ("1", "preflop")
    dealer.tap("[data-decisions] [data-action='check']")
    dealer.ready()
    assert dealer.refusal() is None, dealer.refusal()
    tablet.wait_for_function("() => document.getElementById('console').dataset.toAct !== '2'")
    assert [(b["seat"], b["bets"]) for b in _commands(sent, "bet")] == [(1, {"ante": 500, "blind": 500}),
                                                                       (2, {"ante": 500, "blind": 500})]  # seat 3's not again
    assert len(_commands(sent, "deal")) == 1
    assert [(d["seat"], d["decision"]) for d in _commands(sent, "decide")] == [(1, "check"), (2, "check")]
    spots = {s["seat"]: s for s in public_state(run["table"])["spots"]}
    assert (spots[1].get("decision"), spots[2].get("decision")) == ("check", "check")


def test_a_void_signed_off_while_the_tablets_network_is_quiet_is_not_left_to_land_later(
        console: Callable[..., Console], tablet: Page) -> None:
    """The tablet's network gone quiet mid-hand (its socket still open, the page OFFLINE by the heartbeat): a void signed
    off is refused on the page in the dealer's words, not left in the stalled socket to land when the network comes back
    (seen by hand: it voided the hand 9 s later); back online, seat 1's Check is the next thing the table takes."""
    work = console(game="uth", seed=5, seats=3)
    sent: list[dict[str, Any]] = []
    tablet.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    sign_in(tablet, work.base, "ana")
    _deal_with_bets(work, [1, 2])
    tablet.wait_for_selector("[data-decisions] [data-seat='1'][data-action='check']:not([disabled])")
    hand = tablet.get_attribute(ROOT, "data-hand")
    tablet.context.set_offline(True)
    tablet.wait_for_selector("#offline:not([hidden])")
    tablet.tap("[data-action='void']")
    tablet.wait_for_selector("dialog[data-signoff='void'][open]")
    tablet.fill("#signoff input[name=user]", "sam")
    tablet.fill("#signoff input[name=pin]", PINS["sam"][1])
    tablet.tap("[data-action='signoff-send']")
    tablet.wait_for_selector("#refusal[data-refusal='offline']")
    words = tablet.evaluate("async () => (await import('/static/words.js')).t('console.offline_not_sent')")
    assert tablet.inner_text("#refusal") == words == "Not sent while offline: send it again once the table is back"
    assert _commands(sent, "void") == []
    tablet.context.set_offline(False)
    tablet.wait_for_selector("#offline[hidden]", state="attached", timeout=30_000)
    assert tablet.locator("#refusal").is_hidden()  # back online: the refusal said while offline is gone
    dealer = Dealer(tablet)
    dealer.tap("[data-decisions] [data-action='check']")
    dealer.ready()
    tablet.wait_for_selector(f"{ROOT}[data-to-act='2']")
    assert (tablet.get_attribute(ROOT, "data-hand"), tablet.get_attribute(ROOT, "data-phase")) == (hand, "preflop")
    assert _commands(sent, "void") == [] and [(d["seat"], d["decision"]) for d in _commands(sent, "decide")] == [(1, "check")]
