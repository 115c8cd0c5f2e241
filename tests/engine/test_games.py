"""The engine's declared names (`engine.games`) are the ones its rules check: the house games' decisions
and Play multiples per street, the profile's multiples, the spots, the poker seat bounds."""

from __future__ import annotations

from importlib import resources

import pytest

from engine import games
from engine.errors import IllegalAction, ProfileError
from engine.house import TableLimits
from engine.paytables import load_profile, parse_profile
from engine.poker import VARIANTS, Session, Stakes
from engine.three_card_poker import ThreeCardPokerRound
from engine.ultimate_holdem import UltimateHoldemRound

DEFAULT = load_profile("default")
LIMITS = TableLimits(minimum=100, maximum=3000, side_minimum=50, side_maximum=1000)
DEFAULT_TEXT = resources.files("engine").joinpath("profiles", "default.toml").read_text(encoding="utf-8")


def test_uth_takes_exactly_the_declared_multiples_on_each_street() -> None:
    r = UltimateHoldemRound(DEFAULT, LIMITS)
    r.post_bets(1, {"ante": 100, "blind": 100})
    r.post_bets(2, {"ante": 100, "blind": 100})
    cards = iter("As Kd 2h Ah Kc 3h Qs Js 9d 2c 3c".split())
    for street in games.UTH.streets:
        while r.phase != street or r.to_act() is None:
            r.deal(next(cards))
        for m in games.PLAY_MULTIPLES:
            assert r.can_decide(1, "play", m) == (m in games.UTH.play_multiples[street]), (street, m)
        for decision in games.UTH.decisions:
            multiple = games.UTH.play_multiples[street][0] if decision == "play" else None
            assert r.can_decide(1, decision, multiple) == (decision != ("fold" if street != "river" else "check"))
        assert not r.can_decide(1, "raise")
        r.decide(1, "check" if street != "river" else "fold")
        r.decide(2, "check" if street != "river" else "fold")
    assert r.phase == "showdown"


def test_three_card_poker_takes_exactly_the_declared_decisions_and_multiple() -> None:
    r = ThreeCardPokerRound(DEFAULT, LIMITS)
    for seat in range(1, 6):
        r.post_bets(seat, {"ante": 100})
    for card in "As Kd Qh Jc Ts 9d 8c 7h 6s 5d 4c 3h 2s Ad Kc Qs Jh Td".split():
        r.deal(card)
    street = games.THREE_CARD_POKER.streets[0]
    assert r.phase == street
    for decision in games.THREE_CARD_POKER.decisions:
        assert r.can_decide(1, decision)
    for m in games.PLAY_MULTIPLES:
        assert r.can_decide(1, "play", m) == (m in games.THREE_CARD_POKER.play_multiples[street])
    assert not r.can_decide(1, "check")
    r.declare_dead(2)
    assert r.record().spots[1].decision == games.DEAD


@pytest.mark.parametrize("key, street", [("preflop_multiples", "preflop"), ("flop_multiples", "flop"),
                                         ("river_multiples", "river")])
def test_a_profile_offers_only_multiples_the_game_declares(key: str, street: str) -> None:
    line = next(x for x in DEFAULT_TEXT.splitlines() if x.startswith(key))
    undeclared = max(games.PLAY_MULTIPLES) + 1
    with pytest.raises(ProfileError, match=rf"\[uth\] {key}: {undeclared} is not a Play multiple") as info:
        parse_profile(DEFAULT_TEXT.replace(line, f"{key} = [{undeclared}]"), "p.toml")
    assert ", ".join(map(str, games.UTH.play_multiples[street])) in str(info.value)
    one = games.UTH.play_multiples[street][-1:]
    assert parse_profile(DEFAULT_TEXT.replace(line, f"{key} = [{one[0]}]"), "p.toml").uth.multiples(street) == one


def test_a_profiles_spots_are_bounded_by_the_declared_maximum() -> None:
    text = DEFAULT_TEXT.replace("max_spots = 7", f"max_spots = {games.MAX_SPOTS + 1}", 1)
    with pytest.raises(ProfileError, match=rf"\[uth\] max_spots: must be between 1 and {games.MAX_SPOTS}"):
        parse_profile(text, "p.toml")


def test_a_poker_session_has_the_declared_seat_bounds() -> None:
    low, high = games.POKER_SEATS
    for seats in (low, high):
        assert Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=seats).size == seats
    for seats in (low - 1, high + 1):
        with pytest.raises(IllegalAction, match=f"{low} to {high} seats"):
            Session(VARIANTS["holdem"], Stakes.no_limit(1, 2), seats=seats)
    assert max(v.max_players for v in VARIANTS.values()) <= high
