"""Settle house-game rounds given as JSON values: the pure core of `croupier settle`.

A round is one JSON object: `{"game": "uth", "dealer": [...], "board": [...], "spots": [...]}` or
`{"game": "3cp", "dealer": [...], "spots": [...]}` (docs/house-games.md spells the format out);
the result is `Settlement.to_dict()`: `{"spots": [{"seat", "hand", "results", "net"}], "dealer":
{"hand", "qualifies"}, "house_net"}`. The state machines settle their showdown with the same
functions (`settle_uth`, `settle_3cp`), so a round replayed here always gets the controller's
settlement.

A line may also be a finished hand's record as `croupier history --json` prints it: an object with
the `round`, the `profile` it was settled under (`{"name", "sha256", "content"}`: the profile's TOML
text) and the table's `limits`. Its round is settled under that profile and those limits, whatever
profile and limits were given for the other lines, so the result is what the table paid (the 3:2
Blind rounded down to the table's chip included).

>>> from engine.paytables import load_profile
>>> line = ('{"game": "3cp", "dealer": ["Ks", "7d", "2c"], "spots": [{"seat": 1, "cards": ["Qh", "Qd", "5s"],'
...         ' "bets": {"ante": 500, "pair_plus": 500}, "play": true}]}')
>>> settle_line(line, load_profile("default"))["house_net"]
-1500
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypedDict

from engine.errors import EngineError, RoundFormatError, json_type, shown
from engine.games import HOUSE_GAMES
from engine.house import Settlement, TableLimits
from engine.house_values import SettlementLine
from engine.paytables import Profile, ProfileText
from engine.three_card_poker import ThreeCardHand, settle_3cp
from engine.ultimate_holdem import UthHand, settle_uth

GAMES = tuple(HOUSE_GAMES)


def settle_round(obj: object, profile: Profile, limits: TableLimits | None = None) -> Settlement:
    """Check and settle one round given as JSON values. Table limits are checked only when given;
    odds payouts round down to their chip (1 without limits).

    Raises RoundFormatError (shape, unknown game), CardError (bad, duplicate or miscounted cards),
    IllegalAction (bad stake, Blind not equal to Ante, illegal decision, outside the limits) or
    LimitsError (limits that break the profile).
    """
    if not isinstance(obj, Mapping):
        raise RoundFormatError(f"round: must be an object, not {json_type(obj)}")
    game = obj.get("game")
    chip = limits.chip if limits is not None else 1
    if game == "uth":
        uth = UthHand.parse(obj, profile.uth)
        if limits is not None:
            uth.check_limits(profile.uth, limits)
        return settle_uth(uth, profile.uth, chip)
    if game == "3cp":
        tcp = ThreeCardHand.parse(obj, profile.three_card_poker)
        if limits is not None:
            tcp.check_limits(limits)
        return settle_3cp(tcp, profile.three_card_poker, chip)
    raise RoundFormatError(f"round: game must be one of {', '.join(map(shown, GAMES))}, not {shown(game)}")


def is_record(obj: object) -> bool:
    """Whether a JSON value is a finished hand's record (`croupier history --json`), not a bare round."""
    return isinstance(obj, Mapping) and "round" in obj


def record_terms(obj: Mapping[str, Any], profiles: dict[str, Profile] | None = None) -> tuple[Profile, TableLimits]:
    """The profile and limits a hand's record was settled under. `profiles` (sha256 -> profile) saves
    parsing one profile text again for each record of a run.

    Raises RoundFormatError (no profile content, a sha256 that does not match it, no limits),
    ProfileError (a content that is not a profile) or LimitsError.
    """
    terms = obj.get("profile")
    if not isinstance(terms, Mapping) or not isinstance(terms.get("content"), str):
        raise RoundFormatError("record: profile: the record does not carry its profile's content "
                               "(a hand journaled before profiles were): settle its round with --profile")
    name = terms.get("name")
    text = ProfileText(str(name) if isinstance(name, str) else "record", f"record profile {name}", terms["content"])
    digest = text.sha256
    if terms.get("sha256") != digest:
        raise RoundFormatError(f"record: profile: sha256 {terms.get('sha256')!r} is not that of its content ({digest})")
    cache = profiles if profiles is not None else {}
    if digest not in cache:
        cache[digest] = text.parse()
    limits = obj.get("limits")
    if not isinstance(limits, Mapping):
        raise RoundFormatError("record: limits: missing (the table's minimum, maximum, side_minimum, "
                               "side_maximum, chip)")
    return cache[digest], TableLimits.parse(limits, source="record")


def settle_value(obj: object, profile: Profile, limits: TableLimits | None = None,
                 profiles: dict[str, Profile] | None = None) -> SettlementLine:
    """Settle one round, or one record's round under its own profile and limits (`is_record`); the
    result as JSON values. Raises what `settle_round` and `record_terms` raise."""
    if isinstance(obj, Mapping) and is_record(obj):
        profile, limits = record_terms(obj, profiles)
        obj = obj["round"]
    return settle_round(obj, profile, limits).to_dict()


def settle_line(line: str | bytes, profile: Profile, limits: TableLimits | None = None,
                profiles: dict[str, Profile] | None = None) -> SettlementLine:
    """Settle one JSON line (text, or bytes that must be UTF-8: a round or a record, see
    `settle_value`); the result as JSON values.

    Raises RoundFormatError for bytes that are not UTF-8, text that is not JSON or an object with a
    key given twice, and what `settle_value` raises.
    """
    if isinstance(line, bytes):
        line = decode_line(line)
    try:
        obj = json.loads(line, object_pairs_hook=_object)
    except RoundFormatError:
        raise
    except ValueError as exc:
        raise RoundFormatError(f"not JSON: {exc}") from None
    return settle_value(obj, profile, limits, profiles)


def decode_line(data: bytes) -> str:
    """One input line's bytes as text. Raises RoundFormatError naming the first byte that is not UTF-8.

    >>> decode_line(b'{"game": "K\\xc3"}')
    Traceback (most recent call last):
    engine.errors.RoundFormatError: not valid UTF-8 at byte 12 (0xc3)
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RoundFormatError(f"not valid UTF-8 at byte {exc.start + 1} (0x{data[exc.start]:02x})") from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: a key given twice is refused, never the last one taken."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise RoundFormatError(f"duplicate key {shown(key)}")
        obj[key] = value
    return obj


class LineError(TypedDict):
    """`croupier settle`'s line for a line that is not a valid round: its number (from 1) and why."""

    line: int
    error: str


def settle_lines(lines: Iterable[str | bytes], profile: Profile,
                 limits: TableLimits | None = None) -> Iterator[tuple[SettlementLine | LineError, bool]]:
    """Settle JSON Lines: for each non-blank line, `(result, True)`, or `({"line": N, "error": ...},
    False)` when the line is not a valid round (N counts every line from 1). Never raises for a bad line.
    """
    profiles: dict[str, Profile] = {}  # the records' profiles, each parsed once
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield settle_line(line, profile, limits, profiles), True
        except (EngineError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deep
            yield {"line": number, "error": str(exc)}, False
