"""Three Card Poker house edges: the published figures, the Q-6-4 rule, and the counting checked by brute force."""

from fractions import Fraction
from itertools import combinations

import pytest

from engine.cards import DECK, parse_cards
from engine.evaluate import three_card
from engine.paytables import THREE_CARD_CATEGORIES, Qualifier, load_profile
from engine.house_edge import (
    CATEGORIES,
    DEALER_HANDS,
    PLAYER_HANDS,
    WEAKEST,
    DealerCounts,
    all_hands,
    as_json,
    ante_play_edge,
    category_counts,
    category_of,
    dealer_counts,
    describe_key,
    hand_key,
    high_card_key,
    pair_plus_edge,
    play_value,
    profile_edges,
    qualifier_key,
    three_card_poker_edges,
)

ANTE_BONUS = {"straight": 1, "three_of_a_kind": 4, "straight_flush": 5}
PAIR_PLUS_DEFAULT = {"pair": 1, "flush": 3, "straight": 6, "three_of_a_kind": 30, "straight_flush": 40}
PAIR_PLUS_STANDARD = {**PAIR_PLUS_DEFAULT, "flush": 4}


def percent(x: Fraction, places: int = 2) -> float:
    return round(float(x * 100), places)


def key(text: str) -> int:
    return hand_key([c.index for c in parse_cards(text)])


@pytest.fixture(scope="module")
def counts() -> dict[tuple[int, int, int], DealerCounts]:
    return dealer_counts("Q-high")


def test_category_counts_are_the_published_ones():
    assert category_counts() == {
        "straight_flush": 48, "three_of_a_kind": 52, "straight": 720,
        "flush": 1096, "pair": 3744, "high_card": 16440,
    }
    assert PLAYER_HANDS == 22100 and DEALER_HANDS == 18424
    assert CATEGORIES == THREE_CARD_CATEGORIES  # the profiles' keys, in the same order


def test_order_of_rules_md():
    # straight flush > three of a kind > straight > flush > pair > high card; A-K-Q top, A-2-3 bottom.
    # Weakest and strongest of each category, weakest category first.
    ladder = ["2c3d5h", "AsKdJh", "2c2d3h", "AsAdKh", "2c4c6c", "AsKsJs", "Ac2d3h", "AcKdQh",
              "2c2d2h", "AcAdAh", "Ac2c3c", "AsKsQs"]
    keys = [key(t) for t in ladder]
    assert keys == sorted(set(keys))
    assert [category_of(k) for k in keys[::2]] == list(CATEGORIES)
    assert key("Ac2d3h") < key("2c3d4h") and key("QcKdAh") > key("JcQdKh")
    assert key("QcKdAh") == key("QsKhAd")  # suits never break ties
    assert category_of(key("QcKdAc")) == "straight" and category_of(key("Qc2dAh")) == "high_card"
    assert describe_key(key("Qh6c4d")) == "Q-6-4" and describe_key(key("2c3c4c")) == "straight flush to 4"


def test_qualifier_spellings():
    assert qualifier_key("Q-high") == qualifier_key("Q") == qualifier_key(12) == high_card_key((12, 3, 2))
    assert qualifier_key("Q-6-4") == key("Qc6d4h")
    assert category_of(qualifier_key("pair")) == "pair" and qualifier_key("pair") == key("2c2d3h")
    assert qualifier_key(Qualifier.parse("Q-high", THREE_CARD_CATEGORIES)) == qualifier_key("Q-high")
    assert qualifier_key(Qualifier.parse("flush", THREE_CARD_CATEGORIES)) == key("2c3c5c")
    for category in CATEGORIES:
        assert WEAKEST[category] == min(hand_key(h) for h in all_hands() if category_of(hand_key(h)) == category)
    for bad in ("queen", "Q-Q-2", "Q-J-T", "", 1, 15, "Z-high"):
        with pytest.raises(ValueError):
            qualifier_key(bad)


def brute_force(hand: tuple[int, int, int], qualifier: int) -> DealerCounts:
    rest = [i for i in range(52) if i not in hand]
    mine = hand_key(hand)
    nq = weaker = tied = stronger = 0
    for dealer in combinations(rest, 3):
        theirs = hand_key(dealer)
        if theirs < qualifier:
            nq += 1
        elif theirs < mine:
            weaker += 1
        elif theirs == mine:
            tied += 1
        else:
            stronger += 1
    return DealerCounts(nq, weaker, tied, stronger)


SAMPLE = ["Qh6c4d", "Qs6s3d", "Qc3d2h", "Jc9d7h", "4c3d2h", "AcKdQh", "2c2d3h", "AhAsKd", "2c5c9c",
          "AcKcJc", "Ac2d3h", "QcKdAh", "2c3c4c", "AsKsQs", "2c2d2h", "AcAdAh", "KhQdJc", "Qd5h3s"]


@pytest.mark.parametrize("text", SAMPLE)
def test_inclusion_exclusion_matches_brute_force(text, counts):
    hand = tuple(sorted(c.index for c in parse_cards(text)))
    assert counts[hand] == brute_force(hand, qualifier_key("Q-high"))


@pytest.mark.parametrize("text", ["Qh6c4d", "2c2d3h", "2c2d4h", "AsKsJs", "Jc9d7h"])
def test_other_qualifier_matches_brute_force(text):
    counts = dealer_counts("pair")
    hand = tuple(sorted(c.index for c in parse_cards(text)))
    assert counts[hand] == brute_force(hand, qualifier_key("pair"))


def test_every_hand_sees_all_dealer_hands(counts):
    assert len(counts) == PLAYER_HANDS
    for dc in counts.values():
        assert min(dc.not_qualified, dc.weaker_qualified, dc.tied_qualified, dc.stronger) >= 0
        assert dc.not_qualified + dc.weaker_qualified + dc.tied_qualified + dc.stronger == DEALER_HANDS
    # Between two qualifying hands, every deal the player wins is one the dealer would win with
    # the hands swapped (a hand stronger than a qualifying one qualifies).
    qualifying = qualifier_key("Q-high")
    player_beats = sum(dc.weaker_qualified for dc in counts.values())
    assert player_beats == sum(dc.stronger for h, dc in counts.items() if hand_key(h) >= qualifying)
    assert sum(dc.tied_qualified for dc in counts.values()) % 2 == 0


def test_ante_play_house_edge_is_3_37_percent_under_q64(counts):
    edge = ante_play_edge(ANTE_BONUS, "Q-high", "play", counts=counts)
    assert percent(edge.house_edge) == 3.37
    assert edge.house_edge == Fraction(686689, 20358520)  # 3.3730 %
    assert percent(edge.element_of_risk) == 2.01
    assert edge.play_probability == Fraction(149, 221)  # 67.42 % of hands are played
    assert edge.strategy == "Q-6-4" and edge.threshold
    # The rule fixed at Q-6-4 is the optimum; one step either way costs the player.
    assert ante_play_edge(ANTE_BONUS, counts=counts, play_from="Q-6-4").house_edge == edge.house_edge
    assert ante_play_edge(ANTE_BONUS, counts=counts, play_from="Q-6-3").house_edge > edge.house_edge
    assert ante_play_edge(ANTE_BONUS, counts=counts, play_from="Q-6-5").house_edge > edge.house_edge


def test_q64_played_q63_folded_whatever_the_suits(counts):
    bonus = {k: Fraction(v) for k, v in ANTE_BONUS.items()}
    fold = Fraction(-DEALER_HANDS)
    q64, q63 = high_card_key((12, 6, 4)), high_card_key((12, 6, 3))
    seen = {q64: 0, q63: 0}
    for hand, dc in counts.items():
        k = hand_key(hand)
        value = play_value(dc, bonus.get(category_of(k), Fraction(0)))
        if k >= q64:
            assert value > fold, describe_key(k)
        else:
            assert value < fold, describe_key(k)
        if k in seen:
            seen[k] += 1
    assert seen == {q64: 60, q63: 60}  # 4^3 suitings less the 4 flushes
    edge = ante_play_edge(ANTE_BONUS, counts=counts)
    assert edge.weakest_played == q64 and edge.strongest_folded == q63 and edge.indifferent == 0
    # Every hand that Pair Plus pays is played: a Pair Plus lost on a fold never costs a winner.
    assert {c: n for c, n in edge.played if c != "high_card"} == {
        c: n for c, n in category_counts().items() if c != "high_card"}


def test_pair_plus_published_edges():
    default = pair_plus_edge(PAIR_PLUS_DEFAULT)
    standard = pair_plus_edge(PAIR_PLUS_STANDARD)
    assert percent(default.house_edge) == 7.28 and default.house_edge == Fraction(1608, 22100)
    assert percent(standard.house_edge) == 2.32 and standard.house_edge == Fraction(512, 22100)
    # Odds as (num, den) are the same pays.
    assert pair_plus_edge({k: (v, 1) for k, v in PAIR_PLUS_DEFAULT.items()}).house_edge == default.house_edge


@pytest.mark.parametrize("name, ante_play, pair_plus, bonus", [
    ("default", 3.37, 7.28, None),
    ("standard", 3.37, 2.32, None),
    ("fr_literal", 7.56, 7.28, 91.0),
])
def test_shipped_profiles(name, ante_play, pair_plus, bonus):
    edges = profile_edges(load_profile(name))
    assert percent(edges.ante_play.house_edge) == ante_play
    assert percent(edges.pair_plus.house_edge) == pair_plus
    assert edges.ante_play.strategy == "Q-6-4" and edges.qualifier == "Q-3-2 or better"
    assert (percent(edges.bonus, 0) if edges.bonus is not None else None) == bonus
    figures = as_json(edges)
    assert figures["ante_play"]["house_edge"] == float(edges.ante_play.house_edge)
    assert Fraction(figures["pair_plus"]["house_edge_exact"]) == edges.pair_plus.house_edge
    assert ("bonus" in figures) == (bonus is not None)


def test_literal_reading_of_003():
    # docs/rules.md: taken literally (the Ante paid 1 / 4 / 5 only when the player beats a qualified
    # dealer, no bonus otherwise) Ante-and-Play holds 7.56 %; a separate Bonus stake loses 91 %.
    literal = ante_play_edge({"three_of_a_kind": 3, "straight_flush": 4}, ante_bonus_on="beat_qualified")
    assert percent(literal.house_edge) == 7.56
    bonus_box = pair_plus_edge(ANTE_BONUS)
    assert round(float(bonus_box.house_edge) * 100) == 91


def test_no_bonus_and_other_switches_move_the_edge(counts):
    standard = ante_play_edge(ANTE_BONUS, counts=counts).house_edge
    assert ante_play_edge({}, counts=counts).house_edge > standard
    assert ante_play_edge(ANTE_BONUS, ante_bonus_on="win", counts=counts).house_edge > standard


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="unknown hand category 'royal'"):
        pair_plus_edge({"royal": 1})
    with pytest.raises(ValueError, match="negative pay"):
        pair_plus_edge({"pair": -1})
    with pytest.raises(ValueError, match="odds"):
        pair_plus_edge({"pair": (1, 0)})
    with pytest.raises(ValueError, match="odds"):
        pair_plus_edge({"pair": 1.5})
    with pytest.raises(ValueError, match="ante_bonus_on"):
        ante_play_edge(ANTE_BONUS, ante_bonus_on="always")


def test_both_bets_together():
    edges = three_card_poker_edges(PAIR_PLUS_STANDARD, ANTE_BONUS)
    assert percent(edges.ante_play.house_edge) == 3.37 and percent(edges.pair_plus.house_edge) == 2.32
    assert edges.qualifier == "Q-3-2 or better"


def test_all_hands_are_the_combinations():
    hands = list(all_hands())
    assert len(hands) == len(set(hands)) == PLAYER_HANDS


def test_order_agrees_with_the_evaluator_on_all_22100_hands():
    pairs = []
    for hand in all_hands():
        value = three_card([DECK[i] for i in hand])
        mine = hand_key(hand)
        assert value.category == category_of(mine), hand
        pairs.append((mine, value.strength))
    pairs.sort()
    # Sorted by this module's key, the evaluator's strengths rise with it and tie exactly where it ties.
    for (k0, s0), (k1, s1) in zip(pairs, pairs[1:]):
        assert (k0 == k1) == (s0 == s1) and s0 <= s1, (describe_key(k0), describe_key(k1))
    assert len({k for k, _ in pairs}) == len({s for _, s in pairs})


def test_all_407_million_deals_by_brute_force(counts):
    # Every player hand against every dealer hand, vectorised (numpy, the `analysis` extra):
    # an independent count of all 22,100 x 18,424 deals, without inclusion-exclusion.
    import numpy as np

    hands = list(all_hands())
    keys = np.array([hand_key(h) for h in hands], dtype=np.int32)
    masks = np.array([(1 << a) | (1 << b) | (1 << c) for a, b, c in hands], dtype=np.uint64)
    qualified = keys >= qualifier_key("Q-high")
    for start in range(0, len(hands), 500):
        mine = keys[start:start + 500, None]
        disjoint = (masks[start:start + 500, None] & masks[None, :]) == 0
        live = disjoint & qualified[None, :]
        got = np.stack([
            (disjoint & ~qualified[None, :]).sum(1),
            (live & (keys[None, :] < mine)).sum(1),
            (live & (keys[None, :] == mine)).sum(1),
            (live & (keys[None, :] > mine)).sum(1),
        ], axis=1)
        want = np.array([
            [dc.not_qualified, dc.weaker_qualified, dc.tied_qualified, dc.stronger]
            for dc in (counts[h] for h in hands[start:start + 500])
        ])
        assert (got == want).all(), hands[start]
