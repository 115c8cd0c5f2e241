"""What the poker room's players' screen reads beside a poker hand: each seat's forced bets, draws, last action and shown hand as data, and the last hands.

The poker table's views carry these so the screen (`/table`) writes them in its own language and
derives no rule: the blinds and antes each seat posted (`posted`), how many cards each seat drew at
each draw (`drew`), its last action as a record (`act`: `{"action": "raise", "amount": 2700}`),
its shown hand's category and, for a low or a badugi, its ranks (`hand_values`), and the last hands
(`shown_hand`, in public form: taken from `engine.redact.public` of the hand's view as it closed,
so a hand that was never shown stays `??` there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine import redact
from engine.evaluate import HandValue, named_ranks
from engine.poker.records import Drew, Posted, Shown
from protocol import messages

LOW_EVALUATORS = frozenset({"low8", "omaha_low8", "ace_five_low", "deuce_seven_low", "badugi"})
"""The evaluators whose hands are read by their ranks (a low, a badugi) rather than a category alone."""
HIGH_EVALUATORS = frozenset({"high", "omaha_high"})
"""The evaluators whose hands are named by a category and the ranks it cites (`named_ranks`: "Pair of kings")."""
NO_LOW: messages.HandValue = {"category": "no_low", "ranks": None}
"""The low half of a hi-lo hand whose low does not qualify (only a low evaluator returns None)."""


def seat_records(records: Iterable[object]) -> tuple[dict[int, dict[str, int]], dict[int, list[int]],
                                                   dict[int, list[messages.HandValue]]]:
    """In one pass over a hand's records (the views are built at every card): seat -> the forced
    bets it posted by kind (`small_blind`, `big_blind`, `straddle`, `ante`, `dead_small_blind`, each
    kind's chips added up); seat -> how many cards it drew at each draw so far (0: stood pat); seat
    -> its shown hand's words (`hand_words`, high first then low; a hi-lo hand whose low does not
    qualify says so, `{"category": "no_low"}`: docs/rules.md, the high then takes all)."""
    posted: dict[int, dict[str, int]] = {}
    drew: dict[int, list[int]] = {}
    shown: dict[int, list[messages.HandValue]] = {}
    for rec in records:
        kind = type(rec)
        if kind is Posted:
            assert isinstance(rec, Posted)
            seat = posted.setdefault(rec.seat, {})
            seat[rec.kind] = seat.get(rec.kind, 0) + rec.amount
        elif kind is Drew:
            assert isinstance(rec, Drew)
            drew.setdefault(rec.seat, []).append(len(rec.discards))
        elif kind is Shown:
            assert isinstance(rec, Shown)
            shown[rec.seat] = [hand_words(v, e) if v is not None else NO_LOW.copy()
                               for v, e in zip(rec.values, rec.evaluators)]
    return posted, drew, shown


def _rank(card: Any, ace_low: bool) -> tuple[int, str]:
    rank = int(card.rank)
    text = "10" if rank == 10 else str(card)[0]
    return (1 if ace_low and rank == 14 else rank), text


def hand_words(value: HandValue, evaluator: str) -> messages.HandValue:
    """A shown hand as the screen words it: its `category` (`engine.evaluate`'s keys), and `ranks`
    ("8-6-5-4-2", highest first) for a low hand or a badugi, else None.

    >>> from engine.cards import parse_cards
    >>> from engine.evaluate import low8, high
    >>> hand_words(low8(parse_cards("Ah 2c 4d 5s 8h Kd Kc")), "low8")
    {'category': 'low', 'ranks': '8-5-4-2-A'}
    >>> hand_words(high(parse_cards("5h 5d 5s 6c 6d")), "high")
    {'category': 'full_house', 'ranks': None, 'named': ['5', '6']}
    """
    low = evaluator in LOW_EVALUATORS and (value.category in ("low", "high_card") or evaluator == "badugi")
    if evaluator in HIGH_EVALUATORS:
        return {"category": value.category, "ranks": None, "named": list(named_ranks(value))}
    if not low:
        return {"category": value.category, "ranks": None}
    ranks = sorted((_rank(c, evaluator != "deuce_seven_low") for c in value.cards), reverse=True)
    return {"category": value.category, "ranks": "-".join(text for _, text in ranks)}


def act_record(action: str, amount: int | None = None, all_in: bool = False,
               cards: int | None = None, clock: bool = False) -> messages.Act:
    """A seat's last action as the screen words it: `action` (`fold`, `check`, `call`, `bet`,
    `raise`, `complete`, `bring_in`, `draw`, `stand_pat`, `show`, `muck`), `amount` (the seat's
    street total after it: the bet a call matched, a bet's or raise's "to", a bring-in's chips: the
    chips in front of the seat, as the dealer reads them), `all_in`, `cards` drawn, and `clock` (a
    fold because the seat's clock ran out)."""
    out: messages.Act = {"action": action}
    if clock:
        out["clock"] = True
    if amount is not None:
        out["amount"] = amount
    if all_in:
        out["all_in"] = True
    if cards is not None:
        out["cards"] = cards
    return out


def shown_hand(full: Mapping[str, Any], hand: int, status: str) -> dict[str, Any]:
    """One past poker hand in public form, from the full view of the hand as it closed: its number,
    whether it was voided, the board, the pots with their winners, the rake, and each seat dealt
    in with its cards as the public saw them, its shown hand's words and its net. Raises ValueError
    for a view that cannot be redacted."""
    public = redact.public(full)
    voided = status == "voided"
    results = None if voided else public.get("results")
    spots = [spot for spot in public.get("spots") or [] if spot.get("in_hand")]
    return {
        "hand": hand, "voided": voided, "poker": True,
        "board": [] if voided else list(public.get("board") or []),
        "pots": [] if results is None else [
            {"amount": pot["amount"], "winners": [dict(w) for w in pot["winners"]]} for pot in results["pots"]],
        "rake": 0 if results is None else int(results.get("rake") or 0),
        "spots": [{"seat": spot["seat"], "cards": [] if voided else list(spot.get("cards") or []),
                   "folded": bool(spot.get("folded")),
                   "hand_values": [] if voided else [dict(v) for v in spot.get("hand_values") or []],
                   "net": 0 if voided else int(spot.get("net") or 0)}
                  for spot in spots],
    }
