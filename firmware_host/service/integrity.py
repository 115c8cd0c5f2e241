"""The journal's and the audit log's integrity at start: the breaks in their chains that no fault has named yet."""

from __future__ import annotations

import logging
from typing import Any

from protocol.audit import AuditError, AuditLog
from firmware_host.service.journal import ChainBreak, Journal, JournalError
from firmware_host.tables.base import FaultKind

INTEGRITY = FaultKind.JOURNAL_INTEGRITY
AUDIT_INTEGRITY = FaultKind.AUDIT_INTEGRITY
log = logging.getLogger("croupier.integrity")


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


def start_faults(journal: Journal, audit: AuditLog | None) -> list[dict[str, Any]]:
    """The `fault` events a start stands after the replay, each logged critical: one per break in the
    journal's chain (`new_breaks`), and one for the audit log's first break when no `audit_integrity`
    fault names it yet (after a supervisor's clear the next start goes on; nothing is repaired, and the
    log's later entries chain on from its last). An audit log that cannot be read is a break too.
    Raises JournalError when the journal cannot be read."""
    bodies = []
    for bad in new_breaks(journal):
        log.critical("the journal failed its integrity check: %s", bad)
        bodies.append(fault_body(bad))
    if audit is not None:
        try:
            verdict = audit.verify()
            bad_entry, problem = verdict.bad, verdict.problem
        except AuditError as exc:
            bad_entry, problem = 0, f"cannot be read: {exc}"
        if bad_entry is not None and bad_entry not in journal.integrity_records(AUDIT_INTEGRITY.value):
            log.critical("the audit log failed its integrity check: %s", problem)
            bodies.append({"kind": AUDIT_INTEGRITY.value, "detail": f"audit log {audit.path}: {problem}",
                           "record": bad_entry})
    return bodies


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
