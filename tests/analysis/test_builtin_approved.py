"""The builtin profiles' approved house edges are `croupier math`'s: 3CP's counted again here, UTH's the shipped figures of the profile's rules (named by their sha256); the standard profile's are the published figures."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from analysis import cache
from analysis.certify import approved_figures, approved_toml
from analysis.uth.edges import rules_key, rules_of
from cli import main
from engine.paytables import BUILTIN_PROFILES, read_profile
from engine.ratings import bet_edges

PUBLISHED = {"uth": {"ante": "2.1850", "trips": "3.4979"}, "3cp": {"ante": "3.3730", "pair_plus": "2.3167"}}
"""The issue's published figures for the standard profile, in percent to four places."""

@pytest.mark.parametrize("name", BUILTIN_PROFILES)
def test_a_builtin_profiles_approved_uth_edges_are_the_shipped_figures_of_its_rules(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no cache of this machine's: the shipped figures alone
    text = read_profile(name)
    key = rules_key(rules_of(text))
    shipped = json.loads((cache.SHIPPED / f"uth-{cache.digest(key)}.json").read_text(encoding="utf-8"))
    assert shipped["key"] == key  # the file named by the sha256 of this profile's rules holds their figures
    approved = dict(text.parse().uth.approved)
    assert approved_figures(text, ("uth",))["uth"] == approved  # the PAR sheet of the shipped figures: exact
    assert approved["ante_blind_play"] == Fraction(shipped["figures"]["ante_blind_play"]["house_edge_exact"])
    assert float(approved["trips"]) == pytest.approx(shipped["figures"]["trips"]["house_edge"], abs=1e-15)


def test_every_shipped_figures_file_is_named_by_its_rules_sha256_and_is_a_builtin_profiles() -> None:
    files = sorted(cache.SHIPPED.glob("*.json"))
    filed = {f"uth-{cache.digest(rules_key(rules_of(read_profile(name))))}.json" for name in BUILTIN_PROFILES}
    assert {f.name for f in files} == filed and len(filed) == 2  # default and fr_literal: the same UTH rules
    for f in files:
        assert f.name == f"uth-{cache.digest(json.loads(f.read_text(encoding='utf-8'))['key'])}.json"


def test_the_standard_profile_rates_uth_with_the_published_figures_as_approved() -> None:
    text = read_profile("standard")
    edges = bet_edges("uth", text.parse(), text.sha256)
    assert {c: f"{float(edges.edges[c]) * 100:.4f}" for c in PUBLISHED["uth"]} == PUBLISHED["uth"]
    assert edges.sources["ante"] == edges.sources["trips"] == "approved"


@pytest.mark.parametrize("name", BUILTIN_PROFILES)
def test_a_builtin_profiles_approved_3cp_edges_are_the_exact_count(name: str) -> None:
    text = read_profile(name)
    computed = approved_figures(text, ("3cp",))["3cp"]
    assert dict(text.parse().three_card_poker.approved) == computed
    assert set(computed) >= {"ante_play", "pair_plus"} and all(isinstance(e, Fraction) for e in computed.values())


def test_the_standard_profile_rates_3cp_with_the_published_figures_as_approved() -> None:
    text = read_profile("standard")
    edges = bet_edges("3cp", text.parse(), text.sha256)
    assert {c: f"{float(edges.edges[c]) * 100:.4f}" for c in PUBLISHED["3cp"]} == PUBLISHED["3cp"]
    assert edges.sources["ante"] == edges.sources["pair_plus"] == "approved"


def test_croupier_math_approve_prints_the_tables_a_profile_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "approve", "--profile", "fr_literal", "--game", "3cp"]) == 0
    out = capsys.readouterr().out
    assert out == '[3cp.approved]\nante_play = "7696877/101792600"\npair_plus = "402/5525"\nbonus = "5028/5525"\n'
    assert out in read_profile("fr_literal").text
    assert approved_toml({"uth": {}, "3cp": {}}) == ""
