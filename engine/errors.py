"""The engine's one error root, each error also subclassing the matching builtin."""

from __future__ import annotations

import json
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


class EngineError(Exception):
    """Root of every error the engine raises."""


class CardError(EngineError, ValueError):
    """Card text that is not a card (`As`, `Td`, `2c`), or a card that cannot be used here."""


class DuplicateCard(CardError):
    """A card that is already in play, burnt or discarded in this hand: the shoe read it twice."""


class IllegalAction(EngineError, ValueError):
    """A step the rules do not allow now (wrong bet, wrong decision, card out of turn)."""


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
