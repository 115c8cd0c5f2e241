"""A scan's chip readings are one `chip_scan` event and one step: a refused reading alone is refused, the others taken; faults stand in their order; a restart replays the scan exactly."""

from __future__ import annotations

from drivers.readings import CardRead, ChipsRead
from tests.firmware_host.test_table_chips import ANTE, BLIND, DECK, RETIRED, TRIPS, Rig, bets_down, chip_uids
from tests.firmware_host.test_table_chips import rig as rig  # the same table with its reader, closed after


def read(antenna: str, uids: list[str], stable: bool = True) -> ChipsRead:
    return ChipsRead(antenna, frozenset(uids), stable)


def kinds_since(rig: Rig, event: int) -> list[str]:
    return [e.kind for e in rig.c.journal.events() if e.id > event]


def last_event(rig: Rig) -> int:
    return max(e.id for e in rig.c.journal.events())


def test_a_scan_of_21_circles_is_one_event_one_step_and_replays_exactly(rig: Rig) -> None:
    names = [f"spot{seat}.{circle}" for seat in range(1, 8) for circle in ("ante", "blind", "trips")]
    stacks = {name: chip_uids(100, 2, 2 * k) for k, name in enumerate(names)}
    before, applied = last_event(rig), rig.c.events_applied
    rig.c.handle_readings([read(name, stacks[name], False) for name in names])
    assert kinds_since(rig, before) == ["chip_scan"] and rig.c.events_applied == applied + 1
    rig.c.handle_readings([read(name, stacks[name]) for name in names])  # settled: a change of `stable` alone each
    scan = [e for e in rig.c.journal.events() if e.kind == "chip_scan"][-1].body
    assert scan["reads"][0] == {"antenna": "spot1.ante", "stable": True}  # a settle: what replay needs, no more
    circles = rig.circles()
    assert [circles[name]["value"] for name in names] == [200] * 21 and all(c["stable"] for c in circles.values())
    full = rig.full()
    rig.restart()
    assert rig.full() == full


def test_a_reading_the_table_refuses_is_refused_alone_the_rest_of_its_scan_taken(rig: Rig) -> None:
    before = last_event(rig)
    rig.c.handle_readings([read("spot3.ante", ANTE), read("spot3.insurance", BLIND), read("spot3.trips", TRIPS)])
    events = [e for e in rig.c.journal.events() if e.id > before]
    assert [e.kind for e in events] == ["chip_scan", "refused", "chip_scan"]  # taken again a reading a scan
    assert events[1].body["body"]["reads"][0]["antenna"] == "spot3.insurance"
    assert rig.full()["fault"]["kind"] == "refused_reading"
    assert {name: c["value"] for name, c in rig.circles().items()} == {"spot3.ante": 500, "spot3.trips": 100}


def test_faults_of_one_scan_stand_in_their_order_the_first_standing(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    for n, card in enumerate(DECK[:4], 1):
        rig.c.handle_reading(CardRead(card, "shoe", n))
    rig.c.handle_readings([read("spot3.trips", TRIPS + chip_uids(2500, 1)), read("spot5.ante", [RETIRED])])
    fault = rig.full()["fault"]
    assert fault["kind"] == "chips_moved" and fault["public_say"]["args"]["seat"] == 3  # the first stands
    notes = rig.full()["chip_reads"]["notes"]
    assert [n["kind"] for n in notes] == ["chips_moved", "foreign_chip"]  # the second noted after it
    assert not rig.cmd("decide", seat=3, decision="check")["ok"]  # locked until a supervisor clears it
    full = rig.full()
    rig.restart()
    assert rig.full()["fault"] == full["fault"] and rig.full()["chip_reads"] == full["chip_reads"]
