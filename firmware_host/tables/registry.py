"""Which setup opens which game: the game's code names its setup class ("module:Class"), imported when chosen."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from engine.games import HOUSE_GAMES, POKER_GAMES
from firmware_host.tables.base import GameSetup

HOUSE_SETUP = "firmware_host.tables.house.table:HouseSetup"
POKER_SETUP = "firmware_host.tables.poker.table:PokerSetup"

SETUPS: dict[str, str] = {**{game: HOUSE_SETUP for game in HOUSE_GAMES}, **{game: POKER_SETUP for game in POKER_GAMES}}
"""game code -> the setup class that opens it (its `from_body(body, default_seats)`)."""


def setup_class(game: str) -> Any:
    """The setup class of `game`. Raises ValueError for a game no table opens."""
    where = SETUPS.get(game)
    if where is None:
        raise ValueError(f"unknown game {game!r} (games: {', '.join(SETUPS)})")
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def open_setup(body: Mapping[str, Any], default_seats: int) -> GameSetup:
    """The setup an `open` body asks for. Raises ValueError / IllegalAction / ProfileError /
    LimitsError naming what is wrong (a refused open)."""
    setup: GameSetup = setup_class(str(body.get("game"))).from_body(body, default_seats)
    return setup


_OPEN_TERMS = ("game", "profile", "limits", "structure", "stakes", "rake")
"""What an `open` may not change without a sign-off: the game, its paytable profile, its limits
(a poker table's structure, stakes and rake)."""


def open_is_new(body: Mapping[str, Any], now_open: GameSetup | None, configured: GameSetup | None,
                seats: int) -> bool:
    """Whether an `open` (its body as journaled) sets a game, profile or limits other than the table
    open now (or, with none open, the configuration's table): then it needs a sign-off. An open
    that cannot be read is counted new (it is refused either way)."""
    reference = now_open if now_open is not None else configured
    if reference is None:
        return True
    try:
        return _terms(body, seats) != _terms(reference.as_body(), seats)
    except Exception:  # a body the table would refuse: it takes a sign-off, and then is refused
        return True


def _terms(body: Mapping[str, Any], seats: int) -> tuple[Any, ...]:
    spelt = open_setup(body, seats).as_body()
    profile = spelt.get("profile")
    if isinstance(profile, Mapping):
        profile = profile.get("sha256")
    return tuple(profile if key == "profile" else spelt.get(key) or None for key in _OPEN_TERMS)
