"""Poker hand histories in the PHH format (uoftcprg/phh-std): parse, replay through our engine, export.

A PHH file is TOML: the table (`variant`, `antes`, `blinds_or_straddles`, `bring_in`,
`small_bet`, `big_bet`, `min_bet`, `starting_stacks`), the `actions` as strings, and optional
fields (`players`, `finishing_stacks`, `winnings`, event data...). A `.phhs` file holds several
hands as TOML tables `[1]`, `[2]`, ...

Action notation (players are `p1`..`pN` in PHH order: small blind first, button last in button
games; left of the dealer first in stud)::

    d dh p1 AsKd      deal hole cards (`??` for an unknown card)
    d db Jc3d5c       deal board cards
    p3 pb             post the bring-in (stud)
    p3 f / p3 cc      fold / check or call
    p3 cbr 7000       complete, bet or raise to 7000 (the total of the street, not the increment)
    p3 sd Qh / p3 sd  discard (draw) / stand pat
    p3 sm AsKd / p3 sm   show / muck at showdown
    # text            a comment (commentary)

Amounts in a record may be decimals (online cash games: `0.25`). A record is kept in integer
units: `unit` is the value of one unit (`Decimal('0.01')` there, `1` for chips), chosen as the
finest decimal that the blinds, antes, bets, stacks and actions use. Results (`finishing_stacks`,
`winnings`) are kept as written (`Decimal` or `int`), since a record may carry half chips that
an integer engine never pays.

This module is pure: it takes and returns text; the CLI reads the files.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.errors import EngineError

__all__ = [
    "PhhError", "PhhAction", "HandHistory", "parse_phh", "parse_phhs", "dumps_phhs",
    "VARIANT_NAMES",
]

Number = int | Decimal


class PhhError(EngineError, ValueError):
    """A hand history that cannot be read, or cannot be followed by our engine: names what and why."""


# The variant codes of the PHH specification (and what they are called at our table).
VARIANT_NAMES: dict[str, str] = {
    "FT": "fixed-limit Texas hold'em",
    "NT": "no-limit Texas hold'em",
    "NS": "no-limit short-deck hold'em",
    "PO": "pot-limit Omaha",
    "FO/8": "fixed-limit Omaha hi-lo 8-or-better",
    "F7S": "fixed-limit 7-card stud",
    "F7S/8": "fixed-limit 7-card stud hi-lo 8-or-better",
    "FR": "fixed-limit razz",
    "N2L1D": "no-limit 2-7 single draw",
    "F2L3D": "fixed-limit 2-7 triple draw",
    "FB": "fixed-limit badugi",
}

# Which stake fields each variant needs (phh-std "required fields").
_BLINDS = ("blinds_or_straddles",)
_STAKES: dict[str, tuple[str, ...]] = {
    "FT": _BLINDS + ("small_bet", "big_bet"),
    "NT": _BLINDS + ("min_bet",),
    "NS": _BLINDS + ("min_bet",),
    "PO": _BLINDS + ("min_bet",),
    "FO/8": _BLINDS + ("small_bet", "big_bet"),
    "F7S": ("bring_in", "small_bet", "big_bet"),
    "F7S/8": ("bring_in", "small_bet", "big_bet"),
    "FR": ("bring_in", "small_bet", "big_bet"),
    "N2L1D": _BLINDS + ("min_bet",),
    "F2L3D": _BLINDS + ("small_bet", "big_bet"),
    "FB": _BLINDS + ("small_bet", "big_bet"),
}
# Fields this module reads into typed attributes; every other field is kept as written in `extra`.
_CORE = frozenset({
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "min_bet", "starting_stacks", "actions", "players", "finishing_stacks", "winnings",
})
# Field order of the specification, for export.
_FIELD_ORDER = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "min_bet", "starting_stacks", "actions", "author", "event", "url", "venue",
    "address", "city", "region", "postal_code", "country", "time", "time_zone",
    "time_zone_abbreviation", "day", "month", "year", "hand", "level", "seats", "seat_count",
    "table", "players", "finishing_stacks", "winnings", "currency", "currency_symbol",
    "time_limit", "time_banks",
)

_PLAYER = re.compile(r"p([1-9][0-9]*)\Z")
_CARD_TEXT = re.compile(r"(?:[2-9TJQKA][cdhs]|\?\?)+\Z")
_KINDS_PLAYER = frozenset({"pb", "f", "cc", "cbr", "sd", "sm"})


def _split_cards(text: str, action: str) -> tuple[str, ...]:
    if not _CARD_TEXT.match(text):
        raise PhhError(f"action {action!r}: not a list of cards: {text!r}")
    return tuple(text[i:i + 2] for i in range(0, len(text), 2))


def _to_number(value: Any, what: str) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise PhhError(f"{what}: not a number: {value!r}")
    if isinstance(value, float):  # tomllib was given parse_float=Decimal; a float here came from a caller
        value = Decimal(repr(value))
    if isinstance(value, Decimal) and not value.is_finite():
        raise PhhError(f"{what}: {value} is not a finite amount (an unknown stack cannot be replayed)")
    return value


def _decimals(value: Number) -> int:
    """How many decimal places `value` needs (0 for a whole number)."""
    if isinstance(value, int):
        return 0
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # finite, checked by _to_number
    return max(0, -exponent)


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One action of a record. `actor` is None for the dealer `d`, else the player index (0-based).

    `kind` is `db`, `dh`, `pb`, `f`, `cc`, `cbr`, `sd`, `sm`, or `""` for a comment-only line.
    `player` is the 0-based index of the player dealt to (`dh`) or acting; `cards` the card texts
    (`??` unknown; None when the action names no cards: `sd` standing pat, `sm` mucking);
    `amount` the `cbr` amount in the record's units (see HandHistory.unit), set by HandHistory.

    >>> PhhAction.parse("p3 cbr 7000  # Dwan")
    PhhAction(actor=2, kind='cbr', player=2, cards=None, amount_text='7000', commentary='Dwan', text='p3 cbr 7000  # Dwan')
    """

    actor: int | None
    kind: str
    player: int | None
    cards: tuple[str, ...] | None
    amount_text: str | None
    commentary: str | None
    text: str

    @classmethod
    def parse(cls, text: str) -> PhhAction:
        """Parse one action string. Raises PhhError naming the action and what is wrong with it."""
        if not isinstance(text, str):
            raise PhhError(f"action {text!r}: not a string")
        body, sep, comment = text.partition("#")
        commentary = comment.strip() if sep else None
        words = body.split()
        if not words:
            return cls(None, "", None, None, None, commentary, text)
        if words[0] == "d":
            if len(words) == 3 and words[1] == "db":
                return cls(None, "db", None, _split_cards(words[2], text), None, commentary, text)
            if len(words) == 4 and words[1] == "dh":
                m = _PLAYER.match(words[2])
                if not m:
                    raise PhhError(f"action {text!r}: not a player: {words[2]!r} (expected p1, p2, ...)")
                return cls(None, "dh", int(m.group(1)) - 1, _split_cards(words[3], text), None, commentary, text)
            raise PhhError(f"action {text!r}: not a dealer action (expected 'd db CARDS' or 'd dh pN CARDS')")
        m = _PLAYER.match(words[0])
        if not m:
            raise PhhError(f"action {text!r}: unknown actor {words[0]!r} (expected d, p1, p2, ...)")
        index = int(m.group(1)) - 1
        kind = words[1] if len(words) > 1 else ""
        if kind not in _KINDS_PLAYER:
            raise PhhError(f"action {text!r}: unknown action {kind!r} (expected pb, f, cc, cbr, sd or sm)")
        rest = words[2:]
        if kind == "cbr":
            if len(rest) != 1:
                raise PhhError(f"action {text!r}: cbr takes one amount")
            return cls(index, kind, index, None, rest[0], commentary, text)
        if kind in ("sd", "sm"):
            if len(rest) > 1:
                raise PhhError(f"action {text!r}: {kind} takes at most one list of cards")
            if kind == "sm" and rest == ["-"]:
                raise PhhError(f"action {text!r}: 'sm -' (show without naming the cards) cannot be replayed")
            cards = _split_cards(rest[0], text) if rest else None
            return cls(index, kind, index, cards, None, commentary, text)
        if rest:
            raise PhhError(f"action {text!r}: {kind} takes no argument")
        return cls(index, kind, index, None, None, commentary, text)

    def format(self) -> str:
        """The action in PHH notation (the commentary kept)."""
        if self.kind == "":
            body = ""
        elif self.actor is None:
            cards = "".join(self.cards or ())
            body = f"d db {cards}" if self.kind == "db" else f"d dh p{(self.player or 0) + 1} {cards}"
        else:
            body = f"p{self.actor + 1} {self.kind}"
            if self.amount_text is not None:
                body += f" {self.amount_text}"
            if self.cards:
                body += " " + "".join(self.cards)
        if self.commentary is not None:
            return f"{body} # {self.commentary}" if body else f"# {self.commentary}"
        return body


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand history, its amounts in integer units of `unit` (see the module docstring).

    Stakes a variant does not use are 0. `amounts[i]` is the `cbr` amount of `actions[i]` in
    units (None for other actions). `extra` keeps the optional fields not read here, sorted by name.
    """

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    bring_in: int
    small_bet: int
    big_bet: int
    min_bet: int
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...]
    amounts: tuple[int | None, ...]
    unit: Decimal = Decimal(1)
    ante_trimming_status: bool = False
    players: tuple[str, ...] | None = None
    finishing_stacks: tuple[Number, ...] | None = None
    winnings: tuple[Number, ...] | None = None
    extra: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    @classmethod
    def parse(cls, text: str) -> HandHistory:
        """Parse the text of a `.phh` file. Raises PhhError naming the field or action at fault."""
        try:
            fields = tomllib.loads(text, parse_float=Decimal)
        except tomllib.TOMLDecodeError as exc:
            raise PhhError(f"not TOML: {exc}") from exc
        return cls.from_fields(fields)

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> HandHistory:
        """Build a record from the fields of a parsed file (numbers as int or Decimal).

        Raises PhhError naming the missing or malformed field, or the bad action.
        """
        variant = fields.get("variant")
        if not isinstance(variant, str):
            raise PhhError("field 'variant' missing or not a string")
        if variant not in _STAKES:
            raise PhhError(f"variant {variant!r} is not a PHH variant code ({', '.join(_STAKES)})")
        stacks_raw = fields.get("starting_stacks")
        if not isinstance(stacks_raw, list) or len(stacks_raw) < 2:
            raise PhhError("field 'starting_stacks' missing or fewer than two players")
        n = len(stacks_raw)

        def seq(name: str, required: bool) -> list[Number]:
            raw = fields.get(name)
            if raw is None:
                if required:
                    raise PhhError(f"field {name!r} missing (variant {variant} needs it)")
                return [0] * n
            if not isinstance(raw, list) or len(raw) != n:
                raise PhhError(f"field {name!r}: expected a list of {n} amounts, one per player")
            return [_to_number(v, f"{name}[{i}]") for i, v in enumerate(raw)]

        def one(name: str) -> Number:
            raw = fields.get(name)
            if raw is None:
                if name in _STAKES[variant]:
                    raise PhhError(f"field {name!r} missing (variant {variant} needs it)")
                return 0
            return _to_number(raw, name)

        stacks = seq("starting_stacks", True)
        antes = seq("antes", True)
        blinds = seq("blinds_or_straddles", "blinds_or_straddles" in _STAKES[variant])
        stakes = {name: one(name) for name in ("bring_in", "small_bet", "big_bet", "min_bet")}
        raw_actions = fields.get("actions")
        if not isinstance(raw_actions, list):
            raise PhhError("field 'actions' missing or not a list of strings")
        actions = tuple(PhhAction.parse(a) for a in raw_actions)
        for a in actions:
            if a.player is not None and a.player >= n:
                raise PhhError(f"action {a.text!r}: there are only {n} players")
        raw_amounts: list[Number | None] = []
        for a in actions:
            if a.amount_text is None:
                raw_amounts.append(None)
                continue
            try:
                amount = Decimal(a.amount_text)
            except InvalidOperation:
                raise PhhError(f"action {a.text!r}: not an amount: {a.amount_text!r}") from None
            raw_amounts.append(_to_number(amount, f"action {a.text!r}"))

        played: list[Number] = [*stacks, *antes, *blinds, *stakes.values(),
                                *(x for x in raw_amounts if x is not None)]
        places = max(_decimals(v) for v in played)
        scale = 10 ** places

        def units(value: Number) -> int:
            return int(value) * scale if isinstance(value, int) else int(value * scale)

        for i, s in enumerate(stacks):
            if s <= 0:
                raise PhhError(f"starting_stacks[{i}]: a stack must be positive, not {s}")
        for i, a in enumerate(antes):
            if a < 0:
                raise PhhError(f"antes[{i}]: an ante cannot be negative ({a})")

        def results(name: str) -> tuple[Number, ...] | None:
            raw = fields.get(name)
            if raw is None:
                return None
            if not isinstance(raw, list) or len(raw) != n:
                raise PhhError(f"field {name!r}: expected a list of {n} amounts, one per player")
            return tuple(_to_number(v, f"{name}[{i}]") for i, v in enumerate(raw))

        players_raw = fields.get("players")
        players: tuple[str, ...] | None = None
        if players_raw is not None:
            if not isinstance(players_raw, list) or len(players_raw) != n or not all(
                    isinstance(p, str) for p in players_raw):
                raise PhhError(f"field 'players': expected a list of {n} names")
            players = tuple(players_raw)
        trimming = fields.get("ante_trimming_status", False)
        if not isinstance(trimming, bool):
            raise PhhError("field 'ante_trimming_status': expected true or false")
        return cls(
            variant=variant,
            antes=tuple(map(units, antes)),
            blinds_or_straddles=tuple(map(units, blinds)),
            bring_in=units(stakes["bring_in"]),
            small_bet=units(stakes["small_bet"]),
            big_bet=units(stakes["big_bet"]),
            min_bet=units(stakes["min_bet"]),
            starting_stacks=tuple(map(units, stacks)),
            actions=actions,
            amounts=tuple(None if x is None else units(x) for x in raw_amounts),
            unit=Decimal(1).scaleb(-places),
            ante_trimming_status=trimming,
            players=players,
            finishing_stacks=results("finishing_stacks"),
            winnings=results("winnings"),
            extra=tuple(sorted((k, v) for k, v in fields.items() if k not in _CORE)),
        )

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
        values: dict[str, Any] = dict(self.extra)
        values["variant"] = self.variant
        values["ante_trimming_status"] = self.ante_trimming_status
        values["antes"] = [self.amount(a) for a in self.antes]
        needs = _STAKES[self.variant]
        if "blinds_or_straddles" in needs:
            values["blinds_or_straddles"] = [self.amount(b) for b in self.blinds_or_straddles]
        for name in ("bring_in", "small_bet", "big_bet", "min_bet"):
            if name in needs:
                values[name] = self.amount(getattr(self, name))
        values["starting_stacks"] = [self.amount(s) for s in self.starting_stacks]
        values["actions"] = [a.format() for a in self.actions]
        if self.players is not None:
            values["players"] = list(self.players)
        if self.finishing_stacks is not None:
            values["finishing_stacks"] = list(self.finishing_stacks)
        if self.winnings is not None:
            values["winnings"] = list(self.winnings)
        order = {name: i for i, name in enumerate(_FIELD_ORDER)}
        keys = sorted(values, key=lambda k: (order.get(k, len(order)), k))
        return "".join(f"{_toml_key(k)} = {_toml_value(values[k])}\n" for k in keys)


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
    try:
        tables = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not TOML: {exc}") from exc
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

