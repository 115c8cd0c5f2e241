"""Which setup opens which game: the game's code names its setup class ("module:Class"), imported when chosen."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from engine.games import HOUSE_GAMES, POKER_GAMES
from firmware_host.tables.base import GameSetup

HOUSE_SETUP = "firmware_host.tables.house:HouseSetup"
POKER_SETUP = "firmware_host.tables.poker:PokerSetup"

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
