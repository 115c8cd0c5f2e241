"""The house games' values: table limits and payouts, where a card goes, settlements, rounds as data.

Table limits (`TableLimits`) are the table's setting; as TOML (the `--table` file of
`croupier settle`, and the controller's configuration) they are one `[limits]` table:

    [limits]
    minimum = 500         # smallest Ante, in the table's smallest unit (cents)
    maximum = 15000       # largest Ante; 0 or absent: no maximum (UTH: the profile's
                          #   max_multiple times the minimum, when the profile sets one)
    side_minimum = 100    # smallest side bet (Trips, Pair Plus, Bonus); 0 or absent: none
    side_maximum = 2500   # largest side bet; 0 or absent: none
    chip = 25             # the table's chip unit: every stake a multiple of it, and odds
                          #   payouts (3:2) rounded down to it; absent: 1
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, TypedDict

from engine import tomltext
from engine.cards import Card
from engine.frozen import quick_init
from engine.errors import (CardError, DuplicateCard, IllegalAction, LimitsError, RoundFormatError, circle, json_type,
                           money, say, shown)
from engine.paytables import Odds

STAKE_CEILING = 1_000_000_000
"""The largest stake (and table limit) the engine takes, in the table's smallest unit, whatever the
table: 10,000,000.00 in cents. Even at 500:1 (the Blind's royal flush) a payout stays far below
2**53, so every amount is exact for a reader of the JSON feed or settlement that holds numbers as
doubles. A table's `[limits]` narrow it; without them (`croupier settle` with no `--table`) it is the bound."""


# --- table limits -----------------------------------------------------------------------------------

class _LimitKeys:
    """TableLimits' class constants, in a base of their own: mypyc hands a compiled dataclass's `ClassVar`s to
    `dataclass` as fields (tools/compile_engine.py)."""

    __slots__ = ()

    FLOORS: ClassVar[Mapping[str, int]] = MappingProxyType(
        {"minimum": 1, "maximum": 0, "side_minimum": 0, "side_maximum": 0, "chip": 1})
    """Each key's least value (0: no limit on that key), the most being STAKE_CEILING: the one
    declaration the configuration's `[limits]` and the command channel's `open` take their keys from."""
    KEYS: ClassVar[tuple[str, ...]] = tuple(FLOORS)


def _check_limit(key: str, value: object, low: int) -> None:
    """One limit: an integer (never a bool) from `low` to STAKE_CEILING. Raises LimitsError naming `key`."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise LimitsError(f"{key}: must be an integer, not {value!r}")
    if value < low:
        raise LimitsError(f"{key}: must be at least {low}, not {value}")
    if value > STAKE_CEILING:
        raise LimitsError(f"{key}: {value} is above the engine's ceiling on any stake, {STAKE_CEILING}")


@dataclass(frozen=True, slots=True)
class TableLimits(_LimitKeys):
    """A table's limits in its smallest unit; 0 means no limit on that key. See the module docstring.

    Raises LimitsError when built with values that cannot be used together.
    """

    minimum: int = 1
    maximum: int = 0
    side_minimum: int = 0
    side_maximum: int = 0
    chip: int = 1

    def __post_init__(self) -> None:
        for key, low in self.FLOORS.items():
            _check_limit(key, getattr(self, key), low)
        if self.maximum and self.maximum < self.minimum:
            raise LimitsError(f"maximum: {self.maximum} is below the minimum {self.minimum}")
        if self.side_maximum and self.side_maximum < self.side_minimum:
            raise LimitsError(f"side_maximum: {self.side_maximum} is below side_minimum {self.side_minimum}")
        for key in ("minimum", "maximum", "side_minimum", "side_maximum"):
            if getattr(self, key) % self.chip:
                raise LimitsError(f"{key}: {getattr(self, key)} is not a multiple of the chip {self.chip}")

    @classmethod
    def parse(cls, data: Mapping[str, Any], source: str = "limits") -> TableLimits:
        """Limits from a mapping (a TOML `[limits]` table). Raises LimitsError naming source and key."""
        for key in data:
            if key not in cls.KEYS:
                raise LimitsError(f"{source}: [limits] {key}: unknown key (known: {', '.join(cls.KEYS)})")
        try:
            # each value checked before the class is called, in the order `__post_init__` checks them (compiled by
            # mypyc, the class itself refuses a value that is not an int with a TypeError of its own)
            for key, low in cls.FLOORS.items():
                if key in data:
                    _check_limit(key, data[key], low)
            return cls(**dict(data))
        except LimitsError as exc:
            raise LimitsError(f"{source}: [limits] {exc}") from None

    @classmethod
    def parse_toml(cls, text: str, source: str) -> TableLimits:
        """Limits from a TOML table file's `[limits]` table (other top-level tables are left to their
        readers, such as the controller's configuration). Raises LimitsError naming source and key."""
        try:
            data = tomltext.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise LimitsError(f"{source}: not valid TOML: {exc}") from None
        limits = data.get("limits")
        if not isinstance(limits, dict):
            raise LimitsError(f"{source}: [limits]: missing (a table with {', '.join(cls.KEYS)})")
        return cls.parse(limits, source)

    def with_max_multiple(self, max_multiple: int | None) -> TableLimits:
        """These limits under a rule "the maximum is at most `max_multiple` times the minimum".

        No maximum set: the rule gives it. Raises LimitsError when the maximum set is above it.
        """
        if max_multiple is None:
            return self
        cap = self.minimum * max_multiple
        if not self.maximum:
            return TableLimits(self.minimum, cap, self.side_minimum, self.side_maximum, self.chip)
        if self.maximum > cap:
            raise LimitsError(f"maximum: {self.maximum} is more than {max_multiple} times the minimum "
                              f"{self.minimum} ({cap}), the most the profile allows")
        return self

    def check_main(self, bet: str, amount: int, seat: int | None = None) -> None:
        """Raise IllegalAction when the main bet `amount` (an Ante) is outside the limits (`seat`: the
        spot's, for the refusal's words)."""
        self._check(bet, amount, self.minimum, self.maximum, "table", seat)

    def check_side(self, bet: str, amount: int, seat: int | None = None) -> None:
        """Raise IllegalAction when the side bet `amount` is outside the side-bet limits."""
        self._check(bet, amount, self.side_minimum, self.side_maximum, "side-bet", seat)

    def _check(self, bet: str, amount: int, low: int, high: int, what: str, seat: int | None) -> None:
        side = "side_" if what == "side-bet" else ""
        words = {"seat": seat, "bet": circle(bet), "amount": money(amount)}
        if amount < low:
            raise IllegalAction(f"{bet} {amount} is below the {what} minimum {low}",
                                say=say("refusal.below_side_minimum" if side else "refusal.below_minimum", **words,
                                        minimum=money(low)))
        if high and amount > high:
            raise IllegalAction(f"{bet} {amount} is above the {what} maximum {high}",
                                say=say("refusal.above_side_maximum" if side else "refusal.above_maximum", **words,
                                        maximum=money(high)))
        if amount % self.chip:
            raise IllegalAction(f"{bet} {amount} is not a multiple of the table's chip {self.chip}",
                                say=say("refusal.not_chip_multiple", **words, chip=money(self.chip)))


def pay(stake: int, odds: Odds, chip: int = 1) -> int:
    """What a winning `stake` wins at `odds` (stake returned on top), rounded down to the `chip`.

    >>> pay(1000, (3, 2)), pay(1005, (3, 2)), pay(1005, (3, 2), chip=5), pay(500, (40, 1))
    (1500, 1507, 1505, 20000)
    """
    win, per = odds
    return stake * win // per // chip * chip


def check_stake(bet: str, amount: object, seat: int | None = None, circle_name: str | None = None) -> int:
    """A stake must be a positive integer (never a bool or a float) no larger than `STAKE_CEILING`
    (`seat`, `circle_name`: the spot and circle, for the refusal's words). Raises IllegalAction."""
    words = {"seat": seat, "bet": circle(circle_name or bet)}
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise IllegalAction(f"{bet}: a stake must be a positive integer, not {shown(amount)}",
                            say=say("refusal.stake_not_positive", **words))
    if amount > STAKE_CEILING:
        raise IllegalAction(f"{bet}: {amount} is above the engine's ceiling on any stake, {STAKE_CEILING}",
                            say=say("refusal.above_maximum", **words, amount=money(amount), maximum=money(STAKE_CEILING)))
    return amount


# --- where a card goes ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Target:
    """Where the next card goes: `spot` (with its `seat`), `dealer`, `board` or `burn`.

    >>> str(Target("spot", 3)), str(Target("burn")), Target.parse("spot 3") == Target("spot", 3)
    ('spot 3', 'burn', True)
    """

    kind: str
    seat: int | None = None
    text: str = field(init=False, repr=False, compare=False)  # `str(target)`: made once (a card's step names it)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", f"spot {self.seat}" if self.kind == "spot" else self.kind)

    @classmethod
    def parse(cls, text: str) -> Target:
        """From `str(target)`. Raises ValueError on anything else."""
        if text in ("dealer", "board", "burn"):
            return cls(text)
        kind, _, seat = text.partition(" ")
        if kind == "spot" and seat.isdigit():
            return cls("spot", int(seat))
        raise ValueError(f"not a card target: {text!r}")

    def __str__(self) -> str:
        return self.text


BURN, DEALER, BOARD = Target("burn"), Target("dealer"), Target("board")
"""The targets that are no spot: one object each (the rounds' plans are made of them)."""
_SPOTS: dict[int, Target] = {}


def spot_target(seat: int) -> Target:
    """The target of spot `seat`, one object a seat (a round's plan is made of them, not made anew at each plan)."""
    found = _SPOTS.get(seat)
    if found is None:
        found = _SPOTS[seat] = Target("spot", seat)
    return found


# --- settlements ----------------------------------------------------------------------------------

class DealtSpot(TypedDict):
    """A spot of a round in `croupier settle`'s layout: its seat, cards and stakes."""

    seat: int
    cards: list[str]
    bets: dict[str, int]


class UthPlayLine(TypedDict):
    street: str
    multiple: int


class _UthSpot(DealtSpot):
    play: UthPlayLine | None


class UthDealtSpot(_UthSpot, total=False):
    """An Ultimate Texas Hold'em spot: its Play bet's street and multiple (null: none made), `dead` when killed."""

    dead: bool


class TcpDealtSpot(DealtSpot, total=False):
    """A Three Card Poker spot: `play` true (played) or false (folded) where it has an Ante, `dead` when killed."""

    play: bool | None
    dead: bool


class UthRound(TypedDict):
    """An Ultimate Texas Hold'em round in `croupier settle`'s layout (`UthHand.to_dict`)."""

    game: str
    dealer: list[str]
    board: list[str]
    spots: list[UthDealtSpot]


class TcpRound(TypedDict):
    """A Three Card Poker round in `croupier settle`'s layout (`ThreeCardHand.to_dict`)."""

    game: str
    dealer: list[str]
    spots: list[TcpDealtSpot]


RoundLine = UthRound | TcpRound
"""A house round in `croupier settle`'s layout: its input, and a closed house hand's `round`."""


class SpotLine(TypedDict):
    """A spot's part of a settlement line: its hand, the player's net per bet circle, and the total."""

    seat: int
    hand: str
    category: str
    results: dict[str, int]
    net: int


class DealerLine(TypedDict):
    hand: str
    category: str
    qualifies: bool


class SettlementLine(TypedDict):
    """`Settlement.to_dict()`: `croupier settle`'s result line and a closed house hand's `settlement`."""

    spots: list[SpotLine]
    dealer: DealerLine
    house_net: int


@dataclass(frozen=True, slots=True)
class SpotResult:
    """One spot's settlement: its hand, the player's net per bet circle, and the total."""

    seat: int
    hand: str
    category: str
    results: Mapping[str, int]
    net: int
    ranks: tuple[str, ...] = ()  # the ranks its hand's name cites (engine.evaluate.named_ranks), for a screen's words
    kickers: tuple[str, ...] = ()  # named alike with the dealer's hand: the kickers that decided (engine.kickers)
    odds: Mapping[str, Odds] = field(default_factory=dict)  # the paytable's odds each circle paid by one was paid at

    def pays(self) -> dict[str, str]:
        """Each winning circle's odds as the dealer's payout prompt says them (`"3:2"`, `"40:1"`): its paytable line's,
        even where the payout was rounded down to the chip (a 3:2 on 15 paying 22); even money (`"1:1"`) for a circle
        no paytable pays (Ante, Play)."""
        return {name: "%d:%d" % self.odds.get(name, (1, 1)) for name, net in self.results.items() if net > 0}

    def to_dict(self) -> SpotLine:
        return {"seat": self.seat, "hand": self.hand, "category": self.category, "results": dict(self.results),
                "net": self.net}


@dataclass(frozen=True, slots=True)
class Settlement:
    """Every bet circle of a round settled; `house_net == -sum(spot.net)` always.

    `to_dict()` is the result line of `croupier settle`.
    """

    spots: tuple[SpotResult, ...]
    dealer_hand: str
    dealer_category: str
    dealer_qualifies: bool
    house_net: int
    dealer_ranks: tuple[str, ...] = ()  # the ranks the dealer's hand's name cites (engine.evaluate.named_ranks)
    dealer_kickers: tuple[str, ...] = ()  # its kickers that decided against a spot named alike (engine.kickers)

    @classmethod
    def of(cls, spots: Iterable[SpotResult], dealer_hand: str, dealer_category: str,
           dealer_qualifies: bool, dealer_ranks: tuple[str, ...] = (), dealer_kickers: tuple[str, ...] = ()) -> Settlement:
        """Build one, the house's net taken as the opposite of the players' (so it balances)."""
        results = tuple(spots)
        for s in results:
            if s.net != sum(s.results.values()):
                raise AssertionError(f"spot {s.seat}: net {s.net} is not the sum of {dict(s.results)}")
        return cls(results, dealer_hand, dealer_category, dealer_qualifies, -sum(s.net for s in results), dealer_ranks,
                   dealer_kickers)

    def spot(self, seat: int) -> SpotResult:
        """The result of the spot at `seat`. Raises KeyError when it had no bet."""
        for s in self.spots:
            if s.seat == seat:
                return s
        raise KeyError(seat)

    def to_dict(self) -> SettlementLine:
        return {"spots": [s.to_dict() for s in self.spots],
                "dealer": {"hand": self.dealer_hand, "category": self.dealer_category, "qualifies": self.dealer_qualifies},
                "house_net": self.house_net}


def spot_result(seat: int, hand: str, category: str, results: Mapping[str, int],
                ranks: tuple[str, ...] = (), kickers: tuple[str, ...] = (),
                odds: Mapping[str, Odds | None] | None = None) -> SpotResult:
    """A SpotResult whose net is the sum of its circles; `odds`: the paytable line of each circle a paytable pays
    (kept for the circles it paid)."""
    paid = {name: o for name, o in (odds or {}).items() if o is not None and results.get(name, 0) > 0}
    return SpotResult(seat, hand, category, MappingProxyType(dict(results)), sum(results.values()), ranks, kickers,
                      MappingProxyType(paid))


# --- rounds as data (the input of `croupier settle`) -----------------------------------------------

def expect_keys(obj: object, where: str, required: Sequence[str], optional: Sequence[str] = ()) -> Mapping[str, Any]:
    """`obj` must be a JSON object with these keys and no others. Raises RoundFormatError."""
    if not isinstance(obj, Mapping):
        raise RoundFormatError(f"{where}: must be an object, not {json_type(obj)}")
    for key in obj:
        if key not in required and key not in optional:
            raise RoundFormatError(f"{where}: unknown key {shown(key)}")
    for key in required:
        if key not in obj:
            raise RoundFormatError(f"{where}: {shown(key)} is missing")
    return obj


def parse_card_list(value: object, count: int, where: str) -> tuple[Card, ...]:
    """A JSON list of exactly `count` cards. Raises CardError or RoundFormatError naming `where`."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RoundFormatError(f"{where}: must be a list of cards such as [\"As\", \"Kd\"], not {shown(value)}")
    try:
        cards = tuple(Card.parse(v) for v in value)
    except CardError as exc:
        raise CardError(f"{where}: {exc}") from None
    if len(cards) != count:
        raise CardError(f"{where}: {len(cards)} cards, {count} expected")
    return cards


def parse_seat(value: object, max_spots: int, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= max_spots:
        raise RoundFormatError(f"{where}: seat must be an integer 1..{max_spots}, not {shown(value)}")
    return value


def parse_bets(value: object, where: str, known: Sequence[str]) -> dict[str, int]:
    """A JSON object of bet circle -> positive integer stake. Raises RoundFormatError/IllegalAction."""
    if not isinstance(value, Mapping):
        raise RoundFormatError(f"{where}: bets must be an object of bet circle -> stake, not {shown(value)}")
    bets: dict[str, int] = {}
    for bet, amount in value.items():
        if bet not in known:
            raise IllegalAction(f"{where}: unknown bet {shown(bet)} (bets here: {', '.join(known)})")
        bets[bet] = check_stake(f"{where}: {bet}", amount)
    return bets


def check_all_distinct(cards: Iterable[Card]) -> None:
    """Raise CardError naming the first card that appears twice in the round."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise DuplicateCard(f"duplicate card: {card} appears twice in the round")
        seen.add(card)


# --- corrections: a round's steps as they stand ----------------------------------------------------

def last_decision_at(steps: Sequence[Mapping[str, Any]], seat: int) -> int | None:
    """Where in `steps` (plain steps, `{"do": ...}`) the seat's last decision (a `decide` or a
    `declare_dead`) is, or None."""
    for at in range(len(steps) - 1, -1, -1):
        if steps[at]["do"] in ("decide", "declare_dead") and steps[at].get("seat") == seat:
            return at
    return None


def standing_steps(steps: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A round's plain steps as they stand once every correction is made: a `correct` replaces its
    seat's last decision (`HouseRound.correct`).

    >>> standing_steps([{"do": "decide", "seat": 1, "action": "play", "multiple": 4},
    ...                 {"do": "correct", "seat": 1, "action": "play", "multiple": 2}])
    [{'do': 'decide', 'seat': 1, 'action': 'play', 'multiple': 2}]
    """
    out: list[dict[str, Any]] = []
    for step in steps:
        if step["do"] == "correct":
            at = last_decision_at(out, step["seat"])
            if at is None:
                raise IllegalAction(f"a correction of spot {step['seat']} with no decision before it")
            out[at] = {**step, "do": "decide"}
        else:
            out.append(dict(step))
    return out


# --- a round as data: its stages, its steps, its record -------------------------------------------

@dataclass(frozen=True, slots=True)
class Stage:
    """A stretch of the round: its phase, the cards dealt in it (in order), the decisions taken after."""

    phase: str
    targets: tuple[Target, ...]
    street: str | None  # decisions of this street follow the cards; None: no decisions


@quick_init
@dataclass(frozen=True, slots=True)
class Step:
    """What one accepted step did. `to_dict()` is the plain, replayable form: `{"do": ..., args}`.

    `outcome` says what followed: for a card its `target`; always the `phase` after the step.
    """

    do: str
    args: Mapping[str, Any]
    outcome: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = {"do": self.do}
        for key, value in self.args.items():  # a text, a number or None as it is (no ABC check); a mapping copied
            plain[key] = value if type(value) in _SCALARS or not isinstance(value, Mapping) else dict(value)
        return plain


_SCALARS = frozenset({str, int, bool, float, type(None)})
"""The types of a step's plain arguments, kept as they are by `Step.to_dict`."""


@dataclass(frozen=True, slots=True)
class SpotRecord:
    """One spot in the frozen record of a round."""

    seat: int
    bets: Mapping[str, int]  # the stakes, Play included once made
    cards: tuple[Card, ...]
    decision: str | None  # last decision: "check", "play", "fold", "dead"; None before any
    street: str | None  # UTH: where the Play bet was made; None otherwise
    multiple: int | None  # UTH: the Play multiple; None otherwise


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A frozen record of a round, at any phase. `deals` lists every card in dealt order."""

    game: str
    profile: str
    phase: str
    spots: tuple[SpotRecord, ...]
    dealer: tuple[Card, ...]
    board: tuple[Card, ...]
    burns: tuple[Card, ...]
    deals: tuple[tuple[Target, Card], ...]
    steps: tuple[Step, ...]
    settlement: Settlement | None
    round: Mapping[str, Any] | None  # the round in `croupier settle`'s input form, from showdown on
