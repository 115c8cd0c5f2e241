"""The feed's frames: its strict packer gives the very bytes `msgpack.packb` gives, and refuses what it refuses."""

from __future__ import annotations

import enum
from collections import OrderedDict, namedtuple
from types import MappingProxyType
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from protocol.feed import pack, strict_packer


class Suit(enum.StrEnum):
    SPADES = "s"


class Seat(enum.IntEnum):
    THREE = 3


class Rate(float):
    pass


class Cards(list[Any]):
    pass


Pair = namedtuple("Pair", "seat card")

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**64 - 1), st.floats(allow_nan=False),
                    st.text(max_size=40), st.binary(max_size=40), st.sampled_from([Suit.SPADES, Seat.THREE, Rate(1.5)]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=5).map(tuple), st.lists(inner, max_size=3).map(Cards),
    st.tuples(inner, inner).map(lambda t: Pair(*t)), st.dictionaries(st.text(max_size=8), inner, max_size=5),
    st.dictionaries(st.text(max_size=8), inner, max_size=3).map(OrderedDict)), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_strict_packer_packs_as_packb(value: Any) -> None:
    packer = msgpack.Packer(use_bin_type=True)
    strict = strict_packer()
    assert strict(value) == packer.pack(value) == msgpack.packb(value)
    message = {"table": "t", "boot": "0123456789abcdef", "seq": 7, "kind": "changes", "set": {"v": value}, "del": []}
    assert strict(message) == pack(message)  # a feed's frame: what `pack` (the snapshots') gives


def test_what_msgpack_cannot_pack_is_refused_as_packb_refuses_it() -> None:
    strict = strict_packer()
    for value in (MappingProxyType({"a": 1}), {1, 2}, object()):
        with pytest.raises(TypeError):
            msgpack.packb(value)
        with pytest.raises(TypeError):
            strict(value)
