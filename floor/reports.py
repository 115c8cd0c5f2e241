"""The floor's reports as typed definitions: the figures per clock hour, a table's counts, the chip alerts and the dealers' figures.

What `croupier stats --json` prints and what the pit's screens are sent (`floor/figures.py`) are built
from these (docs/floor.md, "Figures", "Figures per clock hour", "Chip alerts and dealers"). They are the
floor's own: the table never reads them, so they live here rather than in `protocol/` (what the table and
the floor both speak).

No `from __future__ import annotations` here: Python 3.11 reads `NotRequired` only from evaluated
annotations.
"""

from typing import Any, NotRequired, TypedDict, final


class HourSeries(TypedDict):
    """One series per clock hour of a gaming day: the hands closed in each hour, the house's win on them
    (the table's smallest unit; negative when it paid out) and the hours open in it."""

    hands: list[int]
    house_win: list[int]
    open_hours: list[float]


class TableSeries(HourSeries):
    """A table's series; its game and pit those of its last hour played that day."""

    table: str
    game: str | None
    pit: str | None


class PitSeries(HourSeries):
    """A pit's series and how many tables played in it that day."""

    pit: str
    tables: int


class DaySeries(TypedDict):
    """The figures of one gaming day per local clock hour (`floor.series.day_series`)."""

    day: str
    pit: str | None
    time_zone: str
    hours: list[str]
    tables: list[TableSeries]
    pits: list[PitSeries]
    floor: HourSeries


class TableCounts(TypedDict):
    """A table's (or a pit's tables') counts over the days selected and the win and hold they give: null
    where they cannot be worked (no inventory, a drop of 0)."""

    drop: int
    fills: int
    credits: int
    opening: int | None
    closing: int | None
    count_win: int | None
    hold_pct: float | None


class ShiftAlerts(TypedDict):
    """A smart table's chip alerts in one gaming day and shift (`floor.shift_counts.shift_alerts`)."""

    table: str
    day: str
    shift: str
    pit: str | None
    chip_hands: int
    mispays: int
    moved_chips: int
    foreign_chips: int
    tray_differences: int
    tray_difference: int


class Rates(TypedDict):
    """The figures derived from the sums (`floor.stats`): average bet, the rates per open hour, win against
    theoretical; null where they cannot be worked (no spot, no hour open, no theoretical)."""

    average_bet: float | None
    open_hours: float | None
    hands_per_hour: float | None
    win_per_hour: float | None
    theoretical: float | None
    win_minus_theoretical: float | None
    win_over_theoretical: float | None


class Figures(Rates):
    """The figures of a table at a game, of a game or of a pit over the days selected (`croupier stats`, docs/floor.md
    "Figures"): null for a table counted on days it archived no hand."""

    poker: bool | None
    hands: int | None
    voids: int | None
    spots: int | None
    handle: int | None
    handle_by_circle: dict[str, int]
    house_win: int | None
    rake: int | None


class CountsShown(TypedDict):
    """A table's or a pit's counts on a report's line: `TableCounts`, or every one null where none was entered
    (and for one shift)."""

    drop: int | None
    fills: int | None
    credits: int | None
    opening: int | None
    closing: int | None
    count_win: int | None
    hold_pct: float | None


class CountedTable(Figures, CountsShown):
    """A table counted on days it archived no hand: its counts, every figure null."""

    table: str
    game: str | None


class TableFigures(CountedTable):
    """A table at a game: its figures, its counts and its chip alerts (a smart table's; null without a chip reader)."""

    alerts: dict[str, int] | None


class GameFigures(Figures):
    game: str


class PitTotals(Figures, CountsShown):
    pit: str


class FiguresReport(TypedDict):
    """`croupier stats --json` (`floor.stats.figures`): the archived closed hands selected, the selection, and the
    figures per table and game, per game and per pit, with each gaming day and shift's chip alerts."""

    hands: int
    day: str | None
    table: str | None
    shift: str | None
    pit: str | None
    tables: list[TableFigures | CountedTable]
    games: list[GameFigures]
    pits: list[PitTotals]
    alerts: list[ShiftAlerts]


class DealerFigures(TypedDict):
    """A dealer's figures at one table over the openings selected (`floor.shift_counts.dealer_figures`)."""

    dealer: str
    table: str
    pit: str | None
    started: str | None
    on_table: bool
    turns: int
    time_s: float
    hands: int
    hands_per_hour: float | None
    average_seats: float | None
    voids: int
    corrections: int
    faults: int
    mispays: int
    moved_chips: int
    foreign_chips: int
    tray_differences: int


class DayLine(TypedDict):
    """A table's (or the pit's) figures of the day on the pit's screens, hour by hour and for the day so far."""

    hands: list[int]
    win: list[int]
    open_hours: list[float]
    day_hands: int
    day_win: int
    day_open_hours: float
    hands_per_hour: float | None
    tables: NotRequired[int]  # the pit's: how many tables it has


@final  # closed: `"error" in message` tells it from an `ArchiveFailure`
class PitFigures(TypedDict):
    """The pit screens' `figures` message as read from the archive (`floor.figures.read_figures`)."""

    source: str
    day: str
    starts: str
    time_zone: str
    hours: list[str]
    elapsed: float
    tables: dict[str, DayLine]
    pit: DayLine
    dealers: list[DealerFigures]


class RatedLine(TypedDict):
    """One open rating session on the pit's screens, its card masked (`floor.figures.rated_line`)."""

    player: str
    seat: int | None
    start: float | None
    played_s: float | None
    hands: int | None
    average_bet: int | None
    theo_cents: int | None
    theo_complete: bool | None
    win: int | None
    on_break: bool | None
    breaks: int | None
    bets_from: dict[str, int] | None
    declined: bool | None
    past_day: str | None  # the gaming day it started on when a day gone (the archive's `gaming_day`): the pit closes it


class ClosedLine(TypedDict):
    """A rating session of the gaming day closed already, as the pit's rating dialog offers it to adjust, its card
    masked (`floor.figures.closed_line`): `start` names it to the table."""

    player: str
    seat: int | None
    start: float
    end: float | None
    hands: int | None
    entered_hands: int | None


@final  # closed: `"error" in message` tells it from an `ArchiveFailure`
class PitRated(TypedDict):
    """The pit screens' `rated` message: each table's open rating sessions, and its sessions of the gaming day
    closed already (`closed`, for the rating dialog; `floor.figures.read_rated`)."""

    source: str
    tables: dict[str, list[RatedLine]]
    closed: dict[str, list[ClosedLine]]


@final  # closed: `"error" in message` tells it from an `ArchiveFailure`
class ArchiveFailure(TypedDict):
    """What the pit's screens are sent when the archive's server could not be read; tried again at the next reading."""

    source: str
    error: str


class TournamentLevel(TypedDict):
    """One stage of a tournament that is over, as it ran: a blind level's blinds and ante, or a break (all null)."""

    stage: int
    level: int | None
    small_blind: int | None
    big_blind: int | None
    ante: int | None
    duration_s: int
    began_at: str
    ended_at: str


class TournamentPlace(TypedDict):
    place: int
    player: str
    prize: int
    shared: int


class ChipRaceView(TypedDict):
    """A table's chip race at a colour-up (`floor.director.breaks.BreakPlan.races_view`): the colour raced off
    `into` the next, the odd chips in all and each player's, the value and chips won, who won them, who kept
    chips in, and the change given."""

    stage: int
    table: str
    colour: int
    into: int
    odd_chips: int
    players: dict[str, int]
    value: int
    chips_won: int
    winners: list[str]
    kept_in: list[str]
    change: int


class ButtonDrawView(TypedDict):
    """A table's draw for the first button (`floor.director.button.ButtonPlan.view`): the card each player
    was dealt, by player, and the button's seat and player."""

    table: str
    button: int
    player: str
    cards: dict[str, str]


class TournamentRecord(TypedDict):
    """The record of a tournament that is over, as the archive keeps it (`floor.tournament_record.build_record`)."""

    id: str
    tournament: str
    buy_in: int
    fee: int
    added: int
    starting_stack: int
    entries: int
    players: list[str]
    prize_pool: int
    fees: int
    started_at: str | None
    finished_at: str
    places: list[TournamentPlace]
    levels: list[TournamentLevel]
    tables: list[str]
    chip_races: list[ChipRaceView]
    button_draws: list[ButtonDrawView]


class ArchivedTournament(TournamentRecord):
    """A tournament's record read back from the archive, with its tables' hands archived while it ran."""

    hands: int


class DealersReport(TypedDict):
    """`croupier stats --dealers --json`: each dealer's figures per table for a gaming day, table and pit or all."""

    day: str | None
    table: str | None
    pit: str | None
    dealers: list[DealerFigures]


# -- the director's feed (`croupier tournament`: the clock's screens and `/tournament` read it) -------


class LevelView(TypedDict):
    """A blind level on the director's feed: its number in the schedule, blinds, ante and length."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    duration_s: int


class Payout(TypedDict):
    place: int
    prize: int


class NextBreak(TypedDict):
    """The next break while a level is played: the seconds until it begins, and its length."""

    in_s: float
    duration_s: int


class ClockView(TypedDict):
    """The clock and the standings (`floor.director.state.TournamentState.view`; money in cents, stacks in chips);
    `finishes` once registration closed."""

    tournament: str
    buy_in: int
    fee: int
    started: bool
    running: bool
    registration_open: bool
    late_registration_until_level: int
    entries: int
    players_left: int
    prize_pool: int
    average_stack: int
    payouts: list[Payout]
    level: LevelView | None
    on_break: bool
    left_s: float | None
    stage: int | None
    next_level: LevelView | None
    next_break: NextBreak | None
    finishes: NotRequired[list[TournamentPlace]]


class BreakView(TypedDict):
    """The break holding the tables (`floor.director.breaks.BreakPlan.view`): the colour raced off `into` the
    next, the tables whose race is sent and not yet seen run, the tables raced."""

    stage: int
    colour: int | None
    into: int | None
    racing: list[str]
    raced: list[str]


class HandForHandView(TypedDict):
    phase: str
    round: int


FloorView = TypedDict("FloorView", {
    "drawn": bool, "in_play": list[str], "seats": dict[str, dict[str, str]],
    "hand_for_hand": HandForHandView | None, "break": BreakView | None, "chip_races": list[ChipRaceView],
    "button_draws": list[ButtonDrawView], "drawing": list[str], "orders_waiting": int})
"""The floor on the director's feed (`floor.director.seating.FloorPlan.view`): who sits where (table -> seat ->
player), the tables in play, hand-for-hand, the break, the races and button draws, the orders waiting."""


class TableLevel(TypedDict):
    """A table the director sends levels to, and the last level it took (0: none yet)."""

    name: str
    level: int


class DirectorView(ClockView):
    """The director's feed message (`floor.director.service.Director.view`): the clock, the tables, the floor."""

    tables: list[TableLevel]
    floor: FloorView
