"""PHH variant codes: which of our games and betting structures each names, and the stakes it needs."""

from __future__ import annotations

from engine.errors import EngineError
from engine.poker import VARIANTS, Structure, Variant

__all__ = ["PhhError", "VARIANT_NAMES", "GAME_CODES", "game_of", "variant_code", "split_code", "stakes_fields"]


class PhhError(EngineError, ValueError):
    """A hand history that cannot be read, or cannot be followed by our engine: names what and why."""


class PhhSyntaxError(PhhError):
    """Text that is not TOML at all (no hand can be read from it)."""


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
STRUCTURES = {
    "F": Structure.FIXED_LIMIT, "S": Structure.SPREAD_LIMIT,
    "P": Structure.POT_LIMIT, "N": Structure.NO_LIMIT,
}
GAME_CODES: dict[str, str] = {
    "T": "holdem", "O": "omaha", "O/8": "omaha_hilo8", "7S": "stud", "7S/8": "stud_hilo8",
    "R": "razz", "5CD": "five_card_draw", "2L1D": "deuce_seven_single",
    "2L3D": "deuce_seven_triple", "B": "badugi",
}
_BRING_IN_GAMES = frozenset({"7S", "7S/8", "R"})
_FOREIGN_GAMES = {"S": "short-deck hold'em (36 cards, 6 to A)"}
_LETTERS = {structure: letter for letter, structure in STRUCTURES.items()}
_GAME_CODE_OF = {name: code for code, name in GAME_CODES.items()}
_SIZES = {"F": ("small_bet", "big_bet"), "S": ("min_bet", "max_bet"), "P": ("min_bet",), "N": ("min_bet",)}


def split_code(code: str) -> tuple[str, str] | None:
    """A variant code as (structure letter, game code), or None when it is not one.

    >>> split_code("FO/8"), split_code("XT")
    (('F', 'O/8'), None)
    """
    return _SPLIT.get(code)


def stakes_fields(code: str) -> tuple[str, ...]:
    """The stake fields a variant code needs (phh-std "required fields", and ours for S)."""
    return _STAKES_FIELDS[code]


def game_of(code: str) -> tuple[Variant, Structure]:
    """Our variant and betting structure for a PHH variant code.

    Raises PhhError for a code that is not a game of ours (NS, short deck) or not a code at all.
    """
    ours = _GAMES.get(code)
    if ours is not None:
        return ours
    split = split_code(code)
    if split is None:
        raise PhhError(f"variant {code!r} is not a PHH variant code ({', '.join(VARIANT_NAMES)})")
    raise PhhError(f"variant {code!r}: {_FOREIGN_GAMES[split[1]]} is not one of our games")


# constant tables of the grammar above, by code: its letter and game, the stakes it needs, our game
_SPLIT = {letter + game: (letter, game) for letter in STRUCTURES for game in (*GAME_CODES, *_FOREIGN_GAMES)}
_STAKES_FIELDS = {code: (("bring_in",) if game in _BRING_IN_GAMES else ("blinds_or_straddles",)) + _SIZES[letter]
                  for code, (letter, game) in _SPLIT.items()}
_GAMES = {code: (VARIANTS[GAME_CODES[game]], STRUCTURES[letter])
          for code, (letter, game) in _SPLIT.items() if game in GAME_CODES}


def variant_code(variant: Variant, structure: Structure) -> str:
    """The PHH variant code of one of our games (`holdem` no limit: `NT`). Raises PhhError for a
    variant no code names."""
    game = _GAME_CODE_OF.get(variant.code)
    if game is None:
        raise PhhError(f"no PHH variant code for {variant.title}")
    return _LETTERS[structure] + game
