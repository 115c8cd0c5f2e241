"""The pit's fetch of each table's open, close, player and dealer events (the `history` request's `events` pages) for the archive's open time and ratings.

After a table's closed hands, the catch-up asks `{"cmd": "history", "events": true, "after": E}` with
E the last event the sink holds for the table, page after page until `more` is false, and hands each
page's events to the sink (`write_events`: the archive's `table_events` for the opens and closes,
`rating_events` for the player cards and dealers' sign-ins, both keyed (table, event), so a page
written twice is one set of rows). A table whose journal reader predates the `events` pages
refuses the argument as malformed: it is logged once and its hands are archived all the same (its
open time is then that of its hands alone: docs/floor.md, Figures).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from protocol.commands import CommandClient
from protocol.history import TableEvent

log = logging.getLogger("croupier.pit")

PAGE = 100
"""Events a page asks for (the table's cap)."""

EVENT_COLUMNS = ("table_name", "event", "kind", "at", "hand", "game", "pit", "ts")

RATING_EVENT_COLUMNS = ("table_name", "event", "kind", "at", "ts", "hand", "body", "pit")
"""A `player` or `dealer` event's row (`rating_events`): its body as the journal holds it."""

RATING_KINDS = ("player", "rating", "dealer")


class EventSink(Protocol):
    """Where a table's open and close events go (the archive, or the pit's counter)."""

    def last_event(self, table: str) -> int: ...

    def write_events(self, table: str, events: list[TableEvent]) -> int: ...


class SinkFailed(RuntimeError):
    """The sink refused a read or a write of events (the archive down, say)."""


class EventError(ValueError):
    """An event line that is not a table's `open`, `close`, `player` or `dealer` as `service/table_events.py` gives it."""


def event_row(table: str, pit: str | None, line: Mapping[str, Any]) -> tuple[Any, ...]:
    """The `table_events` row of one event line (EVENT_COLUMNS' order), or for a `player` or `dealer`
    event its `rating_events` row (RATING_EVENT_COLUMNS'). Raises EventError.

    >>> event_row("uth-07", "pit-1", {"event": 12, "kind": "open", "at": "2026-12-01T10:00:00+00:00",
    ...                               "hand": 4, "game": "uth"})[:4]
    ('uth-07', 12, 'open', datetime.datetime(2026, 12, 1, 10, 0, tzinfo=datetime.timezone.utc))
    """
    event, kind, hand = line.get("event"), line.get("kind"), line.get("hand")
    if not isinstance(event, int) or isinstance(event, bool) or event < 1:
        raise EventError(f"{table}: an event without an id (1 or more): {str(dict(line))[:120]}")
    if kind not in ("open", "close", *RATING_KINDS):
        raise EventError(f"{table}: event {event}: kind {kind!r} is not open, close, player or dealer")
    try:
        at = datetime.fromisoformat(str(line.get("at")))
    except ValueError:
        raise EventError(f"{table}: event {event}: {line.get('at')!r} is not an ISO 8601 time") from None
    if at.tzinfo is None:
        raise EventError(f"{table}: event {event}: {line.get('at')!r} has no time zone")
    ts = line.get("ts")
    exact = float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None  # older tables: none
    number = hand if isinstance(hand, int) and not isinstance(hand, bool) else None
    if kind in RATING_KINDS:
        body = line.get("body")
        if not isinstance(body, Mapping):
            raise EventError(f"{table}: event {event}: a {kind} event without its body")
        return (table, event, kind, at, exact if exact is not None else at.timestamp(), number, dict(body), pit)
    game = line.get("game")
    return (table, event, kind, at, number, game if isinstance(game, str) else None, pit, exact)


class EventFetcher:
    """The catch-up's reader of the tables' events pages: per table, the event id read up to (in memory,
    so a page asks only for what is new since the last), and the tables that keep no such pages."""

    def __init__(self) -> None:
        self.read_to: dict[str, int] = {}
        self.unsupported: set[str] = set()

    def fetch(self, client: CommandClient, sink: EventSink, name: str) -> int:
        """Hand every open and close event of table `name` after the sink's last to the sink; returns how
        many. Raises TimeoutError (no answer), SinkFailed (the sink's errors) and RuntimeError (a refusal
        other than an older table's)."""
        try:
            after, fetched = max(sink.last_event(name), self.read_to.get(name, 0)), 0
        except Exception as exc:  # the archive's errors (ArchiveError) and whatever a sink raises
            raise SinkFailed(str(exc)) from exc
        while True:
            reply = client.request("history", events=True, after=after, limit=PAGE)
            if not reply.get("ok"):
                if reply.get("code") == "malformed" and "events" in str(reply.get("error")):
                    if name not in self.unsupported:
                        self.unsupported.add(name)
                        log.warning("%s keeps no open and close events pages: its open time is its hands'", name)
                    return fetched
                raise RuntimeError(f"history events refused ({reply.get('code')}): {reply.get('error')}")
            events = list(reply.get("events") or [])
            if events:
                try:
                    sink.write_events(name, events)
                except Exception as exc:
                    raise SinkFailed(str(exc)) from exc
                fetched += len(events)
            last = int(reply["last"])
            self.read_to[name] = max(after, last)
            if not reply.get("more") or last <= after:
                return fetched
            after = last
