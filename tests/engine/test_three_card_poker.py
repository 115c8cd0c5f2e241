"""Three Card Poker: worked settlements (hand-computed) for every pay class and profile, and the round machine."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.errors import CardError, IllegalAction, RoundFormatError
from engine.house import TableLimits, Target
from engine.paytables import Profile, load_profile
from engine.settle import settle_round
from engine.three_card_poker import ThreeCardPokerRound
from tests.engine.rounds import refused

DEFAULT = load_profile("default")
STANDARD = load_profile("standard")
LITERAL = load_profile("fr_literal")


def tcp(dealer: str, *spots: dict[str, Any]) -> dict[str, Any]:
    return {"game": "3cp", "dealer": dealer.split(), "spots": list(spots)}


def spot(seat: int, cards: str, play: bool | None = True, **bets: int) -> dict[str, Any]:
    s: dict[str, Any] = {"seat": seat, "cards": cards.split(), "bets": bets}
    if play is not None:
        s["play"] = play
    return s


def settle(round_: dict[str, Any], profile: Profile = DEFAULT) -> dict[str, Any]:
    result = settle_round(round_, profile).to_dict()
    assert result["house_net"] == -sum(s["net"] for s in result["spots"])
    for s in result["spots"]:
        assert s["net"] == sum(s["results"].values())
    return result


def results(round_: dict[str, Any], profile: Profile = DEFAULT) -> dict[str, int]:
    return dict(settle(round_, profile)["spots"][0]["results"])


# --- worked settlements -------------------------------------------------------------------------------

def test_issue_example() -> None:
    r = settle(tcp("Ks 7d 2c", spot(1, "Qh Qd 5s", ante=500, pair_plus=500)))
    assert r["dealer"] == {"hand": r["dealer"]["hand"], "category": "high_card", "qualifies": True}
    assert r["spots"][0]["results"] == {"ante": 500, "play": 500, "pair_plus": 500}
    assert r["spots"][0]["net"] == 1500 and r["house_net"] == -1500


def test_dealer_not_qualified_ante_pays_play_returned() -> None:
    r = settle(tcp("Js 8c 2c", spot(1, "4h 5d 9s", ante=500)))
    assert r["dealer"]["qualifies"] is False
    assert r["spots"][0]["results"] == {"ante": 500, "play": 0}
    # even a hand the dealer's beats: the Ante still pays when the dealer does not qualify
    assert results(tcp("Js 8c 2c", spot(1, "4h 6d 3s", ante=500))) == {"ante": 500, "play": 0}


def test_ante_bonus_paid_whatever_the_dealer_holds() -> None:
    # dealer not qualified: Ante 1:1, Play returned, Ante Bonus straight 1:1
    assert results(tcp("Js 8c 2c", spot(1, "4h 5d 6s", ante=500))) == {"ante": 500, "ante_bonus": 500, "play": 0}
    # dealer's trips beat the straight: Ante and Play lose, the Ante Bonus is still paid; Pair Plus 6:1
    r = results(tcp("2c 2d 2h", spot(1, "4h 5d 6s", ante=500, pair_plus=100)))
    assert r == {"ante": -500, "ante_bonus": 500, "play": -500, "pair_plus": 600}
    paid = settle_round(tcp("2c 2d 2h", spot(1, "4h 5d 6s", ante=500, pair_plus=100)), DEFAULT).spot(1)
    assert paid.pays() == {"ante_bonus": "1:1", "pair_plus": "6:1"}  # the dealer's payout prompt: the paytables' lines
    three = settle_round(tcp("Js 8c 2c", spot(1, "7h 7d 7s", ante=500, pair_plus=100)), DEFAULT).spot(1)
    assert three.pays() == {"ante": "1:1", "ante_bonus": "4:1", "pair_plus": "30:1"}


@pytest.mark.parametrize(("cards", "ante_bonus", "pair_plus"), [
    ("9d 9c 4s", None, 100),           # pair 1:1
    ("2s 7s 9s", None, 300),           # flush 3:1
    ("4h 5d 6s", 500, 600),            # straight: Ante Bonus 1:1, Pair Plus 6:1
    ("7h 7d 7s", 2000, 3000),          # three of a kind 4:1, 30:1
    ("9h Th Jh", 2500, 4000),          # straight flush 5:1, 40:1
])
def test_ante_bonus_and_pair_plus_tables(cards: str, ante_bonus: int | None, pair_plus: int) -> None:
    # against a qualified dealer (king high) that every one of these hands beats
    r = results(tcp("Kc Qd 3s", spot(1, cards, ante=500, pair_plus=100)))
    expected = {"ante": 500, "play": 500, "pair_plus": pair_plus}
    if ante_bonus:
        expected["ante_bonus"] = ante_bonus
    assert r == expected


def test_pair_plus_loses_below_a_pair_and_standard_pays_flush_4_to_1() -> None:
    assert results(tcp("Kc Qd 3s", spot(1, "2s 7d 9s", play=None, pair_plus=100))) == {"pair_plus": -100}
    assert results(tcp("Kc Qd 3s", spot(1, "2s 7s 9s", play=None, pair_plus=100)), DEFAULT) == {"pair_plus": 300}
    assert results(tcp("Kc Qd 3s", spot(1, "2s 7s 9s", play=None, pair_plus=100)), STANDARD) == {"pair_plus": 400}


def test_pair_plus_alone_whatever_the_dealer_holds() -> None:
    r = settle(tcp("Js 8c 2c", spot(1, "Ts Jh Qs", play=None, pair_plus=100)))
    assert r["spots"][0]["results"] == {"pair_plus": 600}  # straight, dealer not qualified: still paid
    r = settle(tcp("Ah Ad Ac", spot(1, "Ts Js Qs", play=None, pair_plus=100)))
    assert r["spots"][0]["results"] == {"pair_plus": 4000}  # straight flush, dealer holds trips


def test_tie_returns_ante_and_play() -> None:
    assert results(tcp("Ah Kd 9c", spot(1, "As Kc 9d", ante=500))) == {"ante": 0, "play": 0}


def test_dealer_beats_player() -> None:
    assert results(tcp("Kc Kd 3s", spot(1, "Qh Qd 5s", ante=500, pair_plus=100))) == {
        "ante": -500, "play": -500, "pair_plus": 100}


def test_fold_loses_ante_and_pair_plus() -> None:
    r = settle(tcp("Kc Qd 3s", spot(1, "2s 2h 9d", play=False, ante=500, pair_plus=100)))
    assert r["spots"][0]["results"] == {"ante": -500, "pair_plus": -100}
    assert r["house_net"] == 600


def test_dead_hand_loses_every_bet() -> None:
    dead = spot(1, "7h 7d 7s", ante=500, pair_plus=100) | {"dead": True}
    assert results(tcp("Kc Qd 3s", dead)) == {"ante": -500, "play": -500, "pair_plus": -100}
    undecided = spot(1, "7h 7d 7s", play=None, ante=500) | {"dead": True}
    assert results(tcp("Kc Qd 3s", undecided)) == {"ante": -500}


def test_literal_profile() -> None:
    # 003 read literally: the Ante pays 4x with trips only when the player beats a qualified dealer
    r = results(tcp("Ks Qd 2c", spot(1, "7h 7d 7s", ante=500, bonus=100)), LITERAL)
    assert r == {"ante": 500, "ante_bonus": 1500, "play": 500, "bonus": 400}
    # dealer not qualified: Ante 1:1 only; the Bonus stake pays on the hand because the spot played
    r = results(tcp("Js 8c 2c", spot(1, "7h 7d 7s", ante=500, bonus=100)), LITERAL)
    assert r == {"ante": 500, "play": 0, "bonus": 400}
    # straight beaten by the dealer: no Ante Bonus; the Bonus stake pays 1:1 on the straight
    r = results(tcp("2c 2d 2h", spot(1, "4h 5d 6s", ante=500, bonus=100)), LITERAL)
    assert r == {"ante": -500, "play": -500, "bonus": 100}
    # below a straight the Bonus stake loses; folded, it loses
    assert results(tcp("Js 8c 2c", spot(1, "Ah Ad 6s", ante=500, bonus=100)), LITERAL)["bonus"] == -100
    assert results(tcp("Js 8c 2c", spot(1, "4h 5d 6s", play=False, ante=500, bonus=100)), LITERAL)["bonus"] == -100
    with pytest.raises(IllegalAction, match="unknown bet \"bonus\""):
        settle_round(tcp("Js 8c 2c", spot(1, "4h 5d 6s", ante=500, bonus=100)), DEFAULT)


def test_several_spots_balance() -> None:
    r = settle(tcp("Kc Qd 3s",
                   spot(1, "7h 7d 7s", ante=500, pair_plus=100),
                   spot(2, "2s 4h 9d", play=False, ante=200),
                   spot(4, "Qh Jd 2c", ante=300),
                   spot(6, "9h Th Jh", play=None, pair_plus=50)))
    nets = {s["seat"]: s["net"] for s in r["spots"]}
    assert nets == {1: 500 + 2000 + 500 + 3000, 2: -200, 4: -600, 6: 2000}
    assert r["house_net"] == -(6000 - 200 - 600 + 2000)


# --- refused rounds ---------------------------------------------------------------------------------

GOOD = tcp("Ks 7d 2c", spot(1, "Qh Qd 5s", ante=500, pair_plus=500))


@pytest.mark.parametrize(("change", "error", "words"), [
    (lambda r: r["spots"][0].update(cards=["Qh", "Qd"]), CardError, "2 cards, 3 expected"),
    (lambda r: r["spots"][0].update(cards=["Qh", "Qd", "Ks"]), CardError, "duplicate card: Ks"),
    (lambda r: r.update(dealer=["Ks", "7d", "1c"]), CardError, "not a card: \"1c\""),
    (lambda r: r["spots"][0].pop("play"), IllegalAction, "play must be true"),
    (lambda r: r["spots"][0].update(play="yes"), IllegalAction, "play must be true"),
    (lambda r: r["spots"][0]["bets"].pop("ante"), IllegalAction, "Pair Plus alone takes no decision"),
    (lambda r: r["spots"][0].update(bets={}), IllegalAction, "an ante, a pair plus, or both"),
    (lambda r: r["spots"][0]["bets"].update(ante=-500), IllegalAction, "positive integer"),
    (lambda r: r["spots"][0]["bets"].update(blind=500), IllegalAction, "unknown bet \"blind\""),
    (lambda r: r["spots"][0].update(board=[]), RoundFormatError, "unknown key \"board\""),
    (lambda r: r["spots"][0].update(seat="1"), RoundFormatError, "seat must be an integer"),
    (lambda r: r.update(spots={}), RoundFormatError, "spots: must be a list"),
])
def test_invalid_rounds_are_refused(change: Any, error: type[Exception], words: str) -> None:
    round_ = copy.deepcopy(GOOD)
    change(round_)
    with pytest.raises(error) as err:
        settle_round(round_, DEFAULT)
    assert words in str(err.value)


def test_limits_checked_only_when_given() -> None:
    settle_round(GOOD, DEFAULT)
    with pytest.raises(IllegalAction, match="pair_plus 500 is above the side-bet maximum 250"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=100, side_maximum=250))
    with pytest.raises(IllegalAction, match="ante 500 is below the table minimum 1000"):
        settle_round(GOOD, DEFAULT, TableLimits(minimum=1000))


# --- the round machine ------------------------------------------------------------------------------

LIMITS = TableLimits(minimum=100, maximum=1000, side_minimum=50, side_maximum=500)
DECK = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd".split()


def new_round(profile: Profile = DEFAULT) -> ThreeCardPokerRound:
    r = ThreeCardPokerRound(profile, LIMITS)
    for seat in (1, 2, 3, 5):
        r.post_bets(seat, {"ante": 100})
    r.post_bets(6, {"pair_plus": 50})
    return r


def test_a_whole_round_step_by_step() -> None:
    r = new_round()
    targets = []
    # spots 1 2 3 5 6 and the dealer, three times round
    cards = "As 2h 3h 4h Ts Ks Ad 5h 6h 8h Js Qs Ah 7h 8s 9h Qh 9s".split()
    for card in cards:
        targets.append(str(r.next_target()))
        r.deal(card)
    assert targets == ["spot 1", "spot 2", "spot 3", "spot 5", "spot 6", "dealer"] * 3
    assert r.phase == "decide" and r.to_act() == 1
    r.decide(1, "play")
    r.decide(2, "fold")
    r.decide(3, "play")
    assert r.to_act() == 5
    r.decide(5, "play")  # spot 6 bet Pair Plus alone: no decision
    assert r.phase == "showdown"
    s = r.settlement
    assert s is not None
    # spot 1 As Ad Ah, spot 2 2h 5h 7h, spot 3 3h 6h 8s, spot 5 4h 8h 9h, spot 6 Ts Js Qh, dealer Ks Qs 9s
    assert s.dealer_category == "flush" and s.dealer_qualifies
    assert dict(s.spot(1).results) == {"ante": 100, "ante_bonus": 400, "play": 100}  # trips beat the flush
    assert dict(s.spot(2).results) == {"ante": -100}                                   # folded a flush
    assert dict(s.spot(3).results) == {"ante": -100, "play": -100}                    # eight high
    assert dict(s.spot(5).results) == {"ante": -100, "play": -100}                    # nine-high flush loses
    assert dict(s.spot(6).results) == {"pair_plus": 300}                               # straight 6:1
    assert s.house_net == -600 + 100 + 200 + 200 - 300
    assert settle_round(r.settle_input(), DEFAULT, LIMITS) == s
    replayed = ThreeCardPokerRound.replay(DEFAULT, [step.to_dict() for step in r.steps], LIMITS)
    assert replayed.view("full") == r.view("full") and replayed.settlement == s
    r.settle()
    assert r.phase == "settled"


def test_minimum_players_to_deal() -> None:
    r = ThreeCardPokerRound(DEFAULT, LIMITS)
    for seat in (1, 2, 3, 4):
        r.post_bets(seat, {"ante": 100})
    assert r.next_target() is None
    refused(r, r.close_bets, IllegalAction, "5 spots with a bet are needed to deal, 4 have one")
    refused(r, lambda: r.deal("As"), IllegalAction, "no card is expected now")
    r.post_bets(7, {"pair_plus": 50})
    assert r.next_target() == Target("spot", 1)
    r.close_bets()
    assert r.phase == "deal"


def test_bets_are_checked_against_rules_and_limits() -> None:
    r = ThreeCardPokerRound(DEFAULT, LIMITS)
    for seat, bets, words in [
        (1, {"ante": 50}, "ante 50 is below the table minimum 100"),
        (1, {"ante": 2000}, "above the table maximum 1000"),
        (1, {"ante": 100, "pair_plus": 600}, "pair_plus 600 is above the side-bet maximum 500"),
        (1, {"pair_plus": 20}, "below the side-bet minimum 50"),
        (1, {"ante": 100, "bonus": 100}, "unknown bet 'bonus'"),
        (1, {"blind": 100}, "unknown bet 'blind'"),
        (1, {"ante": 0}, "positive integer"),
    ]:
        refused(r, lambda: r.post_bets(seat, bets), IllegalAction, words)
    literal = ThreeCardPokerRound(LITERAL, LIMITS)
    refused(literal, lambda: literal.post_bets(1, {"pair_plus": 100, "bonus": 100}), IllegalAction,
            "the bonus is bet only with an ante")
    literal.post_bets(1, {"ante": 100, "bonus": 100})


def test_illegal_steps_are_refused_and_change_nothing() -> None:
    r = new_round()
    refused(r, lambda: r.decide(1, "play"), IllegalAction, "no decision is awaited")
    for card in DECK[:6]:
        r.deal(card)
    refused(r, lambda: r.deal("2c"), CardError, "duplicate card: 2c")
    for card in DECK[6:18]:
        r.deal(card)
    assert r.phase == "decide"
    refused(r, lambda: r.deal("Ah"), IllegalAction, "waiting for the decision of spot 1")
    refused(r, lambda: r.decide(2, "play"), IllegalAction, "spot 1 acts first")
    refused(r, lambda: r.decide(6, "play"), IllegalAction, "spot 6 has no decision to make now")
    refused(r, lambda: r.decide(1, "check"), IllegalAction, "unknown decision 'check'")
    refused(r, lambda: r.decide(1, "play", 2), IllegalAction, "the Play bet equals the Ante")
    refused(r, r.settle, IllegalAction, "nothing to settle")
    r.decide(1, "fold")
    refused(r, lambda: r.declare_dead(1), IllegalAction, "already folded")
    r.declare_dead(2)
    assert r.to_act() == 3
    r.decide(3, "play")
    r.decide(5, "play")
    assert r.phase == "showdown"
    refused(r, lambda: r.deal("Ah"), IllegalAction, "no card is expected now")
    s = r.settlement
    assert s is not None and dict(s.spot(2).results) == {"ante": -100}


def test_public_view_at_the_showdown() -> None:
    r = new_round()
    # dealer Jc 8d 2h: does not qualify. Spot 1 plays a pair (hidden: nothing paid on its cards),
    # spot 3 plays a straight (shown: its Ante Bonus is paid), spot 6's Pair Plus pair (shown: paid).
    deal = {1: "9s 9d 4c", 2: "Ks 7d 3c", 3: "4s 5h 6c", 5: "Ts 6d 3s", 6: "Ah Ac 2c", 0: "Jc 8d 2h"}
    order = [1, 2, 3, 5, 6, 0]
    for i in range(3):
        for seat in order:
            card = deal[seat].split()[i]
            assert r.next_target() == (Target("dealer") if seat == 0 else Target("spot", seat))
            r.deal(card)
            public = r.view()
            assert all(c == "??" for s in public["spots"] for c in s["cards"])
            assert all(c == "??" for c in public["dealer"]["cards"])
    r.decide(1, "play")
    r.decide(2, "fold")
    r.decide(3, "play")
    r.decide(5, "play")
    view = r.view()
    assert view["phase"] == "showdown"
    assert view["dealer"] == {"cards": ["Jc", "8d", "2h"], "hand_name": view["dealer"]["hand_name"],
                              "hand_category": "high_card", "hand_ranks": ["J"], "hand_kickers": [], "qualifies": False}
    cards = {s["seat"]: s["cards"] for s in view["spots"]}
    assert cards == {1: ["??"] * 3, 2: ["??"] * 3, 3: ["4s", "5h", "6c"], 5: ["??"] * 3, 6: ["Ah", "Ac", "2c"]}
    names = {s["seat"]: s["hand_name"] for s in view["spots"]}
    assert names[1] is None and names[3] is not None
    categories = {s["seat"]: s["hand_category"] for s in view["spots"]}
    assert categories[1] is None and categories[3] == "straight"  # a hand kept down keeps its category hidden too
    ranks = {s["seat"]: s["hand_ranks"] for s in view["spots"]}
    assert ranks[1] is None and ranks[3] == ["6"]  # and the ranks its name cites ("Straight, six high")
    res = {s["seat"]: s["results"] for s in view["spots"]}
    assert res == {1: {"ante": 100, "play": 0}, 2: {"ante": -100}, 3: {"ante": 100, "ante_bonus": 100, "play": 0},
                   5: {"ante": 100, "play": 0}, 6: {"pair_plus": 50}}
    assert r.view("full")["spots"][0]["cards"] == ["9s", "9d", "4c"]


def test_the_round_as_dealt_is_the_settle_layout_at_every_step() -> None:
    # one writer of `croupier settle`'s layout: a hand voided midway is recorded in it too, cards as dealt
    r = new_round()
    cards = "As 2h 3h 4h Ts Ks Ad 5h 6h 8h Js Qs Ah 7h 8s 9h Qh 9s".split()
    for card in cards[:6]:
        r.deal(card)
    midway = r.as_dealt()
    assert midway["game"] == "3cp" and midway["dealer"] == ["Ks"]
    assert midway["spots"][0] == {"seat": 1, "cards": ["As"], "bets": {"ante": 100}, "play": None}
    assert midway["spots"][-1] == {"seat": 6, "cards": ["Ts"], "bets": {"pair_plus": 50}}
    with pytest.raises(IllegalAction):
        r.settle_input()
    for card in cards[6:]:
        r.deal(card)
    while r.to_act() is not None:
        r.decide(r.to_act(), "play")
    assert r.phase == "showdown"
    assert r.as_dealt() == r.settle_input() == r.record().round
