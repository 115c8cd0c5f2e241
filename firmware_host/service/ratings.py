"""A table's rating sessions and dealer figures read from its journal: the journal's events and closed hands fed, in order, to `engine.ratings`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import cast

from engine.ratings import Ratings, Session, fold
from firmware_host.service.config import RatingsConfig
from firmware_host.service.journal import Journal
from protocol import gaming_day
from protocol.records import DealerBody, HandRecord, Nothing, OpenBody, PlayerBody, RatingBody

RATED_KINDS = frozenset({"open", "close", "player", "rating", "dealer"})
"""The events a rating reads (besides the closed hands)."""

RatedBody = OpenBody | Nothing | PlayerBody | RatingBody | DealerBody
"""The body of an event of `RATED_KINDS` (`protocol.records`, which a test holds every journaled body to)."""

RatedEntry = tuple[str, RatedBody | HandRecord, float]
"""`(kind, body, ts)` as `engine.ratings.fold` takes it: a rated event, or a closed hand (kind `hand`, its record)."""


def journal_entries(journal: Journal) -> Iterator[RatedEntry]:
    """`(kind, body, ts)` of every rated event and, at its closing event, every closed hand (kind `hand`,
    its record as body), in the journal's order. Raises JournalError when the journal cannot be read."""
    closing = {row.closed_event: row for row in journal.hands()}
    for event in journal.events():
        if event.kind in RATED_KINDS:
            yield event.kind, cast(RatedBody, event.body), event.ts  # the journal's JSON, of a kind above
        row = closing.get(event.id)
        if row is not None:
            yield "hand", cast(HandRecord, row.record), row.ts


def journal_ratings(journal: Journal, table: str,
                    certified: Mapping[str, Mapping[str, Mapping[str, Fraction]]] | None = None,
                    reinvestment: Fraction = Fraction(0)) -> Ratings:
    """The table's ratings as its journal holds them (a restart changes nothing: every session is rebuilt
    from the events). Raises JournalError."""
    return fold(table, journal_entries(journal), certified, reinvestment)


_PAGE = 1000
"""The rated events read a page at a time (`Journal.table_events`), for a closed session looked up."""


def gaming_day_began(ts: float, day: RatingsConfig) -> float:
    """When the gaming day holding `ts` (seconds since the epoch) began: the last `day.day_starts` in `day.time_zone`
    at or before it (a day starting at 06:00 holds 05:30 in the day before).

    >>> gaming_day_began(1764826200.0, RatingsConfig())  # 2025-12-04 05:30 UTC: the day began on the 3rd at 06:00
    1764741600.0
    """
    return gaming_day.began(ts, day.day_starts, day.time_zone)  # the rule the pit's screens show too


def closed_session(journal: Journal, seat: int, started: float, since: float) -> Session | None:
    """The rating session closed at `seat` whose start is `started` (its whole second:
    `engine.ratings.Ratings.closed_session`) and not before `since` (the gaming day's start), folded from the
    journal's `player` and `rating` events since the last `close` before `since` (no hand is needed to know who
    sat when), or None: what the pit may adjust after the player left, the table closed since or not. Raises
    JournalError."""
    after, close = 0, journal.last_of("close")
    while close is not None:
        if close.ts < since:
            after = close.id
            break
        close = journal.last_of("close", close.id)
    entries: list[RatedEntry] = []
    while True:
        events, after, more = journal.table_events(after, _PAGE, 50 * _PAGE)
        entries += [(e.kind, cast(RatedBody, e.body), e.ts) for e in events]  # `table_events`: RATED_KINDS only
        if not more:
            found = fold("", entries).closed_session(seat, started)
            return found if found is not None and found.start >= since else None
