"""The rating reports' types: a session, the unrated play and a dealer's figures as `croupier ratings --json` prints them, the archive keeps them and the casino system's feed sends them (docs/ratings.md)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict


class SeatSince(TypedDict):
    since: float
    seat: int


class HandAt(TypedDict):
    hand: int
    seat: int


class EnteredPlay(TypedDict):
    """The unrated play the pit entered for a session: hands at an average Ante, and its theo."""

    hands: int
    average_bet: int
    theo: str
    theo_cents: int


class Adjustment(TypedDict):
    """A supervisor's signed-off change to a session: when (`at`), by whom (`by`, the sign-off's user), what
    (`open`, `close`, `start`, `unrated_play`), and the session's figures it changed, before and after."""

    at: float
    by: str | None
    action: Literal["open", "close", "start", "unrated_play"]
    before: dict[str, Any] | None
    after: dict[str, Any]


class _Session(TypedDict):
    kind: Literal["session"]
    player: str
    table: str
    source: str
    start: float
    end: float | None
    open: bool
    on_break: bool
    played_s: float
    seats: list[SeatSince]
    hand_numbers: list[HandAt]
    hands: int
    voided: int
    breaks: int
    hands_per_hour: float | None
    bets: dict[str, int]
    bets_total: int
    average_bets: dict[str, int]
    average_bet: int | None
    bets_from: dict[str, int]
    win: int
    theo: str
    theo_cents: int
    theo_complete: bool
    theo_missing: list[str]
    comp_cents: int
    profile_sha256: str | None
    declined: bool  # the pit's (a player who declined the card), and what the pit entered and signed off
    rated_start: float | None
    entered: EnteredPlay | None
    adjustments: list[Adjustment]


class SessionReport(_Session, total=False):
    """A rating session as `croupier ratings --json` prints it and the archive keeps it (docs/ratings.md):
    `croupier ratings` adds the times as people read them (ISO 8601 UTC). The keys not always there are
    written `total=False` (`NotRequired` is not read from this module's postponed annotations)."""

    started: str
    ended: str | None


class UnratedReport(TypedDict):
    """The table's play with no card at the seat (or on a break)."""

    kind: Literal["unrated"]
    table: str
    spot_hands: int
    bets: dict[str, int]
    average_bet: int | None
    win: int


class _Dealer(TypedDict):
    kind: Literal["dealer"]
    dealer: str
    table: str
    turns: int
    time_s: float
    on_table: bool
    hands: int
    hands_per_hour: float | None
    average_seats: float | None
    seats_filled: int
    first_in: float | None
    voids: int
    corrections: int
    faults: int


class DealerReport(_Dealer, total=False):
    """One dealer's figures at one table: the chips the dealer's hands caught always (an archive older than them
    has none); the archive's shifts add their opening's `from_event`."""

    mispays: int
    moved_chips: int
    foreign_chips: int
    tray_differences: int
    from_event: int


RatingReport = SessionReport | UnratedReport | DealerReport
"""A line of `croupier ratings --json`, told by its `kind`."""
