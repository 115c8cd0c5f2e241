"""The journal's chain: each event's canonical text and its SHA-256 link to the event before (`service/journal.py`).

Written once, for the three places that make a link: the insert of an event (`Journal.begin`, `Journal.insert`), the
schema-3 migration that chains an older journal's events (`add_chain`), and the check of a journal's chain
(`first_break`, `Journal.verify_chain`). An event's canonical text is the compact JSON (`dumps`) of
`[id, hand, ts, kind, body, req]`, `body` the event's JSON text as stored, `ts` a float; its chain the SHA-256 (hex)
of the previous event's chain followed by that text. The text is put together from json's own pieces (its string
encoder, the float's repr, as `dumps` writes them) rather than by `dumps` of a list made for it: the very text, in
about half the instructions (`canonical`; `tests/firmware_host/test_journal.py` holds it to `dumps` of the list).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from json.encoder import encode_basestring
from typing import Any

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
"""Compact JSON, keys in the order given: `json.dumps`'s (no circular check: events are decoded data)."""


def dumps(value: Any) -> str:
    """Compact JSON, keys in the order given, the very text `json.dumps(value, separators=(",", ":"),
    ensure_ascii=False)` writes: the journal's bodies, records and history lines, and the events' canonical text. A
    flat map of texts to texts, ints and None (a card's body, most readings') is put together from json's pieces (its
    string encoder, an int's repr: the encoder's own set-up costs more than such a body's text); any other value
    through the encoder (`tests/firmware_host/test_journal.py` holds both to `json.dumps`)."""
    if type(value) is dict:
        parts = []
        for key, item in value.items():
            kind = type(item)
            if type(key) is not str or (kind is not str and kind is not int and item is not None):
                return _encode(value)
            text = encode_basestring(item) if kind is str else "null" if item is None else int.__repr__(item)
            parts.append(f"{encode_basestring(key)}:{text}")
        return "{" + ",".join(parts) + "}"
    return _encode(value)

CHAIN_ROWS = "SELECT id, hand, ts, kind, body, req, chain FROM events WHERE id > ? ORDER BY id"
"""Every event after an id, with what its link is made of and its stored chain."""


def canonical(event_id: int, hand: int, ts: float, kind: str, body: str, req: Any) -> str:
    """The event's canonical text: `dumps([event_id, hand, float(ts), kind, body, str(req) or None])`. Made from
    json's pieces (an int's and a finite float's repr, `encode_basestring`, which `dumps` writes them with) when the
    values are of the types an event's are; any other through `dumps` itself."""
    ts = float(ts)
    if type(event_id) is int and type(hand) is int and type(kind) is str and type(body) is str \
            and ts - ts == 0.0:  # a finite float (json writes NaN and the infinities otherwise)
        said = "null" if req is None else encode_basestring(str(req))
        return f"[{event_id},{hand},{ts!r},{encode_basestring(kind)},{encode_basestring(body)},{said}]"
    return dumps([event_id, hand, ts, kind, body, None if req is None else str(req)])


def link(previous: str, event_id: int, hand: int, ts: float, kind: str, body: str, req: Any) -> str:
    """The chain of one event: SHA-256 of the previous event's chain and the event's canonical text."""
    return hashlib.sha256((previous + canonical(event_id, hand, ts, kind, body, req)).encode()).hexdigest()


def add_chain(conn: sqlite3.Connection) -> None:
    """Schema 3 on an older journal: the `chain` column, computed once over the events it holds."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("ALTER TABLE events ADD COLUMN chain TEXT")
        chain = ""
        links = []
        for event_id, hand, ts, kind, body, req, _ in conn.execute(CHAIN_ROWS, (0,)).fetchall():
            chain = link(chain, event_id, hand, ts, kind, body, req)
            links.append((chain, event_id))
        conn.executemany("UPDATE events SET chain=? WHERE id=?", links)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def first_break(conn: sqlite3.Connection, after: int) -> tuple[int, str, str] | None:
    """`(id, kind, why)` of the first event after event `after` that the chain does not vouch for (its stored chain
    differs from the one its text and the previous event's stored chain give, it has none, or ids are missing before
    it), or None when every one checks. Raises sqlite3.Error as the reads do."""
    row = conn.execute("SELECT id, chain FROM events WHERE id <= ? ORDER BY id DESC LIMIT 1", (after,)).fetchone()
    prev_id, prev_chain = (int(row[0]), str(row[1] or "")) if row else (0, "")
    for event_id, hand, ts, kind, body, req, chain in conn.execute(CHAIN_ROWS, (after,)):
        if event_id != prev_id + 1:
            missing = f"event {prev_id + 1}" if event_id == prev_id + 2 else f"events {prev_id + 1} to {event_id - 1}"
            return event_id, kind, f"a gap in the chain: {missing} missing before it"
        if chain is None:
            return event_id, kind, "no chain recorded"
        if chain != link(prev_chain, event_id, hand, ts, kind, body, req):
            return event_id, kind, "checksum mismatch: the event was changed after it was written"
        prev_id, prev_chain = event_id, chain
    return None
