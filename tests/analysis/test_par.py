"""PAR sheets (`croupier math par`) and certificates (`croupier math certify`): the 3CP figures exact, every
sheet's totals, the joint distribution of Ante and Play with Pair Plus, approved figures held to 1e-6."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import types
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ProfileError
from engine.house_edge import DEALER_HANDS, PLAYER_HANDS, category_of, dealer_counts, hand_key, play_value
from engine.paytables import load_profile, parse_profile, read_profile
from cli import main
from analysis.figures import FiguresUnavailable, figures
from analysis.par import ParSheet, par_sheet

STANDARD = read_profile("standard")
BARE = re.sub(r"\n\[(?:uth|3cp)\.approved\]\n(?:[^\[\n].*\n?)*", "\n", STANDARD.text)
"""The standard profile's text without the approved tables it ships with (these tests file their own)."""


@pytest.fixture(autouse=True)
def no_uth_math(monkeypatch: pytest.MonkeyPatch) -> None:
    """UTH's figures take minutes when this build has them: these tests certify 3CP only (an import
    of the module finds None: what a build without it does)."""
    monkeypatch.setitem(sys.modules, "analysis.uth.edges", None)  # type: ignore[arg-type]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["math", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def sheet(name: str) -> ParSheet:
    text = read_profile(name)
    return par_sheet("3cp", text.parse(), text)


def test_the_3cp_figures_are_the_published_ones_exactly() -> None:
    default, standard = sheet("default"), sheet("standard")
    counts = {line.outcome: int(line.weight) for line in standard.bet("pair_plus").lines}
    assert counts == {"straight flush": 48, "three of a kind": 52, "straight": 720, "flush": 1096,
                      "pair": 3744, "high card": 16440}
    assert standard.bet("pair_plus").house_edge == Fraction(512, 22100)  # 1-4-6-30-40
    assert default.bet("pair_plus").house_edge == Fraction(1608, 22100)  # 1-3-6-30-40
    assert f"{float(standard.bet('pair_plus').house_edge) * 100:.4f}" == "2.3167"
    assert f"{float(default.bet('pair_plus').house_edge) * 100:.4f}" == "7.2760"
    assert default.bet("ante_play").house_edge == Fraction(686689, 20358520)
    assert f"{float(default.bet('ante_play').house_edge) * 100:.4f}" == "3.3730" and default.strategy == "Q-6-4"
    assert sum(line.weight for line in default.bet("ante_play").lines) == PLAYER_HANDS * DEALER_HANDS


@pytest.mark.parametrize("name", ["default", "standard", "fr_literal"])
def test_every_sheets_probabilities_add_to_1_and_its_returns_to_1_less_the_edge(name: str) -> None:
    s = sheet(name)
    with_lines = [b for b in (*s.bets, *s.combinations) if b.lines]
    assert {b.key for b in with_lines} >= {"ante_play", "pair_plus", "ante_play+pair_plus"}
    assert ("bonus" in {b.key for b in s.bets}) == (name == "fr_literal")
    for bet in with_lines:
        assert bet.exact
        assert sum(line.probability for line in bet.lines) == 1, bet.key
        assert sum(line.returns for line in bet.lines) == 1 - bet.house_edge, bet.key
        assert sum(line.share for line in bet.lines if line.share is not None) == 1, bet.key
        assert bet.hit_frequency == sum(line.probability for line in bet.lines if line.pays > 0)


def test_the_joint_standard_deviation_counts_the_correlation_through_the_players_hand() -> None:
    profile = load_profile("default")
    rules = profile.three_card_poker
    bonus = {c: Fraction(*o) for c, o in rules.ante_bonus.items()}
    pair_plus = {c: Fraction(*o) for c, o in rules.pair_plus.items()}
    # Hand by hand, from the engine's counts and decision alone: E[X], E[X^2] of Ante and Play, and Pair Plus's Y.
    first = second = cross = y1 = y2 = Fraction(0)
    for hand, dc in dealer_counts(rules.dealer_qualifier).items():
        cat = category_of(hand_key(hand))
        b = bonus.get(cat, Fraction(0))
        y = pair_plus.get(cat, Fraction(-1))
        if play_value(dc, b, "play") >= -DEALER_HANDS:
            results = ((dc.not_qualified, 1 + b), (dc.weaker_qualified, 2 + b), (dc.tied_qualified, b),
                       (dc.stronger, -2 + b))
        else:
            results = ((DEALER_HANDS, Fraction(-1)),)
        ex = sum((n * x for n, x in results), Fraction(0)) / DEALER_HANDS
        first += ex
        second += sum((n * x * x for n, x in results), Fraction(0)) / DEALER_HANDS
        cross += ex * y
        y1 += y
        y2 += y * y
    first, second, cross, y1, y2 = (v / PLAYER_HANDS for v in (first, second, cross, y1, y2))
    covariance = cross - first * y1
    joint = (second - first ** 2) + (y2 - y1 ** 2) + 2 * covariance
    s = sheet("default")
    both = next(c for c in s.combinations if c.key == "ante_play+pair_plus")
    assert both.variance == joint and covariance != 0
    assert both.expected == s.bet("ante_play").expected + s.bet("pair_plus").expected
    assert both.house_edge == -both.expected / 2 and both.stake == 2
    assert both.variance != s.bet("ante_play").variance + s.bet("pair_plus").variance  # independence would be wrong


def test_par_in_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "par", "--game", "3cp", "--profile", "standard")
    assert status == 0 and err == ""
    assert "| straight flush | 48 |" in out and "House edge 2.3167% (exact 128/5525)" in out
    status, out, _ = run(capsys, "par", "--game", "3cp", "--profile", "standard", "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["sha256"] == STANDARD.sha256
    assert Fraction(data["bets"]["ante_play"]["house_edge_exact"]) == Fraction(686689, 20358520)
    assert data["combinations"]["ante_play+pair_plus"]["std_dev"] > 0
    status, out, _ = run(capsys, "par", "--game", "3cp", "--profile", "standard", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0
    assert [r["bet"] for r in rows if r["kind"] == "combination"] == ["ante_play", "pair_plus", "ante_play+pair_plus"]
    pp = [r for r in rows if r["kind"] == "outcome" and r["bet"] == "pair_plus"]
    assert sum(int(r["weight"]) for r in pp) == 22100


def test_uth_says_plainly_when_this_build_has_no_figures(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "par", "--game", "uth", "--profile", "default")
    assert status == 2 and out == ""
    assert "UTH figures not available in this build" in err and "Traceback" not in err
    with pytest.raises(FiguresUnavailable, match="UTH figures not available in this build"):
        figures("uth", load_profile("default"))


def test_a_uth_sheet_from_its_figures_function_bounds_what_it_cannot_know(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The UTH figures' shape (analysis.figures); the numbers are small and made up.
    def uth_figures(profile: Any, *, progress: bool = False) -> dict[str, Any]:
        bet = {"house_edge": Fraction(1, 10), "outcomes": [
            {"outcome": "wins", "weight": 2, "probability": Fraction(2, 5), "pays": Fraction(5, 4)},
            {"outcome": "loses", "weight": 3, "probability": Fraction(3, 5), "pays": -1}]}
        trips = {"house_edge": 0.5, "outcomes": [{"outcome": "trips", "weight": 1, "probability": 0.25, "pays": 1.0},
                                                 {"outcome": "nothing", "weight": 3, "probability": 0.75, "pays": -1.0}]}
        return {"ante_blind_play": bet, "trips": trips, "simple_strategy": bet, "method": "made up"}

    monkeypatch.setitem(sys.modules, "analysis.uth.edges", types.SimpleNamespace(uth_figures=uth_figures))
    status, out, err = run(capsys, "par", "--game", "uth", "--profile", "default", "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert data["bets"]["ante_blind_play"]["house_edge_exact"] == "1/10"
    assert "house_edge_exact" not in data["bets"]["trips"]  # floats in, no exact figure claimed
    with_trips = data["combinations"]["ante_blind_play+trips"]
    assert with_trips["house_edge"] == pytest.approx(0.3) and with_trips["std_dev"] is None
    low, high = with_trips["std_dev_bounds"]
    sd1, sd2 = data["bets"]["ante_blind_play"]["std_dev"], data["bets"]["trips"]["std_dev"]
    assert (low, high) == pytest.approx((abs(sd1 - sd2), sd1 + sd2))
    assert "no joint distribution" in with_trips["note"]


def approved_profile(tmp_path: Path, approved: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(BARE.replace('name = "standard"', 'name = "house"') + "\n" + approved)
    return path


def test_certify_writes_the_profiles_hash_and_every_figure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = approved_profile(tmp_path, '[3cp.approved]\npair_plus = 0.0231674\nante_play = "686689/20358520"\n')
    out_file = tmp_path / "house.json"
    status, out, err = run(capsys, "certify", "--profile", str(path), "--out", str(out_file))
    assert status == 0, err
    cert = json.loads(out_file.read_text())
    assert cert["format"] == "croupier-paytable-certificate/1"
    assert cert["profile"]["sha256"] == read_profile(path).sha256 and cert["profile"]["name"] == "house"
    assert cert["figures"]["3cp"]["pair_plus"] == pytest.approx(512 / 22100, abs=1e-15)
    assert cert["figures"]["3cp"]["ante_play+pair_plus"] > 0
    assert cert["approved"]["3cp"]["ante_play"]["difference"] == 0.0
    assert cert["sheets"]["uth"] == {"available": False, "reason": "UTH figures not available in this build"}
    assert cert["date"].endswith("Z") and cert["software"]["version"]
    assert "UTH figures not available" in err


def test_certify_refuses_a_figure_that_is_not_the_approved_one_naming_the_bet(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = approved_profile(tmp_path, "[3cp.approved]\nante_play = 0.0337298\npair_plus = 0.0231694\n")  # 2e-6 off
    out_file = tmp_path / "house.json"
    status, out, err = run(capsys, "certify", "--profile", str(path), "--out", str(out_file))
    assert status == 1 and not out_file.exists()
    assert "3cp pair_plus" in err and "0.02316742" in err and "0.02316940" in err and "ante_play" not in err


def test_approved_figures_name_known_bets_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"\[3cp.approved\] pairplus: unknown bet .*ante_play, pair_plus, bonus"):
        parse_profile(BARE + "\n[3cp.approved]\npairplus = 0.02\n", "x.toml")
    with pytest.raises(ProfileError, match=r"\[uth.approved\] trips: a house edge must be a number"):
        parse_profile(BARE + "\n[uth.approved]\ntrips = [1]\n", "x.toml")
    path = approved_profile(tmp_path, "[uth.approved]\nbogus = 0.02\n")
    status, _, err = run(capsys, "certify", "--profile", str(path), "--out", str(tmp_path / "c.json"))
    assert status == 2 and "bogus: unknown bet" in err and "Traceback" not in err


def test_a_uth_figure_approved_cannot_be_certified_by_a_build_without_uth(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = approved_profile(tmp_path, "[uth.approved]\ntrips = 0.034979\n")
    status, _, err = run(capsys, "certify", "--profile", str(path), "--out", str(tmp_path / "c.json"))
    assert status == 2 and "uth trips: approved, but UTH figures not available in this build" in err
    assert not (tmp_path / "c.json").exists()
