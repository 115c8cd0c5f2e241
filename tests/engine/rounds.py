"""Test helpers shared by the house games' round tests: a refused step leaves the round as it was."""

from __future__ import annotations

from typing import Any

import pytest

from engine.house import HouseRound


def snapshot(r: HouseRound) -> tuple[Any, ...]:
    """Everything a step could change: the full view, phase, next card, seat to act, steps, record."""
    return (r.view("full"), r.phase, r.next_target(), r.to_act(), len(r.steps), r.record())


def refused(r: HouseRound, step: Any, error: type[Exception], words: str) -> None:
    """`step()` raises `error` with `words` in its message, and the round is unchanged."""
    before = snapshot(r)
    with pytest.raises(error) as err:
        step()
    assert words in str(err.value)
    assert snapshot(r) == before
