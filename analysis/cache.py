"""Computed figures kept on disk by the hash of what they depend on: a second `croupier math` run is instant.

The files live in `$XDG_CACHE_HOME/croupier` (else `~/.cache/croupier`), one JSON file per
figures, named by the game and the SHA-256 of the canonical JSON of their key. A file that cannot
be read or parsed is a miss; one that cannot be written is skipped (the figures are still returned).
The figures of the builtin profiles' rules ship with the code (`SHIPPED`, the files `croupier math`
wrote, copied as they were): read when the cache has none, so a fresh install has them at once
(UTH's take minutes of numpy), and the builtin profiles' `[GAME.approved]` figures are checked
against them (tests/analysis/test_builtin_approved.py).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


SHIPPED = Path(__file__).resolve().parent / "shipped"
"""The cache files shipped for the builtin profiles' rules, named as in the cache."""


def directory() -> Path:
    """Where the cache files live."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "croupier"


def digest(key: Any) -> str:
    """The SHA-256 of the key's canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def path(game: str, key: Any) -> Path:
    return directory() / f"{game}-{digest(key)}.json"


def load(game: str, key: Any) -> dict[str, Any] | None:
    """The cached figures of `key` (the cache's, else the shipped ones), or None."""
    for where in (path(game, key), SHIPPED / path(game, key).name):
        try:
            data = json.loads(where.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("key") == key and isinstance(data.get("figures"), dict):
            figures: dict[str, Any] = data["figures"]
            return figures
    return None


def store(game: str, key: Any, figures: dict[str, Any]) -> None:
    """Keep the figures of `key` (written to a temporary file, then renamed into place)."""
    target = path(game, key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"key": key, "figures": figures}), encoding="utf-8")
        temporary.replace(target)
    except OSError:
        pass
