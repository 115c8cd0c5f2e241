"""One hand at the table: the engine's round plus what the controller keeps beside it (faults, voids).

A thin adapter over `engine.house.HouseRound` (`UltimateHoldemRound`, `ThreeCardPokerRound`): the
engine owns the rules (legality, dealing order, settlement, public/full views); this module adds
the controller's bookkeeping (faults raised and cleared, cards ignored while a fault stood, the
discard reader's cards, why a hand was voided) and builds the hand's record for the journal and
`croupier history`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.errors import CardError, IllegalAction

ROUND_CLASSES = {"uth": ("engine.ultimate_holdem", "UltimateHoldemRound"),
                 "3cp": ("engine.three_card_poker", "ThreeCardPokerRound")}


@lru_cache(maxsize=None)
def _profile(name: str) -> Any:
    from engine.paytables import load_profile
    return load_profile(name)


def round_class(game: str) -> Any:
    """The engine's round class for `game`. Raises ValueError for an unknown game."""
    if game not in ROUND_CLASSES:
        raise ValueError(f"unknown game {game!r} (games: {', '.join(ROUND_CLASSES)})")
    module, name = ROUND_CLASSES[game]
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True, slots=True)
class TableSetup:
    """What `open` sets: the game, its paytable profile, the limits, the number of seats."""

    game: str
    profile: str = "default"
    limits: Mapping[str, int] = field(default_factory=dict)
    seats: int = 7

    @classmethod
    def from_body(cls, body: Mapping[str, Any], default_seats: int = 7) -> TableSetup:
        """From an `open` event's body. Raises ValueError / ProfileError / LimitsError (refused open)."""
        setup = cls(game=str(body["game"]), profile=str(body.get("profile", "default")),
                    limits=dict(body.get("limits") or {}), seats=int(body.get("seats", default_seats)))
        setup.new_round()  # refuse now what the engine would refuse
        return setup

    def as_body(self) -> dict[str, Any]:
        return {"game": self.game, "profile": self.profile, "limits": dict(self.limits), "seats": self.seats}

    def new_table(self, hand: int) -> Table:
        return Table(self, hand)

    def new_round(self) -> Any:
        """A fresh engine round in phase `bets`. Raises ProfileError, LimitsError, ValueError."""
        from engine.house import TableLimits
        profile = _profile(self.profile)
        limits = TableLimits.parse(self.limits, source="open")
        max_spots = (profile.uth if self.game == "uth" else profile.three_card_poker).max_spots
        return round_class(self.game)(profile, limits, min(self.seats, max_spots))


class FaultBook:
    """The faults a hand met, their clearing, and the cards read while one stood (house and poker tables)."""

    phase: str
    faults: list[dict[str, Any]]
    ignored: list[dict[str, Any]]

    def note_fault(self, kind: str, message: str, detail: str, event: int, extra: bool = False) -> None:
        self.faults.append({"kind": kind, "message": message, "detail": detail, "event": event,
                            "during": extra, "phase": self.phase, "cleared": None})

    def note_clear(self, cleared: Mapping[str, Any]) -> None:
        for fault in self.faults:
            if fault["cleared"] is None:
                fault["cleared"] = dict(cleared)

    def note_ignored(self, card: str, fault: str) -> None:
        self.ignored.append({"card": card, "fault": fault})


class Table(FaultBook):
    """The hand in progress (or just finished, until the next one starts)."""

    def __init__(self, setup: TableSetup, hand: int) -> None:
        self.setup = setup
        self.hand = hand
        self.round = setup.new_round()
        self.faults: list[dict[str, Any]] = []
        self.ignored: list[dict[str, Any]] = []
        self.discards: list[str] = []
        self.closed: str | None = None  # "settled" or "voided" once closed

    def successor(self, hand: int) -> Table:
        """The table for the next hand (a fresh round; nothing carries over at a house game)."""
        return Table(self.setup, hand)

    # -- state --

    @property
    def phase(self) -> str:
        return str(self.round.phase)

    @property
    def confirmable(self) -> bool:
        """At the showdown: the dealer pays and confirms."""
        return self.closed is None and self.phase == "showdown"

    def next_target(self) -> str | None:
        """Where the next card goes (`spot 3`, `dealer`, `board`, `burn`), or None."""
        target = self.round.next_target()
        return None if target is None else str(target)

    @property
    def started(self) -> bool:
        """A hand is under way: a bet is posted or a card dealt, and it is not closed."""
        return self.closed is None and (bool(self.round.spot_seats()) or self.phase != "bets")

    @property
    def mid_hand(self) -> bool:
        """Between the deal and the showdown: where shoe and device faults stop the hand."""
        return self.closed is None and self.phase not in ("bets", "showdown", "settled")

    @property
    def waiting_for_dealer(self) -> bool:
        """The tower light's amber: a decision or the payouts are awaited."""
        return self.closed is None and (self.round.to_act() is not None or self.phase == "showdown")

    def short_of_cards(self) -> bool:
        """Dealing, with cards still expected and no decision awaited: a showdown called now would
        be short of cards."""
        return (self.closed is None and self.phase not in ("bets", "showdown", "settled")
                and self.round.next_target() is not None and self.round.to_act() is None)

    def view(self, audience: str) -> dict[str, Any]:
        view: dict[str, Any] = self.round.view(audience)
        target = self.round.next_target() if self.closed is None else None
        view["next"] = str(target) if target is not None and self.phase != "bets" else None
        if audience == "full":
            view["discards"] = list(self.discards)
            view["ignored"] = [dict(x) for x in self.ignored]  # read while a fault stood: not dealt
        return view

    def views(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """`(view("public"), view("full"))`, built together (one pass over the round)."""
        public, full = self.round.views()
        target = self.round.next_target() if self.closed is None else None
        public["next"] = full["next"] = str(target) if target is not None and self.phase != "bets" else None
        full["discards"] = list(self.discards)
        full["ignored"] = [dict(x) for x in self.ignored]
        return public, full

    # -- steps --

    def bet(self, seat: int, bets: dict[str, int]) -> None:
        """Raises IllegalAction (state unchanged)."""
        self.round.post_bets(seat, bets)

    def deal(self) -> None:
        """Close the betting. Raises IllegalAction."""
        self.round.close_bets()

    def decide(self, seat: int, decision: str, multiple: Any) -> None:
        """Raises IllegalAction."""
        if decision == "dead":
            self.round.declare_dead(seat)
        else:
            self.round.decide(seat, decision, multiple)

    def check_card(self, card: str) -> tuple[str, str] | None:
        """The fault a card from the shoe would raise, `(kind, detail)`, or None when it can be dealt."""
        try:
            self.round.verify_deal(card)
        except (CardError, IllegalAction) as exc:
            return self._card_fault(card, exc)
        return None

    def deal_or_fault(self, card: str) -> tuple[str, str] | None:
        """Deal the card where the engine says; or, when it cannot be dealt, the fault it raises
        instead, `(kind, detail)`, with nothing changed (one check: `check_card` then `take_card`
        would check the card twice)."""
        try:
            self.round.deal(card)
        except (CardError, IllegalAction) as exc:
            return self._card_fault(card, exc)
        return None

    def _card_fault(self, card: str, exc: CardError | IllegalAction) -> tuple[str, str]:
        if isinstance(exc, CardError):
            if "duplicate" in str(exc):
                return "duplicate_card", str(exc)
            return "unexpected_card", str(exc)
        if self.phase in ("showdown", "settled"):
            return "card_count", f"too many cards: {card} after the last card of the hand"
        if self.phase == "bets" and not self.round.spot_seats():
            return "no_bet", f"{card} came out but no spot has a bet"
        if self.phase == "bets":
            return "no_bet", f"{card} came out but the bets do not allow a deal: {exc}"
        return "unexpected_card", str(exc)

    def take_card(self, card: str) -> None:
        """Deal the card where the engine says. Raises CardError/IllegalAction (check first)."""
        self.round.deal(card)

    def discard(self, card: str) -> None:
        self.discards.append(card)

    def settle(self) -> None:
        """The payouts are confirmed. Raises IllegalAction before the showdown."""
        self.round.settle()

    def record(self, status: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The hand as journaled when it closes and printed by `croupier history`."""
        self.closed = status
        rec = self.round.record()
        settlement = rec.settlement.to_dict() if (status == "settled" and rec.settlement is not None) else None
        return {
            "hand": self.hand,
            "game": self.setup.game,
            "profile": self.setup.profile,
            "limits": dict(self.setup.limits),
            "status": status,
            "burns": [str(c) for c in rec.burns],
            "deals": [[str(t), str(c)] for t, c in rec.deals],
            "spots": [{"seat": s.seat, "bets": dict(s.bets), "cards": [str(c) for c in s.cards],
                       "decision": s.decision, "street": s.street, "multiple": s.multiple}
                      for s in rec.spots],
            "dealer": [str(c) for c in rec.dealer],
            "board": [str(c) for c in rec.board],
            "steps": [step.to_dict() for step in rec.steps],
            "round": dict(rec.round) if rec.round is not None else self._partial_round(rec),
            "settlement": settlement,
            "faults": self.faults,
            "ignored": self.ignored,
            "discards": self.discards,
            "reason": body.get("reason"),
            "by": body.get("by"),
        }

    def _partial_round(self, rec: Any) -> dict[str, Any]:
        """A hand voided before its showdown: the round's cards as far as they were dealt, in
        `croupier settle`'s input layout (it cannot be settled: cards are missing)."""
        spots = []
        for s in rec.spots:
            spot: dict[str, Any] = {"seat": s.seat, "cards": [str(c) for c in s.cards], "bets": dict(s.bets)}
            if self.setup.game == "uth":
                spot["play"] = ({"street": s.street, "multiple": s.multiple} if s.street is not None
                                else None)
            elif "ante" in s.bets:
                spot["play"] = s.decision == "play"
            spots.append(spot)
        out: dict[str, Any] = {"game": self.setup.game, "dealer": [str(c) for c in rec.dealer]}
        if self.setup.game == "uth":
            out["board"] = [str(c) for c in rec.board]
        out["spots"] = spots
        return out
