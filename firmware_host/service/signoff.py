"""The command channel's gate: the caller's rights (`[rights]`) and a supervisor's sign-off for privileged steps.

A request from a caller (`access.Caller`; None, the controller's own process, is never checked)
is admitted when the caller's role may send its command, or when the command is one its role may
relay (`access.RELAYS`: the dealer's console and the pit relay what a supervisor signs) and a
supervisor signed it off: a sign-off never lets a role send what it may not, and a role that may
not send a command is refused before any PIN is looked at. Privileged steps need that sign-off
whoever relays them: `clear`, `void`, `chop`, `clock`, `correct` (`access.SIGN_OFF`), a `card`
entered by hand, and an `open` with new limits or a new profile (`open_is_new`). A PIN is checked
only where a sign-off counts: an `auth` on any other request is ignored, never hashed.
A sign-off is the request's `auth = {"user": NAME, "pin": PIN}`: a user of the users file (`[security] users`) with the role `supervisor`, and the PIN matching its scrypt hash.
Five wrong PINs for one user lock that user for `LOCK_S`; a locked user is refused even with the
right PIN. Every refusal is `{"ok": false, "code": "forbidden", ...}` and nothing is journaled.

The audit log gets `signoff_granted` and `signoff_refused` (user, command, reason), `user_locked`
and `forbidden` (role, key, command); never a PIN.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import Say, say
from firmware_host.service.access import RELAYS, SIGN_OFF, Caller
from firmware_host.service.audit import AuditLog
from firmware_host.service.commands import Command, error_reply
from firmware_host.service.config import RightsConfig
from firmware_host.service.users import Users, UsersError
from firmware_host.tables.base import GameSetup
from firmware_host.tables.registry import open_setup

log = logging.getLogger("croupier.signoff")

SIGNER_ROLE = "supervisor"
MAX_WRONG_PINS = 5
LOCK_S = 300.0
"""Five wrong PINs lock the user for five minutes."""

_OPEN_TERMS = ("game", "profile", "limits", "structure", "stakes", "rake")
"""What an `open` may not change without a sign-off: the game, its paytable profile, its limits
(a poker table's structure, stakes and rake)."""


@dataclass(slots=True)
class Admission:
    """What the gate said of one request: a refusal reply, or who signed it off (None: nobody)."""

    refusal: dict[str, Any] | None = None
    signed_off: dict[str, Any] | None = None


@dataclass(slots=True)
class _Tries:
    wrong: int = 0
    locked_until: float = 0.0


@dataclass(slots=True)
class SignOff:
    """The gate of one controller. `users` is the users file's path ("": none configured); it is
    read again whenever it changes on disk. `clock` gives the seconds the lock is counted in."""

    users: str
    rights: RightsConfig
    audit: AuditLog | None = None
    clock: Callable[[], float] = time.monotonic
    _tries: dict[str, _Tries] = field(default_factory=dict)
    _loaded: tuple[tuple[int, int, int], Users] | None = None

    def __post_init__(self) -> None:
        """The users file as the controller starts, in the audit log (`users_loaded`); a file that
        cannot be read now is logged and every sign-off refused until it can."""
        if self.users:
            try:
                self._users()
            except UsersError as exc:
                log.error("users file: %s", exc)

    def admit(self, cmd: Command, caller: Caller | None) -> Admission:
        """The gate's word on a request before anything is journaled (see the module docstring)."""
        if caller is None:
            return Admission()
        may = self.rights.allows(caller.role, cmd.cmd)
        relayed = caller.role in RELAYS and self.rights.allows(SIGNER_ROLE, cmd.cmd)
        privileged = cmd.cmd in SIGN_OFF or cmd.cmd == "card"
        if not may and not (relayed and (cmd.auth is not None or privileged)):  # before any PIN is looked at
            return self._forbidden(cmd, caller)
        needed = cmd.cmd in SIGN_OFF or cmd.cmd in ("card", "open") or not may
        signer: str | None = None
        if cmd.auth is not None and needed:  # a PIN is checked only where a sign-off counts
            problem = self._check_pin(cmd.auth.user, cmd.auth.pin)
            if problem is not None:
                return self._refuse_sign_off(cmd, caller, cmd.auth.user, *problem)
            signer = cmd.auth.user
        if signer is None and (privileged or not may):
            return Admission(refusal=self.needs_sign_off(cmd, caller, "a card entered by hand" if cmd.cmd == "card"
                                                         else cmd.cmd))
        if signer is None:
            return Admission()
        self._write("signoff_granted", {"user": signer, "command": cmd.cmd, "role": caller.role, "key": caller.key})
        signed = {"user": signer, "caller_role": caller.role}
        if caller.key is not None:
            signed["caller_key"] = caller.key
        return Admission(signed_off=signed)

    def needs_sign_off(self, cmd: Command, caller: Caller, what: str) -> dict[str, Any]:
        """The refusal (a reply) of a privileged step that came without a sign-off."""
        reason = f"{what} needs a supervisor's sign-off: send auth = {{user, pin}}"
        if not self.users:
            reason += " (no users file is configured: [security] users)"
        refusal = self._refuse_sign_off(cmd, caller, None, reason, say("refusal.sign_off_needed")).refusal
        assert refusal is not None
        return refusal

    # -- the PIN ------------------------------------------------------------------------------------

    def _check_pin(self, name: str, pin: str) -> tuple[str, Say] | None:
        """Why `name`'s sign-off with `pin` is refused (in English and in a person's words), or None when it holds."""
        if not self.users:
            return ("no users file is configured ([security] users): no one can sign off",
                    say("refusal.sign_off_no_users"))
        try:
            users = self._users()
        except UsersError as exc:
            log.error("sign-off refused: %s", exc)
            return f"the users file cannot be read: {exc}", say("refusal.sign_off_no_users")
        tries = self._tries.setdefault(name, _Tries())
        now = self.clock()
        if tries.locked_until > now:
            left = round(tries.locked_until - now)
            return (f"user {name!r} is locked after {MAX_WRONG_PINS} wrong PINs for {tries.locked_until - now:.0f} s more",
                    say("refusal.sign_off_locked", user=name, seconds=left))
        user = users.get(name)
        if user is None:
            self._tries.pop(name, None)
            return f"no user {name!r} in the users file", say("refusal.sign_off_wrong_pin", user=name)
        if not user.pin_matches(pin):
            tries.wrong += 1
            if tries.wrong >= MAX_WRONG_PINS:
                tries.wrong, tries.locked_until = 0, now + LOCK_S
                log.warning("user %r locked for %.0f s after %d wrong PINs", name, LOCK_S, MAX_WRONG_PINS)
                self._write("user_locked", {"user": name, "seconds": LOCK_S, "wrong_pins": MAX_WRONG_PINS})
                return (f"wrong PIN for {name!r}: {MAX_WRONG_PINS} wrong PINs, the user is locked for {LOCK_S:.0f} s",
                        say("refusal.sign_off_locked", user=name, seconds=round(LOCK_S)))
            return (f"wrong PIN for {name!r} ({MAX_WRONG_PINS - tries.wrong} more and the user is locked)",
                    say("refusal.sign_off_wrong_pin", user=name))
        if user.role != SIGNER_ROLE:
            return (f"user {name!r} is a {user.role}: only a {SIGNER_ROLE} signs off",
                    say("refusal.sign_off_not_supervisor", user=name))
        tries.wrong = 0
        return None

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
            self._write("users_loaded", {"file": self.users, "users": listed})
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

    def _refuse_sign_off(self, cmd: Command, caller: Caller, user: str | None, reason: str, said: Say) -> Admission:
        self._write("signoff_refused", {"user": user, "command": cmd.cmd, "reason": reason, "role": caller.role,
                                        "key": caller.key})
        return Admission(refusal=error_reply(cmd.id, "forbidden", f"{cmd.cmd}: {reason}", said))

    def _forbidden(self, cmd: Command, caller: Caller) -> Admission:
        self._write("forbidden", {"role": caller.role, "key": caller.key, "command": cmd.cmd,
                                  "address": caller.address})
        return Admission(refusal=error_reply(
            cmd.id, "forbidden", f"{cmd.cmd}: the role {caller.role!r} may not send it ([rights])",
            say("refusal.forbidden", role=caller.role)))

    def _write(self, kind: str, details: Mapping[str, Any]) -> None:
        if self.audit is not None:
            self.audit.write(kind, details)


def open_is_new(body: Mapping[str, Any], now_open: GameSetup | None, configured: GameSetup | None,
                seats: int) -> bool:
    """Whether an `open` (its body as journaled) sets a game, profile or limits other than the table
    open now (or, with none open, the configuration's table): then it needs a sign-off. An open
    that cannot be read is counted new (it is refused either way)."""
    reference = now_open if now_open is not None else configured
    if reference is None:
        return True
    try:
        return _terms(body, seats) != _terms(reference.as_body(), seats)
    except Exception:  # a body the table would refuse: it takes a sign-off, and then is refused
        return True


def _terms(body: Mapping[str, Any], seats: int) -> tuple[Any, ...]:
    spelt = open_setup(body, seats).as_body()
    profile = spelt.get("profile")
    if isinstance(profile, Mapping):
        profile = profile.get("sha256")
    return tuple(profile if key == "profile" else spelt.get(key) or None for key in _OPEN_TERMS)
