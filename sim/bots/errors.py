"""The bots' one error: the simulated table did something a dealer cannot work with."""

from __future__ import annotations


class BotError(RuntimeError):
    """The simulated table did something a dealer cannot work with (a refused step, no progress)."""
