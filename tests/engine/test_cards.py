"""Card text form: parsing, rejection of bad text, the deck."""

import json

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
    assert json.dumps(text) in str(info.value)  # as JSON spells it: "", null, 5


@pytest.mark.parametrize("text", ["as", "aS", "AS", "td", "tD", "Ks".lower(), "QH"])
def test_only_the_one_text_form_is_a_card(text):
    # rank upper case, suit lower case, as every feed, file and error text writes them
    with pytest.raises(CardError, match=f'not a card: "{text}" .*rank of 23456789TJQKA and suit of cdhs'):
        Card.parse(text)


def test_lists_and_duplicates():
    assert [str(c) for c in parse_cards("As Kd 2c")] == ["As", "Kd", "2c"]
    assert parse_cards(["As", "Kd"]) == parse_cards("AsKd")
    with pytest.raises(CardError, match="duplicate card: As"):
        check_distinct(parse_cards("As Kd As"))
    assert issubclass(CardError, ValueError)


def test_order_rank_then_suit():
    assert Card.parse("2s") < Card.parse("3c") < Card.parse("3d")


def test_a_card_typed_by_hand_may_say_its_ten_as_screens_print_it() -> None:
    from engine.cards import Card
    from engine.errors import CardError
    assert [str(Card.typed(t)) for t in ("10h", "Th", "10s", "10c", "10d", "As")] == ["Th", "Th", "Ts", "Tc", "Td", "As"]
    for text in ("10", "1h", "10H", "11h", "th", "??"):
        try:
            Card.typed(text)
        except CardError as exc:
            assert exc.say == {"key": "refusal.not_a_card", "args": {"text": text}}
        else:
            raise AssertionError(text)
    try:
        Card.parse("10h")  # the one text form stays strict: feeds and journals keep "Th"
    except CardError:
        pass
    else:
        raise AssertionError("10h parsed")
