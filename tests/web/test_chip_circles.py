"""A smart table's circles on the pages: /table shows each circle's chips as read, /dealer the reads and at the showdown each circle's due."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute

from engine.chip_circles import PAID_ON
from firmware_host.tables.house.table import HouseSetup
from pages.app import static_files
from pages.words import words_for
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import axe_violations, english_left
from tests.firmware_host.test_table_chips import (
    ANTE, DECK, PLAY_4X, RETIRED, TCP, UTH, Rig, bets_down, chip_uids, pay, to_showdown,
)

STATIC = Path(__file__).resolve().parents[2] / "firmware_host" / "display" / "static"
FILES = static_files(STATIC)  # what the display serves under /static/: its own files and the shared ones
BASE = "http://chips.test"
SHOTS = Path(tempfile.gettempdir()) / "croupier-chips-shots"


def states(steps: Callable[[Rig], None], full: bool = False, setup: HouseSetup = UTH) -> dict[str, Any]:
    """The public (or full) state a table with the test chip set shows after `steps`, as the feed sends it (a copy of
    the one this process made: the table played once for each `steps`, kind and setup, not once a test; a showdown's
    takes a second)."""
    key = (steps, full, id(setup))
    if key not in _PLAYED:
        with tempfile.TemporaryDirectory() as root:
            rig = Rig(Path(root), setup)
            rig.reader()
            steps(rig)
            shown = rig.c.full_state() if full else rig.c.public_state()
            rig.c.journal.close()
        _PLAYED[key] = (setup, {**shown, "kind": "update", "table": "uth-1", "boot": "b1", "seq": 1})
    return copy.deepcopy(_PLAYED[key][1])


# (steps, full, the setup's id) -> (the setup, kept so that its id stays its own; the state made)
_PLAYED: dict[tuple[Callable[[Rig], None], bool, int], tuple[HouseSetup, dict[str, Any]]] = {}


def serve(page: Page, name: str, state: dict[str, Any], language: str = "en",
          more: list[dict[str, Any]] | None = None, sockets: list[WebSocketRoute] | None = None) -> None:
    """The page `name` from the shipped files, signed in as a dealer, its feed sending `state` (then `more`);
    its feed's socket appended to `sockets` (a test sends the next states when it is ready for them)."""
    def static(route: Route) -> None:
        file = route.request.url.split("/static/")[1].split("?")[0]
        route.fulfill(path=FILES[file], content_type="text/css" if file.endswith(".css") else "text/javascript")

    page.route(f"{BASE}/{name}", lambda r: r.fulfill(path=STATIC / f"{name}.html", content_type="text/html"))
    page.route(f"{BASE}/static/**", static)
    page.route(f"{BASE}/words.json", lambda r: r.fulfill(json=words_for(language)))
    role = "surveillance" if name == "surveillance" else "dealer"
    page.route(f"{BASE}/api/me", lambda r: r.fulfill(json={"user": "ana", "role": role}))

    def feed(ws: WebSocketRoute) -> None:
        ws.send(json.dumps({"kind": "hello", "heartbeat_s": 0}))
        if name == "dealer":
            ws.send(json.dumps({"kind": "console", "user": "ana", "role": "dealer", "chips": [100, 500, 2500],
                                "commands": [], "paid_on": dict(PAID_ON)}))  # as the relay sends it
        ws.send(json.dumps(state))
        for message in more or []:
            ws.send(json.dumps(message))
        if sockets is not None:
            sockets.append(ws)

    ws_name = {"dealer": "dealer", "surveillance": "full"}.get(name, "public")
    page.route_web_socket(f"{BASE.replace('http', 'ws')}/ws/{ws_name}*", feed)
    page.goto(f"{BASE}/{name}")


def _betting(r: Rig) -> None:
    bets_down(r)
    r.put("spot5.ante", chip_uids(2500, 1, 40), stable=False)


def _short_paid(r: Rig) -> None:
    to_showdown(r)
    r.put("spot3.play", PLAY_4X + chip_uids(500, 3, 20))  # due 4000, 3500 paid


def reads(page: Page, seat: int) -> dict[str, dict[str, str]]:
    return page.eval_on_selector_all(
        f".spot[data-seat='{seat}'] .circle:has(.reads)",
        "nodes => Object.fromEntries(nodes.map(n => { const r = n.querySelector('.reads');"
        " return [n.dataset.circle, {text: r.textContent, reads: r.dataset.chipsRead, due: '',"
        " cls: r.className}]; }))")


def stakes(page: Page, seat: int) -> dict[str, list[str]]:
    """Each circle of a seat as it reads: its name, its stake (and the stake's classes), any read said beside it."""
    return page.eval_on_selector_all(
        f".spot[data-seat='{seat}'] .circle", "nodes => Object.fromEntries(nodes.map(n => [n.dataset.circle,"
        " [...n.children].map(c => c.className + ':' + c.textContent.replace(/[\\u202f\\xa0]/g, ' '))]))")


def test_the_table_display_shows_each_circles_chips_as_read(page: Page) -> None:
    """Where the reader is online a circle's chips are its bet: "Ante €5.00", never "Ante – chips €5.00"."""
    serve(page, "table", states(_betting))
    page.wait_for_selector(".spot[data-seat='5'] .circle[data-chips-read]")
    assert stakes(page, 3) == {"ante": ["what:Ante", "stake:€5.00"], "blind": ["what:Blind", "stake:€5.00"],
                               "trips": ["what:Trips", "stake:€1.00"]}
    assert stakes(page, 5)["ante"] == ["what:Ante", "stake moving:€25.00"]
    assert page.locator(".reads").count() == 0
    assert axe_violations(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "table-betting.png"))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_console_shows_a_circles_chips_read_as_its_bet_while_the_reader_takes_the_bets(page: Page, language: str) -> None:
    """Found dealing a smart table in French: a circle read "Ante – lu 5,00 €", the typed stake's dash beside the read
    one, which a dealer reads as a bet missing. The chips read are the bet; moving ones in italics."""
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", states(_betting), language=language)
    page.wait_for_selector("#console:not([hidden])[data-phase='bets'] .spot[data-seat='5'] .circle[data-chips-read]")
    euros = {"en": ("€5.00", "€1.00", "€25.00"), "fr": ("5,00 €", "1,00 €", "25,00 €")}[language]
    blind = {"en": "Blind", "fr": "Blinde"}[language]
    assert stakes(page, 3) == {"ante": ["what:Ante", f"stake:{euros[0]}"], "blind": [f"what:{blind}", f"stake:{euros[0]}"],
                               "trips": ["what:Trips", f"stake:{euros[1]}"]}
    assert stakes(page, 5)["ante"] == ["what:Ante", f"stake moving:{euros[2]}"]
    assert stakes(page, 2)["ante"] == ["what:Ante", "stake:\u2013"]  # no chips, no bet
    assert page.locator(".circle .reads").count() == 0
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []


def circles(page: Page, seat: int) -> dict[str, dict[str, str]]:
    return page.eval_on_selector_all(
        f".spot[data-seat='{seat}'] .circle[data-chips-read]",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.circle, {reads: n.dataset.chipsRead, due: n.dataset.chipsDue ?? '',"
        " paid: String(n.classList.contains('paid')), text: n.querySelector('.reads')?.textContent ?? ''}]))")


def test_the_console_shows_each_circles_due_and_reads_at_the_showdown(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", states(_short_paid))
    page.wait_for_selector("[data-mispaid] li")
    assert page.eval_on_selector_all("[data-mispaid] li", "ns => ns.map(n => n.textContent)") == [
        "Seat 3 Play: pay €5.00 more (due €40.00, reads €35.00)", "Seat 3 Trips: pay €3.00 more (due €4.00, reads €1.00)"]
    shown = circles(page, 3)
    assert shown["play"] == {"reads": "3500", "due": "4000", "paid": "false", "text": "reads €35.00"}
    assert shown["ante"] == {"reads": "500", "due": "500", "paid": "true", "text": ""}
    assert axe_violations(page) == []  # the reads legible on every circle's colour
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "dealer-showdown.png"))


def test_a_circle_whose_chips_still_move_says_so_rather_than_due_and_read_alike(page: Page) -> None:
    """Found dealing by hand: while the dealer's hands paid, the list read "Seat 5 Ante: due €10.00, reads €10.00"
    for circles not yet settled, as if they were mispaid."""
    page.set_viewport_size({"width": 1280, "height": 800})
    state = states(_short_paid)
    for c in state["chips"]["circles"]:
        if c["seat"] == 3 and c["circle"] == "ante":
            assert c["due"] == c["value"] and c["stable"]
            c["stable"] = False
    serve(page, "dealer", state)
    page.wait_for_selector("[data-mispaid] li[data-circle='ante']")
    assert page.eval_on_selector_all("[data-mispaid] li", "ns => ns.map(n => n.textContent)") == [
        "Seat 3 Ante: due €5.00, reads €5.00, the chips still moving",
        "Seat 3 Play: pay €5.00 more (due €40.00, reads €35.00)", "Seat 3 Trips: pay €3.00 more (due €4.00, reads €1.00)"]


def test_the_console_says_it_in_french(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", states(_short_paid), language="fr")
    page.wait_for_selector("[data-mispaid] li")
    text = page.eval_on_selector("[data-mispaid] li", "n => n.textContent").replace("\u202f", " ").replace("\xa0", " ")
    assert text == "Place 3 Play : payez encore 5,00 € (dû 40,00 €, lu 35,00 €)"
    assert english_left(page) == []


def test_surveillance_sees_the_tray_the_foreign_chips_by_uid_and_the_counts(page: Page) -> None:
    def foreign(r: Rig) -> None:
        r.put("tray", chip_uids(2500, 4))
        r.put("spot2.ante", [RETIRED])

    serve(page, "surveillance", states(foreign, full=True))
    page.wait_for_selector("[data-chip-reads]:not([hidden])")
    assert page.text_content("[data-chip-reads]") == (f"Chips: tray €100.00  ·  foreign chips: spot2.ante {RETIRED}  ·  "
                                                  "this session 1 foreign, 0 moved, 0 mispaid, 0 accepted")
    assert RETIRED in (page.text_content("#fault") or "")
    assert axe_violations(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "surveillance-foreign.png"))


TRAY_FLOAT = chip_uids(2500, 40) + chip_uids(500, 30, 20) + chip_uids(100, 50, 1)  # €1,200.00
BOUGHT = chip_uids(500, 10, 40)  # seat 3's buy-in of €50.00
PAID = chip_uids(500, 4, 20) + chip_uids(100, 3, 1)  # what `pay` puts in seat 3's circles, from the tray
PINCHED = chip_uids(2500, 1, 39)


def _tray_shift(r: Rig) -> None:
    """The float's fill, a buy-in, a hand paid from the tray, then a €25 chip gone from the tray with nothing recorded and
    the next hand's cards: the trail's last line flagged."""
    r.put("tray", [])  # the shift's opening inventory: empty
    r.ok("fill", amount=120000, slip="F-1")
    r.put("tray", TRAY_FLOAT)
    r.ok("buy_in", seat=3, amount=5000)
    tray = [uid for uid in TRAY_FLOAT if uid not in BOUGHT]
    r.put("tray", tray)
    to_showdown(r)
    pay(r)
    tray = [uid for uid in tray if uid not in PAID]
    r.put("tray", tray)
    r.ok("confirm")
    for antenna in ("spot3.ante", "spot3.blind", "spot3.trips", "spot3.play"):
        r.put(antenna, [])
    r.put("tray", [uid for uid in tray if uid not in PINCHED])
    r.put("spot3.ante", chip_uids(500, 1, 50))
    r.put("spot3.blind", chip_uids(500, 1, 51))
    r.ok("deal")


def tray_panel(page: Page) -> dict[str, Any]:
    return page.eval_on_selector("[data-tray]", "box => ({now: box.querySelector('.tray-now').textContent,"
                                 " inventory: box.querySelector('[data-tray-inventory]').dataset.trayInventory,"
                                 " stacks: box.querySelector('[data-tray-inventory]').textContent,"
                                 " trail: [...box.querySelectorAll('[data-tray-trail] li')].map(li => [li.textContent,"
                                 " li.classList.contains('flagged')]), shift: box.querySelector('.tray-shift').textContent,"
                                 " flagged: box.querySelector('[data-tray-flagged]')?.textContent ?? ''})")


def test_surveillance_sees_the_trays_chips_its_trail_and_the_difference_flagged(page: Page) -> None:
    full = states(_tray_shift, full=True)
    public = states(_tray_shift)
    assert "tray" not in public and not any(uid in json.dumps(public) for uid in TRAY_FLOAT)  # the full feed's alone
    serve(page, "surveillance", full)
    page.wait_for_selector("[data-tray]:not([hidden])")
    shown = tray_panel(page)
    assert shown["now"] == "Reads €1,102.00 · expected €1,102.00 · difference €0.00"  # the hand under way reads as it began
    assert shown["inventory"] == "2500x39 500x16 100x47"
    assert shown["stacks"] == "39 × €25.00  ·  16 × €5.00  ·  47 × €1.00"
    assert shown["trail"] == [
        ["Before the first hand: Fill €1,200.00 (slip F-1), Buy-in €50.00 (seat 3); tray change +€1,150.00, "
         "difference €0.00", False],
        ["Hand 1: house net −€23.00, tray change −€23.00, difference €0.00", False],
        ["After hand 1: nothing recorded; tray change −€25.00, difference −€25.00", True]]
    assert shown["shift"] == ("Shift so far: opening €0.00, fills €1,200.00, credits €0.00, chips sold €50.00, "
                              "house net −€23.00: difference −€25.00")
    assert shown["flagged"] == "1 tray difference flagged this shift"
    assert axe_violations(page) == []
    check_screenshot(page, "surveillance-tray-1920x1080")


def test_surveillance_says_the_tray_in_french(page: Page) -> None:
    serve(page, "surveillance", states(_tray_shift, full=True), language="fr")
    page.wait_for_selector("[data-tray]:not([hidden])")
    shown = tray_panel(page)
    assert shown["trail"][-1] == ["Après le coup 1 : rien d'enregistré ; variation de la caisse −25,00\xa0€, "
                                  "écart −25,00\xa0€", True]
    assert english_left(page) == []


@pytest.mark.parametrize("online", [True, False])
def test_the_console_offers_chips_to_tap_only_with_the_reader_offline(page: Page, online: bool) -> None:
    def betting(r: Rig) -> None:
        bets_down(r)
        r.reader(online)

    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", states(betting))
    page.wait_for_selector("#console:not([hidden])[data-phase='bets']")
    page.wait_for_selector("#hint:not(:empty)")
    assert page.locator("[data-chips] [data-chip]").count() == (0 if online else 3)
    assert page.locator(".spot [data-action='bet']").count() == (0 if online else 7)
    assert page.locator("button.circle").count() == (0 if online else 21)
    assert page.text_content("#hint") == ("The chip readers take each circle's bets: deal when the players are done" if online
                                          else "The chip reader is offline: tap each seat's bets, then deal")


def _moved(r: Rig) -> None:
    """A chip added to seat 3's Ante after the hole cards: `chips_moved`, naming the circle."""
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])
    r.put("spot3.ante", ANTE + chip_uids(500, 1, 50))


def ringed(page: Page) -> list[str]:
    """The console's circles the standing fault names, `seat.circle`."""
    return page.eval_on_selector_all(".circle[data-faulted]", "ns => ns.map(n => `${n.dataset.seat}.${n.dataset.circle}`)")


@pytest.mark.parametrize(("language", "width", "height"), [("fr", 1280, 720), ("en", 1920, 1080)])
def test_the_console_rings_the_circle_a_moved_chip_fault_names(page: Page, language: str, width: int, height: int) -> None:
    """Found dealing by hand: a past-posted chip's fault named the circle in words, but no circle on the console was
    marked; the fault's `circles` ring it (circle-chips.js `faulted`), and only it."""
    state = states(_moved)
    assert state["fault"]["kind"] == "chips_moved" and state["fault"]["circles"] == [{"seat": 3, "circle": "ante"}]
    page.set_viewport_size({"width": width, "height": height})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("#fault:not([hidden])")
    assert ringed(page) == ["3.ante"]
    if language == "fr":
        assert english_left(page) == []
    assert axe_violations(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dealer-moved-{language}-{width}x{height}.png"))


def _mispaid(r: Rig) -> None:
    _short_paid(r)
    r.ok("confirm")  # the Play and the Trips short: the mispay holds the table


@pytest.mark.parametrize(("language", "width", "height"), [("fr", 1280, 720), ("en", 1920, 1080)])
def test_clearing_a_mispay_says_the_circles_are_paid_as_read(page: Page, language: str, width: int, height: int) -> None:
    """Found dealing by hand: "Clear the fault / continue the hand" on a mispay did not say that the circles would be
    paid as they read; the sign-off dialog says each, and nothing of it when the hand is voided instead."""
    state = states(_mispaid)
    assert state["fault"]["kind"] == "mispay"
    page.set_viewport_size({"width": width, "height": height})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("#fault:not([hidden])")
    assert sorted(ringed(page)) == ["3.play", "3.trips"]
    page.click("#clear")
    page.wait_for_selector("dialog[data-signoff='clear'][open] #signoff-what[data-accepted='2']")
    text = page.inner_text("#signoff-what").replace("\u202f", " ").replace("\xa0", " ")
    assert text == {"en": "Seat 3 Play: due €40.00, reads €35.00 — paid as read\nSeat 3 Trips: due €4.00, reads €1.00 — paid as read",
                    "fr": "Place 3 Play : dû 40,00 €, lu 35,00 € — payé comme lu\nPlace 3 Trips : dû 4,00 €, lu 1,00 € — payé comme lu"}[language]
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dealer-mispay-clear-{language}-{width}x{height}.png"))
    if language == "fr":
        assert english_left(page) == []
    page.select_option("#signoff select[name=then]", "void")
    assert page.inner_text("#signoff-what") == "" and page.get_attribute("#signoff-what", "data-accepted") is None


def _3cp_ante_bonus(r: Rig) -> None:
    """3CP, five spots; seat 1 makes a straight flush (the Ante Bonus pays 5:1 on its Ante), plays, the others fold; the
    dealer (K-Q-2) qualifies. The dealer pays seat 1's Ante its due, Ante Bonus included; the rest is not paid yet."""
    for seat in range(1, 6):
        r.put(f"spot{seat}.ante", chip_uids(500, 1, seat))
        r.put(f"spot{seat}.pair_plus", chip_uids(100, 1, seat))
    r.ok("deal")
    r.card(*"As 2h 3h 4h 5h Kd Ks 7h 8h 9h Th Qd Qs 2d 3d 4d 5d 2c".split())
    r.put("spot1.play", chip_uids(500, 1, 10))
    r.ok("decide", seat=1, decision="play")
    for seat in range(2, 6):
        r.ok("decide", seat=seat, decision="fold")
    r.put("spot1.ante", chip_uids(500, 1, 1) + chip_uids(500, 1, 30) + chip_uids(2500, 1, 30))  # 5.00 + 5.00 + 25.00


def test_the_3cp_ante_bonus_is_ticked_with_the_ante_that_pays_it(page: Page) -> None:
    """Found dealing 3CP by hand: the Ante Bonus line ("pays €25.00") had no paid mark like the other lines: it has no
    circle of its own, its win is paid on the Ante's chips (engine.chip_circles.PAID_ON, the relay's `paid_on`)."""
    state = states(_3cp_ante_bonus, setup=TCP)
    spot = next(s for s in state["spots"] if s["seat"] == 1)
    assert spot["results"]["ante_bonus"] == 2500
    ante = next(c for c in state["chips"]["circles"] if c["seat"] == 1 and c["circle"] == "ante")
    assert ante["due"] == ante["value"] == 3500
    page.set_viewport_size({"width": 1280, "height": 800})
    serve(page, "dealer", state)
    page.wait_for_selector(".spot[data-seat='1'] .circle[data-circle='ante_bonus'][data-paid-on='ante']")
    paid = page.eval_on_selector_all(".spot[data-seat='1'] .circle.settled",
                                     "ns => Object.fromEntries(ns.map(n => [n.dataset.circle, n.classList.contains('paid')]))")
    assert paid == {"ante": True, "pair_plus": False, "play": False, "ante_bonus": True}, paid


def _preflop(r: Rig) -> None:
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_multiple_is_written_one_way_on_the_buttons_and_in_the_refusals(page: Page, language: str) -> None:
    """Found dealing by hand: "Play ×4" on the French buttons, "4×" in the refusals, "Play 4x" in English. One
    notation a language, the catalog's `common.times`, for the buttons and the refusals' `{"times": n}` alike."""
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", states(_preflop), language=language)
    page.wait_for_selector("[data-decisions] [data-action='play-4']")
    labels = page.eval_on_selector_all("[data-decisions] button", "ns => ns.map(n => n.textContent)")
    seat = {"en": "Seat", "fr": "Place"}[language]
    assert [label for label in labels if "Play" in label] == [f"{seat} 3 · Play 4×", f"{seat} 3 · Play 3×"], labels
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.reader()
        _preflop(rig)
        rig.put("spot3.play", chip_uids(500, 2, 10))  # 2x before the flop: no legal Play
        refused = rig.cmd("decide", seat=3, decision="play")
        rig.c.journal.close()
    said = page.evaluate("async (say) => (await import('/static/words.js')).say(say, {currency: 'EUR'})", refused["say"])
    assert said.replace("\u202f", " ").replace("\xa0", " ") == {
        "en": "Seat 3 Play: reads €10.00, not 4× or 3× the Ante (€5.00)",
        "fr": "Place 3 Play : lu 10,00 €, pas 4× ou 3× l'Ante (5,00 €)"}[language]
