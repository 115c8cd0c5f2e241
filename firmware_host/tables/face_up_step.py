"""A table step dealt face up by the shoe between hands: the cards to the seats in turn, seat 1 first, each once.

The chip race (`chip_race_step.py`) and the draw for the button (`button_draw_step.py`) are such
steps: while one is open every card the shoe reads is one of its cards, dealt to the seat whose card
is due (the step's `next`), so the table knows whose card each one is by the count alone. A step is
a plain map `{"done": bool, "next": seat | None, "seats": [{"seat", "cards": [...], ...}],
"manual": [cards keyed in]}`; `due` says, from the seats' cards, which seat's card is due next
(None once every card is dealt). A card the step cannot take (no card, or one dealt already in this
step) is refused (nothing changed): the table journals it refused, a fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

from engine.cards import Card
from engine.errors import CardError
from protocol.messages import ButtonDraw, Race
from firmware_host.tables.base import Refused

Step = TypeVar("Step", Race, ButtonDraw)
"""A step dealt face up: a chip race or a draw for the button, as the views show it (`protocol.messages`)."""


def open_step(step: Race | ButtonDraw | None) -> bool:
    """The step is being dealt: its cards are still due."""
    return step is not None and not step["done"]


def refuse_while_open(step: Step | None, kind: str, stopped: frozenset[str], code: str,
                      why: Callable[[Step], str]) -> None:
    """Raise Refused (`code`, `why(step)` its words) for a `kind` step in `stopped` while `step` is dealt."""
    if open_step(step) and kind in stopped:
        assert step is not None
        raise Refused(f"{kind}: {why(step)}: no hand, seat or table change until it is done", code)


@overload
def deal_face_up(step: Race, card: str, manual: bool, what: str, due: Callable[[Race], int | None]) -> Race: ...


@overload
def deal_face_up(step: ButtonDraw, card: str, manual: bool, what: str,
                 due: Callable[[ButtonDraw], int | None]) -> ButtonDraw: ...


def deal_face_up(step: Race | ButtonDraw, card: str, manual: bool, what: str, due: Callable[[Any], int | None],
                 ) -> Race | ButtonDraw:
    """The step with `card` dealt to the seat whose card is due, and `next` the seat due after it (None:
    every card is dealt; the caller then runs the step). `what`: the step's name in the refusals.
    Raises Refused for a card that is no card or was dealt already in this step (nothing changed)."""
    try:
        Card.parse(card)
    except CardError as exc:
        raise Refused(f"{what}: {exc}") from None
    if any(card in s["cards"] for s in step["seats"]):
        raise Refused(f"{what}: {card} was dealt already in this {what}: each card is dealt once "
                      f"(the card for seat {step['next']} is still due)")
    seats = [{**s, "cards": [*s["cards"], card] if s["seat"] == step["next"] else list(s["cards"])}
             for s in step["seats"]]
    taken = cast(Race | ButtonDraw, {**step, "seats": seats,
                                     "manual": [*step["manual"], card] if manual else list(step["manual"])})
    taken["next"] = due(taken)
    return taken
