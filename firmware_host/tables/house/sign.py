"""What the players' screen shows beside the hand: the table's limits sign, its paytables, and the last hands shown down.

Built from the table's setup (the `open` it was played under) and from the public view of each
hand as it closed, so it holds nothing the rules have not revealed: the limits and paytables are
public by nature, and a past hand is taken from `engine.redact.public` of its last view (a spot
whose cards stay down has no hand name there, a voided hand shows no cards).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import redact
from engine.paytables import Paytable, Profile

HISTORY_HANDS = 10
"""How many past hands the table's `history` keeps (the players' screen shows the last 10)."""


def limits_sign(limits: Mapping[str, int]) -> dict[str, int]:
    """The limits as the sign shows them: `minimum`, `maximum` (0: none), the side bets'
    `side_minimum`, `side_maximum` and the `chip`, in the smallest unit (the `open`'s spelt-out limits)."""
    return {key: int(value) for key, value in limits.items()}


def paytable_sign(game: str, profile: Profile, sha256: str) -> dict[str, Any]:
    """The profile's name and sha256 and each bet circle's pays, strongest hand first, as
    `{circle: {hand category: [win, stake]}}` (`[3, 2]` pays 3:2), with the dealer's qualifier.

    >>> from engine.paytables import load_profile
    >>> sign = paytable_sign("uth", load_profile("default"), "ab")
    >>> sign["name"], list(sign["pays"]), sign["pays"]["blind"]["flush"]
    ('default', ['blind', 'trips'], [3, 2])
    """
    pays: dict[str, Paytable]
    if game == "uth":
        rules: Any = profile.uth
        pays = {"blind": rules.blind, "trips": rules.trips}
    else:
        rules = profile.three_card_poker
        pays = {"ante_bonus": rules.ante_bonus, "pair_plus": rules.pair_plus}
        if rules.bonus is not None:
            pays["bonus"] = rules.bonus
    return {"name": profile.name, "sha256": sha256, "qualifier": str(rules.dealer_qualifier),
            "pays": {circle: {hand: [win, stake] for hand, (win, stake) in reversed(list(table.items()))}
                     for circle, table in pays.items()}}


def shown_hand(full: Mapping[str, Any], hand: int, status: str) -> dict[str, Any]:
    """One past hand in public form, from the full view of the hand as it closed: its number, the
    dealer's cards and hand (and the board), each spot's hand name and per-circle nets (each hand with the kickers
    that decided against a hand named alike, `engine.kickers`), whether it
    was voided. Only what `engine.redact.public` shows of that view; a voided hand shows no cards
    (it never came to the showdown). Raises ValueError for a view that cannot be redacted."""
    public = redact.public(full)
    voided = status == "voided"
    dealer = public.get("dealer") or {}
    return {
        "hand": hand, "voided": voided,
        "dealer": {"cards": [] if voided else list(dealer.get("cards") or []),
                   "hand_name": None if voided else dealer.get("hand_name"),
                   "hand_category": None if voided else dealer.get("hand_category"),
                   "hand_ranks": None if voided else dealer.get("hand_ranks"),
                   "hand_kickers": None if voided else dealer.get("hand_kickers"),
                   "qualifies": None if voided else dealer.get("qualifies")},
        "board": [] if voided else list(public.get("board") or []),
        "spots": [{"seat": spot["seat"], "hand_name": None if voided else spot.get("hand_name"),
                   "hand_category": None if voided else spot.get("hand_category"),
                   "hand_ranks": None if voided else spot.get("hand_ranks"),
                   "hand_kickers": None if voided else spot.get("hand_kickers"),
                   "results": {} if voided else dict(spot.get("results") or {}),
                   "net": 0 if voided else int(spot.get("net") or 0)}
                  for spot in public.get("spots") or []],
    }
