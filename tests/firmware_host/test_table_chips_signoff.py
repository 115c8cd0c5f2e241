"""The smart table's faults lock the table until a supervisor signs off (audited), and a mispay is caught every time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from drivers.readings import CardRead, DeviceOffline, OfflineKind
from protocol.access import Caller
from protocol.audit import AuditLog
from protocol.commands import Command
from protocol.config import SecurityConfig
from protocol.users import User, Users
from tests.firmware_host.test_table_chips import (
    ANTE, DECK, PLAY_4X, RETIRED, TRIPS, Rig, bets_down, chip_uids, folded_at_the_river, pay, to_showdown,
)

PIN = "8026491375"
DEALER = Caller("dealer")


class SignedRig(Rig):
    """The chips table with a users file and an audit log: its dealer's requests come through the gate."""

    def __init__(self, path: Path) -> None:
        Users({"ana": User.with_pin("ana", "supervisor", PIN)}).save(path / "users.json")
        self.audit = AuditLog.open(path / "state")
        super().__init__(path / "state")

    def controller_args(self) -> dict[str, Any]:
        return {**super().controller_args(), "audit": self.audit,
                "security": SecurityConfig(users=str(self.path.parent / "users.json"))}

    def dealer(self, cmd: str, signed: bool = False, **args: Any) -> dict[str, Any]:
        body = {"cmd": cmd, **args, **({"auth": {"user": "ana", "pin": PIN}} if signed else {})}
        return dict(self.c.handle_command(Command.from_mapping(body), DEALER))

    def audited(self, kind: str) -> list[dict[str, Any]]:
        self.c.audit.flush()
        return [dict(e.details) for e in self.audit.entries() if e.kind == kind]


@pytest.fixture
def rig(tmp_path: Path) -> SignedRig:
    r = SignedRig(tmp_path)
    r.reader()
    return r


def _foreign(r: SignedRig) -> None:
    r.put("spot2.ante", [RETIRED])


def _moved(r: SignedRig) -> None:
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])
    r.put("spot3.ante", [])  # pinched: the Ante taken back with the cards seen


def _mispay(r: SignedRig) -> None:
    to_showdown(r)
    r.ok("confirm")  # nothing paid yet: Play and Trips read short


CIRCLES = {"foreign_chip": [{"seat": 2, "circle": "ante"}], "chips_moved": [{"seat": 3, "circle": "ante"}],
           "mispay": [{"seat": 3, "circle": "play"}, {"seat": 3, "circle": "trips"}]}
"""The circles each fault names, on every feed (`fault.circles`): the console rings them."""


@pytest.mark.parametrize("cause, kind", [(_foreign, "foreign_chip"), (_moved, "chips_moved"), (_mispay, "mispay")])
def test_every_chip_fault_locks_and_clears_only_with_a_supervisors_sign_off(rig: SignedRig, cause: Any,
                                                                             kind: str) -> None:
    cause(rig)
    assert rig.c.fault is not None and rig.c.fault.kind == kind and rig.c.state.light == "fault"
    assert rig.c.public_state()["fault"]["circles"] == rig.c.full_state()["fault"]["circles"] == CIRCLES[kind]
    assert rig.dealer("deal")["ok"] is False and rig.dealer("confirm")["ok"] is False  # locked
    refused = rig.dealer("clear", reason="looked at it")
    assert refused["ok"] is False and refused["code"] == "forbidden" and rig.c.fault is not None
    assert rig.dealer("clear", signed=True, reason="surveillance checked")["ok"]
    assert rig.c.fault is None
    assert [(e["fault"], e["by"]) for e in rig.audited("fault_cleared")] == [(kind, "ana")]
    assert [e["fault"] for e in rig.audited("fault_raised")] == [kind]
    rig.c.journal.close()


def test_accepting_what_the_circles_read_is_counted_and_audited(rig: SignedRig) -> None:
    _mispay(rig)
    rig.dealer("clear", signed=True, reason="player agreed to the short pay")
    assert rig.dealer("confirm")["ok"]
    (accepted,) = rig.audited("mispay_accepted")
    assert accepted["accepted"] == {"spot3.play": {"due": 4000, "reads": 2000}, "spot3.trips": {"due": 400, "reads": 100}}
    assert accepted["signed_off"]["user"] == "ana"
    assert rig.c.full_state()["chip_reads"]["counts"] == {"foreign": 0, "moved": 0, "mispays": 1, "overrides": 1}
    rig.c.journal.close()


def test_typed_bets_with_the_reader_offline_are_audited(rig: SignedRig) -> None:
    rig.c.handle_reading(DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))
    rig.ok("bet", seat=3, bets={"ante": 500, "blind": 500})
    rig.ok("deal")
    (typed,) = rig.audited("bets_typed")
    assert typed["hand"] == 1 and "offline" in typed["reason"]
    rig.c.journal.close()


def test_a_deal_as_the_reader_drops_says_the_bets_are_tapped_and_the_taps_deal_audited(rig: SignedRig) -> None:
    """Found dealing by hand: the reader went offline as Deal was tapped over chips read; the refusal was the engine's
    "no spot has a bet: take the bets", not that the reader is offline and the bets are now the dealer's taps."""
    bets_down(rig)
    rig.c.handle_reading(DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))
    refused = rig.dealer("deal", hand=1)
    assert not refused["ok"] and refused["say"] == {"key": "refusal.reader_offline_no_bets", "args": {}}
    assert "offline" in refused["error"] and rig.audited("bets_typed") == []  # refused: nothing audited
    assert rig.dealer("bet", seat=3, bets={"ante": 500, "blind": 500})["ok"]  # the console's taps
    assert rig.dealer("deal", hand=1)["ok"]
    assert rig.c.full_state()["spots"][0]["bets"] == {"ante": 500, "blind": 500}  # the taps, not the chips' trips
    assert rig.c.public_state()["chips"]["source"] == "typed"
    (typed,) = rig.audited("bets_typed")
    assert typed["hand"] == 1 and "offline" in typed["reason"]
    rig.c.journal.close()


def test_typed_bets_are_audited_only_when_their_deal_is_taken(rig: SignedRig) -> None:
    """note9: the first card took the typed bets (audit queued) but could not be dealt (a fault instead): the entry
    was written with that card's event, for a Deal never taken, and again when the hand was dealt."""
    rig.c.handle_reading(DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))
    rig.ok("bet", seat=3, bets={"ante": 500, "blind": 500})
    rig.c.handle_reading(CardRead("Xx", "shoe", 1))  # garbled: the betting stays open, a fault stands
    assert rig.c.fault is not None and rig.c.fault.kind == "unexpected_card"
    assert rig.c.table is not None and rig.c.table.phase == "bets" and rig.audited("bets_typed") == []
    assert rig.dealer("clear", signed=True, reason="card read again")["ok"]
    rig.c.handle_reading(CardRead("As", "shoe", 2))  # the Deal taken: audited once
    assert rig.c.table.phase != "bets" and [e["hand"] for e in rig.audited("bets_typed")] == [1]
    rig.c.journal.close()


def test_payouts_confirmed_with_the_reader_offline_are_audited_unchecked(rig: SignedRig) -> None:
    to_showdown(rig)
    rig.c.handle_reading(DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))
    rig.ok("confirm")
    assert rig.c.last_record is not None and rig.c.last_record["status"] == "settled"
    assert [e["hand"] for e in rig.audited("payout_unverified")] == [1]
    rig.restart()  # a replay adds no entry
    rig.ok("bet", seat=3, bets={"ante": 500, "blind": 500})
    assert [e["hand"] for e in rig.audited("payout_unverified")] == [1]
    rig.c.journal.close()


def test_a_mispay_in_one_hand_of_twenty_is_caught_twenty_times_of_twenty(tmp_path: Path) -> None:
    """Twenty shifts of twenty hands; in each one hand is mispaid (a circle short, over, or not collected)."""
    rng = random.Random(24)
    r = Rig(tmp_path)
    r.reader()
    caught = 0
    for _ in range(20):
        wrong = rng.randrange(20)
        for hand in range(20):
            for circle in ("ante", "blind", "trips", "play"):  # the last hand's chips taken
                r.put(f"spot3.{circle}", [])
            to_showdown(r)
            pay(r)
            if hand == wrong:
                circle, uids = rng.choice([("play", PLAY_4X + chip_uids(500, 3, 20)),  # short
                                           ("play", PLAY_4X + chip_uids(500, 5, 20)),  # over
                                           ("trips", TRIPS + chip_uids(100, 2, 1)),
                                           ("ante", ANTE + chip_uids(100, 1, 30)),
                                           ("blind", [])])
                r.put(f"spot3.{circle}", uids)
            r.ok("confirm")
            fault = r.c.fault
            if hand == wrong:
                assert fault is not None and fault.kind == "mispay"
                caught += 1
                r.ok("clear", reason="accepted")
                r.ok("confirm")
            else:
                assert fault is None  # none invented
            assert r.c.last_record is not None and r.c.last_record["status"] == "settled"
    assert caught == 20
    r.c.journal.close()


def test_a_folded_spots_circles_are_collected_without_a_fault(rig: SignedRig) -> None:
    folded_at_the_river(rig)
    for circle in ("ante", "blind"):
        rig.put(f"spot3.{circle}", [])
    assert rig.c.fault is None
    dues = {c["circle"]: c["due"] for c in rig.c.public_state()["chips"]["circles"]}
    assert dues == {"ante": 0, "blind": 0, "trips": 0}  # a fold loses every bet of the spot (docs/rules.md)
    rig.ok("confirm")
    assert rig.c.fault is not None and rig.c.fault.kind == "mispay"  # the Trips chip is still in its circle
    rig.ok("clear", reason="the Trips chip collected after the confirm")
    rig.put("spot3.trips", [])
    rig.ok("confirm")
    assert rig.c.last_record is not None and rig.c.last_record["status"] == "settled"
