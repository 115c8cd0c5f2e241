"""The pit's own sign-offs of an archive step (its terminal's `croupier pit rating`, its web process's `POST /pit/rating/past`): the table's gate, holds and audit writer, beside the users file.

One rule with the table's (`protocol.signoff.SignOff`, a `rating` relayed by the pit): one refusal whatever failed,
the failures counted against the sending account (`key`: `cli:LOGIN` at the terminal, `pit-web` for the floor's web
process) and the pit boss it names (`at`): five from one pit boss hold that pit boss's sign-offs 5 minutes, each hold
twice the last; at the terminal (whose `--by` is the caller's word) twenty from the account hold the account; at the
web process (whose pit bosses are signed in: `relays="throttle"`) twenty space its PIN checks, never holding a pit
boss who is not held (`protocol.signoff_holds`, docs/ratings.md "Who the holds stop"). The holds are kept in `pit-rating-holds.json` beside the
users file (never a file of the caller's choosing), the processes and threads taking turns on it (`flock` on its
`.lock`); one that cannot be written refuses every sign-off. Each sign-off granted, refused or held is written to the
pit's audit log beside it (`audit.sqlite3`, `protocol.audit`: who, the account, the step; never the PIN), whose
`users_loaded` is written only when the users file changed (its sha256 differs from the last entry's); a log that
cannot be opened refuses every sign-off.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.access import Caller
from protocol.audit import AuditError, AuditLog
from protocol.commands import Auth, Command
from protocol.config import RightsConfig
from protocol.signoff import SignOff

HOLDS_FILE = "pit-rating-holds.json"
"""The holds of failed sign-offs at the pit (terminal and web process), beside the users file."""


@dataclass(frozen=True, slots=True)
class PitSignOff:
    """One sign-off asked of a supervisor at the pit: the users file, the sending account (`key`), the pit boss
    sending (`by`), the supervisor named and what for (`via`, the step's table, session and seat)."""

    users: str
    key: str
    by: str
    supervisor: str
    via: str
    table: str
    session: float
    seat: int
    address: str = ""
    relays: str = "hold"  # "throttle": the web process, whose pit bosses are signed in (`protocol.signoff_holds`)
    clock: Callable[[], float] = time.time


def refusal(ask: PitSignOff, pin: str) -> dict[str, Any] | None:
    """The gate's refusal of the sign-off (`error`, `code`, `say`: the table's; `throttled_s` when this failure began or
    slowed the account's throttle), or None: signed off. Blocks (a PIN hashed, the holds file locked): call it off an
    event loop."""
    holds = Path(ask.users).parent / HOLDS_FILE
    lock_path = holds.with_name(holds.name + ".lock")
    try:
        if not Path(ask.users).is_file():
            raise OSError(f"{ask.users}: no such file")
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        return _own(f"the users file or the sign-off holds cannot be used: {exc}")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the processes take turns: no failure counted over another's
        if holds.exists():  # a hold that cannot be written would hold nothing: refuse rather
            try:
                with open(holds, "r+b"):
                    pass
            except OSError as exc:
                return _own(f"the sign-off holds file cannot be written: {exc}")
        try:  # the pit's audit log, beside the users file: the table's writer, its entries
            audit = AuditLog.open(holds.parent)
        except AuditError as exc:  # a sign-off not audited would leave a guess unseen: refuse rather
            return _own(f"the pit's audit log cannot be written: {exc}")
        try:
            gate = SignOff(users=ask.users, rights=RightsConfig(), audit=audit, holds_file=holds, users_once=True,
                           relays=ask.relays, clock=ask.clock,
                           context={"via": ask.via, "table": ask.table, "session": ask.session, "seat": ask.seat,
                                    "action": "adjust"})
            step = Command("rating", {"action": "adjust", "seat": ask.seat}, id="pit",
                           auth=Auth(ask.supervisor, pin, at=ask.by))
            admission = gate.admit(step, Caller("pit", key=ask.key, address=ask.address))
        finally:
            audit.close()
    finally:
        os.close(lock)
    if admission.refusal is None:
        return None
    found = dict(admission.refusal)
    throttled = {"throttled_s": gate.stepped} if gate.stepped is not None else {}  # for the pit's alert
    return {**found, "error": str(found["error"]).removeprefix("rating: "), **throttled}


def _own(error: str) -> dict[str, Any]:
    """A refusal before the gate (the holds or the audit log unusable), in the table's words for it."""
    return {"ok": False, "code": "forbidden", "error": error, "say": {"key": "refusal.sign_off_no_users", "args": {}}}
