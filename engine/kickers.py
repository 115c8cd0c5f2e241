"""Why one hand beats another of the same name: the kickers that decide ("Pair of kings, ace kicker"), from the ranking.

Two high hands (or two three-card hands) named alike, the same category citing the same ranks (`named_ranks`:
"Pair of kings" and "Pair of kings"), are decided by their other cards, the kickers, compared in the order of
importance the evaluator put the hand's `cards` in (`engine.evaluate`: a pair's two cards, then its kickers highest
first). `kickers(value, other)` gives the ranks of `value`'s kickers up to the one that differs from `other`'s at
the same place, so a screen can say why one beats the other in its own words ("Pair of kings, ace kicker" against
"Pair of kings, queen kicker"; "Pair of kings, ace-queen kickers" against "ace-jack" when the first kickers tie).
The engine's strength decides; this only names the card that made the difference. Kept beside `engine.evaluate`,
which it reads and never changes.

>>> from engine.cards import parse_cards
>>> from engine.evaluate import high
>>> kickers(high(parse_cards("Kh Kd As 7c 4d 3s 2h")), high(parse_cards("Ks Kc Qd 7h 4c 3d 2c")))
('A',)
>>> kickers(high(parse_cards("Kh Kd As Qc 4d 3s 2h")), high(parse_cards("Ks Kc Ad Jh 4c 3d 2c")))
('A', 'Q')
>>> kickers(high(parse_cards("Kh Kd As Qc 4d 3s 2h")), high(parse_cards("Qs Qc Ad Jh 4c 3d 2c")))
()
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.evaluate import HandValue, named_ranks

__all__ = ["kickers", "deciding_kickers"]


def kickers(value: HandValue, other: HandValue) -> tuple[str, ...]:
    """The ranks (as a card writes them) of `value`'s kickers, most important first, up to and with the first that
    differs from `other`'s: what decides between two hands named alike. () when their names already differ (the
    name says why), when they tie, or when they are not of one evaluator's size."""
    if value.category != other.category or value.strength == other.strength or len(value.cards) != len(other.cards):
        return ()
    named = named_ranks(value)
    if named != named_ranks(other):
        return ()
    shown: list[str] = []
    for mine, theirs in zip(value.cards, other.cards):
        rank = mine.text[0]
        if rank in named:  # a card the name cites (the pair's, the trips'): never a kicker
            continue
        shown.append(rank)
        if mine.rank != theirs.rank:
            return tuple(shown)
    return ()


def deciding_kickers(dealer: HandValue, against: Iterable[HandValue]) -> tuple[str, ...]:
    """The dealer's kickers against every hand it was compared with (each spot's that played): the longest of
    `kickers(dealer, hand)`, so a dealer's line names as many as the closest spot needs ("Pair of kings, ace-jack
    kickers" where one spot lost on its second kicker and another on its first). () when no hand ties on the name."""
    return max((kickers(dealer, hand) for hand in against), key=len, default=())
