"""The table's open, close, player and dealer events as the `history` request's other page kind: the floor's open time and its ratings are computed from them.

`{"cmd": "history", "events": true, "after": E, "limit": K}` -> `{"ok": true, "events": [...], "more":
bool, "last": M}`: the journal's `open`, `close`, `player`, `rating` and `dealer` events with ids above E (default
0), oldest first, at most K (default and cap `MAX_PAGE`), each `{"event": id, "kind", "at": ISO 8601
UTC, "ts": the journal's time (seconds), "hand": the hand being prepared, "game": the game opened (null
but for an open)}`, a `player`, `rating` or `dealer` event with its `body` (seat, action, card, source; dealer,
action: the card in full, as the journal and the full feed hold it). `last` is the
journal's event id read up to, even when no event of the page is an open or a close (so the next
page starts there and reads only what is new); `more` says whether events wait after it (the page
was full, or it read its `SCAN` events and the journal holds more). Journal reads only: one range of
the events table by id, at most `SCAN` rows.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal, cast

from protocol.commands import HISTORY_PAGE, Command, error_reply
from protocol.history import EventsPage, TableEvent
from protocol.records import DealerBody, PlayerBody, RatingBody
from protocol.requests import Refusal
from firmware_host.service.journal import Event, Journal, JournalError

MAX_PAGE = HISTORY_PAGE
"""The most events one page carries."""

SCAN = 20000
"""The most journal events one page reads through (a few milliseconds of the controller's loop): a
first page of a long journal holds its open and close events among millions of cards and bets."""


def event_line(event: Event) -> TableEvent:
    """One `open` or `close` event as the page gives it.

    >>> event_line(Event(id=7, hand=3, ts=1780000000.5, kind="open", body={"game": "uth"}))
    {'event': 7, 'kind': 'open', 'at': '2026-05-28T20:26:40.500+00:00', 'ts': 1780000000.5, 'hand': 3, 'game': 'uth'}
    """
    game = event.body.get("game") if event.kind == "open" else None
    kind: Literal["open", "close", "player", "rating", "dealer"] = (
        event.kind if event.kind in ("open", "player", "rating", "dealer") else "close")  # type: ignore[assignment]
    line: TableEvent = {"event": event.id, "kind": kind,
                        "at": datetime.fromtimestamp(event.ts, timezone.utc).isoformat(timespec="milliseconds"),
                        "ts": event.ts, "hand": event.hand, "game": game if isinstance(game, str) else None}
    if kind in ("player", "rating", "dealer"):
        line["body"] = cast(PlayerBody | RatingBody | DealerBody, dict(event.body))  # as journaled (`records`)
    return line


def events_reply(journal: Journal, cmd: Command) -> EventsPage | Refusal:
    """The reply to a `history` request with `events` (its arguments checked by `Command`)."""
    after = int(cmd.args.get("after", 0))
    limit = int(cmd.args.get("limit", MAX_PAGE))
    try:
        events, last, more = journal.table_events(after, limit, SCAN)
    except JournalError as exc:
        return error_reply(cmd.id, "journal", str(exc))
    return {"id": cmd.id, "ok": True, "events": [event_line(e) for e in events], "more": more, "last": last}
