"""A house round's view for the feed: the dealer's hand and each spot as plain values, turned over from the showdown on.

`HouseRound.full_view` (engine.house) puts these parts together, each made again only when a step
changes it; the public view is the full one through the one redaction (`engine.redact.public`). The
`dealer` is `{"cards", "visible"}` plus, from the showdown on, `hand_name`, `hand_category`, `hand_ranks`,
`hand_kickers` and `qualifies`. Each spot has `seat`, `cards`, `visible`, `bets` (the Play included once made) and
`decision` (None, "check", "play", "fold", "dead"), and from the showdown on `hand_name`,
`hand_category`, `hand_ranks`, `hand_kickers`, `results` and `net`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import Card, format_cards
from engine.house_values import Settlement

AUDIENCES = ("public", "full")
"""Who a view is for: the public (every card not yet turned over hidden) or the table's own screens."""


def dealer_part(cards: Sequence[Card], shown: bool, settlement: Settlement | None) -> dict[str, Any]:
    """The dealer's hand: its cards, every one turned over when `shown` (from the showdown on), and with the
    round's `settlement` the hand's name and category and whether it qualifies."""
    texts = format_cards(cards)
    dealer: dict[str, Any] = {"cards": texts, "visible": [shown] * len(texts)}
    if settlement is not None:
        dealer["hand_name"] = settlement.dealer_hand
        dealer["hand_category"] = settlement.dealer_category  # for a screen's own words (engine.evaluate's keys)
        dealer["hand_ranks"] = list(settlement.dealer_ranks)  # and the ranks its name cites (named_ranks)
        dealer["hand_kickers"] = list(settlement.dealer_kickers)  # and the kickers that decided (engine.kickers)
        dealer["qualifies"] = settlement.dealer_qualifies
    return dealer


def with_card(hand: dict[str, Any], card: str, visible: bool) -> dict[str, Any]:
    """A hand's part (`dealer_part`'s or `spot_part`'s) with `card` dealt to it, turned over as `visible` says (the
    same rule as the parts' own: `HouseRoundState.dealt_part`); its other entries the very ones."""
    return {**hand, "cards": [*hand["cards"], card], "visible": [*hand["visible"], visible]}


def spot_part(seat: int, cards: Sequence[Card], bets: dict[str, int], decision: str | None, visible: bool,
              settlement: Settlement | None) -> dict[str, Any]:
    """A spot: its cards (`visible` when the rules turn them over for everyone), its `bets` (the very dict, made
    for this part) and decision, and with the round's `settlement` (from the showdown on) its hand, results by
    circle and net."""
    texts = format_cards(cards)
    spot: dict[str, Any] = {"seat": seat, "cards": texts, "visible": [visible] * len(texts), "bets": bets,
                            "decision": decision}
    if settlement is not None:
        result = settlement.spot(seat)
        spot["hand_name"] = result.hand
        spot["hand_category"] = result.category
        spot["hand_ranks"] = list(result.ranks)
        spot["hand_kickers"] = list(result.kickers)
        spot["results"] = dict(result.results)
        spot["pays"] = result.pays()  # each winning circle's odds: the dealer's payout prompt
        spot["net"] = result.net
    return spot
