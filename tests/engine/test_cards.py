"""Card text form: parsing, rejection of bad text, the deck."""

import pytest

from engine.cards import DECK, Card, check_distinct, parse_cards
from engine.errors import CardError


def test_round_trip_every_card():
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert Card.from_index(card.index) is card


@pytest.mark.parametrize("text", ["", "A", "1s", "Ax", "10s", "??", "As ", "AsK", None, 5])
def test_bad_text_names_itself(text):
    with pytest.raises(CardError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)


def test_case_is_forgiven():
    assert str(Card.parse("aS")) == "As" and str(Card.parse("tD")) == "Td"


def test_lists_and_duplicates():
    assert [str(c) for c in parse_cards("As Kd 2c")] == ["As", "Kd", "2c"]
    assert parse_cards(["As", "Kd"]) == parse_cards("AsKd")
    with pytest.raises(CardError, match="duplicate card: As"):
        check_distinct(parse_cards("As Kd As"))
    assert issubclass(CardError, ValueError)


def test_order_rank_then_suit():
    assert Card.parse("2s") < Card.parse("3c") < Card.parse("3d")
