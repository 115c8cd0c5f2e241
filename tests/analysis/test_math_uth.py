"""The UTH math's method on subproblems: the counting, one river decision against the engine's own settlement,
the suit symmetry, the simple strategy's rules, Trips exactly, and the cache `croupier math uth` reads."""

import json
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from engine.cards import DECK, parse_cards
from engine.evaluate import high_strength7
from engine.paytables import load_profile, read_profile
from engine.ultimate_holdem import UthHand, UthPlay, UthSpot, settle_uth
from cli import main
from analysis import cache
from analysis.batch_eval import categories, evaluate
from analysis.uth.edges import rules_key, rules_of, uth_figures
from analysis.uth.count import DEALER_HANDS, LOCAL_I, LOCAL_J, showdowns
from analysis.uth.deals import deal_values, qualifier_strength
from analysis.uth.simple import flop_raises, preflop_raises
from analysis.uth.symmetry import CARD_PERM, pair_index, symmetry, triple_index

SEVEN_CARD_COUNTS = {  # the published counts of the 133,784,560 seven-card hands (bench/eval7.py)
    "high_card": 23_294_460, "pair": 58_627_800, "two_pair": 31_433_400, "three_of_a_kind": 6_461_620,
    "straight": 6_180_020, "flush": 4_047_644, "full_house": 3_473_184, "four_of_a_kind": 224_848,
    "straight_flush": 37_260, "royal_flush": 4_324,
}


def idx(text):
    return [c.index for c in parse_cards(text)]


BOARDS = [idx("Kh 7d 7s 2c 9h"), idx("Ah Kh Qh 4h 3c"), idx("2c 3d 4h 5s 9c"), idx("Tc Td Th 5s 5c")]


@pytest.mark.parametrize("qualifier", [1 << 20, 12 << 16])  # a pair; Q-high
def test_counting_by_rank_matches_dealing_every_dealer_hand(qualifier):
    boards = np.array([sorted(b) for b in BOARDS])
    shown = showdowns(boards, qualifier)
    rng = np.random.default_rng(11)
    for row, board in enumerate(boards):
        for p in rng.choice(1081, 4, replace=False):
            a, b = int(shown.first[row, p]), int(shown.second[row, p])
            me = high_strength7(a, b, *map(int, board))
            rest = [c for c in range(52) if c not in board and c not in (a, b)]
            dealer = [high_strength7(x, y, *map(int, board)) for x, y in combinations(rest, 2)]
            assert len(dealer) == DEALER_HANDS
            assert shown.strength[row, p] == me
            assert shown.weaker[row, p] == sum(d < me for d in dealer)
            assert shown.at_most[row, p] == sum(d <= me for d in dealer)
            assert shown.unqualified[row, p] == sum(d < qualifier for d in dealer)


@pytest.mark.parametrize("profile", ["standard", "default"])
def test_river_values_are_the_engines_settlements_summed(profile):
    """One starting hand's river decision: play 1x and fold, summed over the 990 dealer hands as the
    engine settles them (Ante, Blind and Play of 2 chips each, Trips of 1), against the counting."""
    rules = load_profile(profile).uth
    board = sorted(idx("Kh 7d 7s 2c 9h"))
    values, first, second, _ = deal_values(rules, np.array([board]))
    for hole in ("Kd 2d", "Ah 3h", "7c 7h", "Qs Js"):
        cards = idx(hole)
        p = int(np.flatnonzero((first[0] == min(cards)) & (second[0] == max(cards)))[0])
        rest = [c for c in range(52) if c not in board and c not in cards]
        totals = {"play": 0, "fold": 0, "trips_play": 0, "trips_fold": 0}
        for x, y in combinations(rest, 2):
            for key, play in (("play", UthPlay("river", 1)), ("fold", None)):
                spot = UthSpot(1, tuple(DECK[c] for c in cards), {"ante": 2, "blind": 2, "trips": 1}, play)
                hand = UthHand((DECK[x], DECK[y]), tuple(DECK[c] for c in board), (spot,))
                r = settle_uth(hand, rules).spot(1).results
                totals[key] += r["ante"] + r["blind"] + r.get("play", 0)
                totals["trips_" + key] += r["trips"]
        unit = 2  # the Blind's 3:2 flush: pays are scaled by 2 in the pass; the stakes here are 2 chips
        assert values["ante_blind"][0, p] + values["play"][0, p] == totals["play"]
        assert values["river_best"][0, p] == max(totals["play"], totals["fold"])
        assert values["river_best"][0, p] == max(totals["play"], -2 * DEALER_HANDS * unit)
        assert values["trips_played"][0, p] == totals["trips_play"]
        assert values["trips_river"][0, p] == (totals["trips_play"] if totals["play"] > totals["fold"]
                                               else totals["trips_fold"])


@pytest.fixture(scope="module")
def sym():
    return symmetry()


def test_suit_symmetry_tables_count_every_deal(sym):
    assert len(sym.hole_rep) == 169 and sym.hole_orbit.sum() == 1326
    assert sorted(np.unique(sym.hole_orbit, return_counts=True)[1].tolist()) == [13, 78, 78]
    assert len(sym.boards) == 134_459 and sym.board_weight.sum() == 2_598_960
    assert sym.class_size.sum() == 1326 * 19_600
    per_hole = np.bincount(sym.class_hole, weights=sym.class_size) / sym.hole_orbit
    assert np.all(per_hole == 19_600)  # each starting hand's 19,600 flops, in its classes


def test_a_renamed_deal_is_in_the_same_class(sym):
    rng = np.random.default_rng(3)
    for _ in range(200):
        cards = rng.choice(52, 5, replace=False)
        perm = CARD_PERM[rng.integers(24)]

        def cls(c):
            h = pair_index(c[0], c[1])
            f = triple_index(np.array([c[2:]]))[0]
            return sym.flop_class[sym.hole_class[h], sym.triple_perm[sym.sigma[h], f]]
        assert cls(cards) >= 0 and cls(cards) == cls(perm[cards])


def test_qualifier_strengths():
    assert qualifier_strength(load_profile("default").uth.dealer_qualifier) == int(evaluate([idx("2c 2d 3h 4s 5c")])[0] >> 20 << 20)
    q = rules_of(load_profile("default")).dealer_qualifier
    assert str(q) == "pair"


def test_simple_strategy_rules_on_named_hands():
    def pre(text):
        a, b = parse_cards(text)
        hi, lo = max(a.rank, b.rank), min(a.rank, b.rank)
        return bool(preflop_raises(np.array([hi]), np.array([lo]), np.array([a.suit == b.suit]))[0])
    assert [pre(h) for h in ("3c 3d", "2c 2d", "Ac 2d", "Kh 2h", "Kh 4d", "Kh 5d", "Qh 6h", "Qh 5h", "Qh 8d",
                             "Qh 7d", "Jh 8h", "Jh 7h", "Jh Td", "Jh 9d", "Th 9h")] == [
        True, False, True, True, False, True, True, False, True, False, True, False, True, False, False]

    def flop(hole, board):
        return bool(flop_raises(np.array([idx(hole)]), np.array([idx(board)]))[0])
    assert flop("Kd 2c", "Kh 7d 7s")        # two pair, one of them hidden
    assert not flop("Ad Qc", "7h 7d 2s")    # the flop's own pair
    assert flop("9d 3c", "9h 7d 2s")        # hidden pair
    assert not flop("2d 2c", "Kh 7d 5s")    # pocket deuces
    assert flop("Td 3d", "Kd 7d 2s")        # four to a flush with a hidden ten
    assert not flop("9d 3d", "Kd 7d 2s")    # ... a hidden nine is not enough


@pytest.mark.soak  # 50 s: make soak (bench.batch_eval counts the same hands in make bench)
def test_trips_exact_by_the_seven_card_distribution(sym):
    """Every seven-card hand as a representative board and two cards (each hand 21 times): the published
    counts, and Trips 50-40-30-8-7-4-3 on the final hand at 3.4979%."""
    tally = np.zeros(10)
    for start in range(0, len(sym.boards), 2048):
        boards, w = sym.boards[start:start + 2048].astype(np.int64), sym.board_weight[start:start + 2048]
        shown = showdowns(boards, 1 << 20)
        tally += np.bincount(categories(shown.strength).ravel(), weights=np.repeat(w, 1081), minlength=10)
    counts = dict(zip(SEVEN_CARD_COUNTS, (tally // 21).astype(int).tolist()))
    assert counts == SEVEN_CARD_COUNTS and np.all(tally % 21 == 0)
    pays = {"three_of_a_kind": 3, "straight": 4, "flush": 7, "full_house": 8, "four_of_a_kind": 30,
            "straight_flush": 40, "royal_flush": 50}
    edge = -Fraction(sum(pays.get(c, -1) * n for c, n in counts.items()), 133_784_560)
    assert round(float(edge) * 100, 4) == 3.4979


def test_profile_data_mapping_and_text_give_one_key():
    text = read_profile("standard")
    import tomllib
    assert rules_key(rules_of(tomllib.loads(text.text))) == rules_key(rules_of(text)) == rules_key(rules_of(text.parse()))
    assert rules_key(rules_of(read_profile("default"))) != rules_key(rules_of(text))


def test_cached_figures_are_read_back_by_the_command(tmp_path, monkeypatch, capsys):
    """A second run reads the cache file named by the rules' hash (a file written here stands for the
    first run, whose figures are what it holds)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = rules_key(rules_of(read_profile("standard")))
    figures = {"trips": {"house_edge": 0.034979, "paid_on": "final hand", "outcomes": []},
               "ante_blind_play": {"house_edge_per_ante": 0.0218, "house_edge_exact": "1/2", "element_of_risk": 0.005,
                                   "average_total_bet_per_ante": 4.1, "preflop_raise": ["AA"],
                                   "play_rates": [{"outcome": "play_preflop", "probability": 0.5},
                                                {"outcome": "play_flop", "probability": 0.2}]},
               "simple_strategy": {"strategy": {"name": "n", "url": "u"}, "house_edge_per_ante": 0.0245,
                                   "element_of_risk": 0.006},
               "method": "m"}
    cache.store("uth", key, figures)
    assert (tmp_path / "croupier").is_dir() and cache.load("uth", key) == figures
    assert uth_figures(read_profile("standard")) == figures
    assert main(["math", "uth", "--profile", "standard", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out) == {"profile": "standard", **figures}  # no progress bar off a terminal
    assert main(["math", "uth", "--profile", "standard"]) == 0
    assert "house edge 2.1800% of the Ante" in capsys.readouterr().out


def test_bad_profile_named(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[uth]\nmax_spots = 0\n")
    assert main(["math", "uth", "--profile", str(bad)]) == 2
    assert "bad.toml" in capsys.readouterr().err
