"""The table's own gate for the keys whose people sign in at a web process (`[security] signed_in_relays`: the display's consoles, the pit's `/pit/rating`): four accounts failing slow its PIN checks, never hold a fifth person; a flood counted a minute on a fake clock; a restart keeps it; any other key relaying a typed name is still held whole."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from pages.words import catalogs
from protocol import users as users_module
from protocol.access import Caller
from protocol.audit import AuditLog
from protocol.commands import Command
from protocol.config import SecurityConfig
from protocol.signoff_holds import (MAX_FAILED, MAX_FAILED_RELAYED, MAX_TURNS, THROTTLE_MAX_S, THROTTLE_S,
                                    THROTTLE_STEP)
from protocol.users import Users
from tests.firmware_host.test_refusal_words import said
from tests.firmware_host.test_signoff import UTH
from tests.web.test_display_guard import cheap_user

PIN = "8026491375"
DISPLAY = Caller("dealer", key="display-1", address="10.0.0.20")  # every web console's key: people signed in
PIT_WEB = Caller("pit", key="pit-web", address="10.0.0.7")  # the floor's /pit/rating: pit bosses signed in
TOOL = Caller("dealer", key="bench-tool", address="10.0.0.30")  # a technician's tool: `at` is what its user types
ACCOUNTS = [f"boss{n}" for n in range(8)]
CAP_AFTER = MAX_FAILED_RELAYED + THROTTLE_STEP * math.ceil(math.log2(THROTTLE_MAX_S / THROTTLE_S))
"""The relayed failures after which the checks are `THROTTLE_MAX_S` apart."""


class Table:
    """A controller driven in-process on a fake wall clock, its display's and pit's keys throttled; `restart()` starts
    it again on the same state directory (journal, audit log, holds)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.now = tmp, [1_800_000_000.0]
        Users({"ana": cheap_user("ana", "supervisor", PIN)}).save(tmp / "users.json")
        self.start()
        self.c.raise_fault("device_silent", "the shoe said nothing for 3 s")

    def start(self) -> None:
        self.audit = AuditLog.open(self.tmp / "state")
        security = SecurityConfig(users=str(self.tmp / "users.json"), signed_in_relays=("display-1", "pit-web"))
        self.c = Controller(Journal.open(self.tmp / "state"), default_setup=UTH, audit=self.audit, security=security,
                            limits={"minimum": 100})
        self.c.signoff.clock = lambda: self.now[0]
        self.c.recover()

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        self.c.journal.close()
        self.audit.close()

    def clear(self, caller: Caller, at: str, pin: str) -> dict[str, Any]:
        """A supervisor's clear relayed for `at` by `caller` (one second later on the clock: within its budget)."""
        self.now[0] += 1.0
        auth = {"user": "ana", "pin": pin, "at": at}
        return self.c.handle_command(Command.from_mapping({"cmd": "clear", "reason": "shoe checked", "auth": auth}),
                                     caller)

    def ask(self, caller: Caller, at: str, pin: str) -> str:
        """The clear's outcome: "granted" (the fault cleared, raised again), or its refusal's words key."""
        reply = self.clear(caller, at, pin)
        if reply["ok"]:
            self.c.raise_fault("device_silent", "the shoe said nothing for 3 s")
            return "granted"
        assert reply["code"] != "internal", reply
        return str(reply["say"]["key"])

    def entries(self, kind: str) -> list[dict[str, Any]]:
        return [e.details for e in self.audit.entries() if e.kind == kind]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path)
    yield t
    t.close()


@pytest.mark.parametrize("caller", [DISPLAY, PIT_WEB], ids=["display", "pit-web"])
def test_four_accounts_failing_slow_the_key_and_a_fifth_person_signs_off_within_the_bound(
        table: Table, caller: Caller) -> None:
    replies = [table.clear(caller, ACCOUNTS[n // MAX_FAILED], "1111") for n in range(4 * MAX_FAILED)]
    assert [r["say"]["key"] for r in replies] == ["refusal.sign_off_refused"] * MAX_FAILED_RELAYED
    assert replies[-1]["throttled_s"] == THROTTLE_S and "throttled_s" not in replies[-2]  # the pit's alert
    assert [h["at"] for h in table.entries("signoff_held")] == ACCOUNTS[:4]  # each person held, never the key
    assert table.entries("signoff_throttled") == [{"key": caller.key, "role": caller.role, "address": caller.address,
                                                   "at": ACCOUNTS[3], "spacing_s": THROTTLE_S}]
    assert table.ask(caller, ACCOUNTS[0], PIN) == "refusal.sign_off_held"  # a person held stays held
    first = table.clear(caller, "dana", PIN)  # a fifth person, her supervisor's right PIN, a second after
    busy = said(first, "refusal.sign_off_throttled")
    assert first["code"] == "busy" and 0 < busy["args"]["seconds"] <= THROTTLE_S and table.c.fault is not None
    assert first["retry_s"] == busy["args"]["seconds"]
    table.now[0] += busy["args"]["seconds"] - 1.0  # `clear` adds the second: at her turn
    assert table.ask(caller, "dana", PIN) == "granted"


def test_a_flood_of_eight_accounts_is_counted_a_minute_across_restarts(table: Table,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight accounts at the display's key each asking every 64 seconds for three hours (one every 8 s, faster than the
    throttle lets any through past its first twenty), the controller started again every half hour: the PINs hashed a minute never more than the throttle lets (twenty at first, then one a
    spacing), one a minute once it is at its cap; a person who never failed then signs off within the bound."""
    hashed: list[float] = []
    real = users_module._scrypt

    def counted(*args: Any) -> bytes:
        hashed.append(table.now[0])
        return real(*args)

    monkeypatch.setattr(users_module, "_scrypt", counted)
    start = table.now[0]
    for n in range(3 * 3600 // 8):  # a request every eight seconds (the clear adds one), the accounts in turn
        table.now[0] += 7.0
        if n % 225 == 0:
            table.restart()
        key = table.ask(DISPLAY, ACCOUNTS[n % len(ACCOUNTS)], f"{n % 10000:04d}")
        assert key in ("refusal.sign_off_refused", "refusal.sign_off_held", "refusal.sign_off_throttled"), key
    minutes: dict[int, int] = {}
    for at in hashed:
        minutes[int(at - start) // 60] = minutes.get(int(at - start) // 60, 0) + 1
    assert sum(minutes.values()) > CAP_AFTER  # the flood reached the cap
    assert max(minutes.values()) <= MAX_FAILED_RELAYED + math.ceil(60 / THROTTLE_S) + 1, minutes
    assert all(count <= math.ceil(60 / THROTTLE_MAX_S) + 1 for minute, count in minutes.items() if minute >= 60)
    assert sum(count for minute, count in minutes.items() if minute >= 120) <= 60 + 1  # the third hour: 1 a minute
    assert table.entries("signoff_held") and all(h["at"] is not None for h in table.entries("signoff_held"))
    first = table.clear(DISPLAY, "dana", PIN)
    wait = 0.0 if first["ok"] else float(said(first, "refusal.sign_off_throttled")["args"]["seconds"])
    kept = len(table.c.signoff.holds.saved()["throttles"]["display-1 relaying"]["turns"])
    assert wait <= (min(kept, MAX_TURNS) + 1) * THROTTLE_MAX_S, (wait, kept)
    if not first["ok"]:
        table.now[0] += wait - 1.0
        table.restart()
        assert table.ask(DISPLAY, "dana", PIN) == "granted"


def test_a_restart_keeps_the_throttle_and_its_turns(table: Table) -> None:
    for n in range(MAX_FAILED_RELAYED):
        table.clear(PIT_WEB, ACCOUNTS[n % 4], "1111")
    told = said(table.clear(PIT_WEB, "dana", PIN), "refusal.sign_off_throttled")["args"]["seconds"]
    table.restart()
    saved = table.c.signoff.holds.saved()["throttles"]["pit-web relaying"]
    assert saved["failed"] == MAX_FAILED_RELAYED and set(saved["turns"]) == {"dana"}
    assert (table.tmp / "state" / "signoff-holds.json").stat().st_mode & 0o777 == 0o600
    assert table.ask(PIT_WEB, "eve", PIN) == "refusal.sign_off_throttled"  # still slowed, her turn after dana's
    table.now[0] += told - 2.0
    assert table.ask(PIT_WEB, "dana", PIN) == "granted"  # dana's turn, kept across the restart


def test_a_key_not_listed_relaying_typed_names_is_still_held_whole(table: Table) -> None:
    """A technician's tool (its `at` is whatever its user types): a new name every fourth guess, held at twenty."""
    for n in range(MAX_FAILED_RELAYED):
        assert table.ask(TOOL, f"name{n // 4}", "1111") == "refusal.sign_off_refused"
    assert table.entries("signoff_held")[-1] == {"key": "bench-tool", "role": "dealer", "address": "10.0.0.30",
                                                 "at": None, "seconds": 300.0, "failed": MAX_FAILED_RELAYED}
    held = table.clear(TOOL, "dana", PIN)  # the right PIN, a new name: the key is held
    assert held["code"] == "forbidden" and said(held, "refusal.sign_off_held")["args"]["seconds"] > 0
    assert table.entries("signoff_throttled") == []
    assert table.ask(DISPLAY, "dana", PIN) == "granted"  # the display's key: never held by the tool's


def test_the_throttles_words_in_english_and_french(table: Table) -> None:
    for n in range(MAX_FAILED_RELAYED):
        table.clear(DISPLAY, ACCOUNTS[n % 4], "1111")
    reply = table.clear(DISPLAY, "dana", PIN)
    args = said(reply, "refusal.sign_off_throttled")["args"]
    words = {lang: catalogs()[lang]["refusal.sign_off_throttled"].format(**args) for lang in ("en", "fr")}
    assert words == {"en": f"Many refused sign-offs from this console: they are slowed down, your turn comes in "
                           f"{args['seconds']} s",
                     "fr": f"Beaucoup de validations refusées depuis ce poste : elles sont ralenties, votre tour vient "
                           f"dans {args['seconds']} s"}
    assert "dana's turn comes in" in reply["error"] and "internal" not in reply["error"]
