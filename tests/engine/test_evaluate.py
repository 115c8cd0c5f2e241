"""Hand evaluators: every worked example of docs/rules.md "Hand rankings" (and the 000 pages it points to), names, errors."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.errors import CardError
from engine.evaluate import (
    HandValue,
    ace_five_low,
    badugi,
    deuce_seven_low,
    high,
    low8,
    omaha_high,
    omaha_low8,
    three_card,
)


def H(text: str) -> HandValue:
    return high(parse_cards(text))


def strs(value: HandValue) -> set[str]:
    return {str(c) for c in value.cards}


# --- docs/rules.md "Hand rankings": the seven comparisons of 003 and the Hold'em split of 000 ---------

@pytest.mark.parametrize(
    ("winner", "loser"),
    [
        ("Ac 3h 4d 6s 7s", "Ks Qs Jc 9c 8d"),
        ("Ac Jh 9s 8d 6h", "Ah Jc 9d 8c 2s"),
        ("Ac Ts Jd 2h 4c", "7c Td 8c 3c Ad"),
        ("8d 7c Kc 8h 3d", "Qh Jc 8s 9s 8c"),
        ("8s 8d Qc Qd 6c", "Js Jd Tc Th Ah"),
        ("5h 5d 5s 6c 6d", "3c 3d 3s Kh Kd"),
    ],
)
def test_rules_high_comparisons(winner: str, loser: str) -> None:
    assert H(winner) > H(loser)
    assert H(loser) < H(winner)


def test_holdem_split_board_straight_for_both() -> None:
    board = "2h Jc Qc Ks Ad "
    one, two = H(board + "Ts 9c"), H(board + "Tc 2c")
    assert one.strength == two.strength
    assert one.name == two.name == "Straight, ace high"
    assert {str(c)[0] for c in one.cards} == set("AKQJT")


def test_no_wrap_around_and_wheel_is_lowest_straight() -> None:
    assert H("Qh Kd Ac 2s 3h").category == "high_card"
    wheel, six = H("Ah 2d 3c 4s 5h"), H("2h 3d 4c 5s 6h")
    assert wheel.category == six.category == "straight"
    assert wheel < six
    assert wheel > H("Ah Ad Ac 2s 3h")


def test_suits_never_break_ties() -> None:
    assert H("As Kd 9c 7h 4s").strength == H("Ah Kc 9d 7s 4c").strength


# --- Omaha: the four worked boards of 000 ("Exemples", exactly 2 + 3) -------------------------

def test_omaha_board_one_flush_needs_two_hole_hearts() -> None:
    board = parse_cards("Th 7s 2h 3h Kh")
    one_heart = omaha_high(parse_cards("Ah 9c 9d 8s"), board)
    assert one_heart.category != "flush"
    assert high(parse_cards("Ah 9c") + board).category == "flush"  # Hold'em: one heart is enough
    nuts = omaha_high(parse_cards("Ah 4h 9d 8s"), board)
    assert nuts.name == "Flush, ace high"
    second = omaha_high(parse_cards("Qh 4h 9d 8s"), board)
    assert nuts > second and second.category == "flush"


def test_omaha_board_two_straights_need_two_hole_cards() -> None:
    board = parse_cards("7h 8h 9s Tc Jd")
    assert high(parse_cards("Qs 2c") + board).name == "Straight, queen high"  # Hold'em
    assert omaha_high(parse_cards("Qs 2c 3d 4h"), board).category != "straight"
    assert omaha_high(parse_cards("5s 6c 2d 3h"), board).name == "Straight, nine high"
    assert omaha_high(parse_cards("Ks Qc 2d 3h"), board).name == "Straight, king high"
    for hole in ("7c 8d 2s 3h", "8c 9d 2s 3h", "9c Td 2s 3h", "Th Js 2d 3h", "Jc 7d 2s 3h"):
        assert omaha_high(parse_cards(hole), board).name == "Straight, jack high", hole
    for hole in ("Qs Jc 2d 3h", "Qs Th 2d 3h", "Qs 9c 2d 3h", "Qs 8c 2d 3h"):
        assert omaha_high(parse_cards(hole), board).name == "Straight, queen high", hole


def test_omaha_board_three_nobody_has_quads() -> None:
    board = parse_cards("Kh Ks Kc Kd 9s")
    assert high(parse_cards("Ac 2d") + board).name == "Four of a kind, kings"  # Hold'em
    aces = omaha_high(parse_cards("Ac Ad 2h 3h"), board)
    queens = omaha_high(parse_cards("Qc Qd 2h 3h"), board)
    assert aces.name == "Full house, kings full of aces"
    assert queens.name == "Full house, kings full of queens"
    assert aces > queens
    assert omaha_high(parse_cards("Ac 2d 3h 4h"), board).category == "three_of_a_kind"


def test_omaha_board_four_quads_with_the_hole_kicker() -> None:
    board = parse_cards("Kc Kh Ks 7s As")
    assert high(parse_cards("Kd 2c") + board).name == "Four of a kind, kings"  # Hold'em nuts
    assert high(parse_cards("Ac Ad") + board).name == "Full house, aces full of kings"
    ak = omaha_high(parse_cards("Ac Kd 2h 3h"), board)
    kq = omaha_high(parse_cards("Kd Qc 2h 3h"), board)
    assert ak.name == kq.name == "Four of a kind, kings"
    assert "Ac" in strs(ak) and "Qc" in strs(kq)
    assert ak > kq


def test_omaha_checks_counts() -> None:
    with pytest.raises(CardError, match="hole"):
        omaha_high(parse_cards("As Kd 2c"), parse_cards("3h 4h 5h"))
    with pytest.raises(CardError, match="board"):
        omaha_high(parse_cards("As Kd 2c 3c"), parse_cards("3h 4h"))
    with pytest.raises(CardError, match="duplicate card 3h"):
        omaha_high(parse_cards("As Kd 2c 3h"), parse_cards("3h 4h 5h"))


# --- Omaha hi-lo: the two worked examples of 000 ---------------------------------------------

def test_omaha_hilo_first_example_high_and_low_split() -> None:
    board = parse_cards("4h 5c 7h Qs Ad")
    one, two = parse_cards("Ah 2s Kh Ks"), parse_cards("As 3s Qh Qd")
    high_two = omaha_high(two, board)
    assert high_two > omaha_high(one, board)
    assert high_two.name == "Three of a kind, queens"
    assert strs(high_two) == {"Qh", "Qd", "Qs", "Ad", "7h"}
    low_one, low_two = omaha_low8(one, board), omaha_low8(two, board)
    assert low_one is not None and low_two is not None
    assert low_one > low_two
    assert strs(low_one) == {"7h", "5c", "4h", "2s", "Ah"}
    assert low_one.name == "7-5-4-2-A low"


def test_omaha_hilo_second_example_scoop() -> None:
    board = parse_cards("Kh 3d 4d 8s 2d")
    one, two = parse_cards("Ah 2s Qd Ks"), parse_cards("6h 7h Td Jd")
    high_two = omaha_high(two, board)
    assert high_two > omaha_high(one, board)
    assert high_two.name == "Flush, jack high"
    assert strs(high_two) == {"2d", "3d", "4d", "Td", "Jd"}
    low_one, low_two = omaha_low8(one, board), omaha_low8(two, board)
    assert low_one is not None and low_two is not None
    assert low_one.name == "8-4-3-2-A low"  # the paired deuce forces the eight
    assert low_two.name == "7-6-4-3-2 low"
    assert strs(low_two) == {"7h", "6h", "4d", "3d", "2d"}
    assert low_two > low_one


def test_omaha_low_none_without_three_low_board_cards() -> None:
    assert omaha_low8(parse_cards("Ah 2s 3c 4d"), parse_cards("Kh Qd 8s 7d 9c")) is None


# --- Low 8-or-better ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("2s 3c 5h 6h 7h", "As 2c 3h 4c 8s"),
        ("7c 6d 5h 4s 3c", "8c 4d 3h 2s Ac"),
        ("6c 5d 4h 3s 2c", "7c 4d 3h 2s Ac"),
        ("8c 6d 5h 4s 3c", "8c 7d 3h 2s Ac"),
        ("7c 5d 4h 3s 2c", "7c 6d 3h 2s Ac"),
        ("8c 6d 5h 4s 2c", "8c 6d 5h 4s 3c"),
        ("8c 6d 5h 4s Ac", "8c 6d 5h 4s 2c"),
    ],
)
def test_low8_order_from_000(better: str, worse: str) -> None:
    b, w = low8(parse_cards(better)), low8(parse_cards(worse))
    assert b is not None and w is not None
    assert b > w


def test_low8_qualifier_and_ignored_straights_flushes() -> None:
    assert low8(parse_cards("9c 5d 4h 3s 2c")) is None
    assert low8(parse_cards("2c 2d 4h 5s 6c")) is None  # a pair does not qualify, low as it is
    wheel = low8(parse_cards("Ac 2c 3c 4c 5c"))
    assert wheel is not None and wheel.name == "5-4-3-2-A low" and wheel.category == "low"
    suited, offsuit = low8(parse_cards("2h 3h 5h 6h 7h")), low8(parse_cards("2s 3c 5h 6h 7h"))
    assert suited is not None and offsuit is not None and suited.strength == offsuit.strength
    seven = low8(parse_cards("Kc 8d 7h 2s 3c 4d Ah"))
    assert seven is not None and seven.name == "7-4-3-2-A low"


# --- A-5 low (razz) and 2-7 low -----------------------------------------------------------------

def test_razz_order() -> None:
    assert ace_five_low(parse_cards("3c 4d 5h 6s 7c")) > ace_five_low(parse_cards("Ac 2d 3h 4s 8c"))
    assert ace_five_low(parse_cards("Ac 2c 3c 4c 5c")).name == "5-4-3-2-A low"
    assert ace_five_low(parse_cards("Kc Qd Jh 9s 8c")) > ace_five_low(parse_cards("Ac Ad 2h 3s 4c"))
    seven = ace_five_low(parse_cards("Kc Kd 7h 2s 3c 4d Ah"))
    assert seven.name == "7-4-3-2-A low" and seven.category == "low"
    paired = ace_five_low(parse_cards("Ac Ad 2h 3s 4c"))
    assert paired.category == "pair" and paired.name.startswith("Pair of aces")


def test_deuce_seven() -> None:
    best = deuce_seven_low(parse_cards("7h 5c 4d 3s 2h"))
    assert best.name == "7-5-4-3-2 low" and best.category == "high_card"
    ace = deuce_seven_low(parse_cards("Ah 5c 4d 3s 2h"))
    assert ace.category == "high_card" and ace.name == "A-5-4-3-2 low"
    assert deuce_seven_low(parse_cards("Kh Qc Jd 9s 8h")) > ace
    straight = deuce_seven_low(parse_cards("6h 5c 4d 3s 2h"))
    assert straight.category == "straight"
    assert deuce_seven_low(parse_cards("Ah Kc Qd Js 9h")) > straight
    assert deuce_seven_low(parse_cards("Ah Kc Qd Js 9h")) > deuce_seven_low(parse_cards("2h 2c 3d 4s 5h"))
    flush = deuce_seven_low(parse_cards("7h 5h 4h 3h 2h"))
    assert flush.category == "flush"
    assert deuce_seven_low(parse_cards("2h 2c 3d 4s 5h")) > flush
    assert deuce_seven_low(parse_cards("7h 5h 4h 3h 2h 8c Kd")).name == "8-5-4-3-2 low"


# --- Badugi: the four examples of 000 -------------------------------------------------------------

def test_badugi_examples() -> None:
    one = badugi(parse_cards("Ah 2c 3d 4s"))
    assert one.category == "badugi_4" and one.name.startswith("4-card 4")
    two = badugi(parse_cards("Ah 2c 3d 3c"))
    assert two.category == "badugi_3" and two.name.startswith("3-card 3")
    assert strs(two) == {"Ah", "2c", "3d"}
    three = badugi(parse_cards("2c 3c 7h 9s"))
    assert three.category == "badugi_3" and three.name.startswith("3-card 9")
    assert strs(three) == {"2c", "7h", "9s"}
    ten, nine = badugi(parse_cards("Ah 2c 3d Ts")), badugi(parse_cards("4h 6d 7c 9s"))
    assert ten.name.startswith("4-card T") and nine.name.startswith("4-card 9")
    assert nine > ten
    assert one > nine > two > three
    assert two > badugi(parse_cards("Ah Ac 2h 2c"))


# --- Three Card Poker ------------------------------------------------------------------------------

def test_three_card_order_and_names() -> None:
    order = ["Qs Js Ts", "7c 7d 7h", "Ah Kd Qc", "Ac 2d 3h", "2c 5c 9c", "Qh Qd 5s", "Ah Kd Jc"]
    values = [three_card(parse_cards(t)) for t in order]
    assert [v.category for v in values] == [
        "straight_flush", "three_of_a_kind", "straight", "straight", "flush", "pair", "high_card"]
    assert values == sorted(values, reverse=True)
    assert values[2].name == "Straight, ace high" and values[3].name == "Straight, three high"
    assert three_card(parse_cards("Kd Ah Qc")).strength == values[2].strength
    assert three_card(parse_cards("Kh Ah Qh")).name == "Straight flush, ace high"
    assert three_card(parse_cards("Qh Qd 5s")).name == "Pair of queens"
    assert three_card(parse_cards("Qh Kh Ah")).category == "straight_flush"
    assert three_card(parse_cards("Kh Ah 2h")).category == "flush"  # no wrap-around


# --- Names a dealer reads ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("cards", "name", "category"),
    [
        ("As Ks Qs Js Ts 2c 2d", "Royal flush", "royal_flush"),
        ("9h 8h 7h 6h 5h Ah", "Straight flush, nine high", "straight_flush"),
        ("Ah 2h 3h 4h 5h", "Straight flush, five high", "straight_flush"),
        ("9c 9d 9h 9s Kd 2c", "Four of a kind, nines", "four_of_a_kind"),
        ("5h 5d 5s 6c 6d", "Full house, fives full of sixes", "full_house"),
        ("Kh 9h 7h 4h 2h Qc", "Flush, king high", "flush"),
        ("Ah Kd Qc Jc Ts", "Straight, ace high", "straight"),
        ("Ah 2d 3c 4c 5s", "Straight, five high", "straight"),
        ("7c 7d 7h Kd 2c", "Three of a kind, sevens", "three_of_a_kind"),
        ("Qc Qd 8h 8d 2c", "Two pair, queens and eights", "two_pair"),
        ("6c 6d Ah 8d 2c", "Pair of sixes", "pair"),
        ("Ac Jd 9h 8d 2c", "High card, ace", "high_card"),
    ],
)
def test_high_names(cards: str, name: str, category: str) -> None:
    value = H(cards)
    assert value.name == name
    assert value.category == category
    assert len(value.cards) == 5


def test_best_five_cards_are_the_ones_that_make_the_hand() -> None:
    assert strs(H("As Ks Qs Js Ts 2c 2d")) == {"As", "Ks", "Qs", "Js", "Ts"}
    assert strs(H("Kh 9h 7h 4h 2h Qc 3h")) == {"Kh", "9h", "7h", "4h", "3h"}
    assert [str(c) for c in H("5h 5d 5s 6c 6d 2c Ah").cards] == ["5s", "5h", "5d", "6d", "6c"]
    assert strs(H("Ah 2d 3c 4c 5s Kd 9h")) == {"Ah", "2d", "3c", "4c", "5s"}


# --- Errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("evaluator", "text", "message"),
    [
        (high, "As Kd 2c 3h", "needs 5 to 7 cards, got 4"),
        (high, "As Kd 2c 3h 4h 5h 6h 7h", "needs 5 to 7 cards, got 8"),
        (high, "As Kd 2c 3h As", "duplicate card As"),
        (three_card, "As Kd", "needs 3 cards, got 2"),
        (three_card, "As Kd Kd", "duplicate card Kd"),
        (low8, "As 2d 3c 4h", "needs 5 to 7 cards"),
        (ace_five_low, "As 2d 3c 4h", "needs 5 to 7 cards"),
        (deuce_seven_low, "As 2d 3c 4h 5c 6c 7c 8c", "needs 5 to 7 cards"),
        (badugi, "As 2d 3c", "needs 4 cards, got 3"),
        (badugi, "As 2d 3c As", "duplicate card As"),
    ],
)
def test_errors(evaluator, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CardError, match=message):
        evaluator(parse_cards(text))


def test_text_is_not_a_card() -> None:
    with pytest.raises(CardError, match="not a Card"):
        high(["As", "Kd", "Qc", "Jh", "Th"])  # type: ignore[list-item]
    with pytest.raises(CardError, match="parse_cards"):
        high("As Kd Qc Jh Th")  # type: ignore[arg-type]
