"""Which function computes a game's figures: a registry of game -> "module:function", imported when chosen.

Every figures function is `fn(profile, *, progress=False) -> dict` (`engine.paytables.Profile`): for
each bet it computes, `{"house_edge": ..., "outcomes": [{"outcome", "weight", "probability", "pays"}, ...]}`
(weights are counts, or weights under the strategy; `pays` the net result per unit of the bet's
stake, a loss -1), `"method"` saying how they were computed, and optionally `"joint"`: name ->
`{"stake", "outcomes"}` for bets whose results depend on each other, with the outcomes of the bets
played together. Numbers are `int`, `Fraction` or `float`. `progress` lets a long computation show
a progress bar on a terminal.

Ultimate Texas Hold'em's function lives in `analysis.uth.edges` when this build has it; without
it, asking for UTH's figures raises `FiguresUnavailable` ("UTH figures not available in this build").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from fractions import Fraction
from typing import Any, TypedDict

from engine.games import HOUSE_GAMES
from engine.paytables import Profile

FiguresFunction = Callable[..., dict[str, Any]]


class Outcome(TypedDict):
    """One outcome of a bet as a figures function gives it: its weight (a count), its probability and its
    pay (the net result per unit staked), exact: a `Fraction`, or as JSON keeps one (an integer, or a
    fraction as text: `Fraction(text)` reads it)."""

    outcome: str
    weight: int
    probability: Fraction | str
    pays: Fraction | int | str

FIGURES: Mapping[str, str] = MappingProxyType({
    "3cp": "analysis.tcp:tcp_figures",
    "uth": "analysis.uth.edges:uth_figures",
})
"""Game code -> the figures function, `module:function`."""

_SHORT = {"uth": "UTH", "3cp": "3CP"}


class FiguresUnavailable(LookupError):
    """The figures of a game are not computed by this build (its module is not installed)."""


def figures_function(game: str) -> FiguresFunction:
    """The figures function of `game`. Raises FiguresUnavailable when this build has none, KeyError
    for a game that is not a house game."""
    if game not in HOUSE_GAMES:
        raise KeyError(f"{game!r} is not a house game (known: {', '.join(HOUSE_GAMES)})")
    module_name, _, function = FIGURES[game].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):  # the module itself, not one it imports
            raise FiguresUnavailable(f"{_SHORT.get(game, game)} figures not available in this build") from None
        raise FiguresUnavailable(f"{_SHORT.get(game, game)} figures not available in this build: "
                                 f"{exc.name} is not installed") from None
    found: FiguresFunction | None = getattr(module, function, None)
    if found is None:
        raise FiguresUnavailable(f"{_SHORT.get(game, game)} figures not available in this build "
                                 f"({module_name} has no {function})")
    return found


def figures(game: str, profile: Profile, *, progress: bool = False) -> dict[str, Any]:
    """The figures of `game` under `profile`. Raises FiguresUnavailable, KeyError, ValueError (a table
    the game's math cannot use)."""
    return figures_function(game)(profile, progress=progress)
