"""Shared house-game pieces (limits, pays, targets) and a random-round property test of both round machines."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.cards import DECK
from engine.errors import IllegalAction, LimitsError
from engine.house import HouseRound, TableLimits, Target, pay
from engine.paytables import load_profile
from engine.settle import settle_round
from engine.three_card_poker import ThreeCardPokerRound
from engine.ultimate_holdem import UltimateHoldemRound


def test_pay_rounds_down_to_the_unit_and_the_chip() -> None:
    assert pay(1000, (3, 2)) == 1500
    assert pay(1005, (3, 2)) == 1507
    assert pay(1005, (3, 2), chip=5) == 1505
    assert pay(25, (3, 2), chip=25) == 25
    assert pay(500, (500, 1)) == 250000


def test_table_limits() -> None:
    limits = TableLimits.parse({"minimum": 500, "maximum": 15000, "side_minimum": 100, "side_maximum": 2500,
                                "chip": 25}, "table.toml")
    assert limits == TableLimits(500, 15000, 100, 2500, 25)
    limits.check_main("ante", 500)
    for amount, words in [(475, "below the table minimum 500"), (15025, "above the table maximum 15000"),
                          (510, "not a multiple of the table's chip 25")]:
        with pytest.raises(IllegalAction, match=words):
            limits.check_main("ante", amount)
    with pytest.raises(IllegalAction, match="above the side-bet maximum 2500"):
        limits.check_side("trips", 2525)
    assert TableLimits(minimum=100).with_max_multiple(20).maximum == 2000
    assert TableLimits(minimum=100, maximum=1000).with_max_multiple(20).maximum == 1000
    assert TableLimits(minimum=100).with_max_multiple(None).maximum == 0


@pytest.mark.parametrize(("text", "words"), [
    ("[limits]\nminimum = 100\nmaximun = 200\n", "t.toml: [limits] maximun: unknown key"),
    ("[limits]\nminimum = 0\n", "t.toml: [limits] minimum: must be at least 1"),
    ("[limits]\nminimum = 100\nmaximum = 50\n", "maximum: 50 is below the minimum 100"),
    ("[limits]\nminimum = 100\nchip = 30\n", "minimum: 100 is not a multiple of the chip 30"),
    ("[limits]\nminimum = 1.5\n", "minimum: must be an integer"),
    ("[limits]\nside_minimum = 100\nside_maximum = 50\n", "side_maximum: 50 is below side_minimum 100"),
    ("[table]\nname = 'x'\n", "t.toml: [limits]: missing"),
    ("[limits\n", "t.toml: not valid TOML"),
])
def test_bad_table_limits(text: str, words: str) -> None:
    with pytest.raises(LimitsError) as err:
        TableLimits.parse_toml(text, "t.toml")
    assert words in str(err.value)


def test_table_file_other_sections_are_left_to_their_readers() -> None:
    text = "[table]\nname = 'uth-1'\n\n[limits]\nminimum = 100\nside_minimum = 50\n"
    assert TableLimits.parse_toml(text, "t.toml") == TableLimits(minimum=100, side_minimum=50)


def test_target_text() -> None:
    for target in (Target("spot", 7), Target("dealer"), Target("board"), Target("burn")):
        assert Target.parse(str(target)) == target
    with pytest.raises(ValueError):
        Target.parse("floor")


# --- random rounds ------------------------------------------------------------------------------------

LIMITS = TableLimits(minimum=5, maximum=150, side_minimum=5, side_maximum=100)
STAKES = [5, 15, 25, 35, 75, 105, 150]  # odd stakes exercise the rounding of 3:2


def play_random_round(cls: type[HouseRound], profile_name: str, rng: random.Random) -> HouseRound:
    """Bets, deal, decisions at random (a few refused steps on the way), checking every public view."""
    profile = load_profile(profile_name)
    round_ = cls(profile, LIMITS)
    game = round_.game
    low = profile.three_card_poker.min_players if game == "3cp" else 1
    seats = sorted(rng.sample(range(1, 8), rng.randint(low, 7)))
    for seat in seats:
        ante = rng.choice(STAKES)
        side = rng.choice([None, rng.choice(STAKES[:-2])])
        if game == "uth":
            bets = {"ante": ante, "blind": ante} | ({"trips": side} if side else {})
        elif rng.random() < 0.15:
            bets = {"pair_plus": side or 5}
        else:
            bets = {"ante": ante} | ({"pair_plus": side} if side else {})
            if profile.three_card_poker.bonus is not None and rng.random() < 0.5:
                bets["bonus"] = rng.choice(STAKES[:-2])
        round_.post_bets(seat, bets)
    deck = list(DECK)
    rng.shuffle(deck)
    dealt: set[str] = set()
    while round_.phase != "showdown":
        check_public(round_, dealt)
        if round_.next_target() is not None:
            if rng.random() < 0.02 and round_.phase != "bets":
                steps = len(round_.steps)
                with pytest.raises(IllegalAction):
                    round_.decide(seats[0], "play", 1)
                assert len(round_.steps) == steps
            card = deck.pop()
            dealt.add(str(card))
            round_.deal(card)
            continue
        seat = round_.to_act()
        assert seat is not None, round_.view("full")
        if rng.random() < 0.03:
            round_.declare_dead(seat)
            continue
        round_.decide(seat, *random_decision(round_, profile_name, rng))
    check_public(round_, dealt)
    return round_


def random_decision(round_: HouseRound, profile_name: str, rng: random.Random) -> tuple[str, int | None]:
    if round_.game == "3cp":
        return rng.choice([("play", None), ("play", None), ("fold", None)])
    rules = load_profile(profile_name).uth
    phase = round_.phase
    options: list[tuple[str, int | None]] = [("play", m) for m in rules.multiples(phase)]
    options.append(("fold", None) if phase == "river" else ("check", None))
    return rng.choice(options)


def check_public(round_: HouseRound, dealt: set[str]) -> None:
    """No hole card before the showdown, no burn ever, in the public view."""
    view = round_.view("public")
    burns = set(round_.view("full")["burns"])
    shown = view["phase"] in ("showdown", "settled")
    texts = [c for s in view["spots"] for c in s["cards"]] + view["dealer"]["cards"] + view["board"]
    assert not burns & set(texts)
    assert "burns" not in view
    for c in texts:
        assert c == "??" or c in dealt
    if not shown:
        assert all(c == "??" for s in view["spots"] for c in s["cards"])
        assert all(c == "??" for c in view["dealer"]["cards"])
        assert all("results" not in s and "hand_name" not in s for s in view["spots"])


@pytest.mark.parametrize(("cls", "profile_name"), [
    (UltimateHoldemRound, "default"), (UltimateHoldemRound, "standard"),
    (ThreeCardPokerRound, "default"), (ThreeCardPokerRound, "standard"), (ThreeCardPokerRound, "fr_literal"),
])
def test_random_rounds_balance_and_agree_with_croupier_settle(cls: type[HouseRound], profile_name: str) -> None:
    rng = random.Random(f"{cls.__name__}-{profile_name}")
    profile = load_profile(profile_name)
    for _ in range(150):
        round_ = play_random_round(cls, profile_name, rng)
        s = round_.settlement
        assert s is not None
        assert s.house_net == -sum(spot.net for spot in s.spots)
        assert all(spot.net == sum(spot.results.values()) for spot in s.spots)
        assert {spot.seat for spot in s.spots} == set(round_.spot_seats())
        assert settle_round(round_.settle_input(), profile, LIMITS) == s
        replayed = cls.replay(profile, [step.to_dict() for step in round_.steps], LIMITS)
        assert replayed.view("full") == round_.view("full")
        round_.settle()
        assert round_.record().settlement == s


def test_round_record_is_frozen() -> None:
    round_ = play_random_round(UltimateHoldemRound, "default", random.Random(7))
    record = round_.record()
    with pytest.raises(AttributeError):
        record.phase = "bets"  # type: ignore[misc]
    assert record.round is not None and record.round["game"] == "uth"
    data: Any = record.spots[0].bets
    with pytest.raises(TypeError):
        data["ante"] = 1


@pytest.mark.skipif(engine.COMPILED, reason="doctest finds no function in a module compiled by mypyc: the pure form runs them")
def test_doctests_of_the_house_game_modules() -> None:
    import doctest

    import engine.house_values
    import engine.paytables
    import engine.settle
    import engine.three_card_poker
    import engine.ultimate_holdem
    for module in (engine.house_values, engine.paytables, engine.settle, engine.three_card_poker, engine.ultimate_holdem):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__


@pytest.mark.parametrize("cls", [UltimateHoldemRound, ThreeCardPokerRound])
def test_the_full_view_of_kept_parts_is_the_view_made_anew(cls: type[HouseRound]) -> None:
    """`full_view` keeps a spot's dict, the dealer's hand, the board and the burns from step to step until a
    step changes them: at every step of random rounds (bets changed and taken down, decisions corrected,
    hands declared dead) it is the view of the same round replayed from nothing, and a part that did not
    change is the very object of the view before."""
    rng = random.Random(f"kept-{cls.__name__}")
    profile = load_profile("default")

    def agrees(round_: HouseRound, before: dict[str, Any] | None) -> dict[str, Any]:
        view = round_.full_view()
        anew = cls.replay(profile, [step.to_dict() for step in round_.steps], LIMITS).full_view()
        assert view == anew
        if before is not None and before["phase"] == view["phase"]:
            kept = {s["seat"]: s for s in before["spots"]}
            changed = [s["seat"] for s in view["spots"] if kept.get(s["seat"]) is not s]
            assert len(changed) <= 1, changed  # a step changes one spot at most
            assert (view["dealer"] is before["dealer"]) == (view["dealer"] == before["dealer"])
        return view

    for _ in range(25):
        round_ = cls(profile, LIMITS)
        view = agrees(round_, None)
        low = profile.three_card_poker.min_players if round_.game == "3cp" else 1
        seats = sorted(rng.sample(range(1, 8), rng.randint(low, 7)))
        for seat in seats + rng.sample(seats, 2 if len(seats) > 3 else 0):  # some spots change their bets
            ante = rng.choice(STAKES[:4])
            round_.post_bets(seat, {"ante": ante, "blind": ante} if round_.game == "uth" else {"ante": ante})
            view = agrees(round_, view)
        if len(seats) > low and rng.random() < 0.5:
            round_.post_bets(seats[-1], {})  # taken down
            view = agrees(round_, view)
        deck = list(DECK)
        rng.shuffle(deck)
        while round_.phase != "showdown":
            seat = round_.to_act()
            if seat is None:
                round_.deal(deck.pop())
            elif rng.random() < 0.05:
                round_.declare_dead(seat)
            else:
                round_.decide(seat, *random_decision(round_, "default", rng))
                if round_.correctable_seats() and rng.random() < 0.3:
                    fixed = round_.correctable_seats()[0]
                    others = [d for d in [("fold", None), ("check", None), ("play", 1), ("play", None)]
                              if round_.can_correct(fixed, *d)]
                    if others:
                        view = agrees(round_, view)
                        round_.correct(fixed, *others[0])  # every part made again
                        view = agrees(round_, None)
                        continue
            view = agrees(round_, view)
        round_.settle()
        agrees(round_, view)


CHOICES = [(d, m) for d in ("check", "fold", "play", "raise") for m in (None, 1, 2, 3, 4, 5)] + [("play", 2.5)]


@pytest.mark.parametrize("cls", [UltimateHoldemRound, ThreeCardPokerRound])
def test_open_decisions_are_what_verify_decide_takes_asked_without_an_exception(
        cls: type[HouseRound], monkeypatch: pytest.MonkeyPatch) -> None:
    """`open_decisions` (the console's buttons) answers by `verify_decide`'s own rule: at every step of random
    rounds, the choices it gives are those `verify_decide` takes, every other one refused with its words; and
    asking raises and words nothing (the engine's IllegalAction made unconstructable while it answers)."""
    import engine.house
    import engine.three_card_poker
    import engine.ultimate_holdem
    rng = random.Random(f"open-{cls.__name__}")
    asked = 0
    for _ in range(40):
        round_ = play_random_round(cls, "default", rng)
        steps = [s.to_dict() for s in round_.steps]
        for at in range(len(steps) + 1):
            replayed = cls.replay(load_profile("default"), steps[:at], LIMITS)  # the round as it stood at each step
            seat = replayed.to_act()
            with monkeypatch.context() as m:
                for module in (engine.house, engine.three_card_poker, engine.ultimate_holdem):
                    m.setattr(module, "IllegalAction", None)  # any refusal made here would fail
                open_now = replayed.open_decisions(CHOICES)
            if seat is None:
                assert open_now is None
                continue
            asked += 1
            assert open_now == [c for c in CHOICES if replayed.can_decide(seat, *c)]  # type: ignore[arg-type]
            for choice in CHOICES:
                if choice in open_now:
                    replayed.verify_decide(seat, *choice)  # type: ignore[arg-type]
                else:
                    with pytest.raises(IllegalAction) as refused:
                        replayed.verify_decide(seat, *choice)  # type: ignore[arg-type]
                    assert str(refused.value).startswith(f"spot {seat}")
                    assert refused.value.say is not None or choice[1] == 2.5
    assert asked > 100

