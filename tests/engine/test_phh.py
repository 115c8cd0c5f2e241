"""PHH hand histories: reading the records, writing them back, and replaying them through our engine."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from engine.phh import HandHistory, PhhAction, PhhError, dumps_phhs, parse_phh, parse_phhs

DATA = Path(__file__).resolve().parents[1] / "data" / "phh" / "data"
HANDHQ = DATA / "handhq" / "PS-2009-07-01_2009-07-23_25NLH_OBFU" / "0.25" / "ps NLH handhq_1-OBFUSCATED.phhs"


def all_files() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.suffix in (".phh", ".phhs"))


# --- reading --------------------------------------------------------------------------------------


def test_the_dataset_is_all_here() -> None:
    files = all_files()
    assert len(files) == 1136  # 1,135 .phh and one .phhs of 9 hands
    assert sum(1 for f in files if f.parts[-3] == "pluribus") == 1046


def test_parse_a_historical_hand() -> None:
    hand = parse_phh((DATA / "dwan-ivey-2009.phh").read_text())
    assert hand.variant == "NT"
    assert hand.unit == 1
    assert hand.antes == (500, 500, 500)
    assert hand.blinds_or_straddles == (1000, 2000, 0)
    assert hand.min_bet == 2000
    assert hand.starting_stacks == (1125600, 2000000, 553500)
    assert hand.players == ("Phil Ivey", "Patrik Antonius", "Tom Dwan")
    assert hand.ante_trimming_status is True
    first, ivey_raise = hand.actions[0], hand.actions[4]
    assert (first.actor, first.kind, first.player, first.cards) == (None, "dh", 0, ("Ac", "2d"))
    assert first.commentary is None  # "# Ivey" there is a TOML comment, not commentary
    assert (ivey_raise.actor, ivey_raise.kind) == (0, "cbr")
    assert hand.amounts[4] == 23000
    assert hand.actions[1].cards == ("??", "??")
    assert dict(hand.extra)["event"] == "Full Tilt Million Dollar Cash Game S4E12"


def test_decimal_amounts_become_integer_units() -> None:
    hand = parse_phh((DATA / "antonius-blom-2009.phh").read_text())
    assert hand.unit == Decimal("0.01")
    assert hand.starting_stacks == (125945025, 67847350)
    assert hand.blinds_or_straddles == (50000, 100000)
    assert hand.amount(125945025) == Decimal("1259450.25")


def test_phhs_holds_nine_hands_in_order() -> None:
    hands = parse_phhs(HANDHQ.read_text())
    assert len(hands) == 9
    assert all(isinstance(h, HandHistory) for h in hands)
    first = hands[0]
    assert isinstance(first, HandHistory)
    assert first.unit == Decimal("0.01")
    assert first.blinds_or_straddles == (10, 25, 0, 0)
    assert first.winnings is None
    assert hands[8].blinds_or_straddles[2] == -25  # the "post": kept as written, refused on replay


def test_results_keep_half_chips_as_written() -> None:
    hand = parse_phh((DATA / "pluribus" / "102" / "0.phh").read_text())
    assert hand.unit == 1  # the half chips are in the result only: the hand is played in whole chips
    assert hand.finishing_stacks is not None
    assert hand.finishing_stacks[0] == Decimal("10112.5")


@pytest.mark.parametrize(
    "text, kind, actor, player, cards, amount",
    [
        ("d db Jc3d5c", "db", None, None, ("Jc", "3d", "5c"), None),
        ("d dh p10 ????", "dh", None, 9, ("??", "??"), None),
        ("p2 pb", "pb", 1, 1, None, None),
        ("  p1   cbr 0.75  ", "cbr", 0, 0, None, "0.75"),
        ("p4 sd", "sd", 3, 3, None, None),
        ("p4 sd AsQs", "sd", 3, 3, ("As", "Qs"), None),
        ("p2 sm", "sm", 1, 1, None, None),
        ("p2 sm 4h3d8d2sTd8s", "sm", 1, 1, ("4h", "3d", "8d", "2s", "Td", "8s"), None),
        ("# only words", "", None, None, None, None),
    ],
)
def test_parse_actions(text: str, kind: str, actor: int | None, player: int | None,
                       cards: tuple[str, ...] | None, amount: str | None) -> None:
    action = PhhAction.parse(text)
    assert (action.kind, action.actor, action.player, action.cards, action.amount_text) == (
        kind, actor, player, cards, amount)
    assert PhhAction.parse(action.format()) == PhhAction.parse(action.format())
    assert PhhAction.parse(action.format()).format() == action.format()


@pytest.mark.parametrize(
    "text, words",
    [
        ("p1 raise 300", "unknown action 'raise'"),
        ("x1 f", "unknown actor 'x1'"),
        ("p0 f", "unknown actor 'p0'"),
        ("d dh p1 AsK", "not a list of cards"),
        ("d dh p1 1s2s", "not a list of cards"),
        ("d deal AsKs", "not a dealer action"),
        ("p1 cbr", "cbr takes one amount"),
        ("p1 f now", "f takes no argument"),
    ],
)
def test_bad_actions_are_named(text: str, words: str) -> None:
    with pytest.raises(PhhError, match=words) as info:
        PhhAction.parse(text)
    assert repr(text) in str(info.value) or words.startswith("unknown actor")


MINIMAL = """
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 200]
actions = ["d dh p1 AsKs", "d dh p2 2c2d", "p2 f"]
"""


@pytest.mark.parametrize(
    "change, words",
    [
        (("NT", "XX"), "'XX' is not a PHH variant code"),
        (("min_bet = 2\n", ""), "'min_bet' missing"),
        (("antes = [0, 0]", "antes = [0]"), "'antes': expected a list of 2"),
        (("[200, 200]", "[200, inf]"), "not a finite amount"),
        (("[200, 200]", "[200, 0]"), "stack must be positive"),
        (('"p2 f"', '"p3 f"'), "only 2 players"),
        (('"p2 f"', '"p2 cbr lots"'), "not an amount"),
        (("variant", "variant = = "), "not TOML"),
    ],
)
def test_bad_records_are_named(change: tuple[str, str], words: str) -> None:
    with pytest.raises(PhhError, match=words):
        parse_phh(MINIMAL.replace(*change))


def test_a_bad_hand_in_a_phhs_does_not_hide_the_others() -> None:
    good = MINIMAL
    bad = MINIMAL.replace("NT", "XX")
    hands = parse_phhs(f"[1]\n{good}\n[2]\n{bad}\n[3]\n{good}")
    assert isinstance(hands[0], HandHistory) and isinstance(hands[2], HandHistory)
    assert isinstance(hands[1], PhhError) and "hand [2]" in str(hands[1])


# --- writing --------------------------------------------------------------------------------------


def test_every_record_of_the_dataset_survives_writing_and_reading() -> None:
    count = 0
    for path in all_files():
        text = path.read_text()
        hands = parse_phhs(text) if path.suffix == ".phhs" else [parse_phh(text)]
        for hand in hands:
            assert isinstance(hand, HandHistory)
            assert parse_phh(hand.dumps()) == hand, path
            count += 1
    assert count == 1144


def test_phhs_writing_round_trips() -> None:
    hands = [h for h in parse_phhs(HANDHQ.read_text()) if isinstance(h, HandHistory)]
    assert parse_phhs(dumps_phhs(hands)) == hands
