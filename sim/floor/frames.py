"""The simulated floor's feed frames put together from pieces packed once: each pool state's keys and values packed when the pool is first dealt, a table's session and last hands when a hand closes, so a step packs only its hand number and seq.

A floor-sim table's public state is a pool state with three keys of its own (`hand`, `session`,
`history`: `PER_TABLE`), and `Feed.publish` packs `{table, boot, seq, kind, **state}` into one
msgpack map. msgpack writes a map as its length and then each key and value in order, each packed
as it would be alone, so the same frame is the map's header, the header's four pairs, and the
state's pairs in `Feed.publish`'s order (`service.feed.LEADING` first, then the state's), the
three of the table's packed where they fall. `FloorFeed`
is a `Feed` that sends such a frame (snapshots, heartbeats and everything else are `Feed`'s own);
`tests/floor/test_floor_sim_frames.py` checks its frames equal `Feed`'s byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from protocol.feed import LEADING, Feed

PER_TABLE = ("hand", "session", "history")
"""The keys a floor-sim table puts over its pool's state."""

HEAD = ("table", "boot", "seq", "kind")
"""`Feed`'s header keys, first in every frame."""

_pack = msgpack.Packer(use_bin_type=True).pack  # autoreset: one value packed alone per call


@dataclass(frozen=True, slots=True)
class Template:
    """One pool state's frame less the table's own: the map header (its count of pairs) and the packed
    pairs, with the slots (indexes into `PER_TABLE`) where the table's values go."""

    header: bytes
    parts: tuple[bytes | int, ...]  # packed pairs, and for a per-table key its key packed then its slot

    def pieces(self, values: Sequence[bytes]) -> list[bytes]:
        """The state's part of the frame, the table's packed values (one for each `PER_TABLE` key) put in."""
        return [values[part] if isinstance(part, int) else part for part in self.parts]


def template(base: Mapping[str, Any]) -> Template | None:
    """The template of `{**base, "hand": ..., "session": ..., "history": ...}` packed after Feed's header;
    None when `base` has a header key (the frame then is `Feed.publish`'s own)."""
    if any(key in base for key in HEAD):
        return None
    state = [*base, *(key for key in PER_TABLE if key not in base)]  # the keys of {**base, hand, ...}
    keys = [*(key for key in LEADING if key in state), *(key for key in state if key not in LEADING)]
    parts: list[bytes | int] = []
    run = bytearray()
    for key in keys:
        run += _pack(key)
        if key in PER_TABLE:
            parts += (bytes(run), PER_TABLE.index(key))
            run = bytearray()
        else:
            run += _pack(base[key])
    if run:
        parts.append(bytes(run))
    header = msgpack.Packer(use_bin_type=True)
    return Template(header.pack_map_header(len(HEAD) + len(keys)), tuple(parts))


_SEQ = _pack("seq")
_KIND_UPDATE = _pack("kind") + _pack("update")


class FloorFeed(Feed):
    """A `Feed` (public stream only) that can send an update put together from a `Template`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head = _pack("table") + _pack(self.table) + _pack("boot") + _pack(self.boot)  # one boot a Feed

    def publish_template(self, public: Mapping[str, Any], frame: Template, values: Sequence[bytes]) -> int:
        """Send `public` (the template's state with the table's packed `values`) as `Feed.publish` would,
        without packing it again. Returns its seq."""
        if self.full_pub is not None:  # a floor-sim table has no full stream; were there one, pack it all
            return self.publish(public)
        self.seq += 1
        self._public_state = self._full_state = public
        self.pub.send(b"".join((frame.header, self._head, _SEQ, _pack(self.seq), _KIND_UPDATE,
                                *frame.pieces(values))))
        self._last_sent = self._clock()
        return self.seq
