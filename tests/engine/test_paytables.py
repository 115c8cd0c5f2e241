"""Paytable profiles: the builtin ones load with docs/rules.md's tables; bad ones are refused by file, key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cards import parse_cards
from engine.errors import ProfileError
from engine.evaluate import three_card
from engine.paytables import BUILTIN_PROFILES, THREE_CARD_CATEGORIES, Qualifier, load_profile, parse_profile

DEFAULT_TEXT = (Path(__file__).parents[2] / "engine" / "profiles" / "default.toml").read_text()


def test_builtin_profiles_load() -> None:
    for name in BUILTIN_PROFILES:
        profile = load_profile(name)
        assert profile.name == name
        assert profile.uth.preflop_multiples == (4, 3)
        assert profile.uth.flop_multiples == (2,)
        assert profile.uth.river_multiples == (1,)
        assert profile.three_card_poker.min_players == 5
        assert str(profile.three_card_poker.dealer_qualifier) == "Q-high"
        assert str(profile.uth.dealer_qualifier) == "pair"


def test_default_profile_is_rules_md() -> None:
    p = load_profile("default")
    assert dict(p.uth.blind) == {"straight": (1, 1), "flush": (3, 2), "full_house": (3, 1),
                                 "four_of_a_kind": (10, 1), "straight_flush": (50, 1),
                                 "royal_flush": (500, 1)}
    assert dict(p.uth.trips) == {"three_of_a_kind": (3, 1), "straight": (4, 1), "flush": (7, 1),
                                 "full_house": (8, 1), "four_of_a_kind": (30, 1),
                                 "straight_flush": (40, 1), "royal_flush": (50, 1)}
    assert (p.uth.trips_paid_on, p.uth.trips_on_fold, p.uth.max_multiple) == ("win", "lose", 30)
    t = p.three_card_poker
    assert dict(t.pair_plus) == {"pair": (1, 1), "flush": (3, 1), "straight": (6, 1),
                                 "three_of_a_kind": (30, 1), "straight_flush": (40, 1)}
    assert dict(t.ante_bonus) == {"straight": (1, 1), "three_of_a_kind": (4, 1), "straight_flush": (5, 1)}
    assert t.ante_bonus_on == "play"
    assert t.bonus is None


def test_standard_and_literal_profiles() -> None:
    s = load_profile("standard")
    assert (s.uth.trips_paid_on, s.uth.trips_on_fold, s.uth.max_multiple) == ("hand", "stands", None)
    assert s.three_card_poker.pair_plus["flush"] == (4, 1)
    lit = load_profile("fr_literal").three_card_poker
    assert lit.ante_bonus_on == "beat_qualified"
    assert dict(lit.ante_bonus) == {"three_of_a_kind": (3, 1), "straight_flush": (4, 1)}
    assert lit.bonus is not None and dict(lit.bonus) == {"straight": (1, 1), "three_of_a_kind": (4, 1),
                                                         "straight_flush": (5, 1)}


def test_profile_tables_are_read_only() -> None:
    p = load_profile("default")
    with pytest.raises(TypeError):
        p.uth.blind["flush"] = (2, 1)  # type: ignore[index]


def test_load_profile_from_file(tmp_path: Path) -> None:
    path = tmp_path / "casino.toml"
    path.write_text(DEFAULT_TEXT.replace('name = "default"\n', "").replace("flush = [3, 1]", "flush = 5"))
    p = load_profile(str(path))
    assert p.name == "casino"
    assert p.three_card_poker.pair_plus["flush"] == (5, 1)
    assert p.source == str(path)


@pytest.mark.parametrize(("edit", "words"), [
    (("[uth.trips]", "[uth.tripz]"), ["[uth] tripz", "unknown key"]),
    (("max_spots = 7\nmin_players", "max_spot = 7\nmin_players"), ["[3cp] max_spot", "unknown key"]),
    (("max_spots = 7\nmin_players", "min_players"), ["[3cp] max_spots", "missing"]),
    (("flush = [7, 1]", "flush = [-7, 1]"), ["[uth.trips] flush", "negative"]),
    (("flush = [7, 1]", "flush = 7.5"), ["[uth.trips] flush", "integers"]),
    (("flush = [7, 1]", 'flush = "7"'), ["[uth.trips] flush", "integers"]),
    (("flush = [7, 1]", "flush = [7, 0]"), ["[uth.trips] flush", "at least 1"]),
    (("flush = [7, 1]", "flush = true"), ["[uth.trips] flush", "integers"]),
    (("flush = [7, 1]", "flushes = [7, 1]"), ["[uth.trips] flushes", "unknown hand category"]),
    (("pair = [1, 1]", "two_pair = [1, 1]"), ["[3cp.pair_plus] two_pair", "unknown hand category"]),
    (('trips_paid_on = "win"', 'trips_paid_on = "always"'), ["[uth] trips_paid_on", "'win', 'hand'"]),
    (('trips_on_fold = "lose"', 'trips_on_fold = 1'), ["[uth] trips_on_fold", "must be one of"]),
    (('ante_bonus_on = "play"', 'ante_bonus_on = "never"'), ["[3cp] ante_bonus_on", "must be one of"]),
    (('dealer_qualifier = "Q-high"', 'dealer_qualifier = "queen"'), ["[3cp] dealer_qualifier", "qualifier"]),
    (("min_players = 5", "min_players = 0"), ["[3cp] min_players", "between 1 and 7"]),
    (("min_players = 5", "min_players = 5.0"), ["[3cp] min_players", "integer"]),
    (("preflop_multiples = [3, 4]", "preflop_multiples = []"), ["[uth] preflop_multiples", "non-empty"]),
    (("burns = []", 'burns = ["turn"]'), ["[uth] burns", "'turn'"]),
    (("[3cp.pair_plus]", "[3cp.pair_plus_]"), ["[3cp] pair_plus_", "unknown key"]),
    (("[3cp.pair_plus]", "[3cp.bonus]"), ["[3cp] pair_plus", "missing"]),
    (("name = \"default\"", "colour = \"red\""), ["colour", "unknown key"]),
    (("burns = []\n", "burns = []\nburn = []\n"), ["[3cp] burn", "unknown key"]),
])
def test_bad_profile_names_file_key_and_reason(edit: tuple[str, str], words: list[str]) -> None:
    old, new = edit
    assert old in DEFAULT_TEXT
    with pytest.raises(ProfileError) as err:
        parse_profile(DEFAULT_TEXT.replace(old, new, 1), "casino.toml")
    message = str(err.value)
    assert message.startswith("casino.toml: ")
    for word in words:
        assert word in message, message


def test_missing_game_section_and_bad_toml() -> None:
    head, _, _ = DEFAULT_TEXT.partition("[3cp]")
    with pytest.raises(ProfileError, match=r"casino.toml: 3cp: missing"):
        parse_profile(head, "casino.toml")
    with pytest.raises(ProfileError, match=r"casino.toml: not valid TOML"):
        parse_profile("[uth\n", "casino.toml")
    # tomllib's own RecursionError and int()'s digit limit are refused like any bad TOML
    with pytest.raises(ProfileError, match=r"casino.toml: not valid TOML: arrays or inline tables nested too deep"):
        parse_profile("name = " + "[" * 5000 + "]" * 5000, "casino.toml")
    with pytest.raises(ProfileError, match=r"casino.toml: not valid TOML: an integer of more than \d+ digits"):
        parse_profile("name = " + "7" * 5000, "casino.toml")


def test_unknown_profile_name() -> None:
    with pytest.raises(ProfileError, match="no such profile"):
        load_profile("casino_royale")
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile("/nonexistent/casino.toml")


def test_a_profile_name_no_path_can_hold_is_refused_in_words() -> None:
    """Found by the atheris soak of the configuration: a 300-byte name raised OSError (ENAMETOOLONG)."""
    with pytest.raises(ProfileError, match="no such profile"):
        load_profile("d" + "\udcff" * 300 + "rn")
    with pytest.raises(ProfileError, match="no such profile"):
        load_profile("x" * 5000)
    with pytest.raises(ProfileError):
        load_profile("a\x00b.toml")


def test_qualifier() -> None:
    q = Qualifier.parse("Q-high", THREE_CARD_CATEGORIES)
    for text, expected in [("Qs 3d 2c", True), ("Js Td 8c", False), ("Ah 2d 4c", True),
                           ("2s 2d 3c", True), ("Ah 2d 3c", True)]:
        cards = parse_cards(text)
        assert q.qualifies(three_card(cards), cards) is expected, text
    with pytest.raises(ValueError):
        Qualifier.parse("Z-high", THREE_CARD_CATEGORIES)
