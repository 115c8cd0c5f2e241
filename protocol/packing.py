"""The feed's update frames packed with the parts that did not change since the last one reused: a table's last hands, paytable and limits ride on every update, and packing them again at every card was most of a frame's cost.

`UpdatePacker.pack(head, state)` gives exactly `msgpack.packb({**head, **state}, use_bin_type=True)`
(tests/firmware_host/test_packing.py): a map is its header and its pairs one after the other, so the
pairs of the values kept (`engine.redact.PASSED_KEYS`: public by nature and never changed once
made, passed to every view as they are) are packed once and their bytes put back in place while the
value is the same object (for the last hands, while each hand in the list is the same object: the
list itself is made again for each view). The other pairs are packed at every call, a run of them
at a time. A value changed in place would go out stale: those values are never changed once made,
as `engine.redact` says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from engine.redact import PASSED_KEYS


def _identity(value: Any) -> tuple[int, ...]:
    """What says a kept value is the one packed before: the object, or for a list each of its items."""
    if type(value) is list:
        return tuple(id(item) for item in value)
    return (id(value),)


def map_header(size: int) -> bytes:
    """The msgpack header of a map of `size` pairs (its pairs follow it, one after the other)."""
    if size < 16:
        return bytes((0x80 | size,))
    if size < 1 << 16:
        return b"\xde" + size.to_bytes(2, "big")
    return b"\xdf" + size.to_bytes(4, "big")


def pairs_of(packed: bytes, size: int) -> bytes:
    """A packed map of `size` pairs without its header: its pairs, to put after another header."""
    return packed[1 if size < 16 else 3 if size < 1 << 16 else 5:]


class UpdatePacker:
    """One feed's packer (its thread's only), with the kept values' packed pairs."""

    def __init__(self, kept: frozenset[str] = PASSED_KEYS) -> None:
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self.kept = kept
        self._cache: dict[str, tuple[Any, tuple[int, ...], bytes]] = {}  # key -> (the value held, its identity, pair)
        self.reused = 0  # pairs put back from the cache (the tests read it)

    def pack(self, head: Mapping[str, Any], state: Mapping[str, Any]) -> bytes:
        """`msgpack.packb({**head, **state})`, byte for byte."""
        merged = {**head, **state}
        kept = self.kept
        if kept.isdisjoint(merged):
            packed: bytes = self._pack(merged)
            return packed
        parts = [map_header(len(merged))]
        run: dict[str, Any] = {}
        for key, value in merged.items():
            if key not in kept:
                run[key] = value
                continue
            if run:
                parts.append(self._pairs(run))
                run = {}
            parts.append(self._kept_pair(key, value))
        if run:
            parts.append(self._pairs(run))
        return b"".join(parts)

    def _pairs(self, run: dict[str, Any]) -> bytes:
        return pairs_of(self._pack(run), len(run))

    def _kept_pair(self, key: str, value: Any) -> bytes:
        identity = _identity(value)
        held = self._cache.get(key)
        if held is not None and held[1] == identity:
            self.reused += 1
            return held[2]
        pair = self._pairs({key: value})
        self._cache[key] = (value, identity, pair)  # the value held: its ids stay its own while cached
        return pair
