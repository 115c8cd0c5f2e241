"""The bot players' rule at a console's table (sim/yielding.py): they bet and decide only for the spots the console leaves alone, after their wait."""

from __future__ import annotations

from typing import Any

from sim.bots.players import BotPlayer
from sim.bots.table import SimLimits
from sim.yielding import Yielding

LIMITS = SimLimits()


def rule(wait_s: float = 5.0) -> Yielding:
    return Yielding([BotPlayer(1, 3), BotPlayer(2, 3)], game="uth", limits=LIMITS, wait_s=wait_s)


def betting(hand: int, spots: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"hand": hand, "phase": "bets", "spots": spots or [], "game": "uth"}


def playing(hand: int, street: str, to_act: int, spots: list[dict[str, Any]]) -> dict[str, Any]:
    return {"hand": hand, "phase": street, "to_act": to_act, "spots": spots, "board": [], "game": "uth"}


def test_the_bots_bet_only_after_their_wait_and_only_on_spots_left_empty() -> None:
    bots = rule()
    console = {"ante": 1000, "blind": 1000}
    assert bots.requests(betting(4), now=100.0) == []             # the betting opened: the wait starts
    assert bots.requests(betting(4, [{"seat": 1, "bets": console}]), now=104.9) == []
    sent = bots.requests(betting(4, [{"seat": 1, "bets": console}]), now=105.0)
    assert [(r.cmd, r.args["seat"], r.args["hand"]) for r in sent] == [("bet", 2, 4)]
    assert sent[0].args["bets"] == BotPlayer(2, 3).bets("uth", 4, LIMITS)
    assert bots.requests(betting(4, [{"seat": 1, "bets": console}]), now=200.0) == []  # once a hand


def test_the_next_hand_s_wait_starts_while_the_last_is_on_show() -> None:
    bots = rule()
    assert bots.requests({"hand": 7, "phase": "settled", "spots": [{"seat": 1, "bets": {"ante": 500}}]}, 10.0) == []
    sent = bots.requests({"hand": 7, "phase": "settled", "spots": [{"seat": 1, "bets": {"ante": 500}}]}, 15.0)
    assert sorted((r.args["hand"], r.args["seat"]) for r in sent) == [(8, 1), (8, 2)]  # the settled hand's bets are past


def test_a_bot_decides_its_own_spot_after_its_wait_and_never_the_console_s() -> None:
    bots = rule()
    bots.requests(betting(2, [{"seat": 1, "bets": {"ante": 2500, "blind": 2500}}]), 0.0)
    (bet,) = bots.requests(betting(2, [{"seat": 1, "bets": {"ante": 2500, "blind": 2500}}]), 5.0)
    own = {"seat": 2, "bets": dict(bet.args["bets"]), "cards": ["As", "Ad"]}
    theirs = {"seat": 1, "bets": {"ante": 2500, "blind": 2500}, "cards": ["2c", "7d"]}
    assert bots.requests(playing(2, "preflop", 1, [theirs, own]), 10.0) == []
    assert bots.requests(playing(2, "preflop", 1, [theirs, own]), 100.0) == []  # the console's spot: never
    assert bots.requests(playing(2, "preflop", 2, [theirs, own]), 101.0) == []  # its turn came: the wait
    (decide,) = bots.requests(playing(2, "preflop", 2, [theirs, own]), 106.0)
    assert (decide.cmd, dict(decide.args)) == ("decide", {"hand": 2, "seat": 2, "decision": "play", "multiple": 4})
    assert bots.requests(playing(2, "preflop", 2, [theirs, own]), 107.0) == []  # sent once


def test_a_spot_the_console_rebet_is_the_console_s_and_a_fault_stops_the_bots() -> None:
    bots = rule(wait_s=0.0)
    (one, two) = bots.requests(betting(3), 0.0)
    changed = {"seat": 1, "bets": {**one.args["bets"], "ante": one.args["bets"]["ante"] + 100}, "cards": ["As", "Ad"]}
    assert bots.requests(playing(3, "preflop", 1, [changed]), 1.0) == []
    kept = {"seat": 2, "bets": {**two.args["bets"], "play": 400}, "cards": ["As", "Ad"]}  # its Play aside, still its own
    river = {**playing(3, "river", 2, [kept]), "board": ["Kc", "9h", "5s", "3d", "2h"]}
    assert [r.cmd for r in bots.requests(river, 2.0)] == ["decide"]
    assert bots.requests({**betting(4), "fault": {"kind": "lid_open"}}, 3.0) == []
    assert bots.requests({"hand": 3, "phase": "showdown", "spots": [kept]}, 4.0) == []


def test_while_a_fault_stands_the_bots_wait_and_their_waits_start_again_once_it_is_cleared() -> None:
    bots = rule()
    bots.requests(betting(2, [{"seat": 1, "bets": {"ante": 2500, "blind": 2500}}]), 0.0)
    (bet,) = bots.requests(betting(2, [{"seat": 1, "bets": {"ante": 2500, "blind": 2500}}]), 5.0)
    own = {"seat": 2, "bets": dict(bet.args["bets"]), "cards": ["As", "Ad"]}
    theirs = {"seat": 1, "bets": {"ante": 2500, "blind": 2500}, "cards": ["2c", "7d"]}
    assert bots.requests(playing(2, "preflop", 2, [theirs, own]), 10.0) == []  # its turn came: the wait starts
    faulted = {**playing(2, "preflop", 2, [theirs, own]), "fault": {"kind": "unexpected_card"}}
    assert bots.requests(faulted, 16.0) == [] and bots.requests(faulted, 60.0) == []  # never while it stands
    assert bots.requests(playing(2, "preflop", 2, [theirs, own]), 61.0) == []  # cleared: a full wait again
    assert bots.requests(playing(2, "preflop", 2, [theirs, own]), 65.9) == []
    (decide,) = bots.requests(playing(2, "preflop", 2, [theirs, own]), 66.0)
    assert decide.cmd == "decide"
