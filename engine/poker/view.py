"""The dealer view of a poker hand: whose turn it is, the legal actions with amounts, pots, cards.

`hand.view()` (or `engine.poker.dealer_view(hand)`, built in engine/poker/dealer.py) is a frozen snapshot. `legal` lists what the actor may do:
fold, check, call X, bet / raise / complete from A to B (or only the fixed-limit choices),
all-in to T, post the bring-in, draw, show or muck. `prompt` says it in one line for a dealer
screen, e.g. `seat 3: fold, call 10, raise to 20..45, all-in to 300`. `to_dict(public=False)` is
the dealer's copy: every card, and per seat `visible` (`SeatView.visible`: a card dealt face up, a
hand shown down or `revealed` at a tournament's all-in showdown); `to_dict(public=True)` is that
copy through the one redaction (`engine.redact.public(full, POKER_HAND)`): a card not visible is `??`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import redact
from engine.poker.pots import Pot
from engine.poker.values import CardSlot, RaiseRange

__all__ = ["DealerView", "LegalActions", "SeatView"]


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the actor may do now. `call` is the chips to add; `all_in` the street total of going
    all in when that is legal (as a call or as a bet/raise)."""

    fold: bool = False
    check: bool = False
    call: int | None = None
    bring_in: int | None = None
    bet_or_raise: RaiseRange | None = None
    all_in: int | None = None
    draw: bool = False
    show: bool = False
    muck: bool = False

    def describe(self) -> list[str]:
        out: list[str] = []
        if self.bring_in is not None:
            out.append(f"bring in {self.bring_in}")
        if self.fold:
            out.append("fold")
        if self.check:
            out.append("check")
        if self.call is not None:
            out.append(f"call {self.call}")
        r = self.bet_or_raise
        if r is not None:
            if r.choices is not None:
                out.append(f"{r.kind} to " + " or ".join(str(c) for c in r.choices))
            elif r.min_to == r.max_to:
                out.append(f"{r.kind} to {r.min_to}")
            else:
                out.append(f"{r.kind} to {r.min_to}..{r.max_to}")
        if self.all_in is not None:
            out.append(f"all-in to {self.all_in}")
        if self.draw:
            out.append("draw (discard 0 or more)")
        if self.show:
            out.append("show")
        if self.muck:
            out.append("muck")
        return out

    def to_dict(self) -> dict[str, object]:
        r = self.bet_or_raise
        return {
            "fold": self.fold, "check": self.check, "call": self.call, "bring_in": self.bring_in,
            "bet_or_raise": None if r is None else {
                "kind": r.kind, "min_to": r.min_to, "max_to": r.max_to,
                "choices": None if r.choices is None else list(r.choices)},
            "all_in": self.all_in, "draw": self.draw, "show": self.show, "muck": self.muck,
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    stack: int
    bet: int
    contributed: int
    folded: bool
    all_in: bool
    mucked: bool
    shown: bool
    cards: tuple[str, ...]      # '??' for unknown cards
    up: tuple[bool, ...]
    revealed: bool = False      # turned face up for a tournament's all-in showdown (HandSettings.all_in_reveal)

    @property
    def visible(self) -> list[bool]:
        """Per card, whether the rules have turned it face up for everyone: dealt up, or the hand
        shown down or revealed (the one rule of a poker seat's `visible` flags)."""
        face_up = self.shown or self.revealed
        return [face_up or up for up in self.up]


@dataclass(frozen=True, slots=True)
class DealerView:
    variant: str
    street: str
    phase: str
    button: int
    actor: int | None
    expected_card: CardSlot | None
    level: int
    legal: LegalActions
    pots: tuple[Pot, ...]
    total_pot: int
    board: tuple[str, ...]
    seats: tuple[SeatView, ...]
    prompt: str

    def to_dict(self, public: bool = True) -> dict[str, object]:
        """Plain data for the feed. `public=False`: every card, with each seat's `visible` flags;
        `public`: that through the one redaction (`engine.redact`), a card not visible is `??`."""
        full = self._full()
        return redact.public(full, redact.POKER_HAND) if public else full

    def _full(self) -> dict[str, object]:
        slot = self.expected_card
        seats = []
        for s in self.seats:
            seats.append({
                "seat": s.seat, "stack": s.stack, "bet": s.bet, "contributed": s.contributed,
                "folded": s.folded, "all_in": s.all_in, "mucked": s.mucked, "shown": s.shown,
                "revealed": s.revealed, "cards": list(s.cards), "visible": s.visible, "up": list(s.up),
            })
        return {
            "variant": self.variant, "street": self.street, "phase": self.phase,
            "button": self.button, "actor": self.actor,
            "expected_card": None if slot is None else {
                "kind": slot.kind, "seat": slot.seat, "up": slot.up, "street": slot.street},
            "level": self.level, "legal": self.legal.to_dict(),
            "pots": [p.to_dict() for p in self.pots], "total_pot": self.total_pot,
            "board": list(self.board), "seats": seats, "prompt": self.prompt,
        }
