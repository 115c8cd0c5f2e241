"""Playing cards in the text form of docs/rules.md (`As`, `Td`, `2c`; `??` hidden) and the 52-card deck."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.errors import CardError, DuplicateCard, say, shown

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # suit order where suits break ties: clubs < diamonds < hearts < spades
HIDDEN = "??"
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
"""Each suit's symbol as the screens print a card (`printed`; the pages' copies are tested against it)."""
PRINTED_RANKS = {"T": "10"}
"""The ranks a screen prints otherwise than their letter (`Th` is `10♥`)."""


def printed(text: str) -> str:
    """A card's text form as screens print it, the rank as read and the suit's symbol: `Td` is `10♦`;
    text that is no card is given back as it is.

    >>> printed("Td"), printed("As"), printed("??")
    ('10♦', 'A♠', '??')
    """
    if not isinstance(text, str) or len(text) != 2 or text[0] not in RANKS or text[1] not in SUIT_SYMBOLS:
        return text
    return PRINTED_RANKS.get(text[0], text[0]) + SUIT_SYMBOLS[text[1]]

RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {r: ("sixes" if r == 6 else n + "s") for r, n in RANK_NAMES.items()}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card. `rank` is 2..14 (ace 14), `suit` 0..3 (clubs, diamonds, hearts, spades).

    Cards order by rank, then suit. `index` is 0..51, `(rank - 2) * 4 + suit`.

    >>> Card.parse("As")
    Card('As')
    >>> str(Card.parse("Td")), Card.parse("2c").index
    ('Td', 0)
    """

    rank: int
    suit: int
    text: str = field(init=False, repr=False, compare=False)  # `As`: made once (views format cards often)
    index: int = field(init=False, repr=False, compare=False)  # 0..51: made once (the engine's card tables)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", RANKS[self.rank - 2] + SUITS[self.suit])
        object.__setattr__(self, "index", (self.rank - 2) * 4 + self.suit)

    @classmethod
    def parse(cls, text: object) -> Card:
        """Parse `As`, `Td`, `2c`: the one text form (rank upper case, suit lower case), nothing else.

        Raises CardError naming the text when it is not a card (`td`, `AS` and `??` included: a
        hidden card is not a card the engine can use).
        """
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise CardError(f"not a card: {shown(text)} (expected rank of {RANKS} and suit of {SUITS}, "
                            f"e.g. \"As\")")
        return card

    @classmethod
    def typed(cls, text: object) -> Card:
        """Parse a card typed by hand: the text form (`Th`) or the rank as screens print it (`10h`).

        Raises CardError naming the text (with the refusal's words, `refusal.not_a_card`).

        >>> Card.typed("10h"), Card.typed("Th"), str(Card.typed("10s"))
        (Card('Th'), Card('Th'), 'Ts')
        """
        card = (_BY_TEXT.get(text) or _TYPED.get(text)) if isinstance(text, str) else None
        if card is None:
            raise CardError(f"not a card: {shown(text)} (expected rank of {RANKS} or 10 and suit of {SUITS}, "
                            f"e.g. \"As\", \"10h\")", say=say("refusal.not_a_card", text=str(text)[:20]))
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with `index` 0..51. Raises CardError out of range."""
        if not isinstance(index, int) or not 0 <= index < 52:
            raise CardError(f"not a card index: {index!r}")
        return DECK[index]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(2, 15) for s in range(4))
_BY_TEXT: dict[str, Card] = {str(c): c for c in DECK}
_TYPED: dict[str, Card] = {PRINTED_RANKS["T"] + str(c)[1]: c for c in DECK if c.rank == 10}  # "10h": as screens print it


def parse_cards(cards: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse a list of cards, or one string of them (`"As Kd"`, `"AsKd"`).

    Raises CardError naming the bad text. Duplicates are allowed here; see `check_distinct`.

    >>> parse_cards("As Kd")
    (Card('As'), Card('Kd'))
    """
    if isinstance(cards, str):
        text = cards.replace(" ", "").replace(",", "")
        if len(text) % 2:
            raise CardError(f"not a list of cards: {shown(cards)}")
        items: Iterable[str | Card] = [text[i:i + 2] for i in range(0, len(text), 2)]
    else:
        items = cards
    return tuple(c if isinstance(c, Card) else Card.parse(c) for c in items)


def check_distinct(cards: Iterable[Card]) -> None:
    """Raise CardError naming the first card that appears twice."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise DuplicateCard(f"duplicate card: {card}")
        seen.add(card)


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Cards as their text forms, for feeds and JSON."""
    return [c.text for c in cards]
