"""A circle not reading its due at the showdown says what makes it so, as a dealer says it: take, pay more, take back."""

from __future__ import annotations

from firmware_host.service.refusals import english
from pages.words import catalogs
from tests.firmware_host.test_table_chips import (  # noqa: F401 (rig: the fixture)
    ANTE, BLIND, PLAY_4X, TRIPS, Rig, chip_uids, folded_at_the_river, rig, to_showdown,
)


def test_a_folded_seats_chips_read_take_and_the_mispay_says_take(rig: Rig) -> None:
    """Found dealing by hand: a lost circle read "due €0.00, reads €5.00" where a dealer says "take €5.00"."""
    folded_at_the_river(rig)  # every circle lost, its chips still in it
    circles = rig.circles()
    assert {name: (c["due"], c.get("make")) for name, c in circles.items()} == {
        "spot3.ante": (0, {"do": "take", "amount": 500}), "spot3.blind": (0, {"do": "take", "amount": 500}),
        "spot3.trips": (0, {"do": "take", "amount": 100})}
    rig.ok("confirm")
    say = rig.full()["fault"]["say"]
    assert say["key"] == "fault.mispay_more"
    assert english(say) == ("Seat 3 Ante: take EUR 5.00 (due EUR 0.00, reads EUR 5.00), one of 3 circles not "
                            "reading their due: make each its due, or call a supervisor to accept")
    assert rig.public()["fault"]["say"] == say  # no UID in it: the same words for everyone
    for name in ("spot3.ante", "spot3.blind", "spot3.trips"):  # taken: every circle reads its due
        rig.put(name, [])
    assert all("make" not in c for c in rig.circles().values())


def test_a_circle_short_says_pay_more_and_one_over_says_take_back(rig: Rig) -> None:
    to_showdown(rig)  # Ante and Blind push, Play wins 1:1 (due 4000), Trips 3:1 (due 400)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 5, 20))  # paid 2500 of 2000
    rig.put("spot3.trips", TRIPS + chip_uids(100, 1, 1))  # paid 100 of 300
    circles = rig.circles()
    assert circles["spot3.play"]["make"] == {"do": "take_back", "amount": 500}
    assert circles["spot3.trips"]["make"] == {"do": "pay", "amount": 200}
    assert "make" not in circles["spot3.ante"] and "make" not in circles["spot3.blind"]  # pushed: left as they are
    rig.ok("confirm")
    said = english(rig.full()["fault"]["say"])
    assert said.endswith(", one of 2 circles not reading their due: make each its due, or call a supervisor to accept")
    assert said.startswith(("Seat 3 Play: take back EUR 5.00 (due EUR 40.00, reads EUR 45.00)",
                            "Seat 3 Trips: pay EUR 2.00 more (due EUR 4.00, reads EUR 2.00)"))
    rig.ok("clear", reason="player keeps the extra")  # accepted as read: nothing left to make
    assert rig.full()["chip_reads"]["override"]["accepted"] == {"spot3.play": {"due": 4000, "reads": 4500},
                                                                "spot3.trips": {"due": 400, "reads": 200}}


def test_one_mispaid_circle_says_pay_more_in_both_languages(rig: Rig) -> None:
    to_showdown(rig)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 4, 20))
    rig.put("spot3.trips", TRIPS + chip_uids(100, 2, 1))  # 300 of 400
    rig.ok("confirm")
    say = rig.full()["fault"]["say"]
    assert say == {"key": "fault.mispay", "args": {
        "seat": 3, "circle": {"word": "circle.trips"}, "due": {"money": 400}, "reads": {"money": 300},
        "make": {"word": "to_due.pay", "args": {"amount": {"money": 100}}}, "more": 0, "circles": 1}}
    assert english(say) == ("Seat 3 Trips: pay EUR 1.00 more (due EUR 4.00, reads EUR 3.00), or call a supervisor "
                            "to accept")
    fr = catalogs()["fr"]
    assert fr["to_due.pay"] == "payez encore {amount}" and "{make} (dû {due}, lu {reads})" in fr[say["key"]]
    assert (fr["to_due.take"], fr["to_due.take_back"]) == ("ramassez {amount}", "reprenez {amount}")
    assert ANTE and BLIND  # the pushed circles: their chips stay
