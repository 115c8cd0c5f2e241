"""The engine's one error root, each error also subclassing the matching builtin."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_SURROGATE = re.compile(r"[\ud800-\udfff]")  # re reads the escapes (mypyc refuses a surrogate in a literal)


Say = dict[str, Any]
"""What a refusal says to a person: `{"key": "refusal.<name>", "args": {...}}`, a key of the pages'
catalogs (`pages/lang/`) and its fields; an amount as `{"money": n}`, a card as
`{"card": "7s"}`, a bet circle or a decision as `{"word": "circle.ante"}` (a word with fields of its own with them:
`{"word": "to_due.take", "args": {"amount": {"money": 500}}}`), a multiple as `{"times": 4}`."""


def say(key: str, **args: Any) -> Say:
    """A refusal's words, declared where it is raised.

    >>> say("refusal.below_minimum", seat=3, bet=circle("ante"), amount=money(100), minimum=money(500))["args"]["bet"]
    {'word': 'circle.ante'}
    """
    return {"key": key, "args": args}


def money(amount: int) -> dict[str, int]:
    """An amount, written as money in the reader's locale and the table's currency."""
    return {"money": amount}


def times(multiple: int | list[int]) -> dict[str, Any]:
    """A multiple of a bet (a Play's), or a list of them (each one open), in the reader's notation (`4×`: the
    catalogs' `common.times`, a list joined by `common.or`), the same on a button and in a refusal."""
    return {"times": multiple}


def card(text: object) -> dict[str, str]:
    """A card, written as the reader's screens write it (`10♦`)."""
    return {"card": str(text)}


def circle(name: str) -> dict[str, str]:
    """A bet circle's name in the reader's language."""
    return {"word": f"circle.{name}"}


def decision(name: str) -> dict[str, str]:
    """A decision's name in the reader's language (`check`, `play`, `fold`)."""
    return {"word": f"decision.{name}"}


class EngineError(Exception):
    """Root of every error the engine raises. `say` (optional): the refusal in a person's words,
    set where it is raised (`say(...)`), passed on by the controller's reply."""

    def __init__(self, *args: object, say: Say | None = None) -> None:
        super().__init__(*args)
        self.say = say


class CardError(EngineError, ValueError):
    """Card text that is not a card (`As`, `Td`, `2c`), or a card that cannot be used here."""


class DuplicateCard(CardError):
    """A card that is already in play, burnt or discarded in this hand: the shoe read it twice."""


class IllegalAction(EngineError, ValueError):
    """A step the rules do not allow now (wrong bet, wrong decision, card out of turn)."""


class NotAllowed:
    """A rule's no, its words made only when asked: a rule that returns one where it would raise lets a caller
    ask which steps are open without raising or wording anything (`HouseRound.open_decisions`), and its
    `verify_x` raise the very refusal (`error()`: the exception, with its words, made now)."""

    __slots__ = ("_error",)

    def __init__(self, error: Callable[[], EngineError]) -> None:
        self._error = error

    def error(self) -> EngineError:
        """The refusal as raised: its exception and its words."""
        return self._error()


class PlayerCardError(EngineError, ValueError):
    """A player card number that is not one (typed, scanned or read): says what a number is, never repeats it."""


class ProfileError(EngineError, ValueError):
    """A paytable or rule profile that cannot be used: names the source, key and reason."""


class LimitsError(EngineError, ValueError):
    """Table limits that cannot be used (maximum below minimum, beyond the profile's multiple...)."""


class RoundFormatError(EngineError, ValueError):
    """A round given as data (`croupier settle`'s JSON) that is not well formed: names what is wrong."""


def shown(value: object) -> str:
    """`value` as JSON spells it, for error messages about input read as JSON (or msgpack): `true`,
    `null`, `"Ks"`, `["As", 1]`; a lone surrogate (bad bytes read with `surrogateescape`) as its
    JSON escape `"\\udcc3"`. What JSON cannot spell is shown by `repr`.

    >>> shown(True), shown(None), shown(["Ks", 2.5]), shown("K\\udcc3"), shown("é")
    ('true', 'null', '["Ks", 2.5]', '"K\\\\udcc3"', '"é"')
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_type(value: object) -> str:
    """What kind of JSON value `value` is, in JSON's words, for error messages.

    >>> json_type([]), json_type("As"), json_type(None), json_type(True), json_type(5), json_type({})
    ('an array', 'a string', 'null', 'true', 'a number', 'an object')
    """
    if value is None or isinstance(value, bool):
        return shown(value)
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class TournamentError(EngineError, ValueError):
    """A tournament file, entry, seating or step the tournament's rules refuse: names what and why."""
