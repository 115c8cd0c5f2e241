"""A table's feed frame read and re-keyed by the pit without decoding what it only passes on (the state's last hands, paytables, spots).

A feed frame is one msgpack map (`protocol/feed.py`). Decoding one whole costs ~100 us, most of it the
last ten hands the state carries; the pit needs a handful of its keys (`boot`, `seq`, `kind`, `hand`,
`phase`) and sends the rest on unchanged with its own keys added (`table`, `online`, `floor_seq`).
`peek` reads the keys asked for and skips the others' values unbuilt; `rekey` makes the frame again with
some keys replaced or added, copying the other pairs' bytes as they are. The result decodes to exactly
`{**decoded, **changes}` (tests/floor/test_floor_frames.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import msgpack

from protocol.packing import map_header, pairs_of

_pack = msgpack.Packer(use_bin_type=True).pack


class FrameError(ValueError):
    """The bytes are not one msgpack map with string keys."""


def read(frame: bytes, wanted: Collection[str], cut: Collection[str] = (), whole: bool = True) -> Frame:
    """The values of the `wanted` keys (decoded; the others' skipped unbuilt), and where the pairs of the
    `cut` keys lie (for `rekey`). Raises FrameError.

    With `whole` false the reading stops once every wanted key is found (a table's update puts the keys the
    pit wants first: `service.feed.LEADING`): the rest is neither checked nor searched for `cut` keys. A
    cut key left after that point is then in the rekeyed map twice, and decoders take the last, the
    one `rekey` adds."""
    reader = msgpack.Unpacker(raw=False, max_buffer_size=max(len(frame), 1024))
    reader.feed(frame)
    try:
        size = reader.read_map_header()
    except Exception as exc:  # msgpack raises several unrelated types
        raise FrameError(f"not a msgpack map: {exc}") from exc
    tell, unpack, skip = reader.tell, reader.unpack, reader.skip
    body = tell()
    found: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    left = len(wanted)
    try:
        for _ in range(size):
            if not left and not whole:
                break
            start = tell()
            key = unpack()
            if key in wanted:
                left -= key not in found  # a key twice counts once: the read stops only when all are found
                found[key] = unpack()
            else:
                skip()
            if key in cut:
                spans.append((start, tell()))
            elif not isinstance(key, str):
                raise FrameError(f"a map key is not a string: {key!r}")
    except FrameError:
        raise
    except Exception as exc:
        raise FrameError(f"a broken msgpack map: {exc}") from exc
    if whole and tell() != len(frame):
        raise FrameError("bytes after the map")
    return Frame(frame, size, body, found, tuple(spans))


class Frame:
    """One map frame read: `values` (the keys asked for), and what `rekey` needs to make it again."""

    __slots__ = ("raw", "size", "body", "values", "spans")

    def __init__(self, raw: bytes, size: int, body: int, values: dict[str, Any],
                 spans: tuple[tuple[int, int], ...]) -> None:
        self.raw, self.size, self.body, self.values, self.spans = raw, size, body, values, spans

    def rekey(self, changes: Mapping[str, Any]) -> bytes:
        """The map with `changes` added, the pairs read as `cut` left out (they must be `changes`' keys:
        a key of `changes` not cut would be in the map twice), the others' bytes as they were."""
        raw = self.raw
        parts = [map_header(self.size - len(self.spans) + len(changes))]
        at = self.body
        for start, end in self.spans:
            parts.append(raw[at:start])
            at = end
        parts.append(raw[at:])
        parts.append(_pairs(changes))
        return b"".join(parts)


def peek(frame: bytes, keys: Collection[str]) -> dict[str, Any]:
    """The values of `keys` found in the map (decoded), the rest skipped. Raises FrameError."""
    return read(frame, keys).values


def rekey(frame: bytes, changes: Mapping[str, Any]) -> bytes:
    """The map of `frame` with `changes`' keys replaced or added, the other pairs' bytes as they were.
    Raises FrameError."""
    return read(frame, (), changes).rekey(changes)


def _pairs(changes: Mapping[str, Any]) -> bytes:
    """The packed pairs of `changes`, without their map's header (one pack call, not two a pair)."""
    return pairs_of(_pack(changes), len(changes))
