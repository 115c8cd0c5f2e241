"""The journal's chain: each event's canonical text and its SHA-256 link to the event before (`service/journal.py`).

Written once, for the three places that make a link: the insert of an event (`Journal.begin`, `Journal.insert`), the
schema-3 migration that chains an older journal's events (`add_chain`), and the check of a journal's chain
(`first_break`, `Journal.verify_chain`). An event's chain is the SHA-256 (hex) of the previous event's chain followed
by the event's canonical text, in one of two forms, the journal's table `chain_forms` saying from which event on the
second holds (schema 5; none: the first throughout):
- form 1 (`canonical`, every event written before schema 5): the compact JSON (`dumps`) of
  `[id, hand, ts, kind, body, req]`, `body` the event's JSON text as stored, `ts` a float (its repr). Put together
  from json's own pieces rather than by `dumps` of a list made for it: the very text, in about half the instructions
  (`tests/firmware_host/test_journal.py` holds it to `dumps` of the list).
- form 2 (`text`, since schema 5): `id hand ts kind req` then a newline and the body as stored, `ts` the float's exact
  hexadecimal form (`float.hex`: no shortest-repr search, ~6,500 instructions an event less), `kind` and `req` as JSON
  strings (`req` null when none). The body, last, is hashed as it is (no JSON escaping of it); the fields before it
  are self-delimiting, so two different rows never give one text (`tests/firmware_host/test_journal_chain.py`).
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


def text(event_id: int, hand: int, ts: float, kind: str, body: str, req: Any) -> str:
    """The event's canonical text, form 2: `f"{id} {hand} {float(ts).hex()} {kind} {req}\\n{body}"`, `kind` and
    `req` as JSON strings (`req` null when None). Values of other types than an event's (a row changed with SQLite
    to hold a text where an int was) give their form-1 text, which no form-2 text equals (it starts with `[`)."""
    ts = float(ts)
    if type(event_id) is int and type(hand) is int and type(kind) is str and type(body) is str:
        said = "null" if req is None else encode_basestring(str(req))
        return f"{event_id} {hand} {ts.hex()} {encode_basestring(kind)} {said}\n{body}"
    return canonical(event_id, hand, ts, kind, body, req)


def link(previous: str, event_id: int, hand: int, ts: float, kind: str, body: str, req: Any) -> str:
    """The chain of one event as the journal writes it now (form 2): SHA-256 of the previous event's chain and the
    event's canonical text (`text`)."""
    return hashlib.sha256((previous + text(event_id, hand, ts, kind, body, req)).encode()).hexdigest()


def link_v1(previous: str, event_id: int, hand: int, ts: float, kind: str, body: str, req: Any) -> str:
    """The chain of one event in form 1 (events written before schema 5): `canonical`'s text."""
    return hashlib.sha256((previous + canonical(event_id, hand, ts, kind, body, req)).encode()).hexdigest()


CHAIN_FORMS = "CREATE TABLE IF NOT EXISTS chain_forms (form INTEGER PRIMARY KEY, first INTEGER NOT NULL);"
"""Schema 5: from which event on each form of the canonical text holds (a row `(2, id)`; no row: form 1 throughout)."""


def form2_from(conn: sqlite3.Connection) -> int:
    """The first event whose chain is made in form 2 (`text`); past every event when the journal has none (written
    before schema 5, or opened read-only before its first open for writing since)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='chain_forms'").fetchone() is None:
        return 2 ** 63 - 1
    row = conn.execute("SELECT first FROM chain_forms WHERE form=2").fetchone()
    return int(row[0]) if row else 2 ** 63 - 1


def mark_form2(conn: sqlite3.Connection) -> None:
    """At an open for writing, unless the journal has its mark already: the events from the next one on are chained
    in form 2 (a new journal: all of them; one written before schema 5: its events keep the form 1 they were chained
    in)."""
    conn.execute(CHAIN_FORMS)
    conn.execute("INSERT OR IGNORE INTO chain_forms(form, first) SELECT 2, coalesce(max(id), 0) + 1 FROM events")


def add_chain(conn: sqlite3.Connection) -> None:
    """Schema 3 on an older journal: the `chain` column, computed once over the events it holds (form 1: the events
    from the next one on are form 2's, `mark_form2`)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("ALTER TABLE events ADD COLUMN chain TEXT")
        chain = ""
        links = []
        for event_id, hand, ts, kind, body, req, _ in conn.execute(CHAIN_ROWS, (0,)).fetchall():
            chain = link_v1(chain, event_id, hand, ts, kind, body, req)
            links.append((chain, event_id))
        conn.executemany("UPDATE events SET chain=? WHERE id=?", links)
        if form2_from(conn) < 2 ** 63 - 1:  # a mark left by a later schema on a journal made older by hand
            conn.execute("DELETE FROM chain_forms")
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
    form2 = form2_from(conn)
    for event_id, hand, ts, kind, body, req, chain in conn.execute(CHAIN_ROWS, (after,)):
        if event_id != prev_id + 1:
            missing = f"event {prev_id + 1}" if event_id == prev_id + 2 else f"events {prev_id + 1} to {event_id - 1}"
            return event_id, kind, f"a gap in the chain: {missing} missing before it"
        if chain is None:
            return event_id, kind, "no chain recorded"
        if chain != (link if event_id >= form2 else link_v1)(prev_chain, event_id, hand, ts, kind, body, req):
            return event_id, kind, "checksum mismatch: the event was changed after it was written"
        prev_id, prev_chain = event_id, chain
    return None
