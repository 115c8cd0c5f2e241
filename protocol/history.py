"""The `history` replies as typed definitions: each closed hand's line (`croupier history --json`, the floor's archive) a page at a time, and the table's events; and `Reply`, any reply of the command channel.

Apart from `protocol.requests` (the requests and the other replies), which `protocol.records` builds the journal's
bodies on: a closed hand's line carries what its record does (`records`), so its page is typed here, above both.
`tests/protocol/test_messages.py` holds every line of played house, chip and poker tables to these types.

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated
annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

from engine.house_values import RoundLine, SettlementLine
from protocol.messages import Limits, PokerResults, Say
from protocol.records import (CorrectBody, DealerBody, HandChips, HandStatus, HandTray, PhhRecord, PlayerBody,
                              RatingBody)
from protocol.requests import Done, Refusal, StateReply

# -- a closed hand's history line -------------------------------------------------------------------


class LineFault(TypedDict):
    """A fault of the hand as its line says it: the kind, the detail and words journaled (None in a record of
    before them), who cleared it (`signer_of`), why, and what came next (None while it stood)."""

    kind: str | None
    detail: str | None
    say: Say | None
    cleared_by: str | None
    reason: str | None
    then: str | None


class ProfileUnder(TypedDict):
    """The paytable profile a house hand was settled under: its name, its sha256 and its text as the `open`
    journaled it (None: a hand journaled before profiles were, or the text no longer the hand's)."""

    name: str | None
    sha256: str | None
    content: str | None


class LineChain(TypedDict):
    """The journal's chain at the event that closed the hand (the floor's archive keeps it)."""

    event: int
    head: str


class HouseLine(TypedDict):
    """A closed house hand's line (`history.hand_line`): its round and settlement, the profile and limits it was
    settled under (the limits as recorded when they do not parse), its faults, what the floor's ratings read beside
    the round (the decisions corrected, a smart table's chips) and the chips moved at the tray before it."""

    hand: int
    status: HandStatus
    burns: list[str]
    round: RoundLine | None
    settlement: SettlementLine | None
    profile: ProfileUnder
    limits: Limits | dict[str, Any]
    faults: list[LineFault]
    reason: str | None
    closed: str
    corrected: list[CorrectBody]
    chips: NotRequired[HandChips]
    tray: NotRequired[HandTray]
    chain: NotRequired[LineChain]


class PokerLine(TypedDict):
    """A closed poker hand's line (`history.hand_line`): its game, `engine.phh.hand_from_record`'s record, the
    results, whether the pot was chopped, its faults."""

    hand: int
    status: HandStatus
    game: str | None
    burns: list[str]
    hand_record: PhhRecord | None
    results: PokerResults | None
    chopped: bool
    faults: list[LineFault]
    reason: str | None
    closed: str
    chain: NotRequired[LineChain]


HistoryLine = HouseLine | PokerLine
"""A closed hand as `croupier history --json` prints it and a `history` page carries it."""


# -- the pages -------------------------------------------------------------------------------------


class HistoryPage(TypedDict):
    """A page of closed hands (`history`), each its `croupier history --json` line."""

    id: str | int | None
    ok: Literal[True]
    hands: list[HistoryLine]
    more: bool
    last: int


class TableEvent(TypedDict):
    """An `open`, `close`, `player` or `dealer` event of the journal: the floor's open time and its ratings."""

    event: int
    kind: Literal["open", "close", "player", "rating", "dealer"]
    at: str
    ts: float  # the journal's time exactly (seconds since the epoch): the ratings' clock
    hand: int
    game: str | None
    body: NotRequired[PlayerBody | RatingBody | DealerBody]  # a `player`, `rating` or `dealer` event's, as journaled


class EventsPage(TypedDict):
    """A page of the table's open and close events (`history` with `events`)."""

    id: str | int | None
    ok: Literal[True]
    events: list[TableEvent]
    more: bool
    last: int


Reply = Done | StateReply | Refusal | HistoryPage | EventsPage
"""Any reply of the command channel."""
