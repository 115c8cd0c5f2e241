"""Exact house edge of Three Card Poker paytables, by full enumeration of player against dealer hands.

Every one of the 22,100 player hands meets every one of the 18,424 dealer hands drawn from the
49 cards left: 407,170,400 deals. They are not looped one by one. All 22,100 hands are sorted
by strength; walking them in that order keeps, for "every hand weaker than this one", a total
count, a count per card (52) and a count per pair of cards (1,326). The dealer hands weaker than
a player hand that share none of its cards then follow by inclusion-exclusion:

    all weaker - those holding card a, b or c + those holding two of them - those holding all three

(a hand holding all three cards is the player hand itself). The same gives the ties and, from a
snapshot taken at the qualifier, the dealer hands that do not qualify. Everything is counted in
integers and the figures are exact `Fraction`s; it runs in well under a second in pure Python.

Pays are odds `(num, den)`: 1 is `(1, 1)`, 3:2 is `(3, 2)`; a stake wins `stake * num / den` on top
of being returned. Categories are the keys of `engine.evaluate.three_card`: `high_card`, `pair`,
`flush`, `straight`, `three_of_a_kind`, `straight_flush`.

>>> pair_plus_edge({"pair": 1, "flush": 3, "straight": 6, "three_of_a_kind": 30, "straight_flush": 40}).house_edge
Fraction(402, 5525)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any, Literal, TypeAlias

from engine.cards import RANKS, Card

CATEGORIES: tuple[str, ...] = ("high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush")
"""Three-card categories, weakest first (docs/rules.md: a straight beats a flush; trips beat a straight)."""

PLAYER_HANDS = comb(52, 3)  # 22,100
DEALER_HANDS = comb(49, 3)  # 18,424 for each player hand

Pay: TypeAlias = "int | Fraction | tuple[int, int]"
AnteBonusOn = Literal["play", "win", "beat_qualified"]
"""When the Ante Bonus is paid to a player who made the Play bet: `play` whatever the dealer holds
(the standard game); `win` only when the Ante wins (the player beats a qualified dealer, or the dealer
does not qualify); `beat_qualified` only when the player beats a qualified dealer."""
ANTE_BONUS_ON: tuple[str, ...] = ("play", "win", "beat_qualified")

_CAT = {name: i for i, name in enumerate(CATEGORIES)}


# --- the three-card order, written out for speed --------------------------------------------------

def hand_key(indices: Sequence[int]) -> int:
    """Strength of a three-card hand given as card indices 0..51 (`(rank - 2) * 4 + suit`).

    Greater is better; equal keys are equal hands. `category_of(key)` recovers the category. This
    order is checked against `engine.evaluate.three_card` on all 22,100 hands by the tests.
    """
    a, b, c = sorted(indices, reverse=True)
    r1, r2, r3 = (a >> 2) + 2, (b >> 2) + 2, (c >> 2) + 2
    flush = (a & 3) == (b & 3) == (c & 3)
    if r1 == r3:
        return (4 << 12) | (r1 << 8)
    if r1 == r2 or r2 == r3:
        pair, kicker = (r2, r3) if r1 == r2 else (r2, r1)
        return (1 << 12) | (pair << 8) | (kicker << 4)
    top = r1 if r1 - r3 == 2 else 3 if (r1, r2, r3) == (14, 3, 2) else 0
    if top:
        return ((5 if flush else 3) << 12) | (top << 8)
    return ((2 if flush else 0) << 12) | (r1 << 8) | (r2 << 4) | r3


def category_of(key: int) -> str:
    """The category name of a `hand_key`."""
    return CATEGORIES[key >> 12]


def high_card_key(ranks: Sequence[int]) -> int:
    """The key of the unsuited high-card hand with these three distinct ranks, e.g. `(12, 6, 4)`.

    Raises ValueError when the ranks make a pair or a straight.
    """
    r1, r2, r3 = sorted(ranks, reverse=True)
    if not 14 >= r1 > r2 > r3 >= 2 or r1 - r3 == 2 or (r1, r2, r3) == (14, 3, 2):
        raise ValueError(f"not a high-card hand: ranks {list(ranks)!r}")
    return (r1 << 8) | (r2 << 4) | r3


WEAKEST: dict[str, int] = {
    "high_card": (5 << 8) | (3 << 4) | 2,  # 5-3-2
    "pair": (1 << 12) | (2 << 8) | (3 << 4),  # 2-2-3
    "flush": (2 << 12) | (5 << 8) | (3 << 4) | 2,  # 5-3-2 suited
    "straight": (3 << 12) | (3 << 8),  # A-2-3
    "three_of_a_kind": (4 << 12) | (2 << 8),  # 2-2-2
    "straight_flush": (5 << 12) | (3 << 8),  # A-2-3 suited
}
"""The key of the weakest hand of each category."""


def describe_key(key: int) -> str:
    """A short dealer's name for a hand strength: `Q-6-4`, `pair of 2s, 3 kicker`, `straight to 5`."""
    cat = category_of(key)
    r1, r2, r3 = (key >> 8) & 15, (key >> 4) & 15, key & 15
    name = {r: RANKS[r - 2] for r in range(2, 15)}
    if cat in ("high_card", "flush"):
        text = f"{name[r1]}-{name[r2]}-{name[r3]}"
        return text if cat == "high_card" else f"flush {text}"
    if cat == "pair":
        return f"pair of {name[r1]}s, {name[r2]} kicker"
    if cat == "three_of_a_kind":
        return f"three {name[r1]}s"
    return f"{cat.replace('_', ' ')} to {name[r1]}"


def qualifier_key(qualifier: object) -> int:
    """The weakest qualifying dealer hand as a key.

    Accepts `"Q-high"`, `"Q"` or `12` (queen-high or better: the weakest such hand is Q-3-2
    unsuited), `"Q-6-4"` (that high-card hand or better), a category key such as `"pair"` (that
    category or better), or a `engine.paytables.Qualifier` (anything with `category` and
    `top_rank`). Raises ValueError on anything else.
    """
    if isinstance(qualifier, int) and not isinstance(qualifier, bool):
        if not 4 <= qualifier <= 14:
            raise ValueError(f"dealer qualifier rank out of range: {qualifier!r}")
        return _lowest_high(qualifier)
    category = getattr(qualifier, "category", None)
    if isinstance(category, str) and category in _CAT:
        top_rank = getattr(qualifier, "top_rank", 0)
        if category == "high_card" and isinstance(top_rank, int) and top_rank:
            return qualifier_key(top_rank)
        return WEAKEST[category]
    if isinstance(qualifier, str):
        text = qualifier.strip()
        if text in WEAKEST:
            return WEAKEST[text]
        head = text[:-5] if text.lower().endswith("-high") else text
        parts = [p.strip().upper() for p in head.split("-")]
        if parts and all(len(p) == 1 and p in RANKS for p in parts):
            ranks = [RANKS.index(p) + 2 for p in parts]
            if len(ranks) == 1:
                return _lowest_high(ranks[0])
            if len(ranks) == 3:
                return high_card_key(ranks)
    raise ValueError(f"not a dealer qualifier: {qualifier!r} (expected e.g. 'Q-high', 'Q-6-4' or 'pair')")


def _lowest_high(rank: int) -> int:
    """The weakest unsuited high-card hand headed by `rank` (Q -> Q-3-2, 5 -> 5-3-2, A -> A-4-2)."""
    for r2 in range(2, rank):
        for r3 in range(2, r2):
            try:
                return high_card_key((rank, r2, r3))
            except ValueError:
                continue
    raise ValueError(f"no high-card hand is headed by rank {rank}")


def _pay(value: object, where: str) -> Fraction:  # a Pay, or what is refused
    if isinstance(value, tuple):
        if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value) or value[1] <= 0:
            raise ValueError(f"{where}: a pay is odds (num, den) of integers, got {value!r}")
        pay = Fraction(value[0], value[1])
    elif isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        pay = Fraction(value)
    else:
        raise ValueError(f"{where}: a pay is odds (num, den) of integers, got {value!r}")
    if pay < 0:
        raise ValueError(f"{where}: negative pay {value!r}")
    return pay


def _paytable(pays: Mapping[str, Pay], where: str) -> dict[str, Fraction]:
    unknown = sorted(set(pays) - set(CATEGORIES))
    if unknown:
        raise ValueError(f"{where}: unknown hand category {unknown[0]!r} (known: {', '.join(CATEGORIES)})")
    return {cat: _pay(pays[cat], f"{where}.{cat}") for cat in pays}


def all_hands() -> Iterator[tuple[int, int, int]]:
    """The 22,100 three-card hands as card-index triples `(a, b, c)`, `a < b < c`."""
    return combinations(range(52), 3)


def cards_of(hand: Sequence[int]) -> tuple[Card, ...]:
    """Card objects of a triple of indices."""
    return tuple(Card.from_index(i) for i in hand)


# --- Pair Plus --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PairPlusEdge:
    """Pair Plus, per unit of its stake: the house edge and how often each category comes."""

    house_edge: Fraction
    counts: tuple[tuple[str, int], ...]  # category -> number of the 22,100 hands
    pays: tuple[tuple[str, Fraction], ...]


def category_counts() -> dict[str, int]:
    """How many of the 22,100 hands fall in each category (published: 48, 52, 720, 1,096, 3,744, 16,440)."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for hand in all_hands():
        counts[category_of(hand_key(hand))] += 1
    return counts


def pair_plus_edge(pays: Mapping[str, Pay], counts: Mapping[str, int] | None = None) -> PairPlusEdge:
    """The exact house edge of Pair Plus paying `pays` (category -> odds; a category absent loses).

    Paid on the player's hand whatever the dealer holds. Raises ValueError on an unknown category
    or a bad pay.
    """
    table = _paytable(pays, "pair_plus")
    counts = dict(counts) if counts is not None else category_counts()
    ev = Fraction(0)
    for cat, n in counts.items():
        ev += n * table[cat] if cat in table else -n
    ev /= PLAYER_HANDS
    return PairPlusEdge(
        house_edge=-ev,
        counts=tuple((c, counts[c]) for c in CATEGORIES),
        pays=tuple((c, table[c]) for c in CATEGORIES if c in table),
    )


# --- Ante and Play ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class DealerCounts:
    """For one player hand, how the 18,424 dealer hands from the other 49 cards fall."""

    not_qualified: int
    weaker_qualified: int  # qualifies and loses to the player
    tied_qualified: int  # qualifies and ties the player
    stronger: int  # beats the player and qualifies (the Ante and Play lose)


@dataclass(frozen=True)
class AntePlayEdge:
    """Ante-and-Play (with the Ante Bonus) per unit of Ante, under the optimal play/fold decision.

    `house_edge` is minus the player's expected result per unit of Ante; `element_of_risk` divides by
    the average amount wagered (Ante plus Play when made). `strategy` names the weakest hand played
    when the optimal decision is a threshold on hand strength (`"Q-6-4"`: play Q-6-4 and better);
    `threshold` says whether it is one (card removal could in principle break it).
    """

    house_edge: Fraction
    element_of_risk: Fraction
    play_probability: Fraction
    strategy: str
    threshold: bool
    weakest_played: int  # hand key
    strongest_folded: int | None  # hand key, None when everything is played
    indifferent: int  # hands where playing and folding are worth exactly the same (played here)
    played: tuple[tuple[str, int], ...]  # category -> hands played, of the 22,100


def dealer_counts(qualifier: object = "Q-high") -> dict[tuple[int, int, int], DealerCounts]:
    """For every player hand (index triple), how the dealer hands from the 49 other cards fall.

    Raises ValueError on a bad qualifier.
    """
    qkey = qualifier_key(qualifier)
    keyed = sorted((hand_key(h), h) for h in all_hands())

    # Counts of the hands already walked past (all strictly weaker than the current group).
    total = 0
    per_card = [0] * 52
    per_pair = [0] * (52 * 52)
    # Snapshot of the same counts over the hands that do not qualify.
    nq_total = -1
    nq_card: list[int] = []
    nq_pair: list[int] = []

    out: dict[tuple[int, int, int], DealerCounts] = {}
    i, n = 0, len(keyed)
    while i < n:
        key = keyed[i][0]
        j = i
        while j < n and keyed[j][0] == key:
            j += 1
        if nq_total < 0 and key >= qkey:
            nq_total, nq_card, nq_pair = total, per_card[:], per_pair[:]
        group = keyed[i:j]
        # Weaker than each hand of the group, sharing none of its cards.
        weaker: list[int] = []
        for _, (a, b, c) in group:
            weaker.append(total - per_card[a] - per_card[b] - per_card[c]
                          + per_pair[a * 52 + b] + per_pair[a * 52 + c] + per_pair[b * 52 + c])
        for _, (a, b, c) in group:
            total += 1
            per_card[a] += 1
            per_card[b] += 1
            per_card[c] += 1
            per_pair[a * 52 + b] += 1
            per_pair[a * 52 + c] += 1
            per_pair[b * 52 + c] += 1
        for (_, hand), below in zip(group, weaker):
            a, b, c = hand
            # Weaker or equal, less the player hand itself (it holds all three cards).
            at_most = (total - per_card[a] - per_card[b] - per_card[c]
                       + per_pair[a * 52 + b] + per_pair[a * 52 + c] + per_pair[b * 52 + c] - 1)
            if key < qkey:
                # Every qualifying dealer hand beats this one; the dealer hands at most as strong
                # do not qualify, nor do some stronger ones: count them from the snapshot later.
                out[hand] = DealerCounts(-1, 0, 0, 0)
                continue
            nq = (nq_total - nq_card[a] - nq_card[b] - nq_card[c]
                  + nq_pair[a * 52 + b] + nq_pair[a * 52 + c] + nq_pair[b * 52 + c])
            out[hand] = DealerCounts(nq, below - nq, at_most - below, DEALER_HANDS - at_most)
        i = j
    if nq_total < 0:  # a qualifier above every hand: nothing qualifies
        nq_total, nq_card, nq_pair = total, per_card, per_pair
    for hand, counts in out.items():
        if counts.not_qualified < 0:
            a, b, c = hand
            nq = (nq_total - nq_card[a] - nq_card[b] - nq_card[c]
                  + nq_pair[a * 52 + b] + nq_pair[a * 52 + c] + nq_pair[b * 52 + c] - 1)
            out[hand] = DealerCounts(nq, 0, 0, DEALER_HANDS - nq)
    return out


def play_value(counts: DealerCounts, bonus: Fraction, ante_bonus_on: AnteBonusOn = "play") -> Fraction:
    """The player's total over the 18,424 dealer hands, per unit of Ante, when making the Play bet.

    Dealer not qualified: Ante +1, Play returned. Qualified and beaten: +2. Tie: 0. Dealer better:
    -2. Plus the Ante Bonus `bonus` (odds on the Ante) on the dealer hands `ante_bonus_on` says.
    Folding is worth -DEALER_HANDS on the same scale.
    """
    value = Fraction(counts.not_qualified + 2 * counts.weaker_qualified - 2 * counts.stronger)
    if bonus:
        paid = {
            "play": DEALER_HANDS,
            "win": counts.not_qualified + counts.weaker_qualified,
            "beat_qualified": counts.weaker_qualified,
        }[ante_bonus_on]
        value += bonus * paid
    return value


def ante_play_edge(
    ante_bonus: Mapping[str, Pay],
    qualifier: object = "Q-high",
    ante_bonus_on: AnteBonusOn = "play",
    play_from: str | None = None,
    counts: Mapping[tuple[int, int, int], DealerCounts] | None = None,
) -> AntePlayEdge:
    """The exact house edge of Ante-and-Play with its Ante Bonus, per unit of Ante.

    `ante_bonus` maps categories to odds paid on the Ante to a player who plays (see
    `AnteBonusOn` for `ante_bonus_on`). The decision is the player's best, hand by hand, unless
    `play_from` fixes a rule: play the unsuited high-card hand named (e.g. `"Q-6-4"`) and better.
    `counts` may pass a `dealer_counts(qualifier)` already computed. Raises ValueError on an
    unknown category, a bad pay, a bad qualifier or a bad rule.
    """
    table = _paytable(ante_bonus, "ante_bonus")
    if ante_bonus_on not in ANTE_BONUS_ON:
        raise ValueError(f"ante_bonus_on: {ante_bonus_on!r} is not one of {', '.join(ANTE_BONUS_ON)}")
    rule = qualifier_key(play_from) if play_from is not None else None
    if counts is None:
        counts = dealer_counts(qualifier)
    fold = Fraction(-DEALER_HANDS)
    total = Fraction(0)
    plays = 0
    indifferent = 0
    weakest_played = 1 << 16
    strongest_folded = -1
    played = dict.fromkeys(CATEGORIES, 0)
    for hand, dc in counts.items():
        key = hand_key(hand)
        play = play_value(dc, table.get(category_of(key), Fraction(0)), ante_bonus_on)
        if rule is not None:
            chosen = key >= rule
        else:
            chosen = play >= fold
            indifferent += play == fold
        if chosen:
            total += play
            plays += 1
            played[category_of(key)] += 1
            weakest_played = min(weakest_played, key)
        else:
            total += fold
            strongest_folded = max(strongest_folded, key)
    ev = total / (PLAYER_HANDS * DEALER_HANDS)
    play_probability = Fraction(plays, PLAYER_HANDS)
    threshold = strongest_folded < weakest_played
    if plays == 0:
        strategy = "fold everything"
    elif threshold:
        strategy = describe_key(weakest_played)
    else:
        strategy = f"no threshold rule: weakest played {describe_key(weakest_played)}, strongest folded {describe_key(strongest_folded)}"
    return AntePlayEdge(
        house_edge=-ev,
        element_of_risk=-ev / (1 + play_probability),
        play_probability=play_probability,
        strategy=strategy,
        threshold=threshold,
        weakest_played=weakest_played,
        strongest_folded=strongest_folded if strongest_folded >= 0 else None,
        indifferent=indifferent,
        played=tuple(played.items()),
    )


def bonus_edge(pays: Mapping[str, Pay], ante_play: AntePlayEdge) -> Fraction:
    """House edge of a stake paid by `pays` only when the spot made the Play bet, lost on a fold.

    This is the separate "Bonus" box of 003 read literally, under the Ante-and-Play decision of
    `ante_play` (with any table that pays only hands that are played anyway, it changes nothing
    in that decision). Raises ValueError on an unknown category or a bad pay.
    """
    table = _paytable(pays, "bonus")
    played = dict(ante_play.played)
    winners = sum(played[cat] for cat in table)
    ev = Fraction(sum(played[cat] * pay for cat, pay in table.items()) - (PLAYER_HANDS - winners), PLAYER_HANDS)
    return -ev


# --- both bets of one profile -------------------------------------------------------------------------

@dataclass(frozen=True)
class ThreeCardPokerEdges:
    """The house edges of one set of Three Card Poker tables and rules."""

    ante_play: AntePlayEdge
    pair_plus: PairPlusEdge
    qualifier: str  # the weakest qualifying dealer hand, e.g. "Q-3-2 or better"
    ante_bonus: tuple[tuple[str, Fraction], ...]  # category -> odds on the Ante
    ante_bonus_on: str
    bonus: Fraction | None = None  # house edge of a separate Bonus stake, when the rules have one
    bonus_pays: tuple[tuple[str, Fraction], ...] = ()


def three_card_poker_edges(
    pair_plus: Mapping[str, Pay],
    ante_bonus: Mapping[str, Pay],
    qualifier: object = "Q-high",
    ante_bonus_on: AnteBonusOn = "play",
    bonus: Mapping[str, Pay] | None = None,
) -> ThreeCardPokerEdges:
    """The edges of every bet, from plain values. Raises ValueError on a bad table, qualifier or switch."""
    ante_play = ante_play_edge(ante_bonus, qualifier, ante_bonus_on)
    return ThreeCardPokerEdges(
        ante_play=ante_play,
        pair_plus=pair_plus_edge(pair_plus),
        qualifier=describe_key(qualifier_key(qualifier)) + " or better",
        ante_bonus=tuple((c, p) for c, p in _paytable(ante_bonus, "ante_bonus").items()),
        ante_bonus_on=ante_bonus_on,
        bonus=bonus_edge(bonus, ante_play) if bonus is not None else None,
        bonus_pays=tuple(_paytable(bonus, "bonus").items()) if bonus is not None else (),
    )


def profile_edges(profile: Any) -> ThreeCardPokerEdges:
    """The edges of a profile's Three Card Poker rules (`engine.paytables.Profile`, or its
    `three_card_poker` rules). Raises ValueError on a table or switch this module cannot use.
    """
    rules = getattr(profile, "three_card_poker", profile)
    ante_bonus_on = rules.ante_bonus_on
    if ante_bonus_on not in ANTE_BONUS_ON:
        raise ValueError(f"ante_bonus_on: {ante_bonus_on!r} is not one of {', '.join(ANTE_BONUS_ON)}")
    return three_card_poker_edges(
        pair_plus=rules.pair_plus,
        ante_bonus=rules.ante_bonus,
        qualifier=rules.dealer_qualifier,
        ante_bonus_on=ante_bonus_on,
        bonus=rules.bonus,
    )


def as_json(edges: ThreeCardPokerEdges) -> dict[str, Any]:
    """The figures as plain JSON values: fractions as floats, with the exact rationals as strings."""
    ap, pp = edges.ante_play, edges.pair_plus
    return {
        "ante_play": {
            "house_edge": float(ap.house_edge),
            "house_edge_exact": str(ap.house_edge),
            "element_of_risk": float(ap.element_of_risk),
            "element_of_risk_exact": str(ap.element_of_risk),
            "play_probability": float(ap.play_probability),
            "strategy": ap.strategy,
            "threshold": ap.threshold,
            "weakest_played": describe_key(ap.weakest_played) if ap.weakest_played < 1 << 16 else None,
            "strongest_folded": describe_key(ap.strongest_folded) if ap.strongest_folded is not None else None,
            "dealer_qualifies_with": edges.qualifier,
            "ante_bonus": {c: str(p) for c, p in edges.ante_bonus},
            "ante_bonus_on": edges.ante_bonus_on,
        },
        "pair_plus": {
            "house_edge": float(pp.house_edge),
            "house_edge_exact": str(pp.house_edge),
            "pays": {c: str(p) for c, p in pp.pays},
            "counts": dict(pp.counts),
        },
        **({"bonus": {"house_edge": float(edges.bonus), "house_edge_exact": str(edges.bonus)}}
           if edges.bonus is not None else {}),
    }
