"""A cash game's shift from the poker console in Chromium: a busted player rebuys, a new player joins an empty seat, a
player sits out and comes back posting his missed blinds, every change a seat tapped and the `seat` command sent."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

import zmq

from engine.cards import RANKS, SUITS
from pages import words
from protocol.commands import CommandClient
from tests.firmware_host.test_poker_table import Rig
from tests.web.money import shown as money
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import axe_violations
from tests.web.test_chip_circles import serve
from tests.web.test_dealer_layout import check_targets
from tests.web.test_dealer_poker import (STACKS, FeedLog, _panel, _sign_in, _wait_for,  # noqa: F401 (the fixture)
                                         poker_console)


def _seat(page: Page, seat: int) -> dict[str, Any]:
    """One seat as the panel shows it, by its data attributes and words."""
    return page.evaluate("""(seat) => {
      const node = document.querySelector(`[data-poker] .pseat:is([data-seat="${seat}"], [data-empty-seat="${seat}"])`);
      return {stack: Number(node.dataset.stack ?? -1), empty: 'emptySeat' in node.dataset, in_hand: 'inHand' in node.dataset,
              sitting_out: 'sittingOut' in node.dataset, waiting: 'waiting' in node.dataset,
              owes: node.querySelector('[data-owes]')?.dataset.owes ?? null,
              status: node.querySelector('.pseat-status')?.textContent ?? '',
              owes_text: node.querySelector('[data-owes]')?.textContent ?? ''};
    }""", seat)


def _changes(page: Page) -> list[str]:
    """The open seat's changes (their `data-action`), none when no seat is open."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-poker] [data-seat-panel]:not([hidden]) [data-action]')]
      .map((b) => b.dataset.action)""")


def _spot(feed: FeedLog, page: Page, seat: int) -> dict[str, Any] | None:
    state = feed.at(_panel(page)["seq"])
    return next((s for s in state["spots"] if s["seat"] == seat), None)


def _play_out(page: Page, choose: tuple[str, ...]) -> dict[str, Any]:
    """Tap the first of `choose` each seat to act may take until the hand is over, then confirm the push."""
    for _ in range(60):
        shown = _wait_for(page, lambda s: s["to_act"] is not None or s["phase"] == "over", "a seat to act or the end")
        if shown["phase"] == "over":
            break
        action = next(a for a in choose if a in shown["actions"])
        page.click(f'[data-poker] [data-actions] [data-action="{action}"]')
        page.wait_for_function("(seq) => Number(document.querySelector('[data-poker]').dataset.seq) > seq",
                               arg=shown["seq"])
    else:
        raise AssertionError("the hand did not end")
    page.click('[data-poker] [data-actions] [data-action="confirm"]')
    return _wait_for(page, lambda s: s["phase"] == "settled", "the settled hand")


def _deal(page: Page) -> dict[str, Any]:
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    page.click('[data-poker] [data-action="deal"]')
    return _wait_for(page, lambda s: s["to_act"] is not None, "the next hand's first seat")


def _open(page: Page, seat: int) -> list[str]:
    page.click(f'[data-poker] .pseat:is([data-seat="{seat}"], [data-empty-seat="{seat}"])')
    page.wait_for_selector(f'[data-poker] [data-seat-panel="{seat}"]:not([hidden])')
    return _changes(page)


def test_a_busted_player_rebuys_and_a_new_player_joins_from_the_console(page: Page, poker_console: dict[str, Any]) -> None:
    feed: FeedLog = poker_console["feed"]
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    assert [_seat(page, s)["empty"] for s in range(1, 7)] == [False] * 3 + [True] * 3  # the table's six seats
    _deal(page)
    # leaving during a hand: refused in the controller's words, nothing changed
    assert _open(page, 2) == ["seat-rebuy", "seat-sit_out", "seat-leave", "seat-close"]
    assert page.locator("[data-poker] [data-actions]").is_hidden()  # the seat's changes in place of the hand's buttons
    page.click('[data-poker] [data-seat-panel] [data-action="seat-leave"]')
    refusal = _wait_for(page, lambda s: s["refusal"] is not None, "the refused leave")["refusal"]
    assert refusal.startswith("leaving: between hands only"), refusal
    said = page.locator("[data-poker] [data-refusal]").inner_text()
    assert said == "Seat 2: a buy-in, a rebuy or leaving the table waits until this hand is over", said
    assert _spot(feed, page, 2) is not None
    page.click('[data-poker] [data-seat-panel] [data-action="seat-close"]')
    assert page.locator("[data-poker] [data-seat-panel]").is_hidden() and page.locator("[data-poker] [data-actions]").is_visible()
    settled = _play_out(page, ("all_in", "call", "check", "show"))  # everybody all in: at least one player busts here
    busted = [int(s) for s, stack in settled["stacks"].items() if stack == 0]
    assert busted, settled["stacks"]
    broke = busted[0]
    assert _seat(page, broke)["stack"] == 0
    assert _open(page, broke)[0] == "seat-rebuy"
    page.click('[data-poker] [data-seat-panel] [data-action="seat-rebuy"]')  # tapped before typing: asked for it
    assert page.locator("[data-poker] [data-seat-panel] [data-entry-error]").inner_text() == "type the amount first"
    page.fill("[data-poker] [data-seat-panel] [data-seat-amount]", "abc")
    page.click('[data-poker] [data-seat-panel] [data-action="seat-rebuy"]')
    assert page.locator("[data-poker] [data-seat-panel] [data-entry-error]").inner_text() == "not an amount"
    page.fill("[data-poker] [data-seat-panel] [data-seat-amount]", "0")
    page.click('[data-poker] [data-seat-panel] [data-action="seat-rebuy"]')
    assert page.locator("[data-poker] [data-seat-panel] [data-entry-error]").inner_text() == "an amount above zero"
    page.fill("[data-poker] [data-seat-panel] [data-seat-amount]", "60.50")  # the table's money: €60.50 = 6050
    page.click('[data-poker] [data-seat-panel] [data-action="seat-rebuy"]')
    page.wait_for_selector("[data-poker] [data-seat-panel]", state="hidden")  # done: the panel closes
    _wait_for(page, lambda s: s["stacks"][str(broke)] == 6050, "the rebuy's stack")
    assert _spot(feed, page, broke)["stack"] == 6050  # type: ignore[index]
    # a new player joins seat 5 with a buy-in of €150: after the table's first hand he owes a big blind
    assert _open(page, 5) == ["seat-join", "seat-close"]
    page.fill("[data-poker] [data-seat-panel] [data-seat-amount]", "150")
    page.click('[data-poker] [data-seat-panel] [data-action="seat-join"]')
    _wait_for(page, lambda s: s["stacks"].get("5") == 15000, "the new player's stack")
    joined = _spot(feed, page, 5)
    assert joined is not None and joined["stack"] == 15000 and joined["owes"] == "big", joined
    assert _seat(page, 5)["owes_text"] == "owes the big blind"
    # the next hand deals both in: the rebuy plays, the new player posts his big blind
    hand = _deal(page)
    state = feed.at(hand["seq"])
    dealt = {s["seat"]: s for s in state["spots"]}
    assert dealt[broke]["in_hand"] and dealt[5]["in_hand"], dealt
    assert sum(dealt[5]["posted"].values()) == 200, dealt[5]  # the big blind he owed
    assert _seat(page, broke)["in_hand"] and _seat(page, 5)["owes"] is None


@pytest.mark.parametrize("poker_console", [pytest.param("en", marks=pytest.mark.soak), "fr"], indirect=True)
def test_a_player_sits_out_and_comes_back_posting_his_missed_blinds(page: Page, poker_console: dict[str, Any],
                                                                     request: pytest.FixtureRequest) -> None:
    """In English on the 1280x800 tablet, in French on a 1280x720 screen: the seat's words and no scroll. English in
    `make soak` only (the steps are the same in both): `make test` checks the English seat panel in
    test_a_busted_player_rebuys_and_a_new_player_joins_from_the_console (its owed big blind in words) and
    test_every_seat_change_tapped_twice_refused_in_words_and_a_seat_emptied_under_the_dealer[en] (sitting out, waiting
    for the big blind, an empty seat, a refusal, no key); the 48 px targets at 1280x800 in English: the full tables'
    tests [en-800]."""
    feed: FeedLog = poker_console["feed"]
    french = request.node.callspec.params["poker_console"] == "fr"
    page.set_viewport_size({"width": 1280, "height": 720} if french else {"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    assert _open(page, 3) == ["seat-rebuy", "seat-sit_out", "seat-leave", "seat-close"]
    page.click('[data-poker] [data-seat-panel] [data-action="seat-sit_out"]')
    _wait_for(page, lambda s: _seat(page, 3)["sitting_out"], "seat 3 sitting out")
    # hands dealt without him (the first to act folds) until the blinds pass his seat: he owes them
    for _ in range(4):
        _deal(page)
        assert not _seat(page, 3)["in_hand"]
        _play_out(page, ("fold", "check"))
        if _seat(page, 3)["owes"]:
            break
    out = _seat(page, 3)
    assert out["owes"] in ("big", "both"), out
    assert _open(page, 3) == ["seat-rebuy", "seat-post", "seat-wait", "seat-leave", "seat-close"]
    catalog = words.catalogs()["fr" if french else "en"]
    assert out["status"] == catalog["poker_console.sitting_out"]
    assert out["owes_text"] == catalog[f"poker_console.owes_{out['owes']}"]
    assert page.locator('[data-poker] [data-seat-panel] .seat-title-state').inner_text() == \
        money(STACKS[3], lang="fr" if french else "en")  # his stack, in the table's money
    text = page.locator("[data-poker]").inner_text()
    assert not re.search(r"\b(?:poker_console|refusal|common)\.[a-z_]+\b", text), text
    if french:
        assert "Paie les blindes manquées" in text and "Attend la grosse blinde" in text and "Recave" in text, text
        assert "absent" in out["status"].lower() and out["owes_text"].startswith("doit ")
    check_targets(page, "the seat's changes")
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the console scrolls"
    assert axe_violations(page) == []
    check_screenshot(page, "dealer-poker-seat-fr-1280x720" if french else "dealer-poker-seat-1280x800")
    page.click('[data-poker] [data-seat-panel] [data-action="seat-post"]')
    _wait_for(page, lambda s: not _seat(page, 3)["sitting_out"], "seat 3 back")
    back = _spot(feed, page, 3)
    assert back is not None and not back["sitting_out"] and back["owes"] == out["owes"], back  # owed until dealt in
    for _ in range(4):  # dealt in once the button has passed him (a player between the button and the blinds waits)
        hand = _deal(page)
        spot = next(s for s in feed.at(hand["seq"])["spots"] if s["seat"] == 3)
        if spot["in_hand"]:
            break
        assert _seat(page, 3)["owes"] == out["owes"]  # still owed, and shown
        _play_out(page, ("fold", "check"))
    assert spot["in_hand"] and spot["owes"] is None, spot
    assert spot["posted"].get("big_blind") == 200, spot["posted"]  # the big blind he missed, live
    assert _seat(page, 3)["in_hand"] and _seat(page, 3)["owes"] is None


def _tap_twice(page: Page, selector: str) -> None:
    """A dealer's double tap on `selector`, at a finger's pace: the second lands where the first did, after the
    reply to the first may have closed the seat's changes and put the hand's buttons back."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_timeout(150)  # a finger's second tap, not a wait for something not to happen
    page.mouse.click(x, y)


@pytest.mark.parametrize("poker_console", ["en", pytest.param("fr", marks=pytest.mark.soak)], indirect=True)
def test_every_seat_change_tapped_twice_refused_in_words_and_a_seat_emptied_under_the_dealer(
        page: Page, poker_console: dict[str, Any], request: pytest.FixtureRequest) -> None:
    """Sit out mid-hand, sit in, join, wait for the big blind, post, leave, each tapped twice; a leave refused in the
    console's language; a seat emptied by the floor while its changes are open offers a join, nothing of a player.
    French in `make soak` only (the taps are the same in both): `make test` checks the French seat panel in
    test_a_player_sits_out_and_comes_back_posting_his_missed_blinds[fr] (its words, no key, its screenshot)."""
    feed: FeedLog = poker_console["feed"]
    french = request.node.callspec.params["poker_console"] == "fr"
    catalog = words.catalogs()["fr" if french else "en"]
    panel = "[data-poker] [data-seat-panel]"
    page.set_viewport_size({"width": 1280, "height": 800})
    _sign_in(page, poker_console["ready"]["display"])
    before = _deal(page)
    other = next(s for s in (1, 2, 3) if s != before["to_act"])
    _open(page, other)
    page.click(f'{panel} [data-action="seat-leave"]')
    refused = _wait_for(page, lambda s: s["refusal"] is not None, "the refused leave")
    assert page.locator("[data-poker] [data-refusal]").inner_text() == \
        catalog["refusal.poker_seat_between_hands"].format(seat=other)
    assert refused["stacks"] == before["stacks"]
    # sitting out mid-hand, tapped twice: he sits out, and the second tap acts on nothing of the hand
    _tap_twice(page, f'{panel} [data-action="seat-sit_out"]')
    after = _wait_for(page, lambda s: _seat(page, other)["sitting_out"], "the seat sitting out")
    assert (after["to_act"], after["stacks"], after["refusal"]) == (before["to_act"], before["stacks"], None)
    assert page.locator(panel).is_hidden()
    assert _seat(page, other)["status"] == catalog["poker_console.sitting_out"]
    _play_out(page, ("fold", "check"))
    # between hands: back in (whatever he owes, the choices the feed's state allows)
    changes = _open(page, other)
    back = "seat-sit_in" if "seat-sit_in" in changes else "seat-post"
    assert back in changes, changes
    _tap_twice(page, f'{panel} [data-action="{back}"]')
    _wait_for(page, lambda s: not _seat(page, other)["sitting_out"], "the seat back in")
    assert page.locator("[data-poker] [data-refusal]").is_hidden()
    # a new player joins seat 5, tapped twice: one buy-in, no "seat taken" for the second tap
    assert _open(page, 5) == ["seat-join", "seat-close"]
    page.fill(f"{panel} [data-seat-amount]", "150")
    _tap_twice(page, f'{panel} [data-action="seat-join"]')
    joined = _wait_for(page, lambda s: s["stacks"].get("5") == 15000, "the new player's stack")
    assert joined["refusal"] is None and joined["phase"] != "betting", joined  # nor the hand dealt by the second tap
    assert _spot(feed, page, 5)["owes"] == "big"  # type: ignore[index]
    # he waits for the big blind; then changes his mind and posts it
    assert _open(page, 5) == ["seat-rebuy", "seat-wait", "seat-sit_out", "seat-leave", "seat-close"]
    _tap_twice(page, f'{panel} [data-action="seat-wait"]')
    _wait_for(page, lambda s: _seat(page, 5)["waiting"], "seat 5 waiting for the big blind")
    assert _seat(page, 5)["status"] == catalog["poker_console.waiting_big_blind"]
    assert _open(page, 5) == ["seat-rebuy", "seat-post", "seat-sit_out", "seat-leave", "seat-close"]
    _tap_twice(page, f'{panel} [data-action="seat-post"]')
    _wait_for(page, lambda s: not _seat(page, 5)["waiting"], "seat 5 posting")
    assert _seat(page, 5)["owes"] == "big"
    # he leaves, tapped twice: the seat is empty, no "seat empty" for the second tap
    _open(page, 5)
    _tap_twice(page, f'{panel} [data-action="seat-leave"]')
    left = _wait_for(page, lambda s: "5" not in s["stacks"], "seat 5 empty")
    assert left["refusal"] is None and _seat(page, 5)["empty"] and _spot(feed, page, 5) is None
    # the floor takes seat 1's player away while the dealer has his changes open: the panel offers a join only
    _open(page, 1)
    ctx: zmq.Context[Any] = zmq.Context()
    client = CommandClient(ctx, poker_console["table"].endpoints.commands, timeout_s=3.0, name="floor")
    try:
        assert client.request("seat", seat=1, action="leave")["ok"]
    finally:
        client.close()
        ctx.destroy(linger=0)
    _wait_for(page, lambda s: "1" not in s["stacks"], "seat 1 empty")
    page.wait_for_selector(f'{panel}[data-seat-panel="1"] [data-action="seat-join"]')
    assert _changes(page) == ["seat-join", "seat-close"]
    assert page.locator(f"{panel} .seat-title-state").inner_text() == catalog["poker_console.seat_empty"]
    text = page.locator("[data-poker]").inner_text()
    assert not re.search(r"\b(?:poker_console|refusal|common)\.[a-z_]+\b", text), text


@pytest.mark.parametrize("poker_console", [{"seats": 9}], indirect=True)
def test_nine_seats_six_of_them_empty_keep_to_one_row_at_1280x720(page: Page, poker_console: dict[str, Any]) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    _sign_in(page, poker_console["ready"]["display"])
    _deal(page)
    assert [_seat(page, s)["empty"] for s in range(1, 10)] == [False] * 3 + [True] * 6
    tops = page.evaluate("() => [...document.querySelectorAll('[data-poker] .pseat')].map((n) => n.getBoundingClientRect().top)")
    assert len(tops) == 9 and len(set(tops)) == 1, tops  # one row of seats
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the console scrolls"
    check_targets(page, "nine seats mid-hand")


def full_table_state(game: dict[str, Any], cards_each: int, full: bool, folds: tuple[int, ...] = ()) -> dict[str, Any]:
    """A poker table every seat of it playing, everyone checking or calling (the seats `folds` folding at their first
    turn), stopped when each seat still in holds `cards_each` cards; its state as the feed sends it (the full one: the
    hole cards face up, the widest words)."""
    deck = [f"{rank}{suit}" for rank in reversed(RANKS) for suit in SUITS]
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **game)
        rig.ok("deal")
        while True:
            state = rig.c.public_state()
            if all(len(s["cards"]) == cards_each for s in state["spots"] if not s["folded"]) and state["next"] is None:
                break
            if state["next"] is not None:
                rig.shoe(deck.pop(0))
                continue
            legal = state["legal"]
            seat = state["to_act"]
            if seat in folds and legal["fold"]:
                rig.act(seat, "fold")
            elif legal["check"]:
                rig.act(seat, "check")
            elif legal["bring_in"] is not None:
                rig.act(seat, "bring_in")
            else:
                rig.act(seat, "call")
        shown = rig.c.full_state() if full else rig.c.public_state()
        rig.c.journal.close()
    return {**shown, "kind": "update", "table": "poker-1", "boot": "b1", "seq": 1}


SEATS_FIT = """() => ({
  page: [document.documentElement.scrollHeight - innerHeight, document.documentElement.scrollWidth - innerWidth],
  scrolls: [...document.querySelectorAll('#console, #console *')].filter((n) => n.scrollHeight > n.clientHeight + 1
    && ['auto', 'scroll'].includes(getComputedStyle(n).overflowY)).map((n) => n.className),
  below: [...document.querySelectorAll('[data-poker] button, [data-poker] .pseat')].filter((n) => {
    const r = n.getBoundingClientRect(); return r.width > 0 && r.bottom > innerHeight + 0.5; }).map((n) => n.textContent),
  seats: [...document.querySelectorAll('[data-poker] .pseat[data-seat]')].map((s) => {
    const cards = [...s.querySelectorAll(':scope > .cards .card')];
    const tops = new Set(cards.map((c) => Math.round(c.getBoundingClientRect().top)));
    const seatBox = s.getBoundingClientRect();
    const name = s.querySelector('.pseat-name');
    return { seat: s.dataset.seat, cards: cards.length, lines: tops.size,
      nameLines: name.getBoundingClientRect().height / parseFloat(getComputedStyle(name).fontSize),
      out: cards.filter((c) => { const r = c.getBoundingClientRect(); return r.left < seatBox.left || r.right > seatBox.right; }).length,
      cut: [...s.querySelectorAll('.pseat-name, .pseat-stack, .pseat-status')].filter((n) => n.scrollWidth > n.clientWidth + 1)
        .map((n) => n.className),
      up: cards.filter((c) => !c.classList.contains('down')).map((c) => {
        // an up card's rank and suit: the part of it no next card covers is at least as wide as its words
        const r = c.getBoundingClientRect(); const next = c.nextElementSibling?.getBoundingClientRect();
        const range = document.createRange(); range.selectNodeContents(c); const words = range.getBoundingClientRect();
        return { card: c.dataset.card, shown: (next ? Math.min(r.right, next.left) : r.right) - words.left,
                 words: words.width, font: parseFloat(getComputedStyle(c).fontSize) };
      }) };
  }),
})"""

OMAHA_9 = {"game": "omaha", "structure": "pot-limit", "stakes": {"blinds": [1, 2]}, "seats": 9,
           "stacks": {str(seat): 200 for seat in range(1, 10)}}
STUD_8 = {"game": "stud", "structure": "fixed-limit", "stakes": {"antes": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
          "seats": 8, "stacks": {str(seat): 200 for seat in range(1, 9)}}


@pytest.mark.parametrize(("language", "height"), [("fr", 720), ("en", 800)])
@pytest.mark.parametrize(("game", "cards_each", "full"), [(OMAHA_9, 4, True), (STUD_8, 6, False)],
                         ids=["omaha-9-seats", "stud-8-seats"])
def test_a_full_table_of_many_cards_fits_without_a_scroll(page: Page, game: dict[str, Any], cards_each: int,
                                                          full: bool, language: str, height: int) -> None:
    """Nine seats of Omaha (four hole cards) and eight of seven-card stud at sixth street (two down, four up): every
    seat's cards on one line inside it, the up cards' rank and suit uncovered at 12 px at least, names and stacks
    uncut, nothing below the fold (the hand's buttons: 48 px targets), no scroll."""
    state = full_table_state(game, cards_each, full)
    page.set_viewport_size({"width": 1280, "height": height})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("[data-poker] .pseat[data-seat] .card")
    seen = page.evaluate(SEATS_FIT)
    assert seen["page"] == [0, 0] and seen["scrolls"] == [] and seen["below"] == [], seen
    assert len(seen["seats"]) == game["seats"]
    for seat in seen["seats"]:
        assert seat["cards"] == cards_each and seat["lines"] == 1 and seat["out"] == 0 and seat["cut"] == [], seat
        assert seat["nameLines"] < 1.6, seat  # "Place 9" beside the dealer button, never "Place / 9"
        for card in seat["up"]:
            assert card["shown"] >= card["words"] - 0.5 and card["font"] >= 12, (seat["seat"], card)
    assert any(seat["up"] for seat in seen["seats"])
    check_targets(page, f"{game['game']} at 1280x{height} {language}")
    assert axe_violations(page) == []
    check_screenshot(page, f"dealer-{game['game']}-{game['seats']}-seats-{language}-1280x{height}")


@pytest.mark.parametrize(("language", "height"), [("fr", 720), ("en", 800)])
def test_seven_card_studs_seventh_street_at_eight_seats_fits_without_a_scroll(page: Page, language: str, height: int) -> None:
    """Eight seats dealt in, six of them at seventh street with seven cards each (three down, four up; the deck holds
    no more: a seventh card for eight would be one common card), seat 1 to bet with the hand's buttons: every seat's
    cards on one line inside it, the up cards' rank and suit uncovered at 12 px at least, names and stacks uncut,
    nothing below the fold (48 px targets), no scroll."""
    state = full_table_state(STUD_8, 7, False, folds=(6, 7))
    assert state["street"] == "seventh" and state["to_act"] == 1 and state["legal"]["check"]
    page.set_viewport_size({"width": 1280, "height": height})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("[data-poker] [data-action='check']")
    seen = page.evaluate(SEATS_FIT)
    assert seen["page"] == [0, 0] and seen["scrolls"] == [] and seen["below"] == [], seen
    assert sorted(seat["cards"] for seat in seen["seats"]) == [0, 0] + [7] * 6, seen["seats"]  # folded: in the muck
    for seat in seen["seats"]:
        assert seat["lines"] == (1 if seat["cards"] else 0) and seat["out"] == 0 and seat["cut"] == [] and seat["nameLines"] < 1.6, seat
        for card in seat["up"]:
            assert card["shown"] >= card["words"] - 0.5 and card["font"] >= 12, (seat["seat"], card)
    check_targets(page, f"stud's seventh street at 1280x{height} {language}")
    assert axe_violations(page) == []
    check_screenshot(page, f"dealer-stud-seventh-8-seats-{language}-1280x{height}")
