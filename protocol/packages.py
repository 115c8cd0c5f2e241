"""Croupier's top folders by where they run: what the table's Pi installs, and what runs elsewhere."""

from __future__ import annotations

import importlib.util

TABLE = ("engine", "drivers", "protocol", "pages", "firmware_host", "cli")
"""What the table's Pi installs and runs (deploy/install-pi.sh builds its package from these folders only): `pages`
is the web core the table's display shares with the floor's web process, not the floor's pages."""
ELSEWHERE = ("floor", "analysis", "sim")
"""The floor server, the offline analysis and the simulations: installed on the floor's host, an analyst's
machine or CI; wherever they are installed, they are code like the rest (the manifest and the code hash cover them)."""


def installed() -> tuple[str, ...]:
    """The table's packages, then each other one found installed beside them."""
    return TABLE + tuple(name for name in ELSEWHERE if importlib.util.find_spec(name) is not None)
