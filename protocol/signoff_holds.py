"""Sign-offs held back from a console that keeps failing them: counted per sending key, longer each time, kept across restarts.

The rule (`docs/security.md`, Sign-off): a failed sign-off (no such user, a wrong PIN, a user who
is not a supervisor: one and the same refusal) counts against the key that sent it, never against
the user it names. `MAX_FAILED` failures from one key hold every sign-off from that key for
`HOLD_S`; each further hold of the same key lasts twice as long (at most `MAX_HOLD_S`), and the
count of holds is forgotten after `FORGET_S` without one. A right sign-off from the key sets its
count of failures back to 0 (not its holds). So:

- a lock-out campaign holds only the attacker's own key: a supervisor is never locked, and signs
  off from any other console (the pit's, another dealer's) at once;
- a brute force gets `MAX_FAILED` guesses per hold, the holds doubling up to a day: about
  `MAX_FAILED` guesses a day per key after the first hours, and the keys are the few the clients
  directory lists.

A gate that throttles its relays (`SignOff.relays = "throttle"`: the pit's web process, whose pit bosses are signed
in; or, at the table, the keys of `SignOff.throttled_keys`, `[security] signed_in_relays`: the display's consoles, the
floor's `/pit/rating`) never holds the relaying key as a whole: past `MAX_FAILED_RELAYED` failures relayed for all its people, the key's
PIN checks are spaced (`THROTTLE_S`, twice as far every `THROTTLE_STEP` failures, at most `THROTTLE_MAX_S`), each
person told to wait keeping their turn, while each person is still held at `MAX_FAILED`: so a few accounts failing
slow the others down, a turn or so each, and never hold them.

Holds are written to a JSON file in the controller's state directory (mode 0600, replaced whole)
on every change, in wall-clock seconds: a restart keeps them. A file that cannot be read is logged
and counted empty; an `until` further than `MAX_HOLD_S` ahead (a clock set back) is cut to it.

>>> holds = Holds(None)
>>> [holds.failed("console-3", 0.0) for _ in range(5)]
[None, None, None, None, 300.0]
>>> holds.held("console-3", 10.0), holds.held("pit-1", 10.0)
(290.0, 0.0)
>>> [holds.failed("console-3", 400.0) for _ in range(5)][-1]
600.0
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict

from protocol.file_modes import write_secret

log = logging.getLogger("croupier.signoff")

MAX_FAILED = 5
"""Failed sign-offs from one key (or one person at a relaying console) before its sign-offs are held."""
MAX_FAILED_RELAYED = 20
"""Failed sign-offs relayed by one key for the people signed in at its consoles (the display's relay:
every web console shares its key) before all of that key's relayed sign-offs are held (`held`), or, at a gate
that throttles its relays (the pit's web process), before its PIN checks are spaced (`turn`)."""
THROTTLE_S = 5.0
"""A throttled key's PIN checks are this far apart at first,"""
THROTTLE_STEP = 10
"""twice as far apart at each further this many failures,"""
THROTTLE_MAX_S = 60.0
"""at most this far apart (a pit boss not held waits one spacing a person waiting before them, never more);"""
THROTTLE_FORGET_S = 3600.0
"""and a key's relayed failures are forgotten after this long without one (a right sign-off forgets none)."""
MAX_TURNS = 64
"""Turns kept at most per throttled key (a person told to wait keeps theirs: no one else takes it)."""
HOLD_S = 300.0
"""The first hold: five minutes."""
MAX_HOLD_S = 86400.0
"""A hold lasts at most a day."""
FORGET_S = 86400.0
"""A key held no more for this long starts again from the first hold."""
MAX_KEYS = 4096
"""Keys kept at most (the one heard from longest ago and not held drops out first)."""

HOLDS_FILE = "signoff-holds.json"
"""The holds' file in the controller's state directory."""


class SavedHolds(TypedDict):
    """One key's record as the file keeps it (`KeyHolds`)."""

    failed: int
    holds: int
    until: float
    last_hold: float


class SavedThrottle(TypedDict):
    """One relaying key's throttle as the file keeps it (`Throttle`): the turns kept, person -> when."""

    failed: int
    last_failed: float
    next: float
    turns: dict[str, float]
    since: NotRequired[float]
    kind: NotRequired[str]


class SignoffAlert(TypedDict):
    """A relaying key's sign-offs slowed down, on the table's feeds (`signoff_alert`: the pit's tile, surveillance):
    since when (epoch seconds), the checks' spacing now, the kind of key (`consoles`: the display's dealer consoles;
    `pit`: the floor's `/pit/rating`; `relay`: another) and when it ends unless one more fails. Never a name or a
    PIN."""

    since: float
    spacing_s: float
    kind: str
    until: float


class SavedState(TypedDict):
    """The holds' file: every key's record and every relaying key's throttle, by key."""

    keys: dict[str, SavedHolds]
    throttles: dict[str, SavedThrottle]


@dataclass(slots=True)
class KeyHolds:
    """One key's record: failures since its last right sign-off or hold, holds so far, held until when."""

    failed: int = 0
    holds: int = 0
    until: float = 0.0
    last_hold: float = 0.0


@dataclass(slots=True)
class Throttle:
    """One relaying key's throttle: its relayed failures (since `last_failed`, none forgotten by a right sign-off),
    when the next turn is free, and the turns kept for the people told to wait (person: when)."""

    failed: int = 0
    last_failed: float = 0.0
    next: float = 0.0
    turns: dict[str, float] = field(default_factory=dict)
    since: float = 0.0  # when its checks began to be spaced (0.0: not yet)
    kind: str = "relay"  # the key's kind, for the alert (`SignoffAlert`)

    def spacing(self) -> float:
        """Seconds between two PIN checks at the key (0.0: not throttled)."""
        if self.failed < MAX_FAILED_RELAYED:
            return 0.0
        doublings: int = min((self.failed - MAX_FAILED_RELAYED) // THROTTLE_STEP, 20)
        return min(THROTTLE_MAX_S, THROTTLE_S * float(2 ** doublings))


class Holds:
    """Every key's failures and holds, and the relaying keys' throttles; `path` (None: kept in memory only) is where
    they are written."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._keys: OrderedDict[str, KeyHolds] = OrderedDict()
        self._throttles: dict[str, Throttle] = {}
        if self.path is not None:
            self._load()

    def held(self, key: str, now: float) -> float:
        """Seconds the key's sign-offs are still held (0.0: not held)."""
        record = self._keys.get(key)
        return max(0.0, min(record.until - now, MAX_HOLD_S)) if record is not None else 0.0

    def failed(self, key: str, now: float, most: int = MAX_FAILED) -> float | None:
        """Count one failed sign-off from `key` (held at the `most`-th). Returns the seconds of the hold it
        starts, or None."""
        record = self._record(key)
        if record.holds and now - max(record.last_hold, record.until) > FORGET_S:
            record.holds = 0
        record.failed += 1
        started = None
        if record.failed >= most:
            started = min(MAX_HOLD_S, HOLD_S * 2 ** min(record.holds, 20))
            record.failed, record.holds, record.until, record.last_hold = 0, record.holds + 1, now + started, now
        self._save()
        return started

    def passed(self, key: str) -> None:
        """A right sign-off from `key`: its failures are forgotten (its holds are not)."""
        record = self._keys.get(key)
        if record is not None and record.failed:
            record.failed = 0
            self._save()

    def turn(self, key: str, person: str, now: float) -> float:
        """A PIN check for `person` at the relaying `key`: 0.0, checked now (the turn taken), or the seconds until the
        turn kept for them (the next free one, or the one they were given before: never another's)."""
        throttle = self._throttle(key, now)
        spacing = throttle.spacing()
        if not spacing:
            return 0.0
        kept = throttle.turns.get(person)
        if kept is not None and now > kept + spacing:  # not taken in time: given up
            del throttle.turns[person]
            kept = None
        if kept is not None:
            if now >= kept:
                del throttle.turns[person]
                self._save()
            return max(0.0, kept - now)
        # a clock set back, or a file written so: never further than every kept turn and this one
        free = max(now, min(throttle.next, now + spacing * (len(throttle.turns) + 1)))
        throttle.next = free + spacing
        if free > now:
            if len(throttle.turns) >= MAX_TURNS:
                del throttle.turns[min(throttle.turns, key=throttle.turns.__getitem__)]
            throttle.turns[person] = free
        self._save()
        return free - now

    def relayed_failed(self, key: str, now: float, kind: str = "relay") -> float | None:
        """Count one failed sign-off relayed by `key` (of `kind`, for the alert) against its throttle. Returns the
        checks' new spacing when this failure changed it (the throttle begun or slowed), or None."""
        throttle = self._throttle(key, now)
        before = throttle.spacing()
        throttle.failed, throttle.last_failed, throttle.kind = throttle.failed + 1, now, kind
        after = throttle.spacing()
        if after:  # the next check a spacing after this one at the soonest, whoever asks
            throttle.next = max(throttle.next, now + after)
            throttle.since = throttle.since if before else now
        self._save()
        return after if after != before else None

    def spacing(self, key: str, now: float) -> float:
        """The seconds between two PIN checks at the relaying `key` now (0.0: not throttled)."""
        throttle = self._throttles.get(key)
        if throttle is None or now - throttle.last_failed > THROTTLE_FORGET_S:
            return 0.0
        return throttle.spacing()

    def alert(self, now: float) -> SignoffAlert | None:
        """The throttle spacing its checks furthest apart now, as the feeds show it, or None (no key throttled)."""
        shown: SignoffAlert | None = None
        for key, throttle in self._throttles.items():
            spacing = self.spacing(key, now)
            if spacing and (shown is None or spacing > shown["spacing_s"]):
                shown = SignoffAlert(since=throttle.since or throttle.last_failed, spacing_s=spacing,
                                     kind=throttle.kind, until=throttle.last_failed + THROTTLE_FORGET_S)
        return shown

    def _throttle(self, key: str, now: float) -> Throttle:
        throttle = self._throttles.get(key)
        if throttle is None or now - throttle.last_failed > THROTTLE_FORGET_S:
            throttle = self._throttles[key] = Throttle()
        return throttle

    def _record(self, key: str) -> KeyHolds:
        record = self._keys.get(key)
        if record is None:
            record = self._keys[key] = KeyHolds()
            if len(self._keys) > MAX_KEYS:
                self._drop_one()
        else:
            self._keys.move_to_end(key)
        return record

    def _drop_one(self) -> None:
        for name, record in self._keys.items():
            if not record.holds:
                del self._keys[name]
                return
        self._keys.popitem(last=False)

    # -- the file ---------------------------------------------------------------------------------

    def _load(self) -> None:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("%s: sign-off holds cannot be read (%s): counted empty", self.path, exc)
            return
        try:
            for key, record in dict(data["keys"]).items():
                held = KeyHolds(int(record["failed"]), int(record["holds"]), float(record["until"]),
                                float(record["last_hold"]))
                self._keys[str(key)] = held
            for key, record in dict(data.get("throttles", {})).items():
                turns = {str(p): float(t) for p, t in dict(record["turns"]).items()}
                self._throttles[str(key)] = Throttle(int(record["failed"]), float(record["last_failed"]),
                                                     float(record["next"]), turns, float(record.get("since", 0.0)),
                                                     str(record.get("kind", "relay")))
        except (KeyError, TypeError, ValueError) as exc:
            log.error("%s: sign-off holds not as written (%s): counted empty", self.path, exc)
            self._keys.clear()
            self._throttles.clear()

    def saved(self) -> SavedState:
        """What the file keeps: every key's record and every throttle."""
        return {"keys": {k: SavedHolds(failed=v.failed, holds=v.holds, until=v.until, last_hold=v.last_hold)
                         for k, v in self._keys.items()},
                "throttles": {k: SavedThrottle(failed=v.failed, last_failed=v.last_failed, next=v.next,
                                               turns=dict(v.turns), since=v.since, kind=v.kind)
                              for k, v in self._throttles.items()}}

    def _save(self) -> None:
        if self.path is None:
            return
        text = json.dumps(self.saved(), sort_keys=True)
        try:
            write_secret(self.path, text)
        except OSError as exc:  # the hold stands in memory; a restart would forget it
            log.error("%s: sign-off holds cannot be written: %s", self.path, exc)
