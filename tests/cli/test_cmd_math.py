"""`croupier math 3cp`: the published edges per profile, as JSON and as a report; bad profiles refused."""

import json
from fractions import Fraction

import pytest

from cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["math", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_default_profile(capsys):
    status, out, err = run(capsys, "3cp", "--json")
    assert status == 0 and err == ""
    figures = json.loads(out)
    assert figures["profile"] == "default"
    assert round(figures["ante_play"]["house_edge"] * 100, 2) == 3.37
    assert round(figures["pair_plus"]["house_edge"] * 100, 2) == 7.28
    assert Fraction(figures["ante_play"]["house_edge_exact"]) == Fraction(686689, 20358520)
    assert figures["ante_play"]["strategy"] == "Q-6-4"
    assert figures["ante_play"]["strongest_folded"] == "Q-6-3"


def test_json_several_profiles_one_line_each(capsys):
    status, out, _ = run(capsys, "3cp", "--profile", "standard", "--profile", "fr_literal", "--json")
    assert status == 0
    standard, literal = (json.loads(line) for line in out.splitlines())
    assert standard["profile"] == "standard" and literal["profile"] == "fr_literal"
    assert round(standard["pair_plus"]["house_edge"] * 100, 2) == 2.32
    assert round(standard["ante_play"]["house_edge"] * 100, 2) == 3.37
    assert round(literal["ante_play"]["house_edge"] * 100, 2) == 7.56
    assert round(literal["bonus"]["house_edge"] * 100) == 91
    assert "bonus" not in standard


def test_human_report(capsys):
    status, out, _ = run(capsys, "3cp", "--profile", "standard")
    assert status == 0
    assert "profile standard" in out
    assert "play Q-6-4 or better, fold Q-6-3 or worse" in out
    assert "Ante and Play: house edge 3.3730%" in out
    assert "Pair Plus (pair 1, flush 4, straight 6, three of a kind 30, straight flush 40): house edge 2.3167%" in out


def test_human_report_of_the_literal_reading(capsys):
    status, out, _ = run(capsys, "3cp", "--profile", "fr_literal")
    assert status == 0
    assert "paid only when the player beats a qualified dealer" in out
    assert "Ante and Play: house edge 7.5613%" in out
    assert "Bonus, a separate stake paid only when the spot plays (straight 1, three of a kind 4, straight flush 5): house edge 91.0045%" in out


def test_profile_file(capsys, tmp_path):
    from importlib import resources

    text = resources.files("engine").joinpath("profiles", "default.toml").read_text(encoding="utf-8")
    path = tmp_path / "casino.toml"
    path.write_text(text.replace("flush = [3, 1]", "flush = [4, 1]"), encoding="utf-8")
    status, out, _ = run(capsys, "3cp", "--profile", str(path), "--json")
    assert status == 0
    assert round(json.loads(out)["pair_plus"]["house_edge"] * 100, 2) == 2.32


def test_bad_profile_is_named(capsys, tmp_path):
    status, out, err = run(capsys, "3cp", "--profile", "nosuch", "--profile", "standard", "--json")
    assert status == 2
    assert "'nosuch'" in err and "no such profile" in err
    assert json.loads(out)["profile"] == "standard"  # the good one is still computed
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n", encoding="utf-8")
    status, out, err = run(capsys, "3cp", "--profile", str(bad))
    assert status == 2 and out == "" and "bad.toml" in err


def test_unknown_game_is_refused(capsys):
    with pytest.raises(SystemExit) as info:
        main(["math", "blackjack"])
    assert info.value.code == 2
    assert "invalid choice: 'blackjack'" in capsys.readouterr().err
