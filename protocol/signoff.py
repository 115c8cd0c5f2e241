"""The command channel's gate: the caller's rights (`[rights]`) and a supervisor's sign-off for privileged steps.

A request from a caller (`access.Caller`; None, the controller's own process, is never checked)
is admitted when the caller's role may send its command, or when the command is one its role may
relay (`access.RELAYS`: the dealer's console and the pit relay what a supervisor signs) and a
supervisor signed it off: a sign-off never lets a role send what it may not, and a role that may
not send a command is refused before any PIN is looked at. Privileged steps need that sign-off
whoever relays them: `clear`, `void`, `chop`, `clock`, `correct` (`access.SIGN_OFF`), a `card`
entered by hand, and an `open` with new limits or a new profile (`tables.registry.open_is_new`). A PIN is checked
only where a sign-off counts: an `auth` on any other request is ignored, never hashed.
A sign-off is the request's `auth = {"user": NAME, "pin": PIN}`: a user of the users file (`[security] users`) with the role `supervisor`, and the PIN matching its scrypt hash.

A failed sign-off gets one and the same refusal whatever failed (no such user, a wrong PIN, a user
who is not a supervisor), after the same work (a name not in the file is hashed against a dummy):
neither the words nor the time tell which. Failures count against the key that sent them, never
the user (`service.signoff_holds`: the key's sign-offs held, longer each time, kept across
restarts; a gate with `relays="throttle"`, the pit's web process, or a key in `throttled_keys`, a web process whose
people sign in (the table's `[security] signed_in_relays`: the display's consoles, the pit's `/pit/rating`), spaces
the relaying key's PIN checks past its people's twentieth failure instead of holding it). Each key may have
`PIN_CHECKS_PER_S` PINs checked a second (bursts of `PIN_BURST`); past it, `busy` with
`retry_s` and nothing hashed. Refusals are `forbidden` (or `busy`) and
nothing is journaled.

The hash costs tens of milliseconds: the controller's loop has it done off its thread
(`pin_check` gives the work, `admit(..., verdict)` takes its result; `service.pin_checks`); called
without a verdict, `admit` hashes at once (the director, tests driving a table in-process).

The audit log gets `signoff_granted` and `signoff_refused` (user, command, the reason as it is, the person relayed
for: `at`), `signoff_held` (key, role, address, `at`, seconds) and `forbidden` (role, key, command); never a PIN.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import Say, say
from protocol.access import RELAYS, SIGN_OFF, Caller
from protocol.audit import AuditError, AuditLog, Entry
from protocol.commands import Auth, Command, error_reply
from protocol.requests import Refusal
from protocol.signed import SignedOff
from protocol.config import RightsConfig
from protocol.fairness import Buckets
from protocol.signoff_holds import MAX_FAILED, MAX_FAILED_RELAYED, Holds
from protocol.users import User, Users, UsersError

log = logging.getLogger("croupier.signoff")

SIGNER_ROLE = "supervisor"
PIN_CHECKS_PER_S = 1.0
PIN_BURST = 10
RELAY_KINDS = {"dealer": "consoles", "pit": "pit"}
"""A throttled key's kind on the feeds' alert (`signoff_holds.SignoffAlert`), by its role: the display's consoles, the
floor's `/pit/rating`; any other `relay`."""
"""PINs one key may have checked: one a second, ten at once (a supervisor keying in a misdeal's cards by hand)."""
AUDIT_WINDOW_S = 10.0
AUDIT_MOST = 20
"""Refusals that cost no hash (no sign-off, held, busy, forbidden) audited one by one within a window at most."""
REFUSED = "sign-off refused: wrong user or PIN, or the user is not a supervisor"
"""The one refusal of every failed sign-off (the audit log keeps which it was)."""



@dataclass(slots=True)
class Admission:
    """What the gate said of one request: a refusal reply, or who signed it off (None: nobody)."""

    refusal: Refusal | None = None
    signed_off: SignedOff | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """What hashing a sign-off's PIN found: the user it names (None: no such user) and whether the PIN is theirs."""

    user: User | None
    matched: bool


_DUMMY = User("", SIGNER_ROLE, os.urandom(16), os.urandom(32))
"""The user a name not in the file is checked against: the same work, never a match."""


def hash_check(user: User | None, pin: str) -> Verdict:
    """Hash `pin` against `user` (a name not in the file: None, checked against a dummy). Thread-safe."""
    if user is None:
        _DUMMY.pin_matches(pin)
        return Verdict(None, False)
    return Verdict(user, user.pin_matches(pin))


@dataclass(slots=True)
class SignOff:
    """The gate of one controller. `users` is the users file's path ("": none configured); it is
    read again whenever it changes on disk. `clock` gives the seconds the lock is counted in. `context`: what every
    sign-off's audit entry carries besides (the pit's terminal: the step's table, session and seat)."""

    users: str
    rights: RightsConfig
    audit: AuditLog | None = None
    holds_file: str | Path | None = None
    clock: Callable[[], float] = time.time
    context: Mapping[str, Any] = field(default_factory=dict)  # added to each sign-off's entry: what it was for
    users_once: bool = False  # `users_loaded` only when the file's sha256 differs from the log's last (a run a step)
    relays: str = "hold"  # "throttle": a relaying key's people's failures together space its checks, never hold it
    throttled_keys: frozenset[str] = frozenset()  # the keys throttled so whatever `relays` says (people signed in)
    _loaded: tuple[tuple[int, int, int], Users] | None = None
    _budgets: Buckets = field(default_factory=lambda: Buckets(PIN_CHECKS_PER_S, PIN_BURST))
    _window: float = 0.0
    _in_window: int = 0
    _suppressed: dict[str, int] = field(default_factory=dict)
    holds: Holds = field(init=False)
    stepped: float | None = field(default=None, init=False)  # the spacing this admission's failure began or slowed

    def __post_init__(self) -> None:
        """The users file as the controller starts, in the audit log (`users_loaded`); a file that
        cannot be read now is logged and every sign-off refused until it can. The holds as written."""
        self.holds = Holds(self.holds_file)
        if self.users:
            try:
                self._users()
            except UsersError as exc:
                log.error("users file: %s", exc)

    def admit(self, cmd: Command, caller: Caller | None, verdict: Verdict | None = None) -> Admission:
        """The gate's word on a request before anything is journaled (see the module docstring).
        `verdict`: the hash of its sign-off's PIN, done off the loop (`pin_check`); None: hashed now if needed."""
        self.stepped = None
        if caller is None:
            return Admission()
        if self._forbids(cmd, caller):  # before any PIN is looked at
            return self._forbidden(cmd, caller)
        may = self.rights.allows(caller.role, cmd.cmd)
        privileged = cmd.cmd in SIGN_OFF or cmd.cmd == "card"
        signer: str | None = None
        if cmd.auth is not None and self._counts(cmd, caller):  # a PIN is checked only where a sign-off counts
            problem = self._sign_off(cmd.auth, caller, verdict)
            if problem is not None:
                refused = self._refuse_sign_off(cmd, caller, cmd.auth.user, *problem)
                if refused.refusal is not None and self.stepped is not None:  # for the relaying process's alert
                    refused.refusal["throttled_s"] = self.stepped
                return refused
            signer = cmd.auth.user
        if signer is None and (privileged or not may):
            return Admission(refusal=self.needs_sign_off(cmd, caller, "a card entered by hand" if cmd.cmd == "card"
                                                         else cmd.cmd))
        if signer is None:
            return Admission()
        self._write("signoff_granted", {"user": signer, "command": cmd.cmd, "role": caller.role, "key": caller.key,
                                        **self._about(cmd)})
        signed: SignedOff = {"user": signer, "caller_role": caller.role}
        if caller.key is not None:
            signed["caller_key"] = caller.key
        return Admission(signed_off=signed)

    def pin_check(self, cmd: Command, caller: Caller | None) -> Callable[[], Verdict] | None:
        """The hashing a request's sign-off needs, to be done off the loop and its result given to
        `admit`; None when `admit` needs no hash (no sign-off counts here, or it is refused without
        one: the key held or over its budget, no users file). Takes from the key's budget."""
        if caller is None or cmd.auth is None or not self.wants_pin(cmd, caller) \
                or self._before_hash(caller, cmd.auth) is not None:
            return None
        return functools.partial(hash_check, self._users().get(cmd.auth.user), cmd.auth.pin)

    def wants_pin(self, cmd: Command, caller: Caller) -> bool:
        """Whether the request carries a sign-off that counts (its PIN is checked, unless refused before)."""
        return cmd.auth is not None and not self._forbids(cmd, caller) and self._counts(cmd, caller)

    def _forbids(self, cmd: Command, caller: Caller) -> bool:
        """Whether the caller's role may neither send the command nor relay it (a sign-off adds nothing)."""
        if self.rights.allows(caller.role, cmd.cmd):
            return False
        relayed = caller.role in RELAYS and self.rights.allows(SIGNER_ROLE, cmd.cmd)
        privileged = cmd.cmd in SIGN_OFF or cmd.cmd == "card"
        return not (relayed and (cmd.auth is not None or privileged))

    def _counts(self, cmd: Command, caller: Caller) -> bool:
        """Whether a sign-off counts on this request (an `auth` anywhere else is ignored, never hashed)."""
        return cmd.cmd in SIGN_OFF or cmd.cmd in ("card", "open") or not self.rights.allows(caller.role, cmd.cmd)

    def needs_sign_off(self, cmd: Command, caller: Caller, what: str) -> Refusal:
        """The refusal (a reply) of a privileged step that came without a sign-off."""
        reason = f"{what} needs a supervisor's sign-off: send auth = {{user, pin}}"
        if not self.users:
            reason += " (no users file is configured: [security] users)"
        refusal = self._refuse_sign_off(cmd, caller, None, reason, say("refusal.sign_off_needed")).refusal
        assert refusal is not None
        return refusal

    # -- the PIN ------------------------------------------------------------------------------------

    def _sign_off(self, auth: Auth, caller: Caller, verdict: Verdict | None) -> tuple[str, Say, str, str] | None:
        """Why the sign-off is refused (English, a person's words, the code, what the audit log keeps), or None."""
        if verdict is None:
            refused = self._before_hash(caller, auth)
            if refused is not None:
                return refused
            verdict = hash_check(self._users().get(auth.user), auth.pin)
        else:
            refused = self._held(caller, auth)
            if refused is not None:  # held meanwhile, by the failures checked beside this one
                return refused
            try:
                now_user = self._users().get(auth.user)
            except UsersError as exc:
                why = f"the users file cannot be read: {exc}"
                return why, say("refusal.sign_off_no_users"), "forbidden", why
            if now_user != verdict.user:  # the users file changed meanwhile: check the PIN as it is now
                verdict = hash_check(now_user, auth.pin)
        if verdict.user is None or not verdict.matched or verdict.user.role != SIGNER_ROLE:
            why = (f"no user {auth.user!r} in the users file" if verdict.user is None
                   else f"wrong PIN for {auth.user!r}" if not verdict.matched
                   else f"user {auth.user!r} is a {verdict.user.role}: only a {SIGNER_ROLE} signs off")
            for sender, most, at in self._senders(caller, auth):
                held = self.holds.failed(sender, self.clock(), most)
                if held is not None:
                    log.warning("sign-offs from %s held for %.0f s after %d failed", sender, held, most)
                    self._write("signoff_held", {"key": caller.key, "role": caller.role, "address": caller.address,
                                                 "at": at, "seconds": held, "failed": most, **self.context})
            self._throttle_failed(caller, auth)
            return REFUSED, say("refusal.sign_off_refused"), "forbidden", why
        for sender, _, _ in self._senders(caller, auth):
            self.holds.passed(sender)
        return None

    def _before_hash(self, caller: Caller, auth: Auth) -> tuple[str, Say, str, str] | None:
        """A refusal that needs no hash (no users file, the key held or over its budget), or None;
        takes one from the key's budget when it gives none."""
        if not self.users:
            why = "no users file is configured ([security] users): no one can sign off"
            return why, say("refusal.sign_off_no_users"), "forbidden", why
        try:
            self._users()
        except UsersError as exc:
            log.error("sign-off refused: %s", exc)
            why = f"the users file cannot be read: {exc}"
            return why, say("refusal.sign_off_no_users"), "forbidden", why
        refused = self._held(caller, auth)
        if refused is not None:
            return refused
        now = self.clock()
        sender = _senders(caller, auth)[0][0]  # the most particular: the person at a relaying console
        if self._throttles(caller) and auth.at is not None:
            wait = self.holds.turn(f"{_sender(caller)} relaying", auth.at, now)
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                why = (f"sign-offs from this console are slowed after many failed ones: {auth.at}'s turn comes in "
                       f"{seconds} s")
                return why, say("refusal.sign_off_throttled", seconds=seconds), "busy", why
        budget = self._budgets.of(sender, now)
        if not budget.take(now):
            wait = max(1, math.ceil(budget.wait(now)))
            why = f"too many sign-offs from this console: at most {PIN_CHECKS_PER_S:g} a second; send again in {wait} s"
            return why, say("refusal.sign_off_busy", seconds=wait), "busy", why
        return None

    def _senders(self, caller: Caller, auth: Auth) -> list[tuple[str, int, str | None]]:
        """Whom a failure counts against and who is held (`_senders`); a throttling gate's relaying key is throttled
        instead (`_throttle_failed`), never held."""
        found = _senders(caller, auth)
        return found[:1] if self._throttles(caller) else found

    def _throttles(self, caller: Caller) -> bool:
        """Whether the caller's relayed failures space its PIN checks (its people sign in at a web process) rather
        than hold it whole (a key whose `at` is whoever runs it types: a terminal, a technician's tool)."""
        return self.relays == "throttle" or _sender(caller) in self.throttled_keys

    def _throttle_failed(self, caller: Caller, auth: Auth) -> None:
        """A throttling gate counts a relayed failure against the key's throttle; its change audited and logged."""
        if not self._throttles(caller) or auth.at is None:
            return
        key = f"{_sender(caller)} relaying"
        spacing = self.holds.relayed_failed(key, self.clock(), RELAY_KINDS.get(caller.role, "relay"))
        if spacing is not None:
            self.stepped = spacing
            log.warning("sign-offs relayed by %s: many failed (last by %s at %s): PIN checks %.0f s apart", key,
                        auth.at, caller.address, spacing)
            self._write("signoff_throttled", {"key": caller.key, "role": caller.role, "address": caller.address,
                                              "at": auth.at, "spacing_s": spacing, **self.context})

    def _held(self, caller: Caller, auth: Auth) -> tuple[str, Say, str, str] | None:
        now = self.clock()
        left = max(self.holds.held(sender, now) for sender, _, _ in self._senders(caller, auth))
        if not left:
            return None
        seconds = max(1, round(left))
        why = f"sign-offs from this console are held for {seconds} s more after too many failed ones"
        return why, say("refusal.sign_off_held", seconds=seconds), "forbidden", why

    def _users(self) -> Users:
        """The users file as it is now on disk (read again when it changed). Raises UsersError."""
        try:
            st = os.stat(self.users)
        except OSError as exc:
            raise UsersError(f"{self.users}: cannot read: {exc.strerror or exc}") from None
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self._loaded is None or self._loaded[0] != stamp:
            users = Users.load(self.users)
            self._audit_users(self._loaded[1] if self._loaded is not None else None, users)
            self._loaded = (stamp, users)
        return self._loaded[1]

    def _audit_users(self, before: Users | None, now: Users) -> None:
        """`users_loaded` (the first read) or `users_changed` (who was added, removed, or had their
        role or PIN changed): names and roles only, never a hash."""
        listed = [{"user": u.name, "role": u.role} for u in sorted(now.by_name.values(), key=lambda u: u.name)]
        if before is None:
            if not self.users_once:
                self._write("users_loaded", {"file": self.users, "users": listed})
                return
            digest = _sha256(self.users)
            last = self._last_users()
            if last is None or not isinstance(last.details, dict) or last.details.get("sha256") != digest:
                self._write("users_loaded", {"file": self.users, "users": listed, "sha256": digest})
            return
        old, new = before.by_name, now.by_name
        added = [{"user": n, "role": new[n].role} for n in sorted(new.keys() - old.keys())]
        removed = [{"user": n, "role": old[n].role} for n in sorted(old.keys() - new.keys())]
        changed = [{"user": n, "role": new[n].role, "was": old[n].role,
                    "pin_changed": (old[n].salt, old[n].hash) != (new[n].salt, new[n].hash)}
                   for n in sorted(old.keys() & new.keys()) if old[n] != new[n]]
        if added or removed or changed:
            self._write("users_changed", {"file": self.users, "added": added, "removed": removed, "changed": changed})

    # -- refusals -----------------------------------------------------------------------------------

    def _refuse_sign_off(self, cmd: Command, caller: Caller, user: str | None, reason: str, said: Say,
                         code: str = "forbidden", audited: str | None = None) -> Admission:
        """The refusal; in the audit log, a failed sign-off (its PIN hashed: `audited` says why) always, the
        refusals that cost no hash within `AUDIT_MOST` a window (a flood of them is counted)."""
        write = self._write if audited is not None and audited != reason else self._write_bounded
        write("signoff_refused", {"user": user, "command": cmd.cmd, "reason": audited or reason,
                                  "role": caller.role, "key": caller.key, **self._about(cmd)})
        refusal = error_reply(cmd.id, code, f"{cmd.cmd}: {reason}", said)
        if code == "busy":
            refusal["retry_s"] = said["args"].get("seconds", 1)
        return Admission(refusal=refusal)

    def _about(self, cmd: Command) -> dict[str, Any]:
        """What a sign-off's entry says besides: the person a console or the pit's terminal relays for (`at`), when
        one is named, and the gate's `context`."""
        at = {"at": cmd.auth.at} if cmd.auth is not None and cmd.auth.at is not None else {}
        return {**at, **self.context}

    def _forbidden(self, cmd: Command, caller: Caller) -> Admission:
        self._write_bounded("forbidden", {"role": caller.role, "key": caller.key, "command": cmd.cmd,
                                  "address": caller.address})
        return Admission(refusal=error_reply(
            cmd.id, "forbidden", f"{cmd.cmd}: the role {caller.role!r} may not send it ([rights])",
            say("refusal.forbidden", role=caller.role)))

    def turn(self) -> float:
        """Called each turn of the loop: a window's count of refusals not audited one by one is audited once it is
        over. Returns the seconds until it wants the next turn at the latest."""
        now = self.clock()
        if now >= self._window + AUDIT_WINDOW_S:
            self._close_window(now)
        return max(0.0, self._window + AUDIT_WINDOW_S - now) if self._suppressed else AUDIT_WINDOW_S

    def _write_bounded(self, kind: str, details: Mapping[str, Any]) -> None:
        """An entry of a refusal that cost no hash: at most `AUDIT_MOST` a window (each one an fsync on the loop's
        thread); past it counted, and the count audited when the window is over."""
        now = self.clock()
        if now >= self._window + AUDIT_WINDOW_S:
            self._close_window(now)
        if self._in_window >= AUDIT_MOST:
            self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
            return
        self._in_window += 1
        self._write(kind, details)

    def _close_window(self, now: float) -> None:
        for kind, count in sorted(self._suppressed.items()):
            log.warning("%d more %s refusals, not audited one by one", count, kind)
            self._write(kind, {"count": count, "reason": f"{count} more refused within {AUDIT_WINDOW_S:g} s, "
                                                         "not audited one by one"})
        self._window, self._in_window, self._suppressed = now, 0, {}

    def _last_users(self) -> Entry | None:
        """The audit log's latest `users_loaded` (None: none, or the log unread: written again rather than missed)."""
        try:
            return self.audit.last(["users_loaded"]) if self.audit is not None else None
        except AuditError as exc:
            log.error("audit log: %s", exc)
            return None

    def _write(self, kind: str, details: Mapping[str, Any]) -> None:
        if self.audit is not None:
            self.audit.write(kind, details)


def _sha256(path: str) -> str:
    """The file's SHA-256 (hex); "" when it cannot be read (then it differs from any written)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _sender(caller: Caller) -> str:
    """The sending key's name in the holds (every local client without one: `local`)."""
    return caller.key if caller.key is not None else "local"


def _senders(caller: Caller, auth: Auth) -> list[tuple[str, int, str | None]]:
    """Whom a sign-off's failures count against, each with the failures that hold it and the person it is (for
    the audit log): the sending key; or, when the key relays for the person signed in at a console (`auth.at`:
    the display's web consoles share its key), that person at that key, and all the key relays together
    (`MAX_FAILED_RELAYED`)."""
    key = _sender(caller)
    if auth.at is None:
        return [(key, MAX_FAILED, None)]
    return [(f"{key} at {auth.at}", MAX_FAILED, auth.at), (f"{key} relaying", MAX_FAILED_RELAYED, None)]
