"""A street's actions on the poker pages in Chromium: a recorded hold'em feed played to /dealer and /table, the
pre-flop's calls beside the seats until the flop, gone on the flop's betting (a fold and an all-in stay)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute

from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_HOLE, Rig
from tests.web.test_chip_circles import serve

# Each page's words beside a seat: the console's status line, the players' screen's state line.
SEAT_WORDS = {"dealer": "[data-poker] .pseat[data-seat='{seat}'] .pseat-status",
              "table": "#poker .p-seat[data-seat='{seat}'] .p-state"}
SEQ = {"dealer": "[data-poker][data-seq='{seq}']", "table": "[data-table][data-seq='{seq}']"}


def recorded_feed() -> list[dict[str, Any]]:
    """The public states of one hand as the feed sends them, one a step: seats 5 and 6 call pre-flop, seat 1
    completes and seat 3 checks; the flop; seat 1 bets 0.04, seat 3 calls, seat 5 folds, seat 6 to act."""
    shown: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as root:
        rig = Rig(Path(root))
        rig.ok("open", **HOLDEM)
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)

        def keep() -> None:
            shown.append({**rig.state(), "kind": "update", "table": "poker-1", "boot": "b1", "seq": len(shown) + 1})

        for seat, action in ((5, "call"), (6, "call")):
            rig.act(seat, action)
        keep()                                  # seq 1: pre-flop, seat 1 to act
        rig.act(1, "call")
        rig.act(3, "check")
        rig.shoe("3d 7h 8c 9d")
        keep()                                  # seq 2: the flop's betting starts, seat 1 to act
        for seat, action, amount in ((1, "bet", 4), (3, "call", None), (5, "fold", None)):
            rig.act(seat, action, amount)
        keep()                                  # seq 3: seat 6 to act on the flop
        rig.c.journal.close()
    return json.loads(json.dumps(shown))


@pytest.mark.parametrize(("language", "name"), [("en", "dealer"), ("fr", "table"),
                                              pytest.param("fr", "dealer", marks=pytest.mark.soak),
                                              pytest.param("en", "table", marks=pytest.mark.soak)])
def test_a_streets_actions_clear_when_the_next_streets_betting_starts(page: Page, name: str, language: str) -> None:
    """Each screen and each language in `make test` (the console in English, the table's screen in French); the other
    two in `make soak`, the same steps and checks (the console's French: test_dealer_poker's [fr], the table's
    English: test_table_room's hold'em hands)."""
    feed = recorded_feed()
    page.set_viewport_size({"width": 1280, "height": 800} if name == "dealer" else {"width": 1920, "height": 1080})
    sockets: list[WebSocketRoute] = []
    serve(page, name, feed[0], language=language, sockets=sockets)

    def words(seq: int) -> dict[int, str]:
        page.wait_for_selector(SEQ[name].format(seq=seq), state="attached")
        return {seat: page.locator(SEAT_WORDS[name].format(seat=seat)).inner_text().strip().lower()
                for seat in (1, 3, 5, 6)}

    call = "suit" if language == "fr" else "call"
    pre_flop = words(1)
    assert call in pre_flop[5] and call in pre_flop[6], pre_flop  # this street's calls, beside their seats
    sockets[0].send(json.dumps(feed[1]))
    flop = words(2)
    assert not any(call in said or "0,02" in said or "0.02" in said for said in flop.values()), flop
    assert flop[3] == "" and flop[5] == "" and flop[6] == "", flop  # nothing yet on the flop (seat 1: to act)
    sockets[0].send(json.dumps(feed[2]))
    later = words(3)
    bet = "mise" if language == "fr" else "bet"
    assert bet in later[1] and call in later[3], later                 # the flop's own actions
    assert later[5] == ("couché" if language == "fr" else "folded"), later   # a fold stays, as the seat's status
    assert call not in later[6], later                                # seat 6's pre-flop call is gone


@pytest.mark.parametrize("name", ["dealer", "table"])
def test_the_board_is_named_only_once_it_holds_a_card(page: Page, name: str) -> None:
    """Found dealing Seven Card Stud by hand at the console: "BOARD" stood beside nothing all the hand (stud and the
    draw games deal no board), as on a hold'em hand before its flop; the players' screen already left it out."""
    feed = recorded_feed()
    page.set_viewport_size({"width": 1280, "height": 720})
    sockets: list[WebSocketRoute] = []
    serve(page, name, feed[0], language="fr", sockets=sockets)
    label = {"dealer": "[data-poker] .poker-board-row .label", "table": "#poker .p-felt .row .label"}[name]
    page.wait_for_selector(SEQ[name].format(seq=1), state="attached")
    assert not page.locator(label).is_visible()  # pre-flop: no card on the board
    sockets[0].send(json.dumps(feed[1]))
    page.wait_for_selector(SEQ[name].format(seq=2), state="attached")
    assert page.locator(label).is_visible() and page.locator(label).inner_text().lower() == "tableau"


def test_the_console_names_a_draw_games_street_in_its_words(page: Page) -> None:
    """Found dealing 2-7 triple draw by hand at a French console: its head read "FIRST DRAW" (the engine's street
    "first draw" looked up with its space): the catalog's word, as on the players' screen."""
    state = {**recorded_feed()[0], "street": "first draw", "phase": "drawing"}
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", state, language="fr")
    page.wait_for_selector(SEQ["dealer"].format(seq=1), state="attached")
    assert page.locator("[data-poker] .poker-head .street").inner_text().lower() == "premier échange"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_badugi_of_fewer_than_four_cards_is_not_called_a_badugi(page: Page, language: str) -> None:
    """Found dealing Badugi by hand at a French console: four three-card hands shown as "Badugi J-8-6", "Badugi
    10-6-4"... as if each were a badugi (four cards), which beats every one of them."""
    state = recorded_feed()[0]
    values = {1: [{"category": "badugi_4", "ranks": "8-5-4-2"}], 3: [{"category": "badugi_3", "ranks": "J-8-6"}]}
    state["spots"] = [{**spot, "hand_values": values.get(spot["seat"])} for spot in state["spots"]]
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", state, language=language)
    page.wait_for_selector("[data-poker] .pseat[data-seat='3'] .hand-name")
    names = {seat: page.locator(f"[data-poker] .pseat[data-seat='{seat}'] .hand-name").inner_text() for seat in (1, 3)}
    assert names == ({1: "Badugi 8-5-4-2", 3: "3-card J-8-6"} if language == "en" else
                     {1: "Badugi 8-5-4-2", 3: "3 cartes J-8-6"}), names


def test_a_hi_lo_pots_odd_chip_is_marked_on_the_high(page: Page) -> None:
    """Found dealing Omaha Hi-Lo by hand: €0.57 split €0.29 to the high, €0.28 to the low, the odd chip the high's by
    the rule, and no "+ odd chip" on either line (it was marked only between the winners of one half)."""
    state = {**recorded_feed()[0], "phase": "over", "to_act": None, "legal": None,
             "results": {"rake": 3, "pots": [{"amount": 57, "eligible": [1, 3, 5, 6], "winners": [
                 {"seat": 1, "amount": 29, "half": "high"}, {"seat": 3, "amount": 28, "half": "low"}]}, {
                 "amount": 29, "eligible": [1, 3, 5], "winners": [
                     {"seat": 1, "amount": 8, "half": "high"}, {"seat": 3, "amount": 7, "half": "high"},
                     {"seat": 5, "amount": 14, "half": "low"}]}]}}
    page.set_viewport_size({"width": 1280, "height": 720})
    serve(page, "dealer", state, language="fr")
    page.wait_for_selector("[data-pot='1'] [data-winner]")
    marked = page.eval_on_selector_all("[data-winner]", "ns => ns.map(n => [n.closest('[data-pot]').dataset.pot,"
                                       " n.dataset.winner, n.dataset.oddChip ?? null, n.querySelector('.odd-chip') !== null])")
    assert marked == [["0", "1", "1", True], ["0", "3", None, False],  # the high's odd chip, beside a lone low
                      ["1", "1", "1", True], ["1", "3", None, False], ["1", "5", None, False]]  # the high's half shared
