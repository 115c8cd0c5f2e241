"""The journal's integrity at start: the breaks in its chain that no `journal_integrity` fault has named yet."""

from __future__ import annotations

from typing import Any

from firmware_host.service.journal import ChainBreak, Journal, JournalError
from firmware_host.tables.base import FaultKind

INTEGRITY = FaultKind.JOURNAL_INTEGRITY


def fault_body(bad: ChainBreak) -> dict[str, Any]:
    """The `fault` event that stands for one break: its detail names the event and what is wrong."""
    return {"kind": INTEGRITY.value, "detail": f"journal {bad}", "record": bad.id}


def new_breaks(journal: Journal) -> list[ChainBreak]:
    """Every break in the journal's chain, first to last, that no journaled `journal_integrity`
    fault names yet (a break is faulted once: after a supervisor's clear the next start goes on,
    and nothing is repaired). Raises JournalError when the journal cannot be read."""
    named = journal.integrity_records()
    breaks: list[ChainBreak] = []
    after = 0
    while (bad := journal.verify_chain(after)) is not None and bad.id > after:
        if bad.id not in named:
            breaks.append(bad)
        after = bad.id
    return breaks


def replay_failed(journal: Journal, exc: JournalError) -> JournalError:
    """The error to stop the start with when the replay itself failed: with the chain's first
    break, when there is one (a changed event that no longer applies), named beside it."""
    try:
        bad = journal.verify_chain()
    except JournalError:
        return exc
    if bad is None:
        return exc
    return JournalError(f"{exc}; the journal failed its integrity check: {bad}")
