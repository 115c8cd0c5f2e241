"""Correcting a seat's last decision while no card has been dealt since: the round as if it had been taken so."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.errors import IllegalAction
from engine.house import HouseRound, TableLimits
from engine.paytables import load_profile
from engine.three_card_poker import ThreeCardPokerRound
from engine.ultimate_holdem import UltimateHoldemRound

DEFAULT = load_profile("default")
LIMITS = TableLimits(100)
# seats 1 and 2: s1 s2 dealer s1 s2 dealer, flop, turn and river
DECK = "As Kd Qh Ac Tc 9d 2c 7d 9h 4s 3c".split()


def uth(steps: list[tuple[str, Any]]) -> UltimateHoldemRound:
    """A UTH round of seats 1 and 2: its cards from DECK as each stage asks, the decisions given."""
    r = UltimateHoldemRound(DEFAULT, LIMITS)
    r.post_bets(1, {"ante": 100, "blind": 100, "trips": 100})
    r.post_bets(2, {"ante": 200, "blind": 200})
    cards = iter(DECK)
    for do, args in steps:
        while r.to_act() is None and r.next_target() is not None and do == "decide":
            r.deal(next(cards))
        getattr(r, do)(*args)
    return r


def refused(key: str, round_: HouseRound, *args: Any) -> None:
    with pytest.raises(IllegalAction) as raised:
        round_.correct(*args)
    assert raised.value.say is not None and raised.value.say["key"] == key
    assert not round_.can_correct(*args)


def finish(r: HouseRound, *decisions: tuple[int, str, int | None]) -> HouseRound:
    cards = iter([c for c in DECK if c not in {str(x) for x in (*r.record().dealer, *r.record().board,
                                                                 *(c for s in r.record().spots for c in s.cards))}])
    todo = list(decisions)
    while r.phase != "showdown":
        if r.to_act() is not None:
            r.decide(*todo.pop(0))
        else:
            r.deal(next(cards))
    return r


def test_play_4x_tapped_for_3x_is_corrected_and_settles_as_if_played_so() -> None:
    r = uth([("decide", (1, "play", 3))])
    assert r.correctable_seats() == (1,) and r.last_decision(1) == {"do": "decide", "seat": 1, "action": "play",
                                                                    "multiple": 3}
    step = r.correct(1, "play", 4)
    assert step.to_dict() == {"do": "correct", "seat": 1, "action": "play", "multiple": 4}
    assert r.to_act() == 2  # seat 2 still decides
    finish(r, (2, "check", None), (2, "check", None), (2, "fold", None))
    right = finish(uth([("decide", (1, "play", 4))]), (2, "check", None), (2, "check", None), (2, "fold", None))
    assert r.settlement == right.settlement and r.record().spots == right.record().spots
    assert r.settlement is not None and r.settlement.house_net == -sum(s.net for s in r.settlement.spots)
    again = UltimateHoldemRound.replay(DEFAULT, [s.to_dict() for s in r.steps], LIMITS)  # the journal's replay
    assert again.settlement == r.settlement and [s.to_dict() for s in again.steps] == [s.to_dict() for s in r.steps]


def test_a_check_that_was_a_play_and_the_seat_after_it_already_decided() -> None:
    r = uth([("decide", (1, "check")), ("decide", (2, "check"))])
    assert r.next_target() is not None and r.correctable_seats() == (1, 2)
    r.correct(1, "play", 4)
    assert r.correctable_seats() == (2, 1)  # the seat decided (here corrected) last comes last: the console offers it first
    assert r.record().spots[0].multiple == 4 and r.record().spots[1].decision == "check"
    assert r.next_target() is not None  # the flop is due: nothing else changed


def test_refused_when_a_card_came_since_no_decision_the_same_or_not_legal() -> None:
    r = uth([("decide", (1, "check"))])
    refused("refusal.correct_no_decision", r, 2, "play", 4)
    refused("refusal.correct_same", r, 1, "check")
    refused("refusal.fold_only_at_river", r, 1, "fold")  # the new decision's own refusal
    r.decide(2, "check")
    r.deal("2c")
    refused("refusal.correct_card_since", r, 1, "play", 4)
    dead = uth([])
    dead.deal("As")
    dead.declare_dead(1)
    refused("refusal.correct_no_decision", dead, 2, "check")
    refused("refusal.correct_dead", dead, 1, "check")


def test_three_card_poker_play_corrected_to_fold() -> None:
    r = ThreeCardPokerRound(load_profile("default"), LIMITS)
    for seat in range(1, 6):
        r.post_bets(seat, {"ante": 100, "pair_plus": 100})
    for card in "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac 2d 3h 4s 5c 6d".split():
        r.deal(card)
    for seat in range(1, 6):
        r.decide(seat, "play")
    assert r.phase == "showdown"
    before = r.settlement
    r.correct(5, "fold")
    assert r.phase == "showdown" and r.settlement != before
    assert r.settlement is not None and r.settlement.spot(5).results["ante"] == -100
    r.settle()
    refused("refusal.correct_settled", r, 5, "play")


@pytest.mark.skipif(engine.COMPILED, reason="the compiled engine's rounds keep no __dict__ to compare (mypyc)")
@pytest.mark.parametrize("game", [UltimateHoldemRound, ThreeCardPokerRound])
def test_a_correction_takes_every_field_of_the_round_replayed(game: type[HouseRound]) -> None:
    """`correct` takes the replayed round's state field by field (`FIELDS`): every field a round has, none
    forgotten when a field is added, at the start and after a whole round."""
    fresh = game(DEFAULT, LIMITS)
    assert set(vars(fresh)) == set(game.FIELDS) and len(game.FIELDS) == len(set(game.FIELDS))
    played = uth([("decide", (1, "check")), ("decide", (2, "play", 4))]) if game is UltimateHoldemRound else fresh
    assert set(vars(played)) == set(game.FIELDS)
