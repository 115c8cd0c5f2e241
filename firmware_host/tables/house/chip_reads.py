"""A chip reader's reading as the journal holds it: a `chip_scan` event's readings, whole or as their change since the one before.

A `chip_scan` event (`firmware_host.tables.house.chips`, `service/events.py`) holds each antenna's reading with no more
than a replay needs (`chip_read`); `reads_of` takes them out of an event (a `chips` event of one reading in journals
written before `chip_scan`) and `uids_after` gives an antenna's UIDs back from one, live and in every replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from protocol.records import ChipRead, ChipsBody

DEVICE = "chips"
"""The chip reader's device name unless its readings say another."""


def chip_read(antenna: str, uids: frozenset[str], stable: bool, before: frozenset[str] | None) -> ChipRead:
    """A reading as a `chip_scan` event holds it, what a replay needs and no more: the antenna's UIDs all, or, given
    the antenna's reading `before` (the one the table holds: the last it took, journaled), what changed since when
    that is fewer UIDs to write (a payout added to its stack, a chip taken, the tray's few chips in or out of
    hundreds: `added`, `removed`, each only when not empty), or nothing but `stable` when the chips are the same (a
    circle's settle: half of all chip readings). `uids_after` gives the reading back from it and the same `before`,
    live and in every replay (journals written before hold `"added": [], "removed": []` for a settle: read alike).

    >>> chip_read("spot1.ante", frozenset({"B", "C"}), True, frozenset({"A", "B", "C"}))
    {'antenna': 'spot1.ante', 'removed': ['A'], 'stable': True}
    >>> chip_read("spot1.ante", frozenset({"B"}), False, None)
    {'antenna': 'spot1.ante', 'uids': ['B'], 'stable': False}
    >>> chip_read("spot1.ante", frozenset({"B"}), True, frozenset({"B"}))
    {'antenna': 'spot1.ante', 'stable': True}
    """
    if before is not None and uids == before:  # a settle: the chips the same (no two differences made to say so)
        return {"antenna": antenna, "stable": stable}
    if before:  # else (none before) the UIDs all, as the differences would say
        added, removed = uids - before, before - uids
        if len(added) + len(removed) < len(uids) or not (added or removed):
            read: ChipRead = {"antenna": antenna}  # type: ignore[typeddict-item]  # `stable` put in last, as ever
            if added:
                read["added"] = sorted(added)
            if removed:
                read["removed"] = sorted(removed)
            read["stable"] = stable
            return read
    return {"antenna": antenna, "uids": sorted(uids), "stable": stable}


def reads_of(kind: str, body: Mapping[str, Any]) -> list[ChipsBody]:
    """The antennas' readings a journaled event holds, each with its reader's `device`: a `chip_scan`'s, in order;
    a `chips` event's one (a journal written before `chip_scan`: one antenna an event); none for any other kind.

    >>> reads_of("chip_scan", {"device": "chips", "reads": [{"antenna": "tray", "uids": [], "stable": True}]})
    [{'antenna': 'tray', 'uids': [], 'stable': True, 'device': 'chips'}]
    """
    if kind == "chip_scan":
        device = str(body.get("device", DEVICE))
        return [cast(ChipsBody, {**read, "device": device}) for read in body.get("reads") or ()]
    return [cast(ChipsBody, body)] if kind == "chips" else []


def uids_after(body: Mapping[str, Any], before: frozenset[str] | None) -> frozenset[str]:
    """The UIDs a reading says its antenna holds (`chip_read`), `before` its reading before: the very
    `before` when nothing but `stable` changed. Raises ValueError for a change with no reading before it.

    >>> sorted(uids_after({"antenna": "tray", "added": ["D"], "removed": ["A"]}, frozenset({"A", "B"})))
    ['B', 'D']
    """
    if "uids" in body:
        return listed_uids(body["uids"])[0]
    if before is None:
        raise ValueError(f"a change of antenna {body.get('antenna')!r}'s chips with no reading of it before")
    added, removed = body.get("added") or (), body.get("removed") or ()
    if not added and not removed:
        return before
    return before.difference(map(str, removed)).union(map(str, added))


def listed_uids(uids: Any) -> tuple[frozenset[str], list[str] | None]:
    """A reading's `uids` as a frozenset of texts, and the list they were given as when it is a list of texts (every
    reading's, live or journaled; `chip_read`'s sorted: the views sort it, not the set): taken as it is, its items
    checked texts in C (`str.join` refuses any other) rather than each made one by `str` (a fifth of the cost: a
    circle's 20 UIDs at every reading); any other value's items made texts.

    >>> sorted(listed_uids(["B", "A"])[0]), listed_uids([7])
    (['A', 'B'], (frozenset({'7'}), None))
    """
    if type(uids) is list:
        try:
            "".join(uids)
        except TypeError:
            pass
        else:
            return frozenset(uids), uids
    return frozenset(map(str, uids)), None
