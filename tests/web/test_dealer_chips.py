"""The dealer console at a smart table in Chromium, played by a person: the chips read in the circles, the payouts checked, the next hand dealt after a settled one, and the tray's buy-ins, colour-ups, fills and credits."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import zmq
from playwright.sync_api import Browser, Page

from firmware_host.service.journal import JOURNAL_FILE
from protocol.commands import CommandClient
from tests.sim.test_chip_demo import FAST_SCAN
from tests.web.chip_hands import Hands
from tests.web.money import shown as money
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import axe_violations, english_left
from tests.web.test_dealer import (PINS, ROOT, Console, console, play_decisions, post_bets, public_state, settled_reply,
                                   sign_in, tablet)

__all__ = ["console", "tablet"]  # the fixtures this module uses, imported with the helpers


@pytest.fixture
def chip_table(console: Callable[..., Console]) -> Iterator[Callable[..., tuple[Console, Hands]]]:
    """`chip_table(language=...)`: a smart table (the emulated chip board, the demo chip set, its tray filled) worked
    from the console, the people's hands on the board."""
    made: list[Hands] = []

    def make(**options: Any) -> tuple[Console, Hands]:
        # the board scanned every 0.04 s, not 0.1 (as tests/sim's chip demos): the readers settle in 0.24 s, not 0.6
        table = console(full=True, chips={}, chip_scan_s=FAST_SCAN, seats=3, **options)
        hands = Hands(table.table.chips_info["control"])
        made.append(hands)
        opening_fill(table, hands)
        return table, hands

    yield make
    for hands in made:
        hands.close()


def opening_fill(con: Console, hands: Hands) -> None:
    """The table opens with its float brought from the cage: the tray read empty (the shift's opening inventory), the
    float's fill recorded (the pit's slip, signed off by the supervisor), its chips put in the tray."""
    deadline = time.monotonic() + 20
    if hands.take_float_from_board():  # the simulated table put its float in the tray before the shift opened
        while (public_state(con.table, full=True).get("tray") or {}).get("reads") != hands.set.value(hands.float):
            assert time.monotonic() < deadline, "the tray never read its float"
            time.sleep(0.05)
        return
    while (public_state(con.table, full=True).get("tray") or {}).get("reads") != 0:
        assert time.monotonic() < deadline, "the tray was never read empty"
        time.sleep(0.05)
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, con.table.endpoints.commands, timeout_s=5.0, name="pit")
    try:
        reply = client.request("fill", amount=hands.set.value(hands.float), slip="opening",
                               auth={"user": "sam", "pin": PINS["sam"][1]})
        assert reply["ok"], reply
    finally:
        client.close()
        ctx.destroy(linger=0)
    hands.fill_tray()
    while (public_state(con.table, full=True).get("tray") or {}).get("reads") != hands.set.value(hands.float):
        assert time.monotonic() < deadline + 20, "the tray never read its float"
        time.sleep(0.05)


def journal_events(con: Console) -> list[dict[str, Any]]:
    """Every event the table journaled, `{"kind", "body"}`, read with sqlite3 as the journal's docstring says."""
    with sqlite3.connect(con.table.state_dir / JOURNAL_FILE) as db:
        return [{"kind": kind, "body": json.loads(body)} for kind, body in db.execute("SELECT kind, body FROM events ORDER BY id")]


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


def open_tray(page: Page) -> None:
    """The dealer taps Tray; the dialog shows the tray's reading as the relay tells it."""
    page.wait_for_selector("#tray-open:not([hidden])")
    page.tap("#tray-open")
    page.wait_for_selector("[data-tray-line]:not([data-reads=''])")


def record(page: Page, kind: str, amount: str, seat: int | None = None, signer: str | None = None,
           pin: str | None = None) -> str:
    """One movement tapped and typed in the tray's dialog, Record tapped; the dialog's answer (`done`/`refused`: words)."""
    page.tap(f"#tray [data-action='tray-kind'][data-kind='{kind}']")
    if seat is not None:
        page.tap(f"#tray [data-action='tray-seat'][data-seat='{seat}']")
    page.fill("#tray input[name=amount]", amount)
    if signer is not None:
        page.fill("#tray input[name=user]", signer)
        page.fill("#tray input[name=pin]", pin if pin is not None else PINS[signer][1])
    page.tap("#tray-send")
    page.wait_for_selector("#tray-answer:not([hidden])")
    settled_reply(page)
    return f"{page.get_attribute('#tray-answer', 'data-answer')}: {page.text_content('#tray-answer')}"


def tray_difference(page: Page, difference: int) -> None:
    """Wait until the tray's line shows `difference` (the tray's reading less the ledger's), its chips settled (a tall
    column's top chip missed K scans running, then read again, unsettles a tray nobody touched for a moment)."""
    try:
        page.wait_for_selector(f"[data-tray-line][data-difference='{difference}'][data-settled='true']", timeout=15000)
    except Exception as exc:
        raise AssertionError(f"the tray's line never showed {difference}: {page.text_content('[data-tray-line]')}") from exc


def test_with_the_reader_lost_the_console_takes_the_bets_by_taps(chip_table: Callable[..., tuple[Console, Hands]],
                                                                  tablet: Page) -> None:
    """Issue 24: "with the reader offline, the console falls back to taps, audited as such". The board unplugged
    with chips read in a circle: the chips to tap come back, the hint says why, the tapped bets are dealt as typed
    (the controller's `bets_typed` audit entry: tests/firmware_host/test_table_chips_signoff.py)."""
    con, hands = chip_table()
    sign_in(tablet, con.base, "ana")
    hands.bet(1, ante=2500, blind=2500)
    tablet.wait_for_selector("#deal:not([hidden]):not([disabled])")  # the readers took the chips
    hands.board.fault("lost", 300)
    tablet.wait_for_selector("[data-chips] [data-chip]", timeout=20000)  # the taps are back
    assert tablet.text_content("#hint") == "The chip reader is offline: tap each seat's bets, then deal"
    assert tablet.locator("#deal").is_hidden()  # nothing tapped yet: no Deal to refuse
    post_bets(tablet, 1, {"ante": [500]})
    tablet.wait_for_selector("#deal:not([hidden]):not([disabled])")
    tablet.tap("#deal")
    settled_reply(tablet)
    no_refusal(tablet)
    tablet.wait_for_selector(f"{ROOT}:not([data-phase='bets'])")
    state = public_state(con.table)
    assert state["chips"]["online"] is False and state["chips"]["source"] == "typed"
    assert state["spots"][0]["seat"] == 1 and state["spots"][0]["bets"] == {"ante": 500, "blind": 500}  # the taps
    assert [e["body"]["bets"] for e in journal_events(con) if e["kind"] == "bet"] == [{"ante": 500, "blind": 500}]


def test_a_buy_in_is_recorded_from_the_console_and_the_tray_read_against_it(
        chip_table: Callable[..., tuple[Console, Hands]], tablet: Page) -> None:
    con, hands = chip_table()
    sign_in(tablet, con.base, "ana")
    open_tray(tablet)
    tray_difference(tablet, 0)
    reads = int(tablet.get_attribute("[data-tray-line]", "data-reads") or 0)
    assert record(tablet, "buy_in", "500") == "refused: Tap the player's seat first"  # nothing sent
    assert record(tablet, "buy_in", "five hundred", seat=2) == "refused: Type the amount, for example 500 or 500.50"
    assert record(tablet, "buy_in", "500", seat=2) == "done: Buy-in of €500.00 at seat 2 recorded"
    tray_difference(tablet, 50000)  # recorded, the chips not yet counted out of the tray: it reads €500 more
    assert tablet.text_content("[data-tray-line]") == (
        f"The tray reads {money(reads)}; the ledger expects {money(reads - 50000)}: difference +€500.00")
    hands.from_tray(50000)  # the dealer counts the chips out to the player
    tray_difference(tablet, 0)
    assert tablet.text_content("[data-tray-line]") == (
        f"The tray reads {money(reads - 50000)}; the ledger expects {money(reads - 50000)}: difference €0.00")
    assert axe_violations(tablet) == []
    check_screenshot(tablet, "dealer-tray-buy-in-1280x800")
    movements = [e for e in journal_events(con) if e["kind"] == "buy_in"]
    assert [(m["body"]["seat"], m["body"]["amount"]) for m in movements] == [(2, 50000)]


def test_a_fill_and_a_credit_need_a_supervisors_sign_off(chip_table: Callable[..., tuple[Console, Hands]],
                                                          tablet: Page) -> None:
    con, hands = chip_table()
    sign_in(tablet, con.base, "ana")
    open_tray(tablet)
    assert tablet.is_visible("#tray input[name=pin]") is False  # a buy-in is not signed off
    tablet.tap("#tray [data-action='tray-kind'][data-kind='fill']")
    assert tablet.is_visible("#tray input[name=pin]")
    assert record(tablet, "fill", "1000") == "refused: This step needs a supervisor's sign-off"
    assert record(tablet, "fill", "1000", signer="ana") == (  # the dealer is not a supervisor: the wrong role
        "refused: Sign-off refused: wrong user or PIN, or not a supervisor")
    assert record(tablet, "fill", "1000", signer="sam", pin="000000") == (
        "refused: Sign-off refused: wrong user or PIN, or not a supervisor")
    tray_difference(tablet, 0)  # nothing recorded
    assert record(tablet, "fill", "1000", signer="sam") == "done: Fill of €1,000.00 recorded"
    tray_difference(tablet, -100000)  # the slip recorded, the chips not in the tray yet
    hands.to_tray(100000)
    tray_difference(tablet, 0)
    assert record(tablet, "credit", "250", signer="sam") == "done: Credit of €250.00 recorded"
    hands.from_tray(25000)
    tray_difference(tablet, 0)
    assert record(tablet, "colour_up", "100", seat=3) == "done: Colour-up of €100.00 at seat 3 recorded"
    tray_difference(tablet, 0)  # as much in as out
    signed = [e for e in journal_events(con) if e["kind"] in ("fill", "credit") and e["body"].get("slip") != "opening"
              and e["body"].get("signed_off", {}).get("user") == "sam"]
    assert [(e["kind"], e["body"]["amount"], e["body"]["signed_off"]["user"]) for e in signed] == [
        ("fill", 100000, "sam"), ("credit", 25000, "sam")]


def test_the_tray_says_it_in_french_and_fits_a_720_line_screen(chip_table: Callable[..., tuple[Console, Hands]],
                                                               browser: Browser) -> None:
    con, hands = chip_table(language="fr")
    context = browser.new_context(viewport={"width": 1280, "height": 720}, has_touch=True)
    page = context.new_page()
    try:
        sign_in(page, con.base, "ana")
        open_tray(page)
        assert record(page, "fill", "250,50") == "refused: Cette action demande la validation d'un superviseur"
        for selector in ("#tray-send", "#tray-close", "#tray input[name=pin]"):  # nothing to scroll to on the tablet
            box = page.locator(selector).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 720, selector
        assert page.text_content("[data-tray-line]") == (
            "La caisse lit 13\u202f700,00\xa0€ ; le registre attend 13\u202f700,00\xa0€ : écart 0,00\xa0€")
        assert english_left(page) == []
        assert axe_violations(page) == []
        check_screenshot(page, "dealer-tray-fill-fr-1280x720")
    finally:
        context.close()
