"""Table.views() (one pass) gives exactly view("public") and view("full"), at every step of random hands."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import DECK
from engine.errors import EngineError
from firmware_host.tables.house import Table, TableSetup

UTH_CHOICES = {"preflop": [("check", None), ("play", 3), ("play", 4)], "flop": [("check", None), ("play", 2)],
               "river": [("fold", None), ("play", 1)]}


def _check(table: Table) -> None:
    public, full = table.views()
    assert public == table.view("public")
    assert full == table.view("full")
    assert list(public) == list(table.view("public"))  # same key order: the same msgpack bytes
    assert public["spots"] is not full["spots"]
    for p, f in zip(public["spots"], full["spots"]):
        assert p["bets"] is not f["bets"] and p["cards"] is not f["cards"]


def _decide(table: Table, rng: random.Random) -> None:
    seat = table.round.to_act()
    if table.setup.game == "uth":
        street = table.phase if table.phase in UTH_CHOICES else "preflop"
        decision, multiple = rng.choice(UTH_CHOICES[street])
    else:
        decision, multiple = rng.choice([("play", None), ("fold", None)])
    try:
        table.decide(seat, decision, multiple)
    except EngineError:  # e.g. a check where only play or fold is legal: take the last legal choice
        table.decide(seat, "play", 1 if table.setup.game == "uth" else None)


@pytest.mark.parametrize("game", ["uth", "3cp"])
def test_views_match_each_audience(game: str) -> None:
    rng = random.Random(7)
    setup = TableSetup(game, "default", {}, 7)
    for hand in range(1, 31):
        table = Table(setup, hand)
        _check(table)
        seats = rng.sample(range(1, 8), rng.randint(1, 7) if game == "uth" else rng.randint(5, 6))
        for seat in sorted(seats):
            bets: dict[str, Any] = {"ante": 10, "blind": 10} if game == "uth" else {"ante": 10}
            if rng.random() < 0.5:
                bets["trips" if game == "uth" else "pair_plus"] = 5
            table.bet(seat, bets)
            _check(table)
        table.deal()
        deck = [str(c) for c in DECK]
        rng.shuffle(deck)
        cards = iter(deck)
        while table.phase not in ("showdown", "settled"):
            if table.round.to_act() is not None:
                _decide(table, rng)
            else:
                table.take_card(next(cards))
            _check(table)
        if rng.random() < 0.3:
            table.discard(next(cards))
            table.note_ignored(next(cards), "misread")
        table.settle()
        _check(table)
        table.record("settled", {})
        _check(table)
