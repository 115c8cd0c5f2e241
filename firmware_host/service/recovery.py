"""Recovery: the table rebuilt from the journal by the one reducer, and the settled hand put back on show."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from engine.errors import EngineError
from engine.games import MAX_SPOTS
from protocol.messages import Device
from protocol.records import ChipSetBody, HandChips
from firmware_host.service.journal import Event, HandRow, Journal, JournalError
from firmware_host.tables.base import Refused
from firmware_host.tables.hold import take_hold
from firmware_host.tables.tray_steps import MOVEMENT_KINDS
from firmware_host.tables.house.chips import reads_of
from firmware_host.tables.state import TableState

log = logging.getLogger("croupier.controller")

_BETWEEN_HANDS_KINDS = frozenset({"sensor", "device", "chip_scan", "chips", "chip_set", "player", "rating", "dealer",
                                  *MOVEMENT_KINDS})
"""Events that may follow a settled hand without taking it off show (they do not touch the table: the players
taking their chips from the circles neither, nor a player card at a seat or a dealer signing in, nor a
buy-in, colour-up, fill or credit at the tray, `tables/tray_steps.py`)."""


def rebuild(journal: Journal, seats: int = MAX_SPOTS) -> tuple[TableState, int]:
    """The table as the journal holds it: the last `open` and every event since, applied again to a
    fresh table state. Returns it and the number of events replayed. Raises JournalError when an
    event no longer applies."""
    state = TableState(seats)
    resume = journal.resume()
    state.hand = resume.last_closed_hand + 1
    last = journal.hands(last=1)
    if last:  # devices as they stood when the last hand closed (not replayed)
        state.devices = {k: cast(Device, dict(v)) for k, v in last[0].record.get("devices", {}).items()}
    # every sensor as its last reading left it (the replay below sets the same), so a device that
    # reports the same state again at start changes nothing and is not journaled
    state.sensors = journal.sensors()
    # the last hands shown down, as journaled with each house hand (`last_hand`; a poker hand has
    # none and leaves the list as it was, as the reducer does)
    state.history.extend(journal.last_hands_shown(state.history.maxlen or 0))
    events = ([resume.open_event] if resume.open_event else []) + list(resume.events)
    held = journal.last_hold(resume.events[0].id if resume.events else None)  # a hold outlives hands (tables/hold.py)
    last_close = last[0].closed_event if last else 0
    _carry_chips(journal, state, resume.events[0].id if resume.events else None, last[0].record if last else {},
                 (last_close, max(last_close, resume.open_event.id if resume.open_event else 0)))
    state.hold = take_hold(held.body) if held is not None else None
    first = resume.events[0].id if resume.events else None  # who sat and dealt before those (`tables/players.py`)
    state.seated.replay((e.kind, e.body) for e in journal.seated_before(first))
    for event in events:
        try:
            state.apply(event.kind, event.body, event.id)
        except (Refused, EngineError, ValueError) as exc:
            raise JournalError(f"replay failed at event {event.id} ({event.kind}): {exc}") from exc
        if event is resume.open_event and last and last[0].closed_event > event.id and state.table is not None:
            state.table.carry_from(last[0].record)  # the seats as the last hand under this open left them
            state.carry_level(last[0].record)  # a tournament level taken before that hand closed (tables/levels.py)
    if resume.open_event is not None:  # the session's counters: every hand closed since that open
        for row in journal.hands():
            if row.closed_event > resume.open_event.id:
                state.tally(row.status, row.record)
    if last and resume.open_event is not None:
        _show_settled(journal, state, last[0], resume.open_event, list(resume.events))
    return state, len(events)


def _carry_chips(journal: Journal, state: TableState, before: int | None, record: Mapping[str, Any],
                 between: tuple[int, int]) -> None:
    """The chip set journaled before the events replayed, every circle as the last hand left it (its
    record's `chips`) and as the chip readings journaled `between` its close and the first event replayed
    (an `open` after it) left them: what replaying only the events since then would not give back (a
    reading may be journaled as its change since the one before: `tables/house/chips.py` `chip_read`)."""
    chip_set = journal.last_of("chip_set", before)
    if chip_set is not None:
        state.chips.take_set(cast(ChipSetBody, chip_set.body))
    if record.get("chips") is not None:
        state.chips.restore(cast(HandChips, record["chips"]))
    if between[1] > between[0]:
        for event in journal.events(since=between[0]):
            if event.id >= between[1]:
                break
            for read in reads_of(event.kind, event.body):  # a `chip_scan`'s, an older journal's `chips`
                state.chips.carry(read)


def _show_settled(journal: Journal, state: TableState, last: HandRow, open_event: Event,
                  since: list[Event]) -> None:
    """A restart between hands puts the hand just settled back on show, as it was before (a settled
    hand stays on the displays until the next hand's first step): its events are applied again to
    a scratch table state, nothing journaled. Only when nothing of the next hand has happened yet
    (sensors and devices aside) and the table was opened before that hand."""
    table = state.table
    if (last.status != "settled" or last.hand != state.hand - 1 or state.fault is not None or table is None
            or table.started or table.closed is not None
            or any(e.kind not in _BETWEEN_HANDS_KINDS for e in since if e.id > last.closed_event)):
        return
    events = [e for e in journal.hand_events(last.hand) if e.id > open_event.id]
    if not events or events[-1].id != last.closed_event:
        return  # the table was opened again during or after that hand
    scratch = TableState(state.seats)
    scratch.hand = last.hand
    before = [row for row in journal.hands(last=2) if row.hand == last.hand - 1]
    try:
        _carry_chips(journal, scratch, events[0].id, before[0].record if before else {},  # the circles as that hand began
                     (before[0].closed_event if before else 0, events[0].id))
        scratch.apply(open_event.kind, open_event.body, open_event.id)
        if before and before[0].closed_event > open_event.id and scratch.table is not None:
            scratch.table.carry_from(before[0].record)
        for event in events:
            scratch.apply(event.kind, event.body, event.id)
    except (Refused, EngineError, ValueError) as exc:  # a display nicety: never a reason to stop
        log.warning("the settled hand %d cannot be shown again: %s", last.hand, exc)
        return
    shown = scratch.table
    if shown is not None and shown.closed == "settled" and scratch.hand == state.hand:
        state.table = shown
