"""The one redaction at a house table: at every step of random hands the public view hides every card the rules hide, and shows what they turn over."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import DECK
from engine.errors import EngineError
from engine import redact
from firmware_host.tables.base import FaultKind
from firmware_host.tables.house.table import HouseSetup, HouseTable
from firmware_host.tables.house.opening import open_body
from firmware_host.tables.state import TableState
from tests.firmware_host.processes import strings_in

UTH_CHOICES = {"preflop": [("check", None), ("play", 3), ("play", 4)], "flop": [("check", None), ("play", 2)],
               "river": [("fold", None), ("play", 1)]}


def _check(table: HouseTable) -> None:
    full = table.full_view()
    public = redact.public(full)
    hidden = redact.hidden_cards(full)
    seen = set(strings_in(public))
    assert not seen & hidden, seen & hidden
    assert "burns" not in public and "discards" not in public and "ignored" not in public
    shown = table.phase in ("showdown", "settled")
    assert public["dealer"]["cards"] == (full["dealer"]["cards"] if shown else ["??"] * len(full["dealer"]["cards"]))
    for p, f in zip(public["spots"], full["spots"], strict=True):
        assert p["bets"] == f["bets"] and p["bets"] is not f["bets"] and p["cards"] is not f["cards"]
        assert "visible" not in p
        if not shown:
            assert p["cards"] == ["??"] * len(f["cards"])
        elif all(f["visible"]):
            assert p["cards"] == f["cards"] and p.get("hand_name") == f.get("hand_name")
    assert redact.public(full) == public  # the same full view always gives the same public one


def _decide(table: HouseTable, rng: random.Random) -> None:
    seat = table.round.to_act()
    if table.setup.game == "uth":
        street = table.phase if table.phase in UTH_CHOICES else "preflop"
        decision, multiple = rng.choice(UTH_CHOICES[street])
    else:
        decision, multiple = rng.choice([("play", None), ("fold", None)])
    try:
        table.step("decide", {"seat": seat, "decision": decision, "multiple": multiple})
    except EngineError:  # e.g. a check where only play or fold is legal: take the last legal choice
        table.step("decide", {"seat": seat, "decision": "play", "multiple": 1 if table.setup.game == "uth" else None})


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_views_match_each_audience(game: str) -> None:
    rng = random.Random(7)
    setup = HouseSetup(game, "default", {}, 7)
    for hand in range(1, 31):
        table = HouseTable(setup, hand)
        _check(table)
        seats = rng.sample(range(1, 8), rng.randint(1, 7) if game == "uth" else rng.randint(5, 6))
        for seat in sorted(seats):
            bets: dict[str, Any] = {"ante": 10, "blind": 10} if game == "uth" else {"ante": 10}
            if rng.random() < 0.5:
                bets["trips" if game == "uth" else "pair_plus"] = 5
            table.step("bet", {"seat": seat, "bets": bets})
            _check(table)
        table.deal()
        deck = [str(c) for c in DECK]
        rng.shuffle(deck)
        cards = iter(deck)
        while table.phase not in ("showdown", "settled"):
            if table.round.to_act() is not None:
                _decide(table, rng)
            else:
                assert table.deal_or_fault(next(cards)) is None
            _check(table)
        if rng.random() < 0.3:
            table.discard(next(cards))
            table.note_ignored(next(cards), FaultKind.MISREAD)
        table.settle()
        _check(table)
        table.record("settled", {})
        _check(table)


def _state_check(state: TableState, shown: dict[int, set[str]]) -> None:
    """The players' screen keys of the public view: the limits and paytables as opened (no card in
    them), and past hands holding only cards the public saw of them when they closed (the hand in
    progress adds nothing to them: the same card text in a past hand is that hand's, shown down)."""
    public, full = state.views()
    assert public == redact.public(full)  # the parts kept from the view before redact as the view made anew
    assert public["limits"] == {"minimum": 10, "maximum": 300, "side_minimum": 5, "side_maximum": 100, "chip": 5}
    assert public["paytable"]["name"] == "default" and len(public["paytable"]["sha256"]) == 64
    assert all(pays and all(len(pay) == 2 for pay in pays.values()) for pays in public["paytable"]["pays"].values())
    assert not set(strings_in([public["limits"], public["paytable"]])) & set(DECK_TEXT)
    assert all(past["hand"] < state.hand for past in public["history"]) and full["history"] == public["history"]
    assert len(public["history"]) <= 10
    for past in public["history"]:
        assert set(strings_in(past)) & set(DECK_TEXT) <= shown[past["hand"]], past


DECK_TEXT = [str(c) for c in DECK]


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_the_players_screen_keys_hold_no_hidden_card(game: str) -> None:
    rng = random.Random(11)
    state = TableState()
    ids = iter(range(1, 100_000))
    limits = {"minimum": 10, "maximum": 300, "side_minimum": 5, "side_maximum": 100, "chip": 5}
    state.apply("open", open_body(game, "default", limits, 7), next(ids))
    shown: dict[int, set[str]] = {}  # each hand's cards the public saw when it closed
    for _ in range(14):
        hand = state.hand
        for seat in sorted(rng.sample(range(1, 8), rng.randint(5, 7))):
            side = "trips" if game == "uth" else "pair_plus"
            bets = ({"ante": 10, "blind": 10} if game == "uth" else {"ante": 10}) | {side: 5}
            state.apply("bet", {"seat": seat, "bets": bets}, next(ids))
        state.apply("deal", {}, next(ids))
        deck = list(DECK_TEXT)
        rng.shuffle(deck)
        cards, void_at = iter(deck), rng.randint(3, 40) if rng.random() < 0.2 else None
        while state.phase not in ("showdown", "settled") and void_at != 0:
            table = state.table
            assert isinstance(table, HouseTable)
            if table.round.to_act() is not None:
                _decide(table, rng)
            else:
                state.apply("card", {"card": next(cards), "device": "shoe", "seq": next(ids)}, next(ids))
            void_at = None if void_at is None else void_at - 1
            _state_check(state, shown)
        public, _ = state.views()
        shown[hand] = set(strings_in(public)) & set(DECK_TEXT) if state.phase == "showdown" else set()
        state.apply("void" if state.phase != "showdown" else "confirm", {"reason": "test"}, next(ids))
        _state_check(state, shown)
        assert state.views()[0]["history"][-1]["hand"] == hand
        assert state.views()[0]["history"][-1]["voided"] == (not shown[hand])
    assert [past["hand"] for past in state.views()[0]["history"]] == list(range(5, 15))
