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

import operator
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from engine.cards import DECK, Card
from engine.errors import CardError, EngineError, IllegalAction
from engine.poker import (
    VARIANTS, Awarded, BetOrRaised, BroughtIn, Called, Checked, Chopped, Dealt, Drew, Folded, Hand,
    HandSettings, Mucked, Phase, Posted, Raked, Returned, Shown, Stakes, Structure, Variant,
)
from engine.poker.state import CardInput, Rake
from engine.phh_quick import QuickReplay, quick_replay
from engine.phh_quick import clear_cache as _clear_quick_cache

__all__ = [
    "PhhError", "PhhAction", "HandHistory", "parse_phh", "parse_phhs", "dumps_phhs",
    "VARIANT_NAMES", "replay", "replay_hand", "game_of", "stakes_of", "to_phh", "variant_code",
    "hand_from_record", "record_to_phh", "load_toml", "clear_caches", "QuickReplay", "quick_replay",
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

# Variant codes read as a betting structure letter and a game (phh-std's eleven follow this
# grammar: FT NT NS PO FO/8 F7S F7S/8 FR N2L1D F2L3D FB). Codes outside those eleven are Croupier's
# extensions, for the hands our table deals that the standard has no code for: pot-limit or
# no-limit hold'em (PT), no-limit Omaha (NO), spread limit (S..., with a `max_bet` field),
# 5-card draw (F5CD, N5CD, ...). Other tools will not read them.
_STRUCTURE_LETTERS = {"F": "fixed-limit", "S": "spread-limit", "P": "pot-limit", "N": "no-limit"}
GAME_CODES: dict[str, str] = {
    "T": "holdem", "O": "omaha", "O/8": "omaha_hilo8", "7S": "stud", "7S/8": "stud_hilo8",
    "R": "razz", "5CD": "five_card_draw", "2L1D": "deuce_seven_single",
    "2L3D": "deuce_seven_triple", "B": "badugi",
}
_BRING_IN_GAMES = frozenset({"7S", "7S/8", "R"})
_FOREIGN_GAMES = {"S": "short-deck hold'em (36 cards, 6 to A)"}


def _split_code(code: str) -> tuple[str, str] | None:
    letter, game = code[:1], code[1:]
    if letter in _STRUCTURE_LETTERS and (game in GAME_CODES or game in _FOREIGN_GAMES):
        return letter, game
    return None


def _stakes_fields(code: str) -> tuple[str, ...]:
    """The stake fields a variant code needs (phh-std "required fields", and ours for S)."""
    split = _split_code(code)
    assert split is not None
    letter, game = split
    forced = ("bring_in",) if game in _BRING_IN_GAMES else ("blinds_or_straddles",)
    sizes = {"F": ("small_bet", "big_bet"), "S": ("min_bet", "max_bet"),
             "P": ("min_bet",), "N": ("min_bet",)}[letter]
    return forced + sizes


# Fields this module reads into typed attributes; every other field is kept as written in `extra`.
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

_PLAYER = re.compile(r"p([1-9][0-9]*)\Z")
_CARD_TEXT = re.compile(r"(?:[2-9TJQKA][cdhs]|\?\?)+\Z")
_KINDS_PLAYER = frozenset({"pb", "f", "cc", "cbr", "sd", "sm"})


# --- reading TOML quickly ------------------------------------------------------------------------
# A PHH file is TOML, read with the standard library's `tomllib`. Most files (every file a program
# writes, pokerkit's and ours) use a small part of TOML: one `key = value` a line, the value a
# string, an integer, a decimal, a boolean or a one-line array of those. `load_toml` reads that
# part directly, several times faster than tomllib, and hands anything else to tomllib; the two
# give equal results on that part (tests/engine/test_phh.py checks it on every file of the
# sample and on the edge cases).

_TOML_LINE = re.compile(r"([A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*)")
_TOML_SCALAR = (r"'[^'\x00-\x08\x0a-\x1f\x7f]*'|\"[^\"\\\x00-\x08\x0a-\x1f\x7f]*\""
                r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|true|false")
_TOML_ARRAY = re.compile(rf"\[[ \t]*(?:(?:{_TOML_SCALAR})[ \t]*(?:,[ \t]*(?:{_TOML_SCALAR})[ \t]*)*)?\]")
_TOML_ITEM = re.compile(_TOML_SCALAR)
_TOML_ONE = re.compile(_TOML_SCALAR)
_TOML_SINGLE_QUOTED = re.compile(r"'([^']*)'")


def _toml_scalar(token: str) -> Any:
    first = token[0]
    if first == "'" or first == '"':
        return token[1:-1]
    if token == "true":
        return True
    if token == "false":
        return False
    if "." in token:
        return Decimal(token)
    return int(token)


# The commonest form of all, as pokerkit and Croupier write it: `key = value` lines ending in "\n",
# a value a literal string, an integer, a decimal, a boolean or a one-line array of literal strings
# or of numbers. One match checks the whole text; the lines are then split without more checks.
_Q_STRING = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"
_Q_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
_QUICK_FILE = re.compile(
    rf"(?:[A-Za-z0-9_-]+ = (?:{_Q_STRING}|{_Q_NUMBER}|true|false"
    rf"|\[(?:{_Q_STRING}(?:, {_Q_STRING})*)?\]|\[{_Q_NUMBER}(?:, {_Q_NUMBER})*\])\n)*")


_QUICK_PAIRS = re.compile(r"^([A-Za-z0-9_-]+) = (.*)$", re.MULTILINE)   # key, value of each line


def _load_quick_toml(text: str) -> dict[str, Any] | None:
    """The fields of `text` when it has only the commonest form (see _QUICK_FILE), else None."""
    if _QUICK_FILE.fullmatch(text) is None:
        return None
    fields: dict[str, Any] = {}
    pairs = _QUICK_PAIRS.findall(text)
    for key, value in pairs:
        first = value[0]
        if first == "'":
            fields[key] = value[1:-1]
        elif first == "[":
            if value[1] == "'":  # strings without quotes inside, separated by ", " (checked)
                fields[key] = value[2:-2].split("', '")
            elif value[1] == "]":
                fields[key] = []
            elif "." in value:
                fields[key] = [Decimal(t) if "." in t else int(t) for t in value[1:-1].split(", ")]
            else:
                fields[key] = list(map(int, value[1:-1].split(", ")))
        elif value == "true":
            fields[key] = True
        elif value == "false":
            fields[key] = False
        else:
            fields[key] = Decimal(value) if "." in value else int(value)
    if len(fields) != len(pairs):
        return None  # a key given twice: tomllib's error
    return fields


def _load_simple_toml(text: str) -> dict[str, Any] | None:
    """The fields of `text` when it uses only the simple part of TOML, else None."""
    quick = _load_quick_toml(text if text[-1:] == "\n" else text + "\n")
    if quick is not None:
        return quick
    fields: dict[str, Any] = {}
    for line in text.split("\n"):
        stripped = line.strip(" \t\r")
        if not stripped or stripped[0] == "#":
            if "\x7f" in stripped or any(c < " " and c != "\t" for c in stripped):
                return None
            continue
        m = _TOML_LINE.fullmatch(line)
        if m is None:
            return None
        key, value = m.group(1), m.group(2).rstrip(" \t\r")
        if key in fields:
            return None
        if value[:1] == "[":
            if _TOML_ARRAY.fullmatch(value) is None:
                return None
            if '"' not in value:
                if "'" in value:  # every item a literal string (the array is valid TOML)
                    if value.count("'") == 2 * (value.count(",") + 1) or ("," not in value):
                        fields[key] = _TOML_SINGLE_QUOTED.findall(value)
                        continue
                elif "." not in value and "e" not in value:  # integers (true/false have an e)
                    inner = value[1:-1]
                    fields[key] = [int(t) for t in inner.split(",")] if inner.strip() else []
                    continue
            fields[key] = [_toml_scalar(t) for t in _TOML_ITEM.findall(value)]
        elif _TOML_ONE.fullmatch(value):
            fields[key] = _toml_scalar(value)
        else:
            return None
    return fields


def load_toml(text: str) -> dict[str, Any]:
    """TOML text as a dict, decimals as Decimal. Raises PhhError ("not TOML: ...") as tomllib would."""
    fields = _load_simple_toml(text)
    if fields is not None:
        return fields
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not TOML: {exc}") from exc


_ACTION_CACHE: dict[str, PhhAction] = {}


def _parse_action(text: str) -> PhhAction:
    """PhhAction.parse, remembering the actions seen (they repeat: `p3 f`, `p1 cc`...)."""
    action = _ACTION_CACHE.get(text)
    if action is None:
        action = _parse_new_action(text)
    return action


def _parse_new_action(text: str) -> PhhAction:
    """PhhAction.parse of an action not remembered yet, remembered from now on unless it deals
    cards (those seldom repeat: keeping them would only grow the heap, and the garbage
    collector's work)."""
    action = PhhAction.parse(text)
    if action.kind != "dh" and action.kind != "db":
        if len(_ACTION_CACHE) >= 1 << 16:
            _ACTION_CACHE.clear()
        _ACTION_CACHE[text] = action
    return action


_PLAYER_INDEX = {f"p{i}": i - 1 for i in range(1, 33)}
_CARDS_OF: dict[str, Card | None] = {str(card): card for card in DECK}
_CARDS_OF["??"] = None
_CARD_SPLITS: dict[str, tuple[str, ...]] = {}


def clear_caches() -> None:
    """Forget the actions, card lists and stakes remembered from records read so far (they only
    save time; a benchmark clears them to time a first reading)."""
    _ACTION_CACHE.clear()
    _CARD_SPLITS.clear()
    _STAKES_CACHE.clear()
    _clear_quick_cache()


def _player_index(word: str) -> int | None:
    """`p3` -> 2; None when the word is not a player."""
    index = _PLAYER_INDEX.get(word)
    if index is None:
        m = _PLAYER.match(word)
        if m:
            index = int(m.group(1)) - 1
    return index


def _split_cards(text: str, action: str) -> tuple[str, ...]:
    cards = _CARD_SPLITS.get(text)
    if cards is None:
        if not _CARD_TEXT.match(text):
            raise PhhError(f"action {action!r}: not a list of cards: {text!r}")
        cards = tuple([text[i:i + 2] for i in range(0, len(text), 2)])
        if len(text) <= 4:  # two cards repeat (shown hands); a board seldom does
            if len(_CARD_SPLITS) >= 1 << 16:
                _CARD_SPLITS.clear()
            _CARD_SPLITS[text] = cards
    return cards


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


_INT_ONLY = frozenset({int})


def _only_ints(values: Iterable[object]) -> bool:
    """True when every value is an int (not a bool, not a Decimal)."""
    return set(map(type, values)) <= _INT_ONLY


def _decimals(value: Number) -> int:
    """How many decimal places `value` needs (0 for a whole number)."""
    if isinstance(value, int):
        return 0
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # finite, checked by _to_number
    return max(0, -exponent)


class PhhAction(NamedTuple):
    """One action of a record (a value: an immutable named tuple, quick to build). `actor` is None for the dealer `d`, else the player index (0-based).

    `kind` is `db`, `dh`, `pb`, `f`, `cc`, `cbr`, `sd`, `sm`, or `""` for a comment-only line.
    `player` is the 0-based index of the player dealt to (`dh`) or acting; `cards` the card texts
    (`??` unknown; None when the action names no cards: `sd` standing pat, `sm` mucking);
    `amount_text` the `cbr` amount as written (HandHistory.amounts has it in integer units).

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
        if "#" not in text:  # the commonest forms first: `d dh p1 AsKd`, `p3 f`, `p3 cc`
            words = text.split()
            if len(words) == 4:
                cards = words[3]
                if (words[0] == "d" and words[1] == "dh" and len(cards) == 4 and words[2] in _PLAYER_INDEX
                        and cards[:2] in _CARDS_OF and cards[2:] in _CARDS_OF):
                    return _new_action(cls, (None, "dh", _PLAYER_INDEX[words[2]], (cards[:2], cards[2:]),
                                             None, None, text))
            elif len(words) == 2:
                kind = words[1]
                if (kind == "f" or kind == "cc") and words[0] in _PLAYER_INDEX:
                    index = _PLAYER_INDEX[words[0]]
                    return _new_action(cls, (index, kind, index, None, None, None, text))
        if "#" in text:
            body, _, comment = text.partition("#")
            commentary: str | None = comment.strip()
        else:
            body, commentary = text, None
        words = body.split()
        if not words:
            return cls(None, "", None, None, None, commentary, text)
        if words[0] == "d":
            if len(words) == 3 and words[1] == "db":
                return cls(None, "db", None, _split_cards(words[2], text), None, commentary, text)
            if len(words) == 4 and words[1] == "dh":
                dealt = _player_index(words[2])
                if dealt is None:
                    raise PhhError(f"action {text!r}: not a player: {words[2]!r} (expected p1, p2, ...)")
                return cls(None, "dh", dealt, _split_cards(words[3], text), None, commentary, text)
            raise PhhError(f"action {text!r}: not a dealer action (expected 'd db CARDS' or 'd dh pN CARDS')")
        actor = _player_index(words[0])
        if actor is None:
            raise PhhError(f"action {text!r}: unknown actor {words[0]!r} (expected d, p1, p2, ...)")
        index = actor
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
            shown = _split_cards(rest[0], text) if rest else None
            return cls(index, kind, index, shown, None, commentary, text)
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


_new_action = tuple.__new__


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand history, its amounts in integer units of `unit` (see the module docstring).

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
        quick = _from_fields_quick(cls, fields)
        if quick is not None:
            return quick
        return cls._from_fields_full(fields)

    @classmethod
    def _from_fields_full(cls, fields: Mapping[str, Any]) -> HandHistory:
        """from_fields for any record (the quick path gives the same record where it applies)."""
        variant = fields.get("variant")
        if not isinstance(variant, str):
            raise PhhError("field 'variant' missing or not a string")
        if _split_code(variant) is None:
            raise PhhError(f"variant {variant!r} is not a PHH variant code ({', '.join(VARIANT_NAMES)})")
        needs = _stakes_fields(variant)
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
            if _only_ints(raw):
                return raw
            return [_to_number(v, f"{name}[{i}]") for i, v in enumerate(raw)]

        def one(name: str) -> Number:
            raw = fields.get(name)
            if raw is None:
                if name in needs:
                    raise PhhError(f"field {name!r} missing (variant {variant} needs it)")
                return 0
            return _to_number(raw, name)

        stacks = seq("starting_stacks", True)
        antes = seq("antes", True)
        blinds = seq("blinds_or_straddles", "blinds_or_straddles" in needs)
        stakes = {name: one(name) for name in ("bring_in", "small_bet", "big_bet", "min_bet", "max_bet")}
        raw_actions = fields.get("actions")
        if not isinstance(raw_actions, list):
            raise PhhError("field 'actions' missing or not a list of strings")
        remembered = _ACTION_CACHE.get
        parse = _parse_action
        try:
            actions = tuple([remembered(a) or parse(a) for a in raw_actions])
        except TypeError:  # an item that is not a string (a table): named by parse
            actions = tuple([parse(a) for a in raw_actions])
        raw_amounts: list[Number | None] = []
        for a in actions:
            if a.player is not None and a.player >= n:
                raise PhhError(f"action {a.text!r}: there are only {n} players")
            text = a.amount_text
            if text is None:
                raw_amounts.append(None)
            elif text.isdigit():
                raw_amounts.append(int(text))
            else:
                try:
                    amount = Decimal(text)
                except InvalidOperation:
                    raise PhhError(f"action {a.text!r}: not an amount: {text!r}") from None
                raw_amounts.append(_to_number(amount, f"action {a.text!r}"))

        played: list[Number] = [*stacks, *antes, *blinds, *stakes.values(),
                                *(x for x in raw_amounts if x is not None)]
        if "_rake_cap" in fields:  # an amount too: its decimals count
            played.append(_to_number(fields["_rake_cap"], "_rake_cap"))
        places = 0 if _only_ints(played) else max(_decimals(v) for v in played if type(v) is not int)
        scale = 10 ** places

        def units(value: Number) -> int:
            return int(value) * scale if isinstance(value, int) else int(value * scale)

        def all_units(values: list[Number]) -> tuple[int, ...]:
            if scale == 1 and _only_ints(values):
                return tuple(values)  # type: ignore[arg-type]
            return tuple(map(units, values))

        for i, s in enumerate(stacks):
            if s <= 0:
                raise PhhError(f"starting_stacks[{i}]: a stack must be positive, not {s}")
        for i, ante in enumerate(antes):
            if ante < 0:
                raise PhhError(f"antes[{i}]: an ante cannot be negative ({ante})")

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
        cap = fields.get("_raise_cap", 3)
        if type(cap) is not int or cap < 0:
            raise PhhError(f"field '_raise_cap': expected a number of raises (0 or more), not {cap!r}")
        flags = {}
        for name in ("_uncapped", "_uncapped_heads_up"):
            flags[name] = fields.get(name, False)
            if not isinstance(flags[name], bool):
                raise PhhError(f"field {name!r}: expected true or false")
        rake = _rake_of(fields, units)
        return cls(
            variant=variant,
            antes=all_units(antes),
            blinds_or_straddles=all_units(blinds),
            bring_in=units(stakes["bring_in"]),
            small_bet=units(stakes["small_bet"]),
            big_bet=units(stakes["big_bet"]),
            min_bet=units(stakes["min_bet"]),
            max_bet=units(stakes["max_bet"]),
            starting_stacks=all_units(stacks),
            actions=actions,
            amounts=tuple(raw_amounts) if scale == 1 and Decimal not in set(  # type: ignore[arg-type]
                map(type, raw_amounts)) else tuple(None if x is None else units(x) for x in raw_amounts),
            unit=Decimal(1).scaleb(-places),
            ante_trimming_status=trimming,
            raise_cap=None if flags["_uncapped"] else cap,
            uncapped_heads_up=flags["_uncapped_heads_up"],
            players=players,
            finishing_stacks=results("finishing_stacks"),
            winnings=results("winnings"),
            extra=tuple(sorted((k, v) for k, v in fields.items() if k not in _CORE)),
            rake=rake,
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
        needs = _stakes_fields(self.variant)
        if "blinds_or_straddles" in needs:
            values["blinds_or_straddles"] = [self.amount(b) for b in self.blinds_or_straddles]
        for name in ("bring_in", "small_bet", "big_bet", "min_bet", "max_bet"):
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
        if self.players is not None:
            values["players"] = list(self.players)
        if self.finishing_stacks is not None:
            values["finishing_stacks"] = list(self.finishing_stacks)
        if self.winnings is not None:
            values["winnings"] = list(self.winnings)
        order = {name: i for i, name in enumerate(_FIELD_ORDER)}
        keys = sorted(values, key=lambda k: (order.get(k, len(order)), k))
        return "".join(f"{_toml_key(k)} = {_toml_value(values[k])}\n" for k in keys)


def _rake_of(fields: Mapping[str, Any], units: Any) -> Rake | None:
    """The house's rake of a record (`_rake_bp`, `_rake_cap`, `_rake_no_flop_no_drop`), or None.
    Raises PhhError naming the field."""
    if "_rake_bp" not in fields and "_rake_cap" not in fields:
        if "_rake_no_flop_no_drop" in fields:
            raise PhhError("field '_rake_no_flop_no_drop': a rake needs '_rake_bp' and '_rake_cap'")
        return None
    rate, cap, nfnd = fields.get("_rake_bp"), fields.get("_rake_cap"), fields.get("_rake_no_flop_no_drop", True)
    if type(rate) is not int or not 0 <= rate <= 10000:
        raise PhhError(f"field '_rake_bp': expected basis points 0..10000, not {rate!r}")
    if cap is None:
        raise PhhError("field '_rake_cap': a rake needs its cap")
    cap_units = units(_to_number(cap, "_rake_cap"))
    if cap_units < 0:
        raise PhhError(f"field '_rake_cap': a cap cannot be negative ({cap})")
    if not isinstance(nfnd, bool):
        raise PhhError("field '_rake_no_flop_no_drop': expected true or false")
    return Rake(rate, cap_units, nfnd)


_ONE = Decimal(1)
_PLAYER_OF = operator.itemgetter(2)        # PhhAction.player
_AMOUNT_TEXT_OF = operator.itemgetter(4)   # PhhAction.amount_text
_SETTINGS_KEYS = frozenset({"_raise_cap", "_uncapped", "_uncapped_heads_up", "_rake_bp", "_rake_cap",
                            "_rake_no_flop_no_drop"})
_NEEDS: dict[str, tuple[str, ...]] = {}


def _ints(raw: object, n: int) -> bool:
    """A list of `n` ints (no bools, no decimals)."""
    return type(raw) is list and len(raw) == n and set(map(type, raw)) <= _INT_ONLY


def _from_fields_quick(cls: type[HandHistory], fields: Mapping[str, Any]) -> HandHistory | None:
    """HandHistory.from_fields for the commonest records (whole numbers only, no table settings of
    ours), or None to take the full path (which also names what is wrong)."""
    variant = fields.get("variant")
    needs = _NEEDS.get(variant) if isinstance(variant, str) else None
    if needs is None:
        if type(variant) is not str or _split_code(variant) is None:
            return None
        needs = _NEEDS[variant] = _stakes_fields(variant)
    stacks = fields.get("starting_stacks")
    if type(stacks) is not list or len(stacks) < 2:
        return None
    n = len(stacks)
    antes = fields.get("antes")
    blinds = fields.get("blinds_or_straddles")
    if blinds is None:
        if "blinds_or_straddles" in needs:
            return None
        blinds = [0] * n
    if not (_ints(stacks, n) and _ints(antes, n) and _ints(blinds, n)) or min(stacks) <= 0 or min(antes) < 0:  # type: ignore[arg-type]
        return None
    stakes = []
    for name in ("bring_in", "small_bet", "big_bet", "min_bet", "max_bet"):
        value = fields.get(name)
        if value is None:
            if name in needs:
                return None
            value = 0
        elif type(value) is not int:
            return None
        stakes.append(value)
    raw_actions = fields.get("actions")
    if type(raw_actions) is not list or not _SETTINGS_KEYS.isdisjoint(fields):
        return None
    remembered = _ACTION_CACHE.get
    try:
        actions = tuple([remembered(a) or _parse_new_action(a) for a in raw_actions])
    except (TypeError, PhhError):
        return None
    seen = set(map(_PLAYER_OF, actions))
    seen.discard(None)
    if seen and max(seen) >= n:
        return None
    amounts: list[int | None] = list(map(_AMOUNT_TEXT_OF, actions))
    if amounts.count(None) != len(amounts):
        for i, text in enumerate(amounts):
            if text is not None:
                if not (text.isdigit() and text.isascii()):  # type: ignore[attr-defined]
                    return None
                amounts[i] = int(text)
    results: list[tuple[Number, ...] | None] = []
    for name in ("finishing_stacks", "winnings"):
        raw = fields.get(name)
        if raw is None:
            results.append(None)
        elif _ints(raw, n):
            results.append(tuple(raw))
        else:
            return None
    players = fields.get("players")
    if players is not None:
        if type(players) is not list or len(players) != n or set(map(type, players)) != {str}:
            return None
        players = tuple(players)
    trimming = fields.get("ante_trimming_status", False)
    if type(trimming) is not bool:
        return None
    extra = tuple(sorted([(k, v) for k, v in fields.items() if k not in _CORE]))
    return cls(variant, tuple(antes), tuple(blinds), stakes[0], stakes[1], stakes[2], stakes[3],  # type: ignore[arg-type]
               stakes[4], tuple(stacks), actions, tuple(amounts), _ONE, trimming, 3, False, players,
               results[0], results[1], extra)


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
    tables = load_toml(text)
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


# --- replay through our engine ----------------------------------------------------------------------

_STRUCTURES = {
    "F": Structure.FIXED_LIMIT, "S": Structure.SPREAD_LIMIT,
    "P": Structure.POT_LIMIT, "N": Structure.NO_LIMIT,
}
_OVER = Phase.OVER            # read as globals: quicker than members of the Enum class
_SHOWDOWN = Phase.SHOWDOWN
_REPLAY_SETTINGS = HandSettings(burns=False)  # a hand history records no burns
_BETTING_KINDS = frozenset({"pb", "f", "cc", "cbr"})


def game_of(code: str) -> tuple[Variant, Structure]:
    """Our variant and betting structure for a PHH variant code.

    Raises PhhError for a code that is not a game of ours (NS, short deck) or not a code at all.
    """
    split = _split_code(code)
    if split is None:
        raise PhhError(f"variant {code!r} is not a PHH variant code ({', '.join(VARIANT_NAMES)})")
    letter, game = split
    if game in _FOREIGN_GAMES:
        raise PhhError(f"variant {code!r}: {_FOREIGN_GAMES[game]} is not one of our games")
    return VARIANTS[GAME_CODES[game]], _STRUCTURES[letter]


_STAKES_CACHE: dict[tuple[object, ...], Stakes] = {}
_GAMES: dict[str, tuple[Variant, Structure]] = {}   # game_of by code, for the codes seen


def stakes_of(hand: HandHistory) -> Stakes:
    """The engine's stakes for a record. Raises PhhError naming what our tables cannot deal
    (a negative blind: an online "post" out of position)."""
    key = (hand.variant, hand.blinds_or_straddles, hand.antes, hand.bring_in, hand.small_bet,
           hand.big_bet, hand.min_bet, hand.max_bet, hand.raise_cap, hand.uncapped_heads_up)
    stakes = _STAKES_CACHE.get(key)
    if stakes is None:
        stakes = _stakes_of(hand)
        if len(_STAKES_CACHE) >= 1024:
            _STAKES_CACHE.clear()
        _STAKES_CACHE[key] = stakes  # Stakes are frozen: one per table is shared by its hands
    return stakes


def _stakes_of(hand: HandHistory) -> Stakes:
    _, structure = game_of(hand.variant)
    blinds = list(hand.blinds_or_straddles)
    for i, b in enumerate(blinds):
        if b < 0:
            raise PhhError(f"blinds_or_straddles[{i}] = {hand.amount(b)}: a posted blind out of "
                           f"position (negative in PHH) is not dealt at our tables")
    while blinds and blinds[-1] == 0:
        blinds.pop()
    antes: int | tuple[int, ...] = hand.antes[0] if len(set(hand.antes)) == 1 else hand.antes
    try:
        return Stakes(structure, tuple(blinds), antes, bring_in=hand.bring_in,
                      small_bet=hand.small_bet, big_bet=hand.big_bet,
                      min_bet=hand.min_bet, max_bet=hand.max_bet, raise_cap=hand.raise_cap,
                      uncapped_heads_up=hand.uncapped_heads_up)
    except IllegalAction as exc:
        raise PhhError(f"stakes: {exc}") from None


def replay(hand: HandHistory) -> tuple[int, ...]:
    """Play a record through our engine; the finishing stacks in units, in player order.

    Raises PhhError as replay_hand.
    """
    played = replay_hand(hand)
    assert played.result is not None
    final = played.result.final_stacks
    return tuple(map(final.__getitem__, range(len(hand.starting_stacks))))


def replay_hand(hand: HandHistory, complete: bool = True) -> Hand:
    """Play a record through our engine, strictly, and return the finished engine hand.

    Players p1..pN sit in seats 0..N-1 and pN has the button (the PHH order: small blind first;
    heads-up the button posts the small blind, as in our rules and the PHH's reversed blinds). The
    table burns no cards (hand histories record none). Every player action must be the one our
    engine waits for: an action the record lacks (a fold never written, a show at showdown) is an
    error, never supplied. The dealer's lines may come in the record's order rather than the
    shoe's, which our engine follows: hole cards of a street as one line per player (dealt round
    by round here), draw replacements after everyone's discards, the board of an all-in run-out
    after the hands were shown; those lines are taken when the engine asks for the card. A hand
    shown more than once (stud, shown before the last card and again after) counts its last show.
    A show of unknown cards (`sm ????`) is a muck: a hand nobody saw cannot win.

    A PHH record may stop before the hand's end: with `complete=False` the engine hand is
    returned as the record leaves it (waiting for the next card or action). A hand our table
    ended with a pot chopped by agreement is written with `chopped = true` (PHH has no chop): its
    record stops there and the pot is chopped as its `finishing_stacks` say (evenly without them).

    Raises PhhError naming the action (text and position) and the engine's reason; for a
    variant that is not ours (NS); when the record ends before the hand does (unless `complete`
    is false); or for dealt cards the hand never used.
    """
    game = _GAMES.get(hand.variant)
    if game is None:
        game = _GAMES[hand.variant] = game_of(hand.variant)   # raises for a code not ours
    stakes = stakes_of(hand)
    try:
        table = Hand(game[0], stakes, hand.starting_stacks, settings=_REPLAY_SETTINGS if hand.rake is None
                     else HandSettings(burns=False, rake=hand.rake))
    except (IllegalAction, CardError) as exc:
        raise PhhError(f"cannot seat the hand: {exc}") from None
    actions = hand.actions
    amounts = hand.amounts
    count = len(actions)
    used = [False] * count
    holes: list[list[CardInput]] = [[] for _ in range(hand.player_count)]
    board: list[CardInput] = []

    def fail(index: int, reason: object) -> PhhError:
        return PhhError(f"action {actions[index].text!r} (#{index + 1}): {reason}")

    def take_dealer_line(start: int, seat: int | None) -> bool:
        """Bring forward the next unread dealer line for `seat` (None: board) before any betting."""
        for j in range(start, count):
            a = actions[j]
            if used[j]:
                continue
            if a.kind in _BETTING_KINDS:
                return False
            if seat is None and a.kind == "db" or a.kind == "dh" and a.player == seat:
                used[j] = True
                (board if seat is None else holes[seat]).extend(a.cards or ())
                return True
        return False

    def pump(start: int) -> None:
        """Deal every card the engine expects that the record has given, reading ahead if needed."""
        while True:
            try:
                table.deal_from(holes, board)
            except (IllegalAction, CardError) as exc:
                slot = table.expected_card()
                assert slot is not None
                card = (board if slot.seat is None else holes[slot.seat])[0]
                raise PhhError(f"dealing {card or '??'} ({slot.kind} card"
                               + (f" of p{slot.seat + 1}" if slot.seat is not None else "")
                               + f", {slot.street}): {exc}") from None
            slot = table.expected_card()
            if slot is None or not take_dealer_line(start, slot.seat):
                return

    def last_show(start: int, seat: int) -> int | None:
        found = None
        for j in range(start, count):
            a = actions[j]
            if not used[j] and a.kind == "sm" and a.player == seat:
                found = j
        return found

    for i in range(count):
        if used[i]:
            continue
        a = actions[i]
        used[i] = True
        kind = a.kind
        if (kind == "f" or kind == "cc" or kind == "cbr") and table.actor == a.actor and table.expected_card() is None:
            # the commonest step, in short (the full path below would do the same)
            try:
                if kind == "f":
                    table.fold()
                elif kind == "cc":
                    table.check_or_call()
                else:
                    table.bet_or_raise(amounts[i])  # type: ignore[arg-type]
            except (IllegalAction, CardError) as exc:
                raise fail(i, exc) from None
            if table.expected_card() is not None:
                pump(i + 1)
            continue
        if kind == "":
            continue
        if kind == "dh" or kind == "db":
            # this dealer line and those right after it go to the buffers; the engine takes the
            # cards in its own dealing order
            j = i
            while True:
                (board if kind == "db" else holes[a.player]).extend(  # type: ignore[index]
                    a.cards or ())   # card texts: the engine reads them
                used[j] = True
                j += 1
                if j == count or used[j]:
                    break
                a = actions[j]
                kind = a.kind
                if kind != "dh" and kind != "db":
                    break
            pump(j)
            continue
        if table.expected_card() is not None:  # cards the record gives after this line
            pump(i + 1)
            expected = table.expected_card()
            if expected is not None:
                who = f" for p{expected.seat + 1}" if expected.seat is not None else ""
                raise fail(i, f"the shoe must first deal a {expected.kind} card{who}, and the record deals none")
        seat = a.actor
        assert seat is not None
        if table.phase is _OVER:
            if kind == "sm":
                continue  # a winner showing when nobody is left to contest: nothing to settle
            raise fail(i, "the hand is already over")
        try:
            if kind == "sm":
                if table.phase is _SHOWDOWN:
                    # Our showdown order rules: each player's (last) show is read when asked.
                    used[i] = False
                    _showdown(table, actions, used, i, last_show, fail)
                # else: shown before the run-out; the show that counts comes at showdown
                continue
            if table.actor != seat:
                raise fail(i, f"p{seat + 1} acts out of turn: " + _waiting(table))
            if kind == "cc":
                table.check_or_call()
            elif kind == "f":
                table.fold()
            elif kind == "cbr":
                to = amounts[i]
                assert to is not None
                table.bet_or_raise(to)
            elif kind == "pb":
                table.post_bring_in()
            elif kind == "sd":
                table.draw(a.cards or ())
            if table.expected_card() is not None:
                pump(i + 1)
        except (IllegalAction, CardError) as exc:
            raise fail(i, exc) from None
    if not complete:
        return table
    if table.phase is not _OVER and dict(hand.extra).get("chopped") is True:
        _chop(table, hand)
    if table.phase is _SHOWDOWN:
        _showdown(table, actions, used, count, last_show, fail)
    if table.phase is not _OVER:
        raise PhhError(f"the record ends before the hand does: {_waiting(table)}")
    left = [f"p{s + 1}: {_texts(cards)}" for s, cards in enumerate(holes) if cards]
    if board:
        left.append(f"board: {_texts(board)}")
    if left:
        raise PhhError(f"cards dealt that the hand never used ({', '.join(left)})")
    return table


def _chop(table: Hand, hand: HandHistory) -> None:
    """Chop the pot where the record stops, as its finishing stacks say (see replay_hand)."""
    shares: dict[int, int] | None = None
    if hand.finishing_stacks is not None:
        live = [s for s in table.seats if table.in_hand(s)]
        bets = sorted(((table.bet(s), s) for s in table.seats), reverse=True)
        uncalled = bets[0][0] - bets[1][0] if len(bets) > 1 else 0
        shares = {}
        for seat in live:
            final = Decimal(hand.finishing_stacks[seat]) / hand.unit
            shares[seat] = int(final) - table.stack(seat) - (uncalled if seat == bets[0][1] else 0)
    try:
        table.chop(shares)
    except IllegalAction as exc:
        raise PhhError(f"the pot chopped by agreement cannot end as the record says: {exc}") from None


def _texts(cards: Iterable[CardInput]) -> str:
    return "".join("??" if c is None else str(c) for c in cards)


def _waiting(table: Hand) -> str:
    slot = table.expected_card()
    if table.phase is _OVER:
        return "the hand is over"
    if slot is not None:
        return f"waiting for a {slot.kind} card" + (f" for p{slot.seat + 1}" if slot.seat is not None else "")
    assert table.actor is not None
    return f"p{table.actor + 1} to act ({table.phase.value})"


def _showdown(table: Hand, actions: tuple[PhhAction, ...], used: list[bool], start: int,
              last_show: Any, fail: Any) -> None:
    """Ask each player in our showdown order for the record's show or muck (their last one)."""
    while table.phase is _SHOWDOWN:
        seat = table.actor
        assert seat is not None
        j = last_show(start, seat)
        if j is None:
            raise PhhError(f"at showdown p{seat + 1} must show or muck, and the record does not say which")
        for k in range(start, len(actions)):
            if actions[k].kind == "sm" and actions[k].player == seat:
                used[k] = True
        cards = actions[j].cards
        try:
            if cards is None or "??" in cards:
                table.muck()
            else:
                table.show(cards)
        except (IllegalAction, CardError) as exc:
            raise fail(j, exc) from None


# --- export: a hand dealt at our table as PHH ---------------------------------------------------------

_LETTERS = {structure: letter for letter, structure in _STRUCTURES.items()}
_GAME_CODE_OF = {name: code for code, name in GAME_CODES.items()}


def variant_code(variant: Variant, structure: Structure) -> str:
    """The PHH variant code of one of our games (`holdem` no limit: `NT`). Raises PhhError for a
    variant no code names."""
    game = _GAME_CODE_OF.get(variant.code)
    if game is None:
        raise PhhError(f"no PHH variant code for {variant.title}")
    return _LETTERS[structure] + game


def to_phh(hand: Hand, *, unit: Decimal | int = 1, fields: Mapping[str, Any] | None = None) -> HandHistory:
    """The PHH record of a hand dealt at our table (finished or not).

    Players are written from the button's left round to the button (p1..pN), so seat numbers
    become positions; give `fields` `seats` (table seat numbers) and `players` in that order
    to keep them. `unit` is the value of one of our units in the currency the record should be
    written in (`Decimal("0.01")`: cents written as dollars). Other `fields` (`event`, `table`,
    `hand`, `time`...) are written as given. A finished hand carries its `finishing_stacks`.
    Burnt cards are not written (PHH has no burns); an unknown card is `??`.

    The record replays through `replay` to the same stacks. Raises PhhError for a variant that
    has no code.
    """
    code = variant_code(hand.variant, hand.stakes.structure)
    order = list(hand.order)
    position = {seat: i for i, seat in enumerate(order)}
    n = len(order)
    stakes = hand.stakes
    texts: list[str] = []
    amounts: list[int | None] = []
    scale = Decimal(unit)

    def money(units: int) -> str:
        if scale == 1:
            return str(units)
        return str((units * scale).quantize(scale))

    def emit(text: str, amount: int | None = None) -> None:
        texts.append(text)
        amounts.append(amount)

    def card_text(card: Card | None) -> str:
        return "??" if card is None else str(card)

    dealt_hole: dict[int, list[str]] = {}
    dealt_board: list[str] = []
    pending_draw_lines: list[str] = []

    def flush_deals() -> None:
        for seat, cards in dealt_hole.items():
            emit(f"d dh p{position[seat] + 1} {''.join(cards)}")
        dealt_hole.clear()
        if dealt_board:
            emit(f"d db {''.join(dealt_board)}")
            dealt_board.clear()

    def flush_draw_deals() -> None:
        for line in pending_draw_lines:
            emit(line)
        pending_draw_lines.clear()

    last_street: str | None = None
    for record in hand.records:
        if isinstance(record, Dealt):
            if record.street != last_street:
                flush_deals()
                last_street = record.street
            if record.kind == "burn":
                continue
            if record.kind == "board":
                dealt_board.append(card_text(record.card))
            elif record.kind == "hole":
                assert record.seat is not None
                dealt_hole.setdefault(record.seat, []).append(card_text(record.card))
            else:  # a draw replacement: written after the draw round's discards, as PHH tools expect
                assert record.seat is not None
                line = f"d dh p{position[record.seat] + 1} "
                if pending_draw_lines and pending_draw_lines[-1].startswith(line):
                    pending_draw_lines[-1] += card_text(record.card)
                else:
                    pending_draw_lines.append(line + card_text(record.card))
            continue
        if isinstance(record, (Posted, Returned, Raked, Awarded, Chopped)) or getattr(record, "seat", None) is None:
            continue  # forced bets, uncalled bets, chops and the settlement follow from the actions
        flush_deals()
        if not isinstance(record, Drew):
            flush_draw_deals()
        p = f"p{position[record.seat] + 1}"
        if isinstance(record, Folded):
            emit(f"{p} f")
        elif isinstance(record, (Checked, Called)):
            emit(f"{p} cc")
        elif isinstance(record, BroughtIn):
            emit(f"{p} pb")
        elif isinstance(record, BetOrRaised):
            emit(f"{p} cbr {money(record.to)}", record.to)
        elif isinstance(record, Drew):
            emit(f"{p} sd {''.join(card_text(c) for c in record.discards)}".rstrip())
        elif isinstance(record, Shown):
            emit(f"{p} sm {''.join(str(c) for c in record.cards)}")
        elif isinstance(record, Mucked):
            emit(f"{p} sm")
    flush_deals()
    flush_draw_deals()
    extra = dict(fields or {})
    if any(isinstance(r, Chopped) for r in hand.records):
        extra.setdefault("chopped", True)  # PHH has no chop: the record stops where it happened
    finishing = None
    if hand.result is not None:
        finishing = tuple(_as_number(hand.result.final_stacks[s], scale) for s in order)
    players = extra.pop("players", None)
    blinds = list(stakes.blinds[:n]) + [0] * (n - min(n, len(stakes.blinds)))
    return HandHistory(
        variant=code,
        antes=tuple(stakes.ante_for(place) for place in range(n)),
        blinds_or_straddles=tuple(blinds) if "blinds_or_straddles" in _stakes_fields(code) else (0,) * n,
        bring_in=stakes.bring_in if "bring_in" in _stakes_fields(code) else 0,
        small_bet=stakes.small_bet if "small_bet" in _stakes_fields(code) else 0,
        big_bet=stakes.big_bet if "big_bet" in _stakes_fields(code) else 0,
        min_bet=stakes.minimum_bet if "min_bet" in _stakes_fields(code) else 0,
        max_bet=stakes.max_bet if "max_bet" in _stakes_fields(code) else 0,
        starting_stacks=tuple(hand.starting_stacks[s] for s in order),
        actions=tuple(PhhAction.parse(t) for t in texts),
        amounts=tuple(amounts),
        unit=scale,
        ante_trimming_status=False,
        raise_cap=stakes.raise_cap,
        uncapped_heads_up=stakes.uncapped_heads_up,
        players=None if players is None else tuple(players),
        finishing_stacks=finishing,
        winnings=None,
        extra=tuple(sorted(extra.items())),
        rake=hand.settings.rake,
    )


def _as_number(units: int, scale: Decimal) -> Number:
    return units if scale == 1 else (units * scale).quantize(scale)


_EVENT_ARITY = {"deal": 1, "fold": 1, "check": 1, "call": 1, "bet": 2, "raise": 2, "complete": 2,
                "bring_in": 1, "draw": 2, "show": 1, "muck": 1, "chop": 0}


def _record_rake(record: Mapping[str, Any]) -> Rake | None:
    """A hand record's house rake (`rake`: rate_bp, cap, no_flop_no_drop), or None. Raises
    IllegalAction, KeyError or TypeError for a malformed one (the caller names the record)."""
    raw = record.get("rake")
    if not raw:
        return None
    return Rake(int(raw["rate_bp"]), int(raw["cap"]), bool(raw.get("no_flop_no_drop", True)))


def hand_from_record(record: Mapping[str, Any]) -> Hand:
    """Play a JSON hand record of our table through the engine; the engine hand.

    The record (what the controller keeps of a poker hand, and `croupier phh export` reads)::

        {"variant": "holdem", "structure": "no-limit",
         "stakes": {"blinds": [1, 2], "antes": 0, "min_bet": 2},
         "stacks": {"1": 200, "4": 350, "6": 120}, "button": 6, "burns": true,
         "events": [["deal", "As"], ["deal", "??"], ..., ["raise", 1, 20], ["call", 4],
                    ["draw", 3, ["As", "Kd"]], ["show", 1], ["show", 4, ["Ah", "Qd"]], ["muck", 6]],
         "unit": "0.01", "fields": {"event": "...", "table": 3, "hand": 1234}}

    `variant` is a code of `engine.poker.VARIANTS`, `structure` one of `fixed-limit`,
    `spread-limit`, `pot-limit`, `no-limit`; `stakes` takes the fields of `engine.poker.Stakes`
    (`blinds`, `antes` one amount or one per place in blind order, `bring_in`, `small_bet`,
    `big_bet`, `min_bet`, `max_bet`, `raise_cap`, `uncapped_heads_up`); `stacks` maps seat
    numbers to chips; `button` defaults to the highest seat; `burns` (default true) says whether
    the events deal the burnt cards. Events: `deal` the next card the engine expects (burns
    included), `bet`/`raise`/`complete` to a street total, `draw` with the discards (empty: stand
    pat), `show` with the cards when some were dealt unknown (`??`), `chop` with the agreed
    shares (`{"seat": chips}`; none: evenly).

    Raises PhhError naming the field, or the event (its position) and the engine's reason.
    """
    try:
        variant = VARIANTS[record["variant"]]
        structure = Structure(record["structure"])
    except (KeyError, ValueError, TypeError) as exc:
        raise PhhError(f"hand record: variant or structure missing or unknown ({exc})") from None
    raw = dict(record.get("stakes") or {})
    allowed = {"blinds", "antes", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet", "raise_cap",
               "uncapped_heads_up"}
    unknown = set(raw) - allowed
    if unknown:
        raise PhhError(f"hand record: unknown stakes field(s) {sorted(unknown)}")
    if "blinds" in raw:
        raw["blinds"] = tuple(raw["blinds"])
    if isinstance(raw.get("antes"), list):
        raw["antes"] = tuple(raw["antes"])
    try:
        stakes = Stakes(structure, **raw)
        stacks_raw = record["stacks"]
        stacks = {int(seat): chips for seat, chips in stacks_raw.items()}
        button = record.get("button")
        table = Hand(variant, stakes, stacks, button=None if button is None else int(button),
                     settings=HandSettings(burns=bool(record.get("burns", True)), rake=_record_rake(record)))
    except (KeyError, TypeError, AttributeError) as exc:
        raise PhhError(f"hand record: stacks missing or malformed ({exc})") from None
    except (IllegalAction, CardError) as exc:
        raise PhhError(f"hand record: {exc}") from None
    for number, event in enumerate(record.get("events") or [], 1):
        if not isinstance(event, list) or not event or event[0] not in _EVENT_ARITY:
            raise PhhError(f"hand record: event #{number} {event!r} is not one of {sorted(_EVENT_ARITY)}")
        name, args = event[0], event[1:]
        if not _EVENT_ARITY[name] <= len(args) <= _EVENT_ARITY[name] + (1 if name in ("show", "chop") else 0):
            raise PhhError(f"hand record: event #{number} {event!r}: wrong number of arguments")
        try:
            if name == "deal":
                table.deal(args[0])
            elif name == "fold":
                table.fold(args[0])
            elif name == "check":
                table.check(args[0])
            elif name == "call":
                table.call(args[0])
            elif name in ("bet", "raise", "complete"):
                table.bet_or_raise(args[1], args[0])
            elif name == "bring_in":
                table.post_bring_in(args[0])
            elif name == "draw":
                table.draw(args[1], args[0])
            elif name == "show":
                table.show(args[1] if len(args) > 1 else None, args[0])
            elif name == "chop":
                table.chop({int(s): c for s, c in args[0].items()} if args else None)
            else:
                table.muck(args[0])
        except (IllegalAction, CardError) as exc:
            raise PhhError(f"hand record: event #{number} {event!r}: {exc}") from None
    return table


def record_to_phh(record: Mapping[str, Any]) -> HandHistory:
    """The PHH record of a JSON hand record of our table (see `hand_from_record`): its table seat
    numbers as `seats`, its `fields` as given. Raises PhhError as hand_from_record and to_phh."""
    table = hand_from_record(record)
    try:
        unit = Decimal(str(record.get("unit", 1)))
    except InvalidOperation:
        raise PhhError(f"hand record: unit {record.get('unit')!r} is not a number") from None
    fields = dict(record.get("fields") or {})
    fields.setdefault("seats", list(table.order))
    return to_phh(table, unit=unit, fields=fields)
