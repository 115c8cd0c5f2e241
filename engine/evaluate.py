"""Hand evaluators: five-card high (5 to 7 cards, Omaha), three-card, 8-or-better, A-5, 2-7 lows and Badugi.

Every evaluator returns a `HandValue` whose `strength` orders hands of that evaluator: greater is
better, lows included, equal strengths split. `category` is a stable key (paytable profiles use it),
`name` is what a dealer reads, `cards` the cards that make the hand (best first by importance).

Category keys
- `high`, `omaha_high`: `high_card`, `pair`, `two_pair`, `three_of_a_kind`, `straight`, `flush`,
  `full_house`, `four_of_a_kind`, `straight_flush`, `royal_flush` (the ace-high straight flush has
  its own key; its strength is simply the top straight flush).
- `three_card`: `high_card`, `pair`, `flush`, `straight`, `three_of_a_kind`, `straight_flush`.
- `low8`, `omaha_low8`: `low` (the only kind that qualifies; `None` when no low qualifies).
- `ace_five_low` (razz): `low` for five unpaired cards, else `pair`, `two_pair`, `three_of_a_kind`,
  `full_house`, `four_of_a_kind` (each worse than the one before; straights and flushes ignored).
- `deuce_seven_low`: the high-hand keys of the five cards read as a high hand (`high_card` is an
  unpaired low; `straight`, `flush` ... count against), ace high only, so A-5-4-3-2 is `high_card`.
- `badugi`: `badugi_4`, `badugi_3`, `badugi_2`, `badugi_1` (the number of cards in the badugi).

The high evaluator is table driven: each card index has a precomputed integer holding its rank
(3 bits per rank, from bit 16) and its suit count (4 bits per suit, bits 0..15). Adding the integers
of a hand gives its rank multiset and its suit counts at once; a suit count of five or more is a
flush (at most one suit can have it in seven cards, and then no full house or quads is possible),
valued from a 13-bit rank-mask table; any other hand is valued by a dict keyed by the rank multiset.
Both tables are built on first use, not at import (`tables()`).

>>> from engine.cards import parse_cards
>>> high(parse_cards("As Ks Qs Js Ts 2c 2d")).name
'Royal flush'
>>> high(parse_cards("5h 5d 5s 6c 6d")).name
'Full house, fives full of sixes'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from engine.cards import RANK_NAMES, RANK_PLURALS, Card
from engine.errors import CardError, DuplicateCard
from engine.frozen import quick_init, quick_new
from engine.hand_tables import (
    HC as _HC, PAIR as _PAIR, TWO_PAIR as _TWO_PAIR, TRIPS as _TRIPS, STRAIGHT as _STRAIGHT, FLUSH as _FLUSH,
    FULL_HOUSE as _FULL_HOUSE, QUADS as _QUADS, STRAIGHT_FLUSH as _STRAIGHT_FLUSH, CAT_SHIFT as _CAT_SHIFT,
    pack as _pack, ranks_of as _ranks_of, flush_value as _flush_value,
    value_from_counts as _value_from_counts, build_flush, build_nonflush,
)

__all__ = [
    "HandValue", "high", "omaha_high", "three_card", "low8", "omaha_low8", "ace_five_low",
    "deuce_seven_low", "badugi", "high_strength", "high_strength7", "high_category", "three_card_strength",
    "HIGH_CATEGORIES", "THREE_CARD_CATEGORIES", "named_ranks", "tables",
]


@quick_init
@dataclass(frozen=True, order=True, slots=True)
class HandValue:
    """The value of one hand under one evaluator: compare `strength` (greater is better)."""

    strength: int
    category: str = field(compare=False)
    name: str = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)


_new_value: Callable[[int, str, str, tuple[Card, ...]], HandValue] = quick_new(HandValue)


# ---------------------------------------------------------------------------------------------
# Strength layout shared by the five-card evaluators (`engine.hand_tables`): category << 20, then up to five ranks
# (most significant first) in 4-bit fields. Ranks are 2..14 (or 1 for a low ace).

HIGH_CATEGORIES: tuple[str, ...] = (
    "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
    "full_house", "four_of_a_kind", "straight_flush",
)
THREE_CARD_CATEGORIES: tuple[str, ...] = (
    "high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush",
)
_ROYAL = (_STRAIGHT_FLUSH << 20) | (14 << 16)


# Per card index i = (rank-2)*4 + suit: rank part (3 bits per rank from bit 16) + suit count part.
_RANK_SHIFT = 16
_KEY: tuple[int, ...] = tuple((1 << (_RANK_SHIFT + 3 * (i >> 2))) | (1 << (4 * (i & 3))) for i in range(52))
_FLUSH_PROBE = 0x3333  # + suit counts: a field reaches 8 exactly when that suit has five or more
_FLUSH_BITS = 0x8888


# The tables are built on first use, not at import (about 0.1 s: most processes that import the engine
# never value a hand). The hot paths read them without a check: a lookup in an empty table fails
# (LookupError), which builds them and values the hand again. `_FLUSH_TABLE` is filled last: once it
# holds anything, both are built (a second thread building them at once fills them with the same values).
_NONFLUSH: dict[int, int] = {}
_FLUSH_TABLE: list[int] = []


def _build_tables() -> None:
    if _FLUSH_TABLE:
        return
    nonflush = build_nonflush()
    flush = build_flush()
    _NONFLUSH.update(nonflush)
    if not _FLUSH_TABLE:
        _FLUSH_TABLE.extend(flush)


def tables() -> tuple[dict[int, int], list[int]]:
    """The high evaluator's two tables, built if they are not yet: rank-multiset key (the sum of
    `_KEY[i] >> 16` over 5 to 7 cards) -> non-flush strength, and a flush suit's 13-bit rank mask ->
    strength (0 under five cards). Shared, not copies: read them, never change them."""
    _build_tables()
    return _NONFLUSH, _FLUSH_TABLE


def high_strength(indices: Sequence[int]) -> int:
    """Strength of the best five-card high hand of 5 to 7 distinct card indices (0..51).

    The fast path: no checks (use `high` for checked input). Greater is better; the category is
    `high_category(strength)`.
    """
    key = _KEY
    v = 0
    for i in indices:
        v += key[i]
    probe = (v + _FLUSH_PROBE) & _FLUSH_BITS
    try:
        if probe:
            suit = (probe.bit_length() - 4) >> 2
            mask = 0
            for i in indices:
                if i & 3 == suit:
                    mask |= 1 << (i >> 2)
            return _FLUSH_TABLE[mask]
        return _NONFLUSH[v >> _RANK_SHIFT]
    except LookupError:
        if _FLUSH_TABLE:
            raise
        _build_tables()
        return high_strength(indices)


def high_strength7(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
    """`high_strength` of exactly seven card indices passed as arguments (the hot path)."""
    key = _KEY
    v = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    probe = (v + 0x3333) & 0x8888
    try:
        if probe:
            suit = (probe.bit_length() - 4) >> 2
            mask = 0
            for i in (a, b, c, d, e, f, g):
                if i & 3 == suit:
                    mask |= 1 << (i >> 2)
            return _FLUSH_TABLE[mask]
        return _NONFLUSH[v >> 16]
    except LookupError:
        if _FLUSH_TABLE:
            raise
        _build_tables()
        return high_strength7(a, b, c, d, e, f, g)


def high_category(strength: int) -> str:
    """The category key of a `high_strength` (`royal_flush` for the ace-high straight flush)."""
    if strength == _ROYAL:
        return "royal_flush"
    return HIGH_CATEGORIES[strength >> _CAT_SHIFT]


# ---------------------------------------------------------------------------------------------
# Checks, card picking and names

def _checked(cards: Sequence[Card], sizes: range, what: str) -> tuple[tuple[Card, ...], list[int]]:
    """The cards as a tuple and their indices; CardError for a non-Card, a wrong count or a duplicate."""
    if isinstance(cards, str):
        raise CardError(f"{what}: got the text {cards!r}; parse it with parse_cards first")
    hand = tuple(cards)
    if len(hand) not in sizes:
        want = f"{sizes.start}" if len(sizes) == 1 else f"{sizes.start} to {sizes.stop - 1}"
        raise CardError(f"{what}: needs {want} cards, got {len(hand)}")
    if _ONLY_CARDS.issuperset(map(type, hand)):  # the usual hand, checked in C
        indices = [card.index for card in hand]
        if len(set(indices)) == len(indices):
            return hand, indices
    indices = []
    seen = 0
    items: tuple[object, ...] = hand  # each checked here (compiled by mypyc, a Card item is checked by a TypeError)
    for card in items:  # a non-Card, a duplicate (named) or a subclass of Card
        if not isinstance(card, Card):
            raise CardError(f"{what}: not a Card: {card!r} (parse card text with Card.parse first)")
        i = card.index
        if seen >> i & 1:
            raise DuplicateCard(f"{what}: duplicate card {card}")
        seen |= 1 << i
        indices.append(i)
    return hand, indices


_ONLY_CARDS = frozenset((Card,))
_FIVE_TO_SEVEN = range(5, 8)


def _check(cards: Sequence[Card], sizes: range, what: str) -> tuple[Card, ...]:
    return _checked(cards, sizes, what)[0]


def _check_split(hole: Sequence[Card], board: Sequence[Card], what: str) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    h = _check(hole, range(4, 53), f"{what} hole cards")
    b = _check(board, range(3, 6), f"{what} board")
    _check(h + b, range(7, 58), what)
    return h, b


def _pick(cards: Sequence[Card], groups: Sequence[tuple[int, int]], suit: int | None = None) -> tuple[Card, ...]:
    """Take `count` cards of each `rank` in order (higher suits first), optionally of one suit.

    A rank of 1 stands for the ace (14) played low.
    """
    pool = sorted(((c.rank, c.suit, n) for n, c in enumerate(cards)), reverse=True)
    taken = [False] * len(pool)
    chosen: list[Card] = []
    for rank, count in groups:
        real = 14 if rank == 1 else rank
        for r, s, n in pool:
            if count == 0:
                break
            if r == real and not taken[n] and (suit is None or s == suit):
                chosen.append(cards[n])
                taken[n] = True
                count -= 1
    return tuple(chosen)


def _straight_ranks(top: int) -> list[int]:
    return [5, 4, 3, 2, 14] if top == 5 else list(range(top, top - 5, -1))


def _high_groups(strength: int) -> list[tuple[int, int]]:
    """(rank, count) groups of the best five of a high strength, most important first."""
    cat = strength >> _CAT_SHIFT
    r = _ranks_of(strength)
    if cat in (_STRAIGHT, _STRAIGHT_FLUSH):
        return [(x, 1) for x in _straight_ranks(r[0])]
    shape = {
        _HC: (1, 1, 1, 1, 1), _PAIR: (2, 1, 1, 1), _TWO_PAIR: (2, 2, 1), _TRIPS: (3, 1, 1),
        _FLUSH: (1, 1, 1, 1, 1), _FULL_HOUSE: (3, 2), _QUADS: (4, 1),
    }[cat]
    return list(zip(r, shape))


def _high_name(strength: int) -> str:
    name = _NAMES.get(strength)
    if name is None:
        name = _NAMES[strength] = _name_high(strength)
    return name


_NAMES: dict[int, str] = {}  # strength -> name, filled as hands are named (7,462 at most)


def _name_high(strength: int) -> str:
    cat = strength >> _CAT_SHIFT
    r = _ranks_of(strength)
    if strength == _ROYAL:
        return "Royal flush"
    if cat == _STRAIGHT_FLUSH:
        return f"Straight flush, {RANK_NAMES[r[0]]} high"
    if cat == _QUADS:
        return f"Four of a kind, {RANK_PLURALS[r[0]]}"
    if cat == _FULL_HOUSE:
        return f"Full house, {RANK_PLURALS[r[0]]} full of {RANK_PLURALS[r[1]]}"
    if cat == _FLUSH:
        return f"Flush, {RANK_NAMES[r[0]]} high"
    if cat == _STRAIGHT:
        return f"Straight, {RANK_NAMES[r[0]]} high"
    if cat == _TRIPS:
        return f"Three of a kind, {RANK_PLURALS[r[0]]}"
    if cat == _TWO_PAIR:
        return f"Two pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}"
    if cat == _PAIR:
        return f"Pair of {RANK_PLURALS[r[0]]}"
    return f"High card, {RANK_NAMES[r[0]]}"


_NAMED_AT = {"royal_flush": (), "two_pair": (0, 2), "full_house": (0, 3)}
"""Where in a high hand's `cards` (the most important first) the ranks its name cites are; else the first only."""


def named_ranks(value: HandValue) -> tuple[str, ...]:
    """The ranks a high or three-card hand's name cites, as a card writes them, most important first: what a
    screen needs to name the hand in its own words ("Paire de rois").

    >>> from engine.cards import parse_cards
    >>> named_ranks(high(parse_cards("5h 5d 5s Tc Td"))), named_ranks(three_card(parse_cards("Ah 2d 3s")))
    (('5', 'T'), ('3',))
    """
    return tuple(value.cards[i].text[0] for i in _NAMED_AT.get(value.category, (0,)))


def _high_value(cards: tuple[Card, ...], indices: Sequence[int], strength: int) -> HandValue:
    """The `HandValue` of 5 to 7 cards (their indices beside them) of a high strength: its best five
    taken as `_pick` takes them (each rank's cards, the higher suits first; a flush's of its suit)."""
    shape = _SHAPES.get(strength)
    if shape is None:
        shape = _SHAPES[strength] = _high_shape(strength)
    category, name, picks = shape
    best = []
    if category in _FLUSHES:
        counts = [0, 0, 0, 0]
        for i in indices:
            counts[i & 3] += 1
        suit = counts.index(max(counts))
        for base, _ in picks:
            best.append(cards[indices.index(base + suit)])
    else:
        held = [0] * 52  # (a mask of 52 bits is a long int: each | allocates)
        for i in indices:
            held[i] = 1
        for base, count in picks:
            for i in (base + 3, base + 2, base + 1, base):
                if held[i]:
                    best.append(cards[indices.index(i)])
                    count -= 1
                    if not count:
                        break
    return _new_value(strength, category, name, tuple(best))


def _high_shape(strength: int) -> tuple[str, str, tuple[tuple[int, int], ...]]:
    """A high strength's category, name and best five as (index of its rank's clubs, count) groups."""
    return (high_category(strength), _high_name(strength),
            tuple(((rank - 2) * 4, count) for rank, count in _high_groups(strength)))


_SHAPES: dict[int, tuple[str, str, tuple[tuple[int, int], ...]]] = {}  # strength -> _high_shape (7,462 at most)
_FLUSHES = frozenset(("flush", "straight_flush", "royal_flush"))


# ---------------------------------------------------------------------------------------------
# High hands

def high(cards: Sequence[Card]) -> HandValue:
    """Best five-card high hand of 5, 6 or 7 cards (Hold'em: any of the seven).

    Raises CardError for a wrong card count, a duplicate card or something that is not a Card.
    """
    hand, indices = _checked(cards, _FIVE_TO_SEVEN, "high hand")
    return _high_value(hand, indices, high_strength(indices))


def omaha_high(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    """Best Omaha high hand: exactly two of the hole cards (4 or more) and exactly three of the board (3 to 5).

    Raises CardError for a wrong count on either side, a duplicate card or a non-Card.
    """
    h, b = _check_split(hole, board, "omaha high")
    hole_pairs = list(combinations(range(len(h)), 2))
    board_threes = list(combinations(range(len(b)), 3))
    hi = [c.index for c in h]
    bi = [c.index for c in b]
    best, best_at = -1, ((0, 1), (0, 1, 2))
    for two in hole_pairs:
        pair = [hi[two[0]], hi[two[1]]]
        for three in board_threes:
            s = high_strength(pair + [bi[three[0]], bi[three[1]], bi[three[2]]])
            if s > best:
                best, best_at = s, (two, three)
    two, three = best_at
    five = tuple(h[n] for n in two) + tuple(b[n] for n in three)
    return _high_value(five, [c.index for c in five], best)


# ---------------------------------------------------------------------------------------------
# Three Card Poker

_T_HC, _T_PAIR, _T_FLUSH, _T_STRAIGHT, _T_TRIPS, _T_SF = range(6)


def three_card_strength(indices: Sequence[int]) -> int:
    """Strength of exactly three distinct card indices in Three Card Poker order (no checks)."""
    a, b, c = sorted(indices, reverse=True)
    ra, rb, rc = (a >> 2) + 2, (b >> 2) + 2, (c >> 2) + 2
    flush = (a & 3) == (b & 3) == (c & 3)
    if ra == rb == rc:
        return _pack(_T_TRIPS, [ra])
    top = 0
    if ra == rb + 1 == rc + 2:
        top = ra
    elif ra == 14 and rb == 3 and rc == 2:
        top = 3
    if top:
        return _pack(_T_SF if flush else _T_STRAIGHT, [top])
    if flush:
        return _pack(_T_FLUSH, [ra, rb, rc])
    if ra == rb:
        return _pack(_T_PAIR, [ra, rc])
    if rb == rc:
        return _pack(_T_PAIR, [rb, ra])
    return _pack(_T_HC, [ra, rb, rc])


def three_card(cards: Sequence[Card]) -> HandValue:
    """Three Card Poker value of exactly three cards: straight flush > trips > straight > flush > pair > high card.

    A-K-Q is the highest straight, A-2-3 the lowest. Raises CardError for a wrong count, a
    duplicate or a non-Card.
    """
    hand, indices = _checked(cards, range(3, 4), "three-card hand")
    s = three_card_strength(indices)
    cat = s >> _CAT_SHIFT
    r = _ranks_of(s)
    if cat == _T_SF:
        name = f"Straight flush, {RANK_NAMES[r[0]]} high"
    elif cat == _T_TRIPS:
        name = f"Three of a kind, {RANK_PLURALS[r[0]]}"
    elif cat == _T_STRAIGHT:
        name = f"Straight, {RANK_NAMES[r[0]]} high"
    elif cat == _T_FLUSH:
        name = f"Flush, {RANK_NAMES[r[0]]} high"
    elif cat == _T_PAIR:
        name = f"Pair of {RANK_PLURALS[r[0]]}"
    else:
        name = f"High card, {RANK_NAMES[r[0]]}"
    if cat in (_T_STRAIGHT, _T_SF):
        order = [3, 2, 14] if r[0] == 3 else [r[0], r[0] - 1, r[0] - 2]
        groups = [(x, 1) for x in order]
    elif cat == _T_TRIPS:
        groups = [(r[0], 3)]
    elif cat == _T_PAIR:
        groups = [(r[0], 2), (r[1], 1)]
    else:
        groups = [(x, 1) for x in r[:3]]
    return HandValue(s, THREE_CARD_CATEGORIES[cat], name, _pick(hand, groups))


# ---------------------------------------------------------------------------------------------
# Lows

_LOW_TOP = 1 << 24  # strengths of lows are _LOW_TOP - value, so that greater is better


def _low_rank(card: Card) -> int:
    return 1 if card.rank == 14 else card.rank


def _rank_text(rank: int) -> str:
    return "A" if rank in (1, 14) else "23456789TJQK"[rank - 2]


def _dash(ranks: Sequence[int]) -> str:
    return "-".join(_rank_text(r) for r in ranks)


def low8(cards: Sequence[Card]) -> HandValue | None:
    """Best 8-or-better low of 5 to 7 cards: five distinct ranks, all 8 or lower, ace low.

    Straights and flushes are ignored; compared from the highest card down. Returns None when no
    five cards qualify. Raises CardError for a wrong count, a duplicate or a non-Card.
    """
    hand = _check(cards, range(5, 8), "low hand")
    return _low8_of(hand)


def _low8_of(hand: Sequence[Card]) -> HandValue | None:
    ranks = sorted({_low_rank(c) for c in hand if _low_rank(c) <= 8})
    if len(ranks) < 5:
        return None
    best = sorted(ranks[:5], reverse=True)
    value = _pack(0, best)
    return HandValue(_LOW_TOP - value, "low", f"{_dash(best)} low", _pick(hand, [(r, 1) for r in best]))


def omaha_low8(hole: Sequence[Card], board: Sequence[Card]) -> HandValue | None:
    """Best Omaha 8-or-better low: exactly two hole cards (4 or more) and exactly three board cards (3 to 5).

    Returns None when no such five cards qualify. Raises CardError for a wrong count on either
    side, a duplicate or a non-Card.
    """
    h, b = _check_split(hole, board, "omaha low")
    best: HandValue | None = None
    for two in combinations(h, 2):
        for three in combinations(b, 3):
            v = _low8_of(two + three)
            if v is not None and (best is None or v.strength > best.strength):
                best = v
    return best


_A5_CATEGORIES = ("low", "pair", "two_pair", "three_of_a_kind", "full_house", "four_of_a_kind")
_A5_SHAPES: dict[tuple[int, ...], int] = {
    (1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4, (4, 1): 5,
}


def _groups(ranks: Sequence[int]) -> list[tuple[int, int]]:
    """(rank, count) of five ranks, bigger groups first, then higher rank first."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)


def _a5_value(five: Sequence[Card]) -> tuple[int, list[tuple[int, int]]]:
    groups = _groups([_low_rank(c) for c in five])
    cat = _A5_SHAPES[tuple(n for _, n in groups)]
    return _LOW_TOP - _pack(cat, [r for r, _ in groups]), groups


def ace_five_low(cards: Sequence[Card]) -> HandValue:
    """Best A-5 low (razz) of 5 to 7 cards: ace low, straights and flushes ignored, pairs count against.

    Raises CardError for a wrong count, a duplicate or a non-Card.
    """
    hand = _check(cards, range(5, 8), "A-5 low hand")
    best = -1
    best_groups: list[tuple[int, int]] = []
    for five in combinations(hand, 5):
        s, groups = _a5_value(five)
        if s > best:
            best, best_groups = s, groups
    cat = (_LOW_TOP - best) >> _CAT_SHIFT
    chosen = _pick(hand, best_groups)
    order = sorted((_low_rank(c) for c in chosen), reverse=True)
    if cat == 0:
        name = f"{_dash(order)} low"
    else:
        head = {1: "Pair of", 2: "Two pair,", 3: "Three of a kind,", 4: "Full house,", 5: "Four of a kind,"}[cat]
        r0 = 14 if best_groups[0][0] == 1 else best_groups[0][0]
        detail = RANK_PLURALS[r0]
        if cat == 2:
            r1 = 14 if best_groups[1][0] == 1 else best_groups[1][0]
            detail += f" and {RANK_PLURALS[r1]}"
        name = f"{head} {detail} ({_dash(order)})"
    return HandValue(best, _A5_CATEGORIES[cat], name, chosen)


def _high5_value(five: Sequence[Card], wheel: bool) -> int:
    """Plain five-card high value (layout of `high_strength`), the wheel a straight or not."""
    counts: dict[int, int] = {}
    for c in five:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    if len(counts) == 5 and len({c.suit for c in five}) == 1:
        mask = 0
        for c in five:
            mask |= 1 << (c.rank - 2)
        return _flush_value(mask, wheel)
    return _value_from_counts(counts, wheel)


def deuce_seven_low(cards: Sequence[Card]) -> HandValue:
    """Best 2-7 low of 5 to 7 cards: ace high only, straights and flushes count against.

    The best hand is 7-5-4-3-2 unsuited; A-5-4-3-2 is ace high, not a straight. Raises CardError
    for a wrong count, a duplicate or a non-Card.
    """
    hand = _check(cards, range(5, 8), "2-7 low hand")
    best = -1
    best_value = 0
    best_five: tuple[Card, ...] = ()
    for five in combinations(hand, 5):
        value = _high5_value(five, wheel=False)
        s = _LOW_TOP - value
        if s > best:
            best, best_value, best_five = s, value, five
    cat = best_value >> _CAT_SHIFT
    suit = best_five[0].suit if cat in (_FLUSH, _STRAIGHT_FLUSH) else None
    if cat in (_STRAIGHT, _STRAIGHT_FLUSH):
        top = _ranks_of(best_value)[0]
        groups = [(x, 1) for x in range(top, top - 5, -1)]
    else:
        groups = _high_groups(best_value)
    chosen = _pick(best_five, groups, suit)
    if cat == _HC:
        name = f"{_dash(sorted((c.rank for c in chosen), reverse=True))} low"
    else:
        name = _high_name(best_value)
    return HandValue(best, high_category(best_value), name, chosen)


# ---------------------------------------------------------------------------------------------
# Badugi

def badugi(cards: Sequence[Card]) -> HandValue:
    """Badugi value of exactly four cards: the best set of cards of distinct suits and distinct ranks.

    More cards beat fewer; then lower is better, compared from the highest card down; ace low.
    Raises CardError for a wrong count, a duplicate or a non-Card.
    """
    hand = _check(cards, range(4, 5), "badugi hand")
    best = -1
    best_set: tuple[Card, ...] = ()
    for size in (4, 3, 2, 1):
        for subset in combinations(hand, size):
            if len({c.suit for c in subset}) != size or len({c.rank for c in subset}) != size:
                continue
            ranks = sorted((_low_rank(c) for c in subset), reverse=True)
            s = (size << 24) + ((1 << 16) - (_pack(0, ranks) >> 4))
            if s > best:
                best, best_set = s, tuple(sorted(subset, key=_low_rank, reverse=True))
        if best_set:
            break
    ranks = [_low_rank(c) for c in best_set]
    size = len(best_set)
    name = f"{size}-card {_rank_text(ranks[0])} ({_dash(ranks)})"
    return HandValue(best, f"badugi_{size}", name, best_set)
