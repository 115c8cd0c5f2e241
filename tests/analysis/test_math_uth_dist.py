"""The UTH net-result distribution counted in the pass (`uth_dist`): one deal's cells against the engine's own
settlements, one starting hand against a brute-force count, the totals of a pass over a few boards, and the PAR
sheet and certificate made from such figures."""

import json
import re
from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from engine.cards import DECK, parse_cards
from engine.paytables import load_profile, read_profile
from engine.ultimate_holdem import UthHand, UthPlay, UthSpot, settle_uth
from cli import main
from analysis import cache
from analysis.par import bet_figures
from analysis.uth.edges import _play, figures_from, rules_key, rules_of
from analysis.uth.dist import RESULTS, expected, layout, nets, optimal_cells
from analysis.uth.deals import FLOP_PLACES, deal_values, run_pass
from analysis.uth.symmetry import pair_index, symmetry, triple_index

BOARDS = slice(5000, 5004)  # four representative boards: the subproblem the pass runs on here
STREET = {4: "preflop", 3: "preflop", 2: "flop", 1: "river"}


@pytest.fixture(scope="module")
def sym():
    return symmetry()


def settled(rules, hole, board, dealer, multiple):
    """(Ante + Blind + Play, Trips) net results per Ante, as the engine settles them (stakes of 2 chips)."""
    play = UthPlay(STREET[multiple], multiple) if multiple else None
    spot = UthSpot(1, tuple(DECK[c] for c in hole), {"ante": 2, "blind": 2, "trips": 2}, play)
    r = settle_uth(UthHand(tuple(DECK[c] for c in dealer), tuple(DECK[c] for c in board), (spot,)), rules).spot(1).results
    return Fraction(r["ante"] + r["blind"] + r.get("play", 0), 2), Fraction(r["trips"], 2)


def cell_results(rules, lay, weights):
    """A cells vector as a Counter of (Ante + Blind + Play, Trips) net results."""
    abp, trips = nets(rules, lay)
    out = Counter()
    for w, a, t in zip(np.asarray(weights).tolist(), abp, trips):
        if w:
            out[a, t] += int(w)
    return out


@pytest.mark.parametrize("profile", ["standard", "default"])
def test_one_deals_cells_are_the_engines_settlements(profile):
    """On one board, each of a few holdings' 990 dealer hands settled by the engine at 4x, 1x and folded: the
    same net results, as often, as the deal's cells (its dealer hands by `RESULTS`, its hand's group)."""
    rules = load_profile(profile).uth
    lay = layout(rules)
    board = sorted(c.index for c in parse_cards("Kh 7d 7s 2c 9h"))
    values, first, second, cat = deal_values(rules, np.array([board]))
    for hole in ("Kd 2d", "Ah 3h", "7c 7h", "Qs Js", "5c 4d"):
        cards = [c.index for c in parse_cards(hole)]
        p = int(np.flatnonzero((first[0] == min(cards)) & (second[0] == max(cards)))[0])
        counts = values["results"][0, p]
        assert counts.sum() == 990 and len(counts) == len(RESULTS)
        rest = [c for c in range(52) if c not in board and c not in cards]
        for multiple in (4, 1, 0):
            engine = Counter(settled(rules, cards, board, dealer, multiple) for dealer in combinations(rest, 2))
            cells = np.zeros(lay.cells, dtype=np.int64)
            start = (lay.line(multiple) * len(lay.groups) + int(lay.group_of[cat[0, p]])) * len(RESULTS)
            cells[start:start + len(RESULTS)] = counts
            assert cell_results(rules, lay, cells) == engine, (hole, multiple)


@pytest.fixture(scope="module", params=["default", "standard"])
def partial(request, sym):
    rules = load_profile(request.param).uth
    sums = run_pass(rules, sym, BOARDS)
    return rules, sums, figures_from(rules, sym, sums)


def test_the_distribution_adds_up_to_the_passs_expected_values(partial):
    rules, sums, figures = partial
    for key in ("ante_blind_play", "simple_strategy"):
        bet = figures[key]
        assert sum(Fraction(o["probability"]) for o in bet["outcomes"]) == 1
        assert expected(bet["outcomes"]) == -Fraction(bet["house_edge_exact"])  # the mean is the EV, exactly
        assert sum(o["weight"] for o in bet["outcomes"]) == int(sums.cells["bet"].sum())
        sheet = bet_figures(key, key, bet)
        assert sheet.exact and sheet.std_dev > 0
    trips = figures["trips"]
    assert sum(Fraction(o["probability"]) for o in trips["outcomes"]) == 1
    assert float(-expected(trips["outcomes"])) == pytest.approx(trips["house_edge"], abs=1e-12)
    joint = figures["joint"]["ante_blind_play+trips"]
    assert Fraction(joint["house_edge"]) == (Fraction(figures["ante_blind_play"]["house_edge_exact"])
                                             - expected(trips["outcomes"])) / 2
    if rules.trips_paid_on == "win":  # paid on a win: its outcomes are the play's, a push on a tie
        assert "Trips net 0" in {o["outcome"] for o in trips["outcomes"]}


def test_one_starting_hand_against_a_brute_force_count(partial, sym):
    """A starting hand that checks pre-flop, betting on some flops and not others: every deal of it on the
    boards of the pass, each flop's line by the decisions taken, each dealer hand settled by the engine."""
    rules, sums, _ = partial
    lay = layout(rules)
    optimal = _play(rules, sym, sums, None, None, "river_best", "river_multiple", "trips_river")
    preflop, flop_bets, flop_m = optimal["_preflop"], optimal["_flop"], optimal["_flop_m"]
    boards, weights = sym.boards[BOARDS].astype(np.int64), sym.board_weight[BOARDS]
    values, first, second, _ = deal_values(rules, boards)
    holding = pair_index(first, second)
    flops = triple_index(boards[:, FLOP_PLACES])
    where = sym.flop_class[sym.hole_class[holding][:, :, None],
                           sym.triple_perm[sym.sigma[holding][:, :, None], flops[:, None, :]]]
    mixed = [h for h in range(len(sym.hole_rep)) if not preflop[h] and sym.hole_orbit[h] == 4
             and 0 < flop_bets[where[sym.hole_class[holding] == h]].mean() < 1]
    assert mixed
    h = mixed[0]
    brute = Counter()
    for row, p in zip(*np.nonzero(sym.hole_class[holding] == h)):
        board, cards = boards[row].tolist(), [int(first[row, p]), int(second[row, p])]
        lines = Counter(int(flop_m[c]) if flop_bets[c] else int(values["river_multiple"][row, p]) for c in where[row, p])
        rest = [c for c in range(52) if c not in board and c not in cards]
        for dealer in combinations(rest, 2):
            for multiple, flops_on_it in lines.items():
                brute[settled(rules, cards, board, dealer, multiple)] += int(weights[row]) * flops_on_it
    cells = optimal_cells(lay, sym.class_hole, len(sym.hole_rep), sums.cells["bet"], sums.cells["river"],
                          flop_bets, flop_m, preflop, optimal["_pre_m"])
    assert cell_results(rules, lay, cells[h]) == brute


def test_a_par_sheet_and_a_certificate_of_uth_figures(partial, tmp_path, monkeypatch, capsys):
    """Figures of the pass over a few boards, cached under the standard profile's key: the PAR sheet reads
    them, Ante + Blind + Play with Trips has its standard deviation from the joint distribution, and the
    certificate carries the UTH sheet."""
    rules, _, figures = partial
    name = "standard" if rules_key(rules) == rules_key(rules_of(read_profile("standard"))) else "default"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.store("uth", rules_key(rules), json.loads(json.dumps(figures)))
    assert main(["math", "par", "--game", "uth", "--profile", name, "--format", "json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    abp = sheet["bets"]["ante_blind_play"]
    assert abp["house_edge_exact"] == figures["ante_blind_play"]["house_edge_exact"]
    assert sum(o["weight"] for o in abp["outcomes"]) == sum(o["weight"] for o in figures["ante_blind_play"]["outcomes"])
    both = sheet["combinations"]["ante_blind_play+trips"]
    assert both["std_dev"] is not None and "std_dev_bounds" not in both
    assert both["house_edge"] == pytest.approx(float(Fraction(figures["joint"]["ante_blind_play+trips"]["house_edge"])))
    out = tmp_path / "cert.json"
    bare = tmp_path / f"{name}.toml"  # the profile without the approved figures it ships with (the pass's are partial)
    bare.write_text(re.sub(r"\n\[(?:uth|3cp)\.approved\]\n(?:[^\[\n].*\n?)*", "\n", read_profile(name).text))
    assert main(["math", "certify", "--profile", str(bare), "--out", str(out)]) == 0
    cert = json.loads(out.read_text())
    assert cert["figures"]["uth"]["ante_blind_play"] == pytest.approx(figures["ante_blind_play"]["house_edge"])
    assert "ante_blind_play+trips" in cert["figures"]["uth"]
