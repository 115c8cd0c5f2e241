"""A PHH record read from its TOML text (with `tomllib`) into typed fields, and written back as text."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from itertools import compress
from operator import itemgetter
from typing import Any

from engine import tomltext
from engine.phh.actions import PhhAction, parse_actions
from engine.phh.codes import VARIANT_NAMES, PhhError, PhhSyntaxError, split_code, stakes_fields
from engine.poker import Rake
from engine.poker.values import quick_init, quick_new

__all__ = ["HandHistory", "Number", "load_toml", "parse_phh", "parse_phhs", "hands_of_tables", "dumps_phhs"]

Number = int | Decimal

# Fields read into typed attributes; every other field is kept as written in `extra`.
_CORE = frozenset({
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "min_bet", "max_bet", "starting_stacks", "actions", "players", "finishing_stacks",
    "winnings", "_raise_cap", "_uncapped", "_uncapped_heads_up", "_rake_bp", "_rake_cap",
    "_rake_no_flop_no_drop",
})
# Field order of the specification, for export.
_FIELD_ORDER = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "min_bet", "max_bet", "starting_stacks", "actions", "author", "event", "url", "venue",
    "address", "city", "region", "postal_code", "country", "time", "time_zone",
    "time_zone_abbreviation", "day", "month", "year", "hand", "level", "seats", "seat_count",
    "table", "players", "finishing_stacks", "winnings", "currency", "currency_symbol",
    "time_limit", "time_banks",
)
_ORDER = {name: i for i, name in enumerate(_FIELD_ORDER)}
_STAKE_NAMES = ("bring_in", "small_bet", "big_bet", "min_bet", "max_bet")
_INT_ONLY = frozenset({int})
_STR_ONLY = frozenset({str})
_AMOUNT_TEXT = itemgetter(4)   # PhhAction.amount_text
_ONE = Decimal(1)


def load_toml(text: str) -> dict[str, Any]:
    """TOML text as a dict (the standard library's `tomllib`), decimals as Decimal.
    Raises PhhSyntaxError ("not TOML: ...") with tomllib's reason."""
    try:
        return tomltext.loads(text, parse_float=Decimal)  # tomllib, its two escaping errors in words
    except tomllib.TOMLDecodeError as exc:
        raise PhhSyntaxError(f"not TOML: {exc}") from exc


def _to_number(value: Any, what: str) -> Number:
    if type(value) is int:
        number: int = value
        return number
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise PhhError(f"{what}: not a number: {value!r}")
    if isinstance(value, float):  # tomllib was given parse_float=Decimal; a float here came from a caller
        value = Decimal(repr(value))
    if isinstance(value, Decimal) and not value.is_finite():
        raise PhhError(f"{what}: {value} is not a finite amount (an unknown stack cannot be replayed)")
    amount: Number = value
    return amount


def _only_ints(values: Iterable[object]) -> bool:
    """True when every value is an int (not a bool, not a Decimal)."""
    return set(map(type, values)) <= _INT_ONLY


def _units(value: Number, scale: int) -> int:
    """An amount in units of 1 / `scale` (the record's finest: a whole count)."""
    return value * scale if isinstance(value, int) else int(value * scale)


def _decimals(value: Number) -> int:
    """How many decimal places `value` needs (0 for a whole number)."""
    if isinstance(value, int):
        return 0
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # finite, checked by _to_number
    return max(0, -exponent)


@quick_init
@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand history, its amounts in integer units of `unit` (see engine.phh's docstring).

    Stakes a variant does not use are 0 (`max_bet` is only for our spread-limit extension codes).
    `raise_cap` and `uncapped_heads_up` are our fixed-limit table settings, which the standard has
    no field for: written as `_raise_cap` (absent: 3, a bet and three raises), `_uncapped = true`
    (no cap) and `_uncapped_heads_up = true`, user fields that other tools ignore. So is the house's
    rake at our tables (`rake`: basis points, cap in units, no flop no drop), written as
    `_rake_bp`, `_rake_cap` and `_rake_no_flop_no_drop`: the record then replays to the stacks the
    table paid. `amounts[i]` is the `cbr` amount of `actions[i]` in
    units (None for other actions). `extra` keeps the optional fields not read here, sorted by name.
    """

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    bring_in: int
    small_bet: int
    big_bet: int
    min_bet: int
    max_bet: int
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...]
    amounts: tuple[int | None, ...]
    unit: Decimal = Decimal(1)
    ante_trimming_status: bool = False
    raise_cap: int | None = 3
    uncapped_heads_up: bool = False
    players: tuple[str, ...] | None = None
    finishing_stacks: tuple[Number, ...] | None = None
    winnings: tuple[Number, ...] | None = None
    extra: tuple[tuple[str, Any], ...] = field(default=())
    rake: Rake | None = None

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    @classmethod
    def parse(cls, text: str) -> HandHistory:
        """Parse the text of a `.phh` file. Raises PhhError naming the field or action at fault."""
        return cls.from_fields(load_toml(text))

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> HandHistory:
        """Build a record from the fields of a parsed file (numbers as int or Decimal).

        Raises PhhError naming the missing or malformed field, or the bad action.
        """
        return _Reader(fields).record(cls)

    def amount(self, units: int) -> Number:
        """An amount in units as the record writes it (an int for whole chips, else a Decimal)."""
        if self.unit == 1:
            return units
        return (units * self.unit).quantize(self.unit)

    def dumps(self) -> str:
        """The record as PHH text (TOML), fields in the specification's order.

        Amounts are written in the record's own currency (`unit`); parsing the text gives back
        an equal record.
        """
        values = self._fields()
        keys = sorted(values, key=lambda k: (_ORDER.get(k, len(_ORDER)), k))
        return "".join(f"{_toml_key(k)} = {_toml_value(values[k])}\n" for k in keys)

    def _fields(self) -> dict[str, Any]:
        values: dict[str, Any] = dict(self.extra)
        values["variant"] = self.variant
        values["ante_trimming_status"] = self.ante_trimming_status
        values["antes"] = [self.amount(a) for a in self.antes]
        needs = stakes_fields(self.variant)
        if "blinds_or_straddles" in needs:
            values["blinds_or_straddles"] = [self.amount(b) for b in self.blinds_or_straddles]
        for name in _STAKE_NAMES:
            if name in needs:
                values[name] = self.amount(getattr(self, name))
        values["starting_stacks"] = [self.amount(s) for s in self.starting_stacks]
        values["actions"] = [a.format() for a in self.actions]
        if self.raise_cap is None:
            values["_uncapped"] = True
        elif self.raise_cap != 3:
            values["_raise_cap"] = self.raise_cap
        if self.uncapped_heads_up:
            values["_uncapped_heads_up"] = True
        if self.rake is not None:
            values["_rake_bp"] = self.rake.rate_bp
            values["_rake_cap"] = self.amount(self.rake.cap)
            values["_rake_no_flop_no_drop"] = self.rake.no_flop_no_drop
        for name in ("players", "finishing_stacks", "winnings"):
            value = getattr(self, name)
            if value is not None:
                values[name] = list(value)
        return values


_new_history: Callable[..., HandHistory] = quick_new(HandHistory)


class _Reader:
    """HandHistory.from_fields, one field group a method, each check in the order its errors are named."""

    __slots__ = ("fields", "variant", "n", "ints")

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.fields = fields
        variant = fields.get("variant")
        if not isinstance(variant, str):
            raise PhhError("field 'variant' missing or not a string")
        if split_code(variant) is None:
            raise PhhError(f"variant {variant!r} is not a PHH variant code ({', '.join(VARIANT_NAMES)})")
        self.variant = variant
        stacks = fields.get("starting_stacks")
        if not isinstance(stacks, list) or len(stacks) < 2:
            raise PhhError("field 'starting_stacks' missing or fewer than two players")
        self.n = len(stacks)
        self.ints = True   # every amount read so far an int (amounts, stakes)

    def record(self, cls: type[HandHistory]) -> HandHistory:
        needs = stakes_fields(self.variant)
        stacks = self.amounts("starting_stacks", True)
        antes = self.amounts("antes", True)
        blinds = self.amounts("blinds_or_straddles", "blinds_or_straddles" in needs)
        stakes = self.stakes(needs)
        actions = self.actions()
        raw_amounts, decimal = self.action_amounts(actions)
        if not decimal and self.ints and "_rake_cap" not in self.fields:   # the commonest: whole chips, no rake
            places, ints = 0, True
        else:
            places, ints = self.places([*stacks, *antes, *blinds, *stakes], raw_amounts)
        scale = 10 ** places
        for i, s in enumerate(stacks if min(stacks) <= 0 else ()):   # the first named
            if s <= 0:
                raise PhhError(f"starting_stacks[{i}]: a stack must be positive, not {s}")
        for i, ante in enumerate(antes if min(antes) < 0 else ()):
            if ante < 0:
                raise PhhError(f"antes[{i}]: an ante cannot be negative ({ante})")
        players, trimming, cap, uncapped, heads_up = self.settings()
        rake = self.rake(scale)
        amounts: tuple[int | None, ...]
        if ints:   # whole chips throughout: each amount is its count of units (no function made a record)
            amounts = tuple(raw_amounts)  # type: ignore[arg-type]
            bring_in, small_bet, big_bet, min_bet, max_bet = stakes
            antes_units, blinds_units, stacks_units = tuple(antes), tuple(blinds), tuple(stacks)
        else:
            amounts = tuple([None if x is None else _units(x, scale) for x in raw_amounts])
            bring_in, small_bet, big_bet, min_bet, max_bet = [_units(v, scale) for v in stakes]
            antes_units = tuple([_units(v, scale) for v in antes])
            blinds_units = tuple([_units(v, scale) for v in blinds])
            stacks_units = tuple([_units(v, scale) for v in stacks])
        others: list[str] = []   # the fields not read here (a plain loop: a set difference walks all of _CORE)
        for name in self.fields:
            if name not in _CORE:
                others.append(name)
        others.sort()
        return (_new_history if cls is HandHistory else cls)(   # the class's own steps, without a class call
            self.variant, antes_units, blinds_units, bring_in, small_bet, big_bet, min_bet, max_bet,  # type: ignore[arg-type]
            stacks_units, actions, amounts,  # type: ignore[arg-type]
            _ONE if places == 0 else _ONE.scaleb(-places), trimming, None if uncapped else cap, heads_up,
            players, self.results("finishing_stacks"), self.results("winnings"),
            tuple(zip(others, map(self.fields.__getitem__, others))), rake)

    def amounts(self, name: str, required: bool) -> list[Number]:
        """One amount per player (0 each when the field is absent and not required)."""
        raw = self.fields.get(name)
        if raw is None:
            if required:
                raise PhhError(f"field {name!r} missing (variant {self.variant} needs it)")
            return [0] * self.n
        if not isinstance(raw, list) or len(raw) != self.n:
            raise PhhError(f"field {name!r}: expected a list of {self.n} amounts, one per player")
        for v in raw:   # _only_ints, in a plain loop (for a few players quicker than set(map(type, ...)))
            if v.__class__ is not int:
                break
        else:
            return raw
        self.ints = False
        return [_to_number(v, f"{name}[{i}]") for i, v in enumerate(raw)]

    def stakes(self, needs: tuple[str, ...]) -> list[Number]:
        """bring_in, small_bet, big_bet, min_bet, max_bet (0 when absent and not needed)."""
        get = self.fields.get
        out: list[Number] = []
        for name in _STAKE_NAMES:
            raw = get(name)
            if raw is None:
                if name in needs:
                    raise PhhError(f"field {name!r} missing (variant {self.variant} needs it)")
                out.append(0)
            else:
                if raw.__class__ is not int:
                    self.ints = False
                    raw = _to_number(raw, name)
                out.append(raw)
        return out

    def actions(self) -> tuple[PhhAction, ...]:
        raw = self.fields.get("actions")
        if not isinstance(raw, list):
            raise PhhError("field 'actions' missing or not a list of strings")
        return parse_actions(raw, self.n)   # raises for an action of a player beyond them

    def action_amounts(self, actions: tuple[PhhAction, ...]) -> tuple[list[Number | None], bool]:
        """Each action's `cbr` amount as written (None for other actions), and whether one is a Decimal."""
        out: list[Number | None] = list(map(_AMOUNT_TEXT, actions))   # each read below
        decimal = False
        for i in compress(range(len(out)), out):   # the actions with an amount (its text never empty)
            text: str = out[i]  # type: ignore[assignment]   # an amount's text until read here
            if text.isdigit() and text.isascii():
                out[i] = int(text)
            else:
                try:
                    amount = Decimal(text)
                except InvalidOperation:
                    raise PhhError(f"action {actions[i].text!r}: not an amount: {text!r}") from None
                out[i] = _to_number(amount, f"action {actions[i].text!r}")
                decimal = True
        return out, decimal

    def places(self, played: list[Number], raw_amounts: list[Number | None]) -> tuple[int, bool]:
        """The decimal places of the finest amount the table (`played`: its stacks, antes, blinds
        and stakes) and its actions use, and whether every one of them is an int (then each is its
        own count of units)."""
        played += [x for x in raw_amounts if x is not None]
        if "_rake_cap" in self.fields:  # an amount too: its decimals count
            played.append(_to_number(self.fields["_rake_cap"], "_rake_cap"))
        if _only_ints(played):
            return 0, True
        return max(_decimals(v) for v in played if type(v) is not int), False

    def settings(self) -> tuple[tuple[str, ...] | None, bool, int, bool, bool]:
        """players, ante_trimming_status, _raise_cap, _uncapped, _uncapped_heads_up."""
        fields, n = self.fields, self.n
        players_raw = fields.get("players")
        players: tuple[str, ...] | None = None
        if players_raw is not None:
            if not isinstance(players_raw, list) or len(players_raw) != n or not (
                    _STR_ONLY.issuperset(map(type, players_raw)) or all(isinstance(p, str) for p in players_raw)):
                raise PhhError(f"field 'players': expected a list of {n} names")
            players = tuple(players_raw)
        trimming = fields.get("ante_trimming_status", False)
        if not isinstance(trimming, bool):
            raise PhhError("field 'ante_trimming_status': expected true or false")
        cap = fields.get("_raise_cap", 3)
        if type(cap) is not int or cap < 0:
            raise PhhError(f"field '_raise_cap': expected a number of raises (0 or more), not {cap!r}")
        uncapped, heads_up = fields.get("_uncapped", False), fields.get("_uncapped_heads_up", False)
        if uncapped.__class__ is not bool or heads_up.__class__ is not bool:
            name = "_uncapped" if uncapped.__class__ is not bool else "_uncapped_heads_up"
            raise PhhError(f"field {name!r}: expected true or false")
        return players, trimming, cap, uncapped, heads_up

    def rake(self, scale: int) -> Rake | None:
        """The house's rake (`_rake_bp`, `_rake_cap`, `_rake_no_flop_no_drop`), or None."""
        fields = self.fields
        if "_rake_bp" not in fields and "_rake_cap" not in fields:
            if "_rake_no_flop_no_drop" in fields:
                raise PhhError("field '_rake_no_flop_no_drop': a rake needs '_rake_bp' and '_rake_cap'")
            return None
        rate, cap, nfnd = fields.get("_rake_bp"), fields.get("_rake_cap"), fields.get("_rake_no_flop_no_drop", True)
        if type(rate) is not int or not 0 <= rate <= 10000:
            raise PhhError(f"field '_rake_bp': expected basis points 0..10000, not {rate!r}")
        if cap is None:
            raise PhhError("field '_rake_cap': a rake needs its cap")
        cap_units = _units(_to_number(cap, "_rake_cap"), scale)
        if cap_units < 0:
            raise PhhError(f"field '_rake_cap': a cap cannot be negative ({cap})")
        if not isinstance(nfnd, bool):
            raise PhhError("field '_rake_no_flop_no_drop': expected true or false")
        return Rake(rate, cap_units, nfnd)

    def results(self, name: str) -> tuple[Number, ...] | None:
        raw = self.fields.get(name)
        if raw is None:
            return None
        if not isinstance(raw, list) or len(raw) != self.n:
            raise PhhError(f"field {name!r}: expected a list of {self.n} amounts, one per player")
        for v in raw:   # _only_ints, in a plain loop
            if v.__class__ is not int:
                break
        else:
            return tuple(raw)
        return tuple(_to_number(v, f"{name}[{i}]") for i, v in enumerate(raw))


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return "inf" if value > 0 else "-inf"
        text = format(value, "f")
        return text if "." in text else text + ".0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    # dates and times (tomllib gives datetime/date/time): TOML takes their ISO forms
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):
        return str(isoformat())
    raise PhhError(f"cannot write {value!r} as TOML")


def parse_phh(text: str) -> HandHistory:
    """Parse one `.phh` file's text. Raises PhhError."""
    return HandHistory.parse(text)


def parse_phhs(text: str) -> list[HandHistory | PhhError]:
    """Parse a `.phhs` file's text: its hands in table order (`[1]`, `[2]`...).

    A hand that cannot be read is returned as its PhhError, so that one bad hand does not hide
    the others. Raises PhhError only when the text is not TOML or holds no hand tables.
    """
    return hands_of_tables(load_toml(text))


def hands_of_tables(tables: Mapping[str, Any]) -> list[HandHistory | PhhError]:
    """The hands of a parsed `.phhs` file (its tables `[1]`, `[2]`...), as `parse_phhs` returns them.
    Raises PhhError only when it holds something else than hand tables, or none."""
    hands: list[HandHistory | PhhError] = []
    for key, value in tables.items():
        if not isinstance(value, dict):
            raise PhhError(f"a .phhs file holds only hand tables ([1], [2], ...); found field {key!r}")
        try:
            hands.append(HandHistory.from_fields(value))
        except PhhError as exc:
            hands.append(PhhError(f"hand [{key}]: {exc}"))
    if not hands:
        raise PhhError("no hand tables ([1], [2], ...) in the .phhs text")
    return hands


def dumps_phhs(hands: Iterable[HandHistory]) -> str:
    """Several records as one `.phhs` text, tables `[1]`, `[2]`, ..."""
    return "\n".join(f"[{i}]\n{h.dumps()}" for i, h in enumerate(hands, 1))
