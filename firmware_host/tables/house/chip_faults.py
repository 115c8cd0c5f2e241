"""A smart table's chip faults and their words: the fault a reading or a confirm raises, the circle it names, and what makes a circle read its due.

`firmware_host.tables.house.chips` (`TableChips`) raises them; a hand's record and the recall say them again
(`said_in_full`); `make_of` is the feed's circles', the mispay's notes' and `croupier history`'s one rule for what makes
a circle read its due (`engine.chip_circles.to_due`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.chip_circles import Antenna, to_due
from engine.errors import circle, money
from firmware_host.tables.base import FaultKind
from protocol.chip_alerts import MakeDue
from protocol.messages import Say


@dataclass(frozen=True, slots=True)
class ChipFault:
    """A fault the chips raise: its kind, detail (full feed), words' arguments for everyone (`args`)
    and for the full feed only (`secret`: a chip's UID)."""

    kind: FaultKind
    detail: str
    args: Mapping[str, Any] = field(default_factory=dict)
    uid: str | None = None  # the chip's UID: the full feed's words only
    situation: str = ""  # which of the kind's sentences (`circle`, `tray`; `more`: more circles wrong)
    circles: tuple[tuple[int, str], ...] = ()  # the bet circles it names, (seat, circle): the console marks them


def spoken(antenna: Antenna) -> str:
    """An antenna in the English details and refusals: "seat 3 Pair Plus", "the tray"."""
    return "the tray" if antenna.is_tray else f"seat {antenna.seat} {antenna.circle.replace('_', ' ').title()}"


def circles_named(antenna: Antenna) -> tuple[tuple[int, str], ...]:
    """A fault's circles (`ChipFault.circles`): the antenna's circle, none for the tray."""
    return () if antenna.is_tray else ((antenna.seat, antenna.circle),)


def where_words(antenna: Antenna) -> dict[str, Any]:
    """A circle in the words' arguments: its seat and its name in the reader's language."""
    return {"seat": antenna.seat, "circle": circle(antenna.circle)} if not antenna.is_tray else {}


def make_of(due: int, reads: int) -> MakeDue | None:
    """What makes a circle that reads `reads` read its `due` (`to_due`) as the feed's circles, the mispay's notes and the
    hand's record carry it; None when it reads its due.

    >>> make_of(4000, 4500), make_of(0, 500), make_of(500, 500)
    ({'do': 'take_back', 'amount': 500}, {'do': 'take', 'amount': 500}, None)
    """
    make = to_due(due, reads)
    return None if make is None else {"do": make[0], "amount": make[1]}


def make_words(due: int, reads: int) -> dict[str, Any]:
    """What makes a circle read its due (`to_due`: "take €5.00"), as a word with its amount for a fault's words."""
    make = make_of(due, reads)
    assert make is not None
    return {"word": f"to_due.{make['do']}", "args": {"amount": money(make["amount"])}}


MISPAY_WORDS = ("fault.mispay", "fault.mispay_more")
"""The mispay fault's words (`payout_fault`): each says what makes its circle read its due (`make`) since 55b4415."""


def said_in_full(said: Say, detail: str = "") -> Say:
    """A fault's words as a hand's record kept them, to say now: a mispay's journaled before its words said what makes
    the circle read its due (no `make`, and `more` but no `circles`) given those from its due and reading, as the
    fault says them now (`make_words`), so the recall reads "take back €5.00", never "{make}"; one whose due or
    reading is not there either (none is known to have been journaled so) its English `detail` in the recall's words
    for a fault (`surveillance.recall_fault`); any other words as they are.

    >>> said = {"key": "fault.mispay", "args": {"seat": 3, "due": {"money": 400}, "reads": {"money": 300}, "more": 0}}
    >>> said_in_full(said)["args"]["make"], said_in_full(said)["args"]["circles"]
    ({'word': 'to_due.pay', 'args': {'amount': {'money': 100}}}, 1)
    """
    args = said.get("args")
    if said.get("key") not in MISPAY_WORDS or not isinstance(args, Mapping) or ("make" in args and "circles" in args):
        return said
    due, reads = (args.get(k, {}).get("money") if isinstance(args.get(k), Mapping) else None for k in ("due", "reads"))
    if not isinstance(due, int) or not isinstance(reads, int) or due == reads:
        return {"key": "surveillance.recall_fault", "args": {"kind": "mispay", "detail": detail}}
    more = args.get("more")
    more = more if isinstance(more, int) else 0
    return {"key": said["key"], "args": {"circles": more + 1, **args, "make": args.get("make") or make_words(due, reads)}}
