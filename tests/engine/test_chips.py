"""The chip set: UIDs, values, foreign chips, a bad file's errors, and the shipped demo set."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.chip_circles import dues
from engine.chips import ChipSet, ChipSetError, ChipStatus, parse_uid
from sim.demo_chips import demo_chip_set, demo_chips_csv

ROOT = Path(__file__).resolve().parents[2]
GOOD = "uid,value,set,status\nE004015000000001,500,s,active\nE004015000000002,100,s,void\n"


def test_values_count_active_chips_only() -> None:
    chips = ChipSet.from_csv(GOOD)
    assert chips.value(["E004015000000001", "E004015000000002", "E0040150000000FF"]) == 500
    assert chips.foreign(["E004015000000002", "E004015000000001"]) == ("E004015000000002",)
    assert chips.why_foreign("E004015000000002") == "void"
    assert chips.denominations() == (500,)


@pytest.mark.parametrize(("text", "words"), [
    ("uid,value\n", "header"),
    (GOOD + "E004015000000001,500,s,active\n", "already on line 2"),
    (GOOD + "E00401500000003,500,s,active\n", "16 digits"),
    (GOOD + "E004015000000003,5.00,s,active\n", "positive whole number"),
    (GOOD + "E004015000000003,0,s,active\n", "positive whole number"),
    (GOOD + "E004015000000003,500,s,lost\n", "active, retired, sample, void"),
    (GOOD + "E004015000000003,500,s\n", "3 fields"),
])
def test_a_bad_line_is_named(text: str, words: str) -> None:
    with pytest.raises(ChipSetError, match=words) as caught:
        ChipSet.from_csv(text, where="chips.csv")
    assert str(caught.value).startswith("chips.csv")


def test_uid_forms() -> None:
    assert parse_uid("e0 04 01 50 00 00 00 0a") == "E00401500000000A"


def test_the_shipped_demo_set_is_the_generators() -> None:
    assert (ROOT / "deploy" / "chips-demo.csv").read_text() == demo_chips_csv()
    chips = demo_chip_set()
    assert chips.denominations() == (50000, 10000, 2500, 500, 100)
    assert sum(1 for c in chips if c.status is not ChipStatus.ACTIVE) == 30
    assert chips.sha256() == ChipSet(reversed(list(chips))).sha256()


def test_three_card_pokers_ante_bonus_is_due_on_the_ante_circle() -> None:
    # a straight that plays against a dealer who does not qualify: the Ante wins 1:1, the Ante Bonus 1:1 on the Ante
    # (found by `croupier demo --chips --game 3cp`: the tray's difference was the bonuses the dues left out)
    assert dues({"ante": 1000, "play": 1000}, {"ante": 1000, "ante_bonus": 1000, "play": 0}) == {"ante": 3000, "play": 1000}
    assert dues({"ante": 500}, {"ante": -500}) == {"ante": 0}
    assert dues({"pair_plus": 100}, {"pair_plus": 100, "ante_bonus": 500}) == {"pair_plus": 200}  # no Ante: no bonus
