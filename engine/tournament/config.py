"""The tournament file (TOML): buy-in and fee, starting stack, levels and breaks, payouts, tables, chips.

    name = "Sunday 200+20"
    buy_in = 20000                 # into the prize pool, in cents
    fee = 2000                     # the house's, kept out of the pool
    starting_stack = 10000         # chips, the same for every entry
    seats_per_table = 9
    late_registration_until_level = 4   # entries taken up to the end of level 4 (0: before level 1 only)
    re_entries = 0                 # re-entries per player during late registration (0: none)
    added = 0                      # the house's money added to the pool
    chips = [25, 100, 500, 1000]   # the chip set, smallest first, each a whole multiple of the one below
    hand_for_hand = true           # at the bubble, with more than one table
    clock_call_s = 60              # calling the clock on a player

    [tables]
    use = ["T1", "T2", "T3"]
    break_order = ["T3", "T2"]     # the tables that break, first to break first (default: `use` reversed)

    [[levels]]                     # in order; a break is `break_s = 600` alone
    small_blind = 25
    big_blind = 50
    ante = 0
    duration_s = 1200

    [[payouts]]                    # by field size: fields up to `up_to` entries pay `shares` (percent per place)
    up_to = 10
    shares = [100]

Without `[[payouts]]` the default table `DEFAULT_PAYOUTS` applies (10 to 20% of the field paid, 000).
`parse_tournament(text, source)` raises TournamentError naming the field and why for anything wrong.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any, NoReturn

from engine.errors import TournamentError
from engine.poker.variants import MAX_SEATS, MIN_SEATS
from engine.tomltext import loads

__all__ = ["BlindLevel", "Break", "Stage", "PayoutRow", "TournamentFile", "DEFAULT_PAYOUTS", "parse_tournament"]


@dataclass(frozen=True, slots=True)
class BlindLevel:
    """A level of play: blinds and ante (per player) for `duration_s` seconds of the clock."""

    small_blind: int
    big_blind: int
    ante: int
    duration_s: int


@dataclass(frozen=True, slots=True)
class Break:
    """A break of `duration_s` seconds: no hand is begun; colour-ups are done in it."""

    duration_s: int


Stage = BlindLevel | Break


@dataclass(frozen=True, slots=True)
class PayoutRow:
    """Fields of up to `up_to` entries pay `shares[k]` percent of the pool to place k + 1."""

    up_to: int
    shares: tuple[int, ...]


DEFAULT_PAYOUTS: tuple[PayoutRow, ...] = (
    PayoutRow(10, (100,)),
    PayoutRow(20, (65, 35)),
    PayoutRow(30, (50, 30, 20)),
    PayoutRow(40, (45, 27, 17, 11)),
    PayoutRow(50, (40, 25, 16, 11, 8)),
    PayoutRow(60, (38, 23, 15, 10, 8, 6)),
    PayoutRow(70, (36, 22, 14, 10, 7, 6, 5)),
    PayoutRow(80, (35, 21, 13, 9, 7, 6, 5, 4)),
    PayoutRow(90, (33, 20, 13, 9, 7, 6, 5, 4, 3)),
    PayoutRow(100, (32, 19, 12, 9, 7, 6, 5, 4, 3, 3)),
)
"""10 to 20% of the field paid (000): one place per started ten entries, up to 100 entries."""


@dataclass(frozen=True, slots=True)
class TournamentFile:
    """A tournament's terms, as its file gives them (amounts in cents, chips in chips)."""

    name: str
    buy_in: int
    fee: int
    starting_stack: int
    seats_per_table: int
    late_registration_until_level: int
    re_entries: int
    added: int
    chips: tuple[int, ...]
    tables: tuple[str, ...]
    break_order: tuple[str, ...]
    stages: tuple[Stage, ...]
    payouts: tuple[PayoutRow, ...]
    hand_for_hand: bool = True
    clock_call_s: int = 60

    @property
    def levels(self) -> tuple[BlindLevel, ...]:
        """The levels of play in order, breaks left out (level 1 is `levels[0]`)."""
        return tuple(s for s in self.stages if isinstance(s, BlindLevel))

    def shares_for(self, entries: int) -> tuple[int, ...]:
        """The payout shares (percent per place) of a field of `entries`. Raises TournamentError
        when the payout table does not cover that field."""
        for row in self.payouts:
            if entries <= row.up_to:
                return row.shares
        raise TournamentError(f"the payout table covers fields up to {self.payouts[-1].up_to} entries, "
                              f"not {entries}: give [[payouts]] for it")


_TOP = {"name", "buy_in", "fee", "starting_stack", "seats_per_table", "late_registration_until_level",
        "re_entries", "added", "chips", "hand_for_hand", "clock_call_s", "tables", "levels", "payouts"}


class _Reader:
    """Checks one table of the file, naming `where` in every error."""

    def __init__(self, source: str, where: str, data: Any, known: set[str]) -> None:
        self.source = source
        self.where = where
        if not isinstance(data, dict):
            self.fail("", "must be a table")
        unknown = sorted(set(data) - known)
        if unknown and not where and _is_section(data[unknown[0]]):
            raise TournamentError(f"tournament file {source}: unknown section [{unknown[0]}] (known: [tables], "
                                  f"[[levels]], [[payouts]])")
        if unknown:
            self.fail(unknown[0], f"unknown key (known: {', '.join(sorted(known))})")
        self.data: dict[str, Any] = data

    def fail(self, key: str, why: str) -> NoReturn:
        name = f"{self.where}.{key}" if self.where and key else (self.where or key)
        raise TournamentError(f"tournament file {self.source}: {name}: {why}")

    def integer(self, key: str, default: int | None = None, *, low: int = 0) -> int:
        value = self.data.get(key, default)
        if value is None:
            self.fail(key, "is missing")
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be a whole number, not {value!r}")
        if value < low:
            self.fail(key, f"must be at least {low}, not {value}")
        return int(value)

    def text(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(key, "must be a non-empty string" if key in self.data else "is missing")
        return str(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, not {value!r}")
        return bool(value)

    def integers(self, key: str, *, low: int = 1) -> tuple[int, ...]:
        value = self.data.get(key)
        if not isinstance(value, list) or not value:
            self.fail(key, "must be a non-empty array of whole numbers" if key in self.data else "is missing")
        assert isinstance(value, list)
        for i, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                self.fail(f"{key}[{i}]", f"must be a whole number of at least {low}, not {v!r}")
        return tuple(value)

    def names(self, key: str) -> tuple[str, ...] | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.fail(key, "must be an array of table names")
        if len(set(value)) != len(value):
            self.fail(key, "names a table twice")
        return tuple(value)


def _is_section(value: Any) -> bool:
    """Whether a top-level value is a table `[NAME]` or an array of tables `[[NAME]]` rather than a key."""
    return isinstance(value, dict) or (isinstance(value, list) and bool(value) and
                                       all(isinstance(v, dict) for v in value))


def _stage(source: str, i: int, data: Any) -> Stage:
    if isinstance(data, dict) and "break_s" in data:
        r = _Reader(source, f"levels[{i}]", data, {"break_s"})
        return Break(r.integer("break_s", low=1))
    r = _Reader(source, f"levels[{i}]", data, {"small_blind", "big_blind", "ante", "duration_s"})
    level = BlindLevel(r.integer("small_blind", low=1), r.integer("big_blind", low=1), r.integer("ante", 0),
                       r.integer("duration_s", low=1))
    if level.big_blind < level.small_blind:
        r.fail("big_blind", f"must be at least the small blind ({level.small_blind}), not {level.big_blind}")
    return level


def _payouts(source: str, data: Any) -> tuple[PayoutRow, ...]:
    if data is None:
        return DEFAULT_PAYOUTS
    if not isinstance(data, list) or not data:
        raise TournamentError(f"tournament file {source}: payouts: must be an array of tables ([[payouts]])")
    rows: list[PayoutRow] = []
    for i, item in enumerate(data):
        r = _Reader(source, f"payouts[{i}]", item, {"up_to", "shares"})
        row = PayoutRow(r.integer("up_to", low=1), r.integers("shares"))
        if sum(row.shares) != 100:
            r.fail("shares", f"must add up to 100 (percent of the pool), not {sum(row.shares)}")
        if list(row.shares) != sorted(row.shares, reverse=True):
            r.fail("shares", "must not pay a place more than the place above it")
        if len(row.shares) > row.up_to:
            r.fail("shares", f"pays {len(row.shares)} places to a field of at most {row.up_to}")
        if rows and row.up_to <= rows[-1].up_to:
            r.fail("up_to", f"must be above the row before's ({rows[-1].up_to})")
        rows.append(row)
    return tuple(rows)


def _tables(r: _Reader, data: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    t = _Reader(r.source, "tables", data, {"use", "break_order"})
    use = t.names("use")
    if not use:
        t.fail("use", "is missing: name at least one table")
    assert use is not None
    order = t.names("break_order")
    if order is None:
        order = tuple(reversed(use[1:]))    # the first table is the final table
    stray = [n for n in order if n not in use]
    if stray:
        t.fail("break_order", f"names {stray[0]!r}, not one of the tables used")
    if len(order) < len(use) - 1:
        t.fail("break_order", f"must name every table but the final one ({len(use) - 1} of {len(use)})")
    return use, order


def parse_tournament(text: str, source: str = "<text>") -> TournamentFile:
    """The tournament file read from TOML `text` (`source` names it in errors).

    Raises TournamentError naming the key and the reason: bad TOML, an unknown key, a missing or
    out-of-range value, a chip set whose denominations do not divide, blinds or antes the chip set
    cannot make, a payout row that does not add up to 100, a break order naming a table not used.
    """
    try:
        data = loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"tournament file {source}: not TOML: {exc}") from None
    r = _Reader(source, "", data, _TOP)
    seats = r.integer("seats_per_table", 9, low=MIN_SEATS)
    if seats > MAX_SEATS:
        r.fail("seats_per_table", f"must be at most {MAX_SEATS}, not {seats}")
    chips = r.integers("chips")
    for low, high in zip(chips, chips[1:]):
        if high <= low or high % low:
            r.fail("chips", f"each denomination must be a whole multiple of the one below: {low} then {high}")
    stages_data = data.get("levels")
    if not isinstance(stages_data, list) or not stages_data:
        r.fail("levels", "must be an array of levels ([[levels]]), at least one")
    assert isinstance(stages_data, list)
    stages = tuple(_stage(source, i, item) for i, item in enumerate(stages_data))
    if not isinstance(stages[0], BlindLevel) or not isinstance(stages[-1], BlindLevel):
        r.fail("levels", "must begin and end with a level of play, not a break")
    for i, stage in enumerate(stages):
        if isinstance(stage, BlindLevel):
            for key in ("small_blind", "big_blind", "ante"):
                amount = getattr(stage, key)
                if amount % chips[0]:
                    r.fail(f"levels[{i}].{key}", f"{amount} cannot be made with chips of {chips[0]} and up")
    use, order = _tables(r, data.get("tables"))
    tournament = TournamentFile(
        name=r.text("name"), buy_in=r.integer("buy_in", low=1), fee=r.integer("fee", 0),
        starting_stack=r.integer("starting_stack", low=1), seats_per_table=seats,
        late_registration_until_level=r.integer("late_registration_until_level", 0),
        re_entries=r.integer("re_entries", 0), added=r.integer("added", 0), chips=chips, tables=use,
        break_order=order, stages=stages, payouts=_payouts(source, data.get("payouts")),
        hand_for_hand=r.flag("hand_for_hand", True), clock_call_s=r.integer("clock_call_s", 60, low=1))
    if tournament.starting_stack % chips[0]:
        r.fail("starting_stack", f"{tournament.starting_stack} cannot be made with chips of {chips[0]} and up")
    if tournament.late_registration_until_level > len(tournament.levels):
        r.fail("late_registration_until_level", f"there are {len(tournament.levels)} levels, not "
                                                f"{tournament.late_registration_until_level}")
    return tournament

