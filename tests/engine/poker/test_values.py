"""The poker engine's value types: records, stakes and hand histories made by `quick_init` are frozen values, checked when made."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from engine.errors import IllegalAction
from engine.poker import BetOrRaised, Stakes, Structure
from engine.poker.values import quick_init


def test_a_quick_init_record_is_the_same_frozen_value_as_a_dataclass_makes() -> None:
    record = BetOrRaised(3, "raise", 600, 450, False, True)
    assert type(record) is BetOrRaised
    assert dataclasses.astuple(record) == (3, "raise", 600, 450, False, True)
    assert record == BetOrRaised(seat=3, kind="raise", to=600, amount=450, all_in=False, full=True)
    assert hash(record) == hash(BetOrRaised(3, "raise", 600, 450, False, True))
    assert repr(record) == "BetOrRaised(seat=3, kind='raise', to=600, amount=450, all_in=False, full=True)"
    assert pickle.loads(pickle.dumps(record)) == record
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.to = 700  # type: ignore[misc]
    with pytest.raises(TypeError):
        BetOrRaised(3, "raise", 600)  # type: ignore[call-arg]


def test_quick_init_keeps_defaults_and_post_init_checks() -> None:
    stakes = Stakes(Structure.NO_LIMIT, (1, 2))
    assert (stakes.antes, stakes.raise_cap, stakes.minimum_bet) == (0, 3, 2)
    with pytest.raises(IllegalAction, match="non-negative integers"):
        Stakes(Structure.NO_LIMIT, (1, -2))
    with pytest.raises(IllegalAction, match="small bet and a big bet"):
        Stakes(Structure.FIXED_LIMIT, (5, 10))


def test_quick_init_refuses_a_class_it_cannot_make() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        seat: int

    with pytest.raises(TypeError, match="frozen slotted dataclass"):
        quick_init(NoSlots)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        cards: list[str] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="not a plain field"):
        quick_init(WithFactory)
