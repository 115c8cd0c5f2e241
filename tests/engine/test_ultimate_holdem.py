"""Ultimate Texas Hold'em: worked settlements (hand-computed) for every pay class and switch, and the round machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.errors import CardError, IllegalAction, LimitsError, RoundFormatError
from engine.house import TableLimits, Target
from engine.paytables import Profile, load_profile, parse_profile
from engine.settle import settle_round
from engine.ultimate_holdem import UltimateHoldemRound
from tests.engine.rounds import refused

DEFAULT = load_profile("default")
STANDARD = load_profile("standard")


def uth(dealer: str, board: str, *spots: dict[str, Any]) -> dict[str, Any]:
    return {"game": "uth", "dealer": dealer.split(), "board": board.split(), "spots": list(spots)}


def spot(seat: int, cards: str, ante: int, play: tuple[str, int] | None, trips: int | None = None,
         **extra: Any) -> dict[str, Any]:
    bets = {"ante": ante, "blind": ante} | ({"trips": trips} if trips else {})
    return {"seat": seat, "cards": cards.split(), "bets": bets,
            "play": None if play is None else {"street": play[0], "multiple": play[1]}, **extra}


def settle(round_: dict[str, Any], profile: Profile = DEFAULT, limits: TableLimits | None = None) -> dict[str, Any]:
    result = settle_round(round_, profile, limits).to_dict()
    assert result["house_net"] == -sum(s["net"] for s in result["spots"])
    for s in result["spots"]:
        assert s["net"] == sum(s["results"].values())
    return result


def results(round_: dict[str, Any], profile: Profile = DEFAULT, seat: int = 1) -> dict[str, int]:
    return next(s["results"] for s in settle(round_, profile)["spots"] if s["seat"] == seat)


# --- worked settlements -------------------------------------------------------------------------------

def test_issue_example_dealer_not_qualified() -> None:
    # Dealer Q-high does not qualify: Ante returned; A-high beats it: Play 1:1; Blind pushes below
    # a straight; Trips lose below three of a kind.
    r = settle(uth("Qh Jc", "2c 7d 9h 4s 3c", spot(1, "As Kd", 1000, ("preflop", 4), trips=500)))
    assert r == {"spots": [{"seat": 1, "hand": r["spots"][0]["hand"], "category": "high_card",
                            "results": {"ante": 0, "blind": 0, "play": 4000, "trips": -500}, "net": 3500}],
                 "dealer": {"hand": r["dealer"]["hand"], "category": "high_card", "qualifies": False},
                 "house_net": -3500}
    assert r["spots"][0]["hand"].startswith("High card, ace")


def test_win_with_flush_against_qualified_dealer() -> None:
    # Flush ace high beats a pair of kings: Ante 1:1, Blind 3:2, Play (2x on the flop) 1:1, Trips 7:1.
    r = settle(uth("Kd Qs", "2h 7h 9h Kc 4d", spot(1, "Ah 3h", 1000, ("flop", 2), trips=500)))
    assert r["dealer"]["qualifies"] is True
    assert r["spots"][0]["results"] == {"ante": 1000, "blind": 1500, "play": 2000, "trips": 3500}
    assert r["spots"][0]["net"] == 8000
    assert r["house_net"] == -8000


def test_three_to_two_on_an_odd_blind_rounds_down_to_the_unit_and_to_the_chip() -> None:
    round_ = uth("Kd Qs", "2h 7h 9h Kc 4d", spot(1, "Ah 3h", 1005, ("river", 1)))
    assert results(round_)["blind"] == 1507  # 1005 * 3 / 2 = 1507.5
    chip5 = settle(round_, DEFAULT, TableLimits(minimum=50, chip=5))  # maximum 30 x 50 = 1500
    assert chip5["spots"][0]["results"] == {"ante": 1005, "blind": 1505, "play": 1005}


def test_the_dealers_payout_prompt_says_the_paytables_odds_even_when_the_chip_rounds_the_payout_down() -> None:
    """A flush's Blind of 15.00 at a table of 1.00 chips pays 22.00: the prompt says 3:2 (its paytable line), not
    22:15 (the payout over the stake: seen by hand on the console); Trips 7:1; Ante and Play even money."""
    round_ = uth("Kd Qs", "2h 7h 9h Kc 4d", spot(1, "Ah 3h", 1500, ("flop", 2), trips=100))
    settlement = settle_round(round_, DEFAULT, TableLimits(minimum=500, chip=100))
    paid = settlement.spot(1)
    assert dict(paid.results) == {"ante": 1500, "blind": 2200, "play": 3000, "trips": 700}
    assert paid.pays() == {"ante": "1:1", "blind": "3:2", "play": "1:1", "trips": "7:1"}
    lost = settle_round(uth("Ad As", "2h 7h 9h Kc 4d", spot(1, "Qh 3c", 1500, ("river", 1), trips=100)), DEFAULT)
    assert lost.spot(1).pays() == {}  # nothing won: no prompt to pay


@pytest.mark.parametrize(("dealer", "board", "cards", "category", "blind", "trips"), [
    ("Kh 3d", "5c 6d 7h Kc 2s", "8d 9s", "straight", 100, 400),
    ("Kd Qs", "2h 7h 9h Kc 4d", "Ah 3h", "flush", 150, 700),
    ("3d 4d", "Kc Kd 7h 7s 2c", "Kh 5s", "full_house", 300, 800),
    ("3d 4d", "Kc Kd 7h 8s 2c", "Kh Ks", "four_of_a_kind", 1000, 3000),
    ("Kd 3s", "5h 6h 7h Kc 2s", "8h 9h", "straight_flush", 5000, 4000),
    ("Ad Ac", "Ts Js Qs 2d 3c", "As Ks", "royal_flush", 50000, 5000),
    ("Kd 3s", "5h 6h 7h Kc 2s", "7d 7c", "three_of_a_kind", 0, 300),  # trips beat a pair of kings: blind pushes
])
def test_blind_and_trips_tables(dealer: str, board: str, cards: str, category: str, blind: int, trips: int) -> None:
    # Ante 100 (Blind 100, Play 4x = 400), Trips 100; the player beats a qualified dealer.
    for profile in (DEFAULT, STANDARD):
        result = settle_round(uth(dealer, board, spot(1, cards, 100, ("preflop", 4), trips=100)), profile)
        assert result.spots[0].category == category
        assert dict(result.spots[0].results) == {"ante": 100, "blind": blind, "play": 400, "trips": trips}
        assert result.house_net == -(500 + blind + trips)


def test_dealer_wins_everything_lost() -> None:
    r = results(uth("Kd Ks", "2c 7d 9h 4s Kc", spot(1, "As Ad", 100, ("preflop", 3), trips=50)))
    assert r == {"ante": -100, "blind": -100, "play": -300, "trips": -50}


def test_dealer_not_qualified_but_better_ante_returned_rest_lost() -> None:
    r = settle(uth("Ah Kc", "2c 7d 9h 4s Jc", spot(1, "Qd 3s", 100, ("preflop", 4), trips=50)))
    assert r["dealer"]["qualifies"] is False
    assert r["spots"][0]["results"] == {"ante": 0, "blind": -100, "play": -400, "trips": -50}


def test_trips_under_both_switches_when_the_dealer_wins() -> None:
    # Trips of sevens lose to the dealer's nines full: 003 pays Trips only on a win; the standard
    # game pays it on the hand (3:1).
    round_ = uth("9c 9d", "7c 7d 9h 2s Kc", spot(1, "7h Ah", 100, ("preflop", 4), trips=50))
    assert results(round_, DEFAULT) == {"ante": -100, "blind": -100, "play": -400, "trips": -50}
    assert results(round_, STANDARD) == {"ante": -100, "blind": -100, "play": -400, "trips": 150}


def test_fold_at_the_river_under_both_switches() -> None:
    round_ = uth("9c 9d", "7c 7d 9h 2s Kc", spot(1, "7h Ah", 100, None, trips=50))
    default = settle(round_, DEFAULT)["spots"][0]
    assert default["results"] == {"ante": -100, "blind": -100, "trips": -50}
    assert default["net"] == -250
    standard = settle(round_, STANDARD)["spots"][0]
    assert standard["results"] == {"ante": -100, "blind": -100, "trips": 150}  # Trips stands, paid on the hand
    assert standard["net"] == -50


def test_trips_stands_under_the_win_rule_is_settled_on_the_comparison() -> None:
    text = (Path(__file__).parents[2] / "engine" / "profiles" / "default.toml").read_text()
    stands = parse_profile(text.replace('trips_on_fold = "lose"', 'trips_on_fold = "stands"'), "stands.toml")
    beaten = uth("9c 9d", "7c 7d 9h 2s Kc", spot(1, "7h Ah", 100, None, trips=50))
    assert results(beaten, stands)["trips"] == -50
    beats = uth("2h 3d", "7c 7d 9h 2s Kc", spot(1, "7h Ah", 100, None, trips=50))
    assert results(beats, stands) == {"ante": -100, "blind": -100, "trips": 150}


def test_tie_returns_everything() -> None:
    # The board is a royal flush: both play it. Ties return Ante, Blind, Play; Trips returned under
    # 003, paid 50:1 on the hand under the standard rules.
    round_ = uth("4c 5d", "As Ks Qs Js Ts", spot(1, "2c 3d", 100, ("river", 1), trips=50))
    assert results(round_, DEFAULT) == {"ante": 0, "blind": 0, "play": 0, "trips": 0}
    assert results(round_, STANDARD) == {"ante": 0, "blind": 0, "play": 0, "trips": 2500}


def test_dead_hand_loses_every_bet() -> None:
    round_ = uth("2h 3d", "7c 7d 9h 2s Kc", spot(1, "7h Ah", 100, ("preflop", 4), trips=50, dead=True))
    assert results(round_, STANDARD) == {"ante": -100, "blind": -100, "play": -400, "trips": -50}


def test_several_spots_balance() -> None:
    r = settle(uth("Kd Qs", "2h 7h 9h Kc 4d",
                   spot(1, "Ah 3h", 1000, ("flop", 2), trips=500),
                   spot(2, "As Ad", 200, ("preflop", 3)),
                   spot(5, "8c 8d", 300, None, trips=100)))
    nets = {s["seat"]: s["net"] for s in r["spots"]}
    assert nets == {1: 8000, 2: 200 + 0 + 600, 5: -300 - 300 - 100}  # aces beat kings; blind pushes
    assert r["house_net"] == -(8000 + 800 - 700)


# --- refused rounds ---------------------------------------------------------------------------------

GOOD = uth("Qh Jc", "2c 7d 9h 4s 3c", spot(1, "As Kd", 1000, ("preflop", 4), trips=500))


@pytest.mark.parametrize(("change", "error", "words"), [
    (lambda r: r["spots"][0].update(cards=["As", "Zz"]), CardError, "spot 1: cards: not a card: \"Zz\""),
    (lambda r: r["spots"][0].update(cards=["As", "Qh"]), CardError, "duplicate card: Qh"),
    (lambda r: r["spots"][0].update(cards=["As"]), CardError, "1 cards, 2 expected"),
    (lambda r: r.update(board=["2c", "7d", "9h", "4s"]), CardError, "board: 4 cards, 5 expected"),
    (lambda r: r["spots"][0].update(play={"street": "flop", "multiple": 3}), IllegalAction, "not legal on the flop"),
    (lambda r: r["spots"][0].update(play={"street": "turn", "multiple": 1}), IllegalAction, "street"),
    (lambda r: r["spots"][0]["bets"].update(blind=500), IllegalAction, "blind 500 must equal the ante 1000"),
    (lambda r: r["spots"][0]["bets"].pop("blind"), IllegalAction, "blind is mandatory"),
    (lambda r: r["spots"][0]["bets"].update(trips=0), IllegalAction, "positive integer"),
    (lambda r: r["spots"][0]["bets"].update(trips=-5), IllegalAction, "positive integer"),
    (lambda r: r["spots"][0]["bets"].update(trips=2.5), IllegalAction, "positive integer"),
    (lambda r: r["spots"][0]["bets"].update(trips=True), IllegalAction, "positive integer"),
    (lambda r: r["spots"][0]["bets"].update(pair_plus=5), IllegalAction, "unknown bet \"pair_plus\""),
    (lambda r: r["spots"][0].pop("play"), RoundFormatError, "\"play\" is missing"),
    (lambda r: r["spots"][0].update(seat=9), RoundFormatError, "seat must be an integer 1..7"),
    (lambda r: r["spots"].append(dict(r["spots"][0], cards=["2s", "2d"])), RoundFormatError, "appears twice"),
    (lambda r: r.update(game="baccarat"), RoundFormatError, "game must be one of"),
    (lambda r: r.update(extra=1), RoundFormatError, "unknown key \"extra\""),
])
def test_invalid_rounds_are_refused(change: Any, error: type[Exception], words: str) -> None:
    import copy
    round_ = copy.deepcopy(GOOD)
    change(round_)
    with pytest.raises(error) as err:
        settle_round(round_, DEFAULT)
    assert words in str(err.value)


def test_limits_checked_only_when_given() -> None:
    settle_round(GOOD, DEFAULT)
    with pytest.raises(IllegalAction, match="ante 1000 is above the table maximum 500"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=100, maximum=500))
    with pytest.raises(IllegalAction, match="trips 500 is above the side-bet maximum 200"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=100, side_maximum=200))
    with pytest.raises(LimitsError, match="more than 30 times the minimum"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=10, maximum=5000))
    # no maximum set: 30 times the minimum under the default profile; none under the standard one
    with pytest.raises(IllegalAction, match="above the table maximum 600"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=20))
    settle_round(GOOD, STANDARD, TableLimits(minimum=20))


# --- the round machine ------------------------------------------------------------------------------

LIMITS = TableLimits(minimum=100, maximum=3000, side_minimum=50, side_maximum=1000)


def new_round(profile: Profile = DEFAULT) -> UltimateHoldemRound:
    r = UltimateHoldemRound(profile, LIMITS)
    r.post_bets(1, {"ante": 100, "blind": 100, "trips": 50})
    r.post_bets(3, {"ante": 200, "blind": 200})
    return r


def test_a_whole_round_step_by_step() -> None:
    r = new_round()
    assert r.phase == "bets"
    targets = []
    for card in "As Kd 2h Ah Kc 3h".split():
        targets.append(str(r.next_target()))
        r.deal(card)
    assert targets == ["spot 1", "spot 3", "dealer", "spot 1", "spot 3", "dealer"]
    assert r.phase == "preflop" and r.next_target() is None and r.to_act() == 1
    r.decide(1, "play", 4)
    assert r.to_act() == 3
    r.decide(3, "check")
    assert (r.phase, r.next_target(), r.to_act()) == ("flop", Target("board"), None)
    for card in "Qs Js 9d".split():
        r.deal(card)
    assert (r.phase, r.to_act()) == ("flop", 3)  # spot 1 has played: not asked again
    r.decide(3, "check")
    assert r.phase == "river"
    r.deal("2c")
    r.deal("3c")
    assert r.to_act() == 3
    r.decide(3, "fold")
    assert r.phase == "showdown" and r.next_target() is None
    s = r.settlement
    assert s is not None
    assert dict(s.spot(1).results) == {"ante": -100, "blind": -100, "play": -400, "trips": -50}
    assert dict(s.spot(3).results) == {"ante": -200, "blind": -200}
    assert s.house_net == 1050
    assert settle_round(r.settle_input(), DEFAULT, LIMITS) == s  # the same settlement as croupier settle
    r.settle()
    assert r.phase == "settled"
    record = r.record()
    assert [str(c) for c in record.board] == "Qs Js 9d 2c 3c".split()
    assert [(str(t), str(c)) for t, c in record.deals][:3] == [("spot 1", "As"), ("spot 3", "Kd"), ("dealer", "2h")]
    assert record.spots[0].street == "preflop" and record.spots[0].multiple == 4
    replayed = UltimateHoldemRound.replay(DEFAULT, [step.to_dict() for step in r.steps], LIMITS)
    assert replayed.view("full") == r.view("full")
    assert replayed.settlement == s


def test_all_played_preflop_deals_the_whole_board_then_showdown() -> None:
    r = new_round()
    for card in "As Kd 2h Ah Kc 3h".split():
        r.deal(card)
    r.decide(1, "play", 3)
    r.decide(3, "play", 4)
    for card in "Qs Js 9d".split():
        assert r.phase == "flop"
        r.deal(card)
    assert r.phase == "river"
    r.deal("2c")
    r.deal("3c")
    assert r.phase == "showdown"
    assert r.view()["spots"][1]["bets"] == {"ante": 200, "blind": 200, "play": 800}


def test_burns_from_the_profile_never_appear_in_public() -> None:
    text = (Path(__file__).parents[2] / "engine" / "profiles" / "default.toml").read_text()
    burning = parse_profile(text.replace("burns = []", 'burns = ["deal", "flop", "river"]', 1), "burns.toml")
    r = UltimateHoldemRound(burning)
    r.post_bets(2, {"ante": 100, "blind": 100})
    targets = []
    cards = iter("5d As Kd Ah Kc 6d Qs Js 9d 7d 2c 3c".split())
    for card in cards:
        targets.append(str(r.next_target()))
        r.deal(card)
        if r.to_act():
            r.decide(2, "check" if r.phase != "river" else "play")
    assert targets == ["burn", "spot 2", "dealer", "spot 2", "dealer",
                       "burn", "board", "board", "board", "burn", "board", "board"]
    assert r.phase == "showdown"
    public = str(r.view("public"))
    for burn in ("5d", "6d", "7d"):
        assert burn not in public
    assert r.view("full")["burns"] == ["5d", "6d", "7d"]
    assert r.record().burns == tuple(r.record().burns)


def test_public_view_hides_hole_cards_until_the_showdown() -> None:
    r = new_round()
    view = r.view()
    assert view["spots"][0]["cards"] == [] and view["dealer"]["cards"] == []
    for card in "As Kd 2h Ah".split():
        r.deal(card)
    view = r.view()
    assert view["spots"][0]["cards"] == ["??", "??"] and view["spots"][1]["cards"] == ["??"]
    assert view["dealer"] == {"cards": ["??"]}
    assert "burns" not in view
    full = r.view("full")
    assert full["spots"][0]["cards"] == ["As", "Ah"] and full["dealer"]["cards"] == ["2h"]
    with pytest.raises(ValueError):
        r.view("dealer")


def test_first_card_closes_the_betting() -> None:
    r = new_round()
    assert r.next_target() == Target("spot", 1)
    r.deal("As")
    assert r.phase == "deal"
    refused(r, lambda: r.post_bets(2, {"ante": 100, "blind": 100}), IllegalAction, "bets are closed")
    empty = UltimateHoldemRound(DEFAULT)
    assert empty.next_target() is None
    refused(empty, lambda: empty.deal("As"), IllegalAction, "no spot has a bet")  # type: ignore[arg-type]


def test_bets_are_checked_against_rules_and_limits() -> None:
    r = UltimateHoldemRound(DEFAULT, LIMITS)
    cases = [
        (1, {"ante": 100, "blind": 200}, "blind 200 must equal the ante 100"),
        (1, {"ante": 100}, "blind is mandatory"),
        (1, {"ante": 50, "blind": 50}, "ante 50 is below the table minimum 100"),
        (1, {"ante": 5000, "blind": 5000}, "above the table maximum 3000"),
        (1, {"ante": 100, "blind": 100, "trips": 20}, "trips 20 is below the side-bet minimum 50"),
        (1, {"ante": 100, "blind": 100, "trips": 2000}, "above the side-bet maximum 1000"),
        (1, {"ante": 100, "blind": 100, "pair_plus": 50}, "unknown bet 'pair_plus'"),
        (1, {"ante": "100", "blind": 100}, "positive integer"),
        (8, {"ante": 100, "blind": 100}, "no seat 8"),
        (0, {"ante": 100, "blind": 100}, "no seat 0"),
    ]
    for seat, bets, words in cases:
        refused(r, lambda: r.post_bets(seat, bets), IllegalAction, words)
        assert not r.can_post_bets(seat, bets)
    r.post_bets(1, {"ante": 100, "blind": 100})
    r.post_bets(1, {"ante": 300, "blind": 300, "trips": 50})  # changed before the deal
    assert r.view()["spots"][0]["bets"] == {"ante": 300, "blind": 300, "trips": 50}
    r.post_bets(1, {})  # taken down
    assert r.view()["spots"] == []
    with pytest.raises(LimitsError):
        UltimateHoldemRound(DEFAULT, TableLimits(minimum=100, maximum=10000))


def test_illegal_steps_are_refused_and_change_nothing() -> None:
    r = new_round()
    refused(r, lambda: r.decide(1, "check"), IllegalAction, "no decision is awaited")
    refused(r, lambda: r.declare_dead(1), IllegalAction, "between the deal and the showdown")
    refused(r, r.settle, IllegalAction, "nothing to settle")
    refused(r, lambda: r.deal("Xx"), CardError, "not a card")
    for card in "As Kd 2h".split():
        r.deal(card)
    refused(r, lambda: r.deal("As"), CardError, "duplicate card: As")
    refused(r, lambda: r.decide(1, "check"), IllegalAction, "no decision is awaited")
    for card in "Ah Kc 3h".split():
        r.deal(card)
    refused(r, lambda: r.deal("Qs"), IllegalAction, "waiting for the decision of spot 1")
    refused(r, lambda: r.decide(3, "check"), IllegalAction, "spot 1 acts first")
    refused(r, lambda: r.decide(1, "fold"), IllegalAction, "folds only at the river")
    refused(r, lambda: r.decide(1, "play", 2), IllegalAction, "play 2x is not legal pre-flop")
    refused(r, lambda: r.decide(1, "play"), IllegalAction, "say the multiple")
    refused(r, lambda: r.decide(1, "raise"), IllegalAction, "unknown decision 'raise'")
    refused(r, lambda: r.decide(1, "check", 1), IllegalAction, "a check takes no multiple")
    refused(r, lambda: r.decide(2, "check"), IllegalAction, "no spot with a bet at seat 2")
    r.decide(1, "play", 4)
    refused(r, lambda: r.decide(1, "play", 4), IllegalAction, "spot 1 has no decision to make now")
    r.decide(3, "check")
    for card in "Qs Js 9d".split():
        r.deal(card)
    refused(r, lambda: r.decide(3, "play", 4), IllegalAction, "play 4x is not legal on the flop")
    r.decide(3, "play")  # the only legal multiple on the flop: 2x
    assert r.phase == "river"
    r.deal("2c")
    r.deal("3c")
    assert r.phase == "showdown"
    refused(r, lambda: r.deal("4c"), IllegalAction, "no card is expected now")
    refused(r, lambda: r.declare_dead(1), IllegalAction, "between the deal and the showdown")
    r.settle()
    refused(r, r.settle, IllegalAction, "nothing to settle")
    refused(r, lambda: r.apply({"do": "shuffle"}), IllegalAction, "not a step")


def test_river_decisions_and_dead_hand() -> None:
    r = new_round(STANDARD)
    for card in "7h Kd 2h Ah Kc 3h".split():
        r.deal(card)
    r.decide(1, "check")
    r.declare_dead(3)
    refused(r, lambda: r.declare_dead(3), IllegalAction, "already dead")
    assert r.phase == "flop"
    for card in "7c 7d 9h".split():
        r.deal(card)
    r.decide(1, "check")
    r.deal("2s")
    r.deal("Qc")
    refused(r, lambda: r.decide(1, "check"), IllegalAction, "no check at the river")
    refused(r, lambda: r.decide(1, "play", 2), IllegalAction, "play 2x is not legal at the river")
    r.decide(1, "fold")
    s = r.settlement
    assert s is not None
    # spot 1 folded trips of sevens: the standard game's Trips stands and is paid 3:1
    assert dict(s.spot(1).results) == {"ante": -100, "blind": -100, "trips": 150}
    assert dict(s.spot(3).results) == {"ante": -200, "blind": -200}
    view = r.view()
    assert view["spots"][0]["cards"] == ["7h", "Ah"]  # turned over to pay the Trips
    assert view["spots"][1]["cards"] == ["??", "??"] and view["spots"][1]["decision"] == "dead"
    assert view["spots"][1]["hand_name"] is None
    assert r.settle_input()["spots"][1] == {"seat": 3, "cards": ["Kd", "Kc"], "bets": {"ante": 200, "blind": 200},
                                            "play": None, "dead": True}


def test_the_round_as_dealt_is_the_settle_layout_at_every_step() -> None:
    # one writer of `croupier settle`'s layout: a hand voided midway is recorded in it too, cards as dealt
    r = new_round()
    assert r.as_dealt() == uth("", "", {"seat": 1, "cards": [], "bets": {"ante": 100, "blind": 100, "trips": 50},
                                        "play": None},
                               {"seat": 3, "cards": [], "bets": {"ante": 200, "blind": 200}, "play": None})
    deck = iter("As Kd 2h Ah Kc 3c 7d 8d 9d Tc 2s 4h 5h 6h".split())
    while r.to_act() is None:
        r.deal(next(deck))
    r.decide(1, "play", 4)
    midway = r.as_dealt()
    assert midway["board"] == [] and len(midway["dealer"]) == 2
    assert midway["spots"][0] == {"seat": 1, "cards": [str(c) for c in r.record().spots[0].cards],
                                  "bets": {"ante": 100, "blind": 100, "trips": 50},
                                  "play": {"street": "preflop", "multiple": 4}}   # the Play stake is not a bet circle here
    assert len(midway["spots"][0]["cards"]) == 2
    with pytest.raises(IllegalAction):
        r.settle_input()
    while r.phase != "showdown":
        if r.to_act() is not None:
            r.decide(3, "check" if r.phase != "river" else "fold")
        else:
            r.deal(next(deck))
    assert r.as_dealt() == r.settle_input() == r.record().round
    settle(r.as_dealt())  # settles as it stands
