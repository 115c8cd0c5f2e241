"""A table's rating sessions and dealer figures read from its journal: the journal's events and closed hands fed, in order, to `engine.ratings`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from engine.ratings import Ratings, Session, fold
from firmware_host.service.journal import Journal

RATED_KINDS = frozenset({"open", "close", "player", "rating", "dealer"})
"""The events a rating reads (besides the closed hands)."""


def journal_entries(journal: Journal) -> Iterator[tuple[str, Mapping[str, Any], float]]:
    """`(kind, body, ts)` of every rated event and, at its closing event, every closed hand (kind `hand`,
    its record as body), in the journal's order. Raises JournalError when the journal cannot be read."""
    closing = {row.closed_event: row for row in journal.hands()}
    for event in journal.events():
        if event.kind in RATED_KINDS:
            yield event.kind, event.body, event.ts
        row = closing.get(event.id)
        if row is not None:
            yield "hand", row.record, row.ts


def journal_ratings(journal: Journal, table: str,
                    certified: Mapping[str, Mapping[str, Mapping[str, Fraction]]] | None = None,
                    reinvestment: Fraction = Fraction(0)) -> Ratings:
    """The table's ratings as its journal holds them (a restart changes nothing: every session is rebuilt
    from the events). Raises JournalError."""
    return fold(table, journal_entries(journal), certified, reinvestment)


_PAGE = 1000
"""The rated events read a page at a time (`Journal.table_events`), for a closed session looked up."""


def closed_session(journal: Journal, seat: int, started: float) -> Session | None:
    """The rating session closed at `seat` since the table's last `close` whose start is `started` (its whole
    second: `engine.ratings.Ratings.closed_session`), folded from the journal's `player` and `rating` events
    since that close (no hand is needed to know who sat when), or None: what the pit may adjust after the
    player left. A session ended by a close, or before it, is the archive's for good (its fold starts again at
    each close). Raises JournalError."""
    close = journal.last_of("close")
    after, entries = close.id if close is not None else 0, []
    while True:
        events, after, more = journal.table_events(after, _PAGE, 50 * _PAGE)
        entries += [(e.kind, e.body, e.ts) for e in events]
        if not more:
            return fold("", entries).closed_session(seat, started)
