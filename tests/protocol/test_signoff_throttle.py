"""A throttling gate's relays (`SignOff(relays="throttle")`, the pit's web process) under a flood: the PIN checks counted a minute of a fake clock, the throttle kept across a restart, a pit boss who is not held signing off at their turn."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from protocol.access import Caller
from protocol.audit import AuditLog
from protocol.commands import Auth, Command
from protocol.config import RightsConfig
from protocol.signoff import SignOff
from protocol.signoff_holds import (MAX_FAILED_RELAYED, MAX_TURNS, THROTTLE_FORGET_S, THROTTLE_MAX_S, THROTTLE_S,
                                    THROTTLE_STEP, Holds)
from protocol.users import Users
from tests.web.test_display_guard import cheap_user

PIN = "7315"
WEB = Caller("pit", key="pit-web", address="10.0.0.7")
ACCOUNTS = [f"boss{n}" for n in range(8)]
CAP_AFTER = MAX_FAILED_RELAYED + THROTTLE_STEP * math.ceil(math.log2(THROTTLE_MAX_S / THROTTLE_S))
"""The relayed failures after which the checks are `THROTTLE_MAX_S` apart."""


class Gate:
    """The web process's gate as `floor.pit_signoff` makes it, on a fake clock; `restart()` makes it again from the
    holds file (a new process)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.now = tmp, [1_800_000_000.0]
        Users({"sue": cheap_user("sue", "supervisor", PIN)}).save(tmp / "users.json")
        self.audit = AuditLog.open(tmp)
        self.restart()

    def restart(self) -> None:
        self.gate = SignOff(users=str(self.tmp / "users.json"), rights=RightsConfig(), audit=self.audit,
                            holds_file=self.tmp / "holds.json", users_once=True, relays="throttle",
                            clock=lambda: self.now[0])

    def ask(self, at: str, pin: str) -> str:
        """One sign-off for the pit boss `at`: "granted", or the refusal's words key."""
        step = Command("rating", {"action": "adjust", "seat": 3}, id="p", auth=Auth("sue", pin, at=at))
        refusal: Any = self.gate.admit(step, WEB).refusal
        return "granted" if refusal is None else str(refusal["say"]["key"])

    def wait(self, at: str) -> float:
        """The seconds until `at`'s turn (0.0: not throttled or their turn now), as the throttle keeps them."""
        throttle = self.gate.holds._throttles.get("pit-web relaying")
        return max(0.0, throttle.turns[at] - self.now[0]) if throttle and at in throttle.turns else 0.0


def test_a_flood_of_eight_accounts_is_counted_a_minute_and_a_pit_boss_not_held_signs_off(tmp_path: Path) -> None:
    """Eight accounts each asking every sixteen seconds for three hours, the web process started again every half hour:
    the PIN checks a minute never more than the throttle lets (twenty at first, then one a spacing), one a minute at
    most once it is at its cap; a pit boss who never failed then waits at most a spacing a turn kept before hers."""
    gate = Gate(tmp_path)
    checks: dict[int, int] = {}
    failed = 0
    for n in range(3 * 3600 // 2):  # a request every two seconds, the accounts in turn
        gate.now[0] += 2.0
        if n % 900 == 0:
            gate.restart()
        said = gate.ask(ACCOUNTS[n % len(ACCOUNTS)], f"{n % 10000:04d}")
        assert said in ("refusal.sign_off_refused", "refusal.sign_off_held", "refusal.sign_off_throttled"), said
        if said == "refusal.sign_off_refused":  # hashed: a PIN checked
            minute = n // 30
            checks[minute] = checks.get(minute, 0) + 1
            failed += 1
            assert checks[minute] <= (MAX_FAILED_RELAYED if minute == 0 else 0) + math.ceil(60 / THROTTLE_S) + 1
            if failed > CAP_AFTER + 1:
                assert checks[minute] <= math.ceil(60 / THROTTLE_MAX_S) + 1, (minute, checks[minute])
    assert failed > CAP_AFTER  # the flood reached the cap, and was counted a minute: at most one a minute since
    assert max(checks.values()) <= MAX_FAILED_RELAYED + math.ceil(60 / THROTTLE_S) + 1
    first = gate.ask("dana", PIN)  # a pit boss who never failed, her supervisor's right PIN
    waited = gate.wait("dana")
    assert first in ("granted", "refusal.sign_off_throttled")
    kept = len(gate.gate.holds._throttles["pit-web relaying"].turns)
    assert waited <= min(kept, MAX_TURNS) * THROTTLE_MAX_S, (waited, kept)
    gate.now[0] += waited
    gate.restart()
    assert first == "granted" or gate.ask("dana", PIN) == "granted"
    kinds = [e.kind for e in gate.audit.entries()]
    assert kinds.count("signoff_throttled") == 1 + math.ceil(math.log2(THROTTLE_MAX_S / THROTTLE_S))  # each step
    gate.audit.close()


def test_a_right_sign_off_forgets_no_relayed_failure_and_an_hour_without_one_does(tmp_path: Path) -> None:
    gate = Gate(tmp_path)
    for n in range(MAX_FAILED_RELAYED):
        gate.now[0] += 1.0
        assert gate.ask(ACCOUNTS[n % 4], "0000") == "refusal.sign_off_refused"
    gate.now[0] += THROTTLE_S
    assert gate.ask("dana", PIN) == "granted"  # her turn: the spacing since the last check is over
    assert gate.ask("eve", PIN) == "refusal.sign_off_throttled"  # the right sign-off forgot nothing
    gate.now[0] += 3601.0
    assert gate.ask("eve", PIN) == "granted" and gate.ask("fay", PIN) == "granted"  # an hour quiet: not throttled
    gate.audit.close()


def test_the_alert_says_since_when_how_far_apart_and_which_key_kind_across_a_restart_until_it_ends(
        tmp_path: Path) -> None:
    path = tmp_path / "holds.json"
    holds, now = Holds(path), 1_800_000_000.0
    for n in range(MAX_FAILED_RELAYED - 1):
        holds.relayed_failed("display-1 relaying", now + n, "consoles")
    assert holds.alert(now + 100) is None  # not throttled yet
    began = now + MAX_FAILED_RELAYED
    assert holds.relayed_failed("display-1 relaying", began, "consoles") == THROTTLE_S
    assert holds.alert(began) == {"since": began, "spacing_s": THROTTLE_S, "kind": "consoles",
                                  "until": began + THROTTLE_FORGET_S}
    for n in range(THROTTLE_STEP):  # slowed: the same since, twice as far apart, its end moved on
        holds.relayed_failed("display-1 relaying", began + 1 + n, "consoles")
    last = began + THROTTLE_STEP
    again = Holds(path)  # a restart of the controller
    assert again.alert(last) == {"since": began, "spacing_s": 2 * THROTTLE_S, "kind": "consoles",
                                 "until": last + THROTTLE_FORGET_S}
    assert again.alert(last + THROTTLE_FORGET_S + 1) is None  # an hour without a failure: ended
    old = again.saved()  # a file written before the alert: its start taken as the last failure, its kind unknown
    for record in old["throttles"].values():
        del record["since"], record["kind"]
    path.write_text(json.dumps(old), encoding="utf-8")
    assert Holds(path).alert(last) == {"since": last, "spacing_s": 2 * THROTTLE_S, "kind": "relay",
                                       "until": last + THROTTLE_FORGET_S}
