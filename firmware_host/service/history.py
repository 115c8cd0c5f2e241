"""Closed hands as `croupier history --json` gives them, and the command channel's `history` request that pages through them.

`{"cmd": "history", "after": N, "limit": K}` -> `{"ok": true, "hands": [...], "more": bool, "last": M}`:
the closed hands numbered above N (default 0), oldest first, at most K of them (default and cap
`MAX_PAGE`); `more` says whether closed hands numbered above M wait (ask again with `after = M`);
`last` is the page's last number (N itself for an empty page). With `"newest": true` the page is the
last K closed hands instead (a screen's recall; `more` then says whether older ones exist). With
`"events": true` the page is the table's `open` and `close` events after event N instead
(`service/table_events.py`: the floor's open time). Each hand
is its `croupier history --json` line (`hand_line`) with `chain`: `{"event", "head"}`, the journal's chain at
the event that closed the hand, which the floor's archive keeps (`croupier audit verify --against`: a journal
rewritten with its chain recomputed no longer matches it). Journal reads only: the table is not changed,
nothing is journaled. Each hand's line is made once, when the hand closes (`closed_line`, stored beside
its record: `Journal.close_hand`), so a page is two indexed queries and one small JSON text a hand,
never the hands' whole records (bench/history_page.py); a hand closed before lines were stored has
its line made from its record (`backfill_lines` stores them at the controller's start).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, cast

from engine.errors import EngineError
from engine.house import TableLimits
from protocol.commands import HISTORY_PAGE, Command, error_reply
from protocol.messages import Limits
from protocol.records import HandStatus
from protocol.history import EventsPage, HistoryLine, HistoryPage, HouseLine, LineFault, ProfileUnder
from protocol.requests import Refusal
from firmware_host.service.journal import ClosedLine, Event, HandRow, Journal, JournalError
from firmware_host.service.table_events import events_reply
from firmware_host.tables.house.chips import said_in_full
from protocol.audit import signer_of

MAX_PAGE = HISTORY_PAGE
"""The most hands one `history` reply carries (a page of 100: see bench/history_page.py)."""
BACKFILL_BATCH = 500
"""Hands a transaction when `backfill_lines` makes the lines of an older journal's hands."""


def hand_line(row: HandRow, opened: Event | None = None) -> HistoryLine:
    """The `--json` line of one finished hand; `opened` is the `open` event it was played under
    (`Journal.open_before`), which holds the profile's text."""
    rec = row.record
    status = cast(HandStatus, row.status)  # the journal's hands are settled or voided (`Journal.close_hand`)
    if rec.get("poker"):
        return {"hand": row.hand, "status": status, "game": rec.get("game"), "burns": rec.get("burns", []),
                "hand_record": rec.get("hand_record"), "results": rec.get("results"),
                "chopped": rec.get("chopped", False),
                "faults": [_fault_json(f) for f in rec.get("faults", [])], "reason": rec.get("reason"),
                "closed": closed_at(row.ts)}
    profile, limits = settled_under(rec, opened)
    line: HouseLine = {"hand": row.hand, "status": status, "burns": rec.get("burns", []), "round": rec.get("round"),
                       "settlement": rec.get("settlement"), "profile": profile, "limits": limits,
                       "faults": [_fault_json(f) for f in rec.get("faults", [])], "reason": rec.get("reason"),
                       "closed": closed_at(row.ts), "corrected": rec.get("corrected") or []}
    # what the floor's ratings read beside the round (floor/ratings.py): the decisions corrected (above), a smart
    # table's chips part (whose bets were read from the chips)
    if rec.get("chips"):
        line["chips"] = rec["chips"]
    if rec.get("tray") is not None:  # the chips moved at the tray before the hand (docs/tray.md): the floor's counts
        line["tray"] = rec["tray"]
    return line


def closed_at(ts: float) -> str:
    """When a hand closed (its journal row's time) as ISO 8601 UTC, to the millisecond.

    >>> closed_at(1780000000.25)
    '2026-05-28T20:26:40.250+00:00'
    """
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds")


def closed_line(journal: Journal, record: Mapping[str, Any], event_id: int, ts: float) -> HistoryLine:
    """The `--json` line (without its chain) of the hand `record` closes at event `event_id`, at `ts`,
    in the open transaction: what `Journal.close_hand` stores beside the record."""
    row = HandRow(int(record["hand"]), str(record["game"]), str(record["status"]), event_id, ts, dict(record))
    return hand_line(row, None if record.get("poker") else journal.open_before(event_id))


def _made_lines(journal: Journal, rows: list[HandRow]) -> list[HistoryLine]:
    """The lines (without their chain) of finished hands made from their records, oldest first (house
    hands with the `open` they were played under, each `open` read once)."""
    if not rows:
        return []
    opens = journal.opens_for(rows[0].closed_event, rows[-1].closed_event)
    ids = [event.id for event in opens]
    lines = []
    for row in rows:
        at = bisect.bisect_left(ids, row.closed_event) - 1  # the last open before the hand closed
        lines.append(hand_line(row, None if row.record.get("poker") or at < 0 else opens[at]))
    return lines


def hand_lines(journal: Journal, closed: list[ClosedLine]) -> list[HistoryLine]:
    """The `--json` lines of finished hands (`Journal.lines_after`, `lines_newest`), oldest first, each
    with its chain: as stored when the hand closed, or made from its record when it closed without one."""
    made = iter(_made_lines(journal, [c.row for c in closed if c.row is not None]))
    heads = journal.chains([c.closed_event for c in closed])
    lines = []
    for c in closed:
        line = c.line if c.line is not None else next(made)
        for fault in line.get("faults") or ():  # a line stored before the words of today: said in full
            if (said := fault.get("say")) is not None:
                fault["say"] = said_in_full(said, str(fault.get("detail") or ""))
        if c.closed_event in heads:  # the journal's chain at the hand's close: the floor's archive keeps it
            line["chain"] = {"event": c.closed_event, "head": heads[c.closed_event]}
        lines.append(line)
    return lines


def backfill_lines(journal: Journal) -> int:
    """Store the line of every hand closed without one (a journal written before schema 4), made from
    its record, `BACKFILL_BATCH` hands a transaction; returns how many. Raises JournalError."""
    filled = 0
    while rows := journal.lines_missing(BACKFILL_BATCH):
        journal.fill_lines({row.hand: line for row, line in zip(rows, _made_lines(journal, rows))})
        filled += len(rows)
    return filled


def settled_under(rec: Mapping[str, Any], opened: Event | None) -> tuple[ProfileUnder, Limits | dict[str, Any]]:
    """`({"name", "sha256", "content"}, {...every key of the limits})`: the profile and limits of a house hand's record.

    The content is the open event's journaled text when its sha256 is the one the hand was played
    under (null when the hand was journaled before profiles were)."""
    profile: ProfileUnder = {"name": rec.get("profile"), "sha256": rec.get("profile_sha256"), "content": None}
    journaled = opened.body.get("profile") if opened is not None else None
    if (profile["content"] is None and profile["sha256"] is not None and isinstance(journaled, dict)
            and journaled.get("sha256") == profile["sha256"]):
        profile["content"] = journaled.get("content")
    recorded = dict(rec.get("limits") or {})
    try:
        parsed = TableLimits.parse(recorded, source="record")
    except EngineError:  # as recorded: not ours to mend
        return profile, recorded
    return profile, {"minimum": parsed.minimum, "maximum": parsed.maximum, "side_minimum": parsed.side_minimum,
                     "side_maximum": parsed.side_maximum, "chip": parsed.chip}  # TableLimits.KEYS, in its order


def _fault_json(fault: Mapping[str, Any]) -> LineFault:
    cleared = fault.get("cleared") or {}
    said = fault.get("say")
    return {"kind": fault.get("kind"), "detail": fault.get("detail"),
            "say": said_in_full(said, str(fault.get("detail") or "")) if said else said,
            "cleared_by": signer_of(cleared), "reason": cleared.get("reason"), "then": cleared.get("then")}


def history_reply(journal: Journal, cmd: Command) -> HistoryPage | EventsPage | Refusal:
    """The reply to a `history` request (its arguments checked by `Command`): one page of closed hands."""
    if cmd.args.get("events"):
        return events_reply(journal, cmd)
    after = int(cmd.args.get("after", 0))
    limit = int(cmd.args.get("limit", MAX_PAGE))
    try:
        if cmd.args.get("newest"):
            rows = journal.lines_newest(limit + 1)
            more, rows = len(rows) > limit, rows[-limit:]
        else:
            rows = journal.lines_after(after, limit + 1)
            more, rows = len(rows) > limit, rows[:limit]
        hands = hand_lines(journal, rows)
    except JournalError as exc:
        return error_reply(cmd.id, "journal", str(exc))
    return {"id": cmd.id, "ok": True, "hands": hands, "more": more, "last": rows[-1].hand if rows else after}
