"""The smart table: chips read in the circles become the bets, a Play is read, moved and foreign chips and mispays fault until signed off, and the journal replays it all."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.chip_link import ChipSession
from drivers.chip_protocol import MAX_UIDS
from drivers.readings import CardRead, ChipsRead, DeviceOffline, DeviceOnline, OfflineKind
from engine.chips import ChipSet
from firmware_host.service.refusals import english
from firmware_host.tables.house.chips import TableChips, reads_of
from firmware_host.tables.house.table import HouseSetup
from protocol.feed import apply_changes, diff
from sim.chips.board import ChipBoardFirmware, layout
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
TCP = HouseSetup("3cp", "default", {"minimum": 100}, 7)
# seat 3 alone: s3 dealer s3 dealer, flop, turn + river. Seat 3 makes three aces; the dealer does not qualify.
DECK = "As 2c Ad 7d Ah Kc 9h 4s 3c".split()


def chip_uids(value: int, count: int, first: int = 0) -> list[str]:
    """`count` chips of `value` from the test set (UID E004 + value in 6 digits + a 6-digit number)."""
    return [f"E004{value:06d}{n:06d}" for n in range(first, first + count)]


def chip_set_text(each: int = 60) -> str:
    """The test set: `each` active chips of 100, 500 and 2,500, three retired 500s (numbered from 900)."""
    lines = ["uid,value,set,status"]
    for value in (100, 500, 2500):
        lines += [f"{uid},{value},test,active" for uid in chip_uids(value, each)]
    lines += [f"{uid},500,test,retired" for uid in chip_uids(500, 3, 900)]
    return "\n".join(lines) + "\n"


CHIPS = ChipSet.from_csv(chip_set_text(), where="test-chips.csv")
CHIP_SET = {"name": "test-chips.csv", "sha256": CHIPS.sha256(), "text": chip_set_text()}
RETIRED = chip_uids(500, 1, 900)[0]


class Rig(JournalRig):
    """A house table with the test chip set, fed chip readings as the reader would post them."""

    def __init__(self, path: Path, setup: HouseSetup = UTH) -> None:
        self.setup = setup
        self.seq = 0
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": self.setup, "chip_set": CHIP_SET}

    def reader(self, online: bool = True) -> None:
        self.c.handle_reading(DeviceOnline("chips", "sim-chips", "CR-1", "1.0", 7) if online
                              else DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))

    def put(self, antenna: str, uids: list[str], stable: bool = True) -> None:
        self.c.handle_reading(ChipsRead(antenna, frozenset(uids), stable))

    def reads(self) -> list[dict[str, Any]]:
        """Every chip reading journaled, in order, each with its reader's device (`reads_of`)."""
        return [dict(read) for e in self.c.journal.events() for read in reads_of(e.kind, e.body)]

    def card(self, *cards: str) -> None:
        for card in cards:
            self.seq += 1
            self.c.handle_reading(CardRead(card, "shoe", self.seq))

    def full(self) -> dict[str, Any]:
        return dict(self.c.full_state())

    def public(self) -> dict[str, Any]:
        return dict(self.c.public_state())

    def circles(self) -> dict[str, dict[str, Any]]:
        return {f"spot{c['seat']}.{c['circle']}": c for c in self.public()["chips"]["circles"]}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    r.reader()
    yield r
    r.c.journal.close()


ANTE, BLIND, TRIPS = chip_uids(500, 1), chip_uids(500, 1, 1), chip_uids(100, 1)
PLAY_4X = chip_uids(500, 4, 10)


def bets_down(r: Rig) -> None:
    r.put("spot3.ante", ANTE)
    r.put("spot3.blind", BLIND)
    r.put("spot3.trips", TRIPS)


def folded_at_the_river(r: Rig) -> None:
    """Seat 3's bets read, checked to the river and folded there: every circle lost, its chips still in it."""
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])
    r.ok("decide", seat=3, decision="check")
    r.card(*DECK[4:7])
    r.ok("decide", seat=3, decision="check")
    r.card(*DECK[7:])
    r.ok("decide", seat=3, decision="fold")


def to_showdown(r: Rig) -> None:
    """Seat 3's bets read, the hole cards, a 4x Play read from its circle, the board."""
    bets_down(r)
    r.ok("deal")
    r.card(*DECK[:4])
    r.put("spot3.play", PLAY_4X)
    r.ok("decide", seat=3, decision="play")
    r.card(*DECK[4:])
    assert r.c.table is not None and r.c.table.phase == "showdown"


def pay(r: Rig) -> None:
    """The dealer pays every circle its due: Ante pushes (the dealer does not qualify), Blind pushes
    (trips is no straight), Play wins 1:1, Trips 3:1."""
    r.put("spot3.play", PLAY_4X + chip_uids(500, 4, 20))
    r.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))


def test_the_chip_set_is_journaled_once_with_its_text_and_values_the_circles(rig: Rig) -> None:
    sets = [e for e in rig.c.journal.events() if e.kind == "chip_set"]
    assert len(sets) == 1 and sets[0].body == CHIP_SET
    rig.restart()
    assert [e.kind for e in rig.c.journal.events()].count("chip_set") == 1  # the same set: not again
    rig.put("spot3.ante", ANTE + chip_uids(100, 2))
    assert rig.circles()["spot3.ante"] == {"seat": 3, "circle": "ante", "value": 700, "stable": True}


def test_the_stable_circles_become_the_bets_at_the_deal(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    (spot,) = rig.full()["spots"]
    assert spot["seat"] == 3 and spot["bets"] == {"ante": 500, "blind": 500, "trips": 100}
    assert rig.public()["chips"]["source"] == "chips"


def test_a_circle_still_moving_at_the_deal_is_refused_naming_it(rig: Rig) -> None:
    bets_down(rig)
    rig.put("spot3.blind", BLIND + chip_uids(100, 1, 5), stable=False)
    reply = rig.cmd("deal")
    assert not reply["ok"] and reply["say"]["key"] == "refusal.chips_moving"
    assert reply["say"]["args"] == {"seat": 3, "circle": {"word": "circle.blind"}}
    assert rig.c.table is not None and rig.c.table.phase == "bets" and rig.full()["spots"] == []


def test_bets_read_are_held_to_the_limits_as_typed_bets(rig: Rig) -> None:
    rig.put("spot3.ante", ANTE)
    rig.put("spot3.blind", chip_uids(100, 1))  # the Blind must equal the Ante
    reply = rig.cmd("deal")
    assert not reply["ok"] and "blind" in reply["error"].lower()
    assert rig.c.table is not None and rig.c.table.phase == "bets"


def test_with_the_reader_offline_the_typed_bets_stay(rig: Rig) -> None:
    rig.reader(online=False)
    rig.ok("bet", seat=2, bets={"ante": 200, "blind": 200})
    rig.put("spot3.ante", ANTE)  # not read: the reader is said offline
    rig.ok("deal")
    assert [(s["seat"], s["bets"]) for s in rig.full()["spots"]] == [(2, {"ante": 200, "blind": 200})]
    assert rig.public()["chips"] == {"online": False, "source": "typed", "circles": [
        {"seat": 3, "circle": "ante", "value": 500, "stable": True}]}


def test_a_play_is_read_from_the_play_circle_and_an_illegal_one_is_refused(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:4])
    rig.put("spot3.play", chip_uids(500, 2, 10))  # 2x before the flop: not legal
    reply = rig.cmd("decide", seat=3, decision="play")
    assert not reply["ok"] and reply["say"]["key"] == "refusal.play_not_legal"
    assert reply["say"]["args"]["circle"] == {"word": "circle.play"}
    assert reply["say"]["args"]["multiples"] == {"times": [4, 3]}  # the catalog's notation, as on the buttons
    assert english(reply["say"]) == "Seat 3 Play: reads EUR 10.00, not 4× or 3× the Ante (EUR 5.00)"
    rig.put("spot3.play", chip_uids(500, 3, 10))
    rig.ok("decide", seat=3, decision="play")
    assert rig.full()["spots"][0]["bets"]["play"] == 1500


def test_a_play_tapped_at_another_multiple_than_read_or_on_an_empty_circle_says_what_the_circle_reads(rig: Rig) -> None:
    """Found dealing by hand: a 4x Play read and ×3 tapped was refused as "reads €60.00, not 4× / 3× the Ante",
    as if 60 were no legal Play; an empty circle read "reads €0.00"."""
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:4])
    reply = rig.cmd("decide", seat=3, decision="play", multiple=4)
    assert not reply["ok"] and reply["say"]["key"] == "refusal.play_circle_empty"
    rig.put("spot3.play", chip_uids(500, 4, 10))
    reply = rig.cmd("decide", seat=3, decision="play", multiple=3)
    assert not reply["ok"] and reply["say"]["key"] == "refusal.play_not_tapped"
    assert reply["say"]["args"]["read"] == {"times": 4} and reply["say"]["args"]["typed"] == {"times": 3}
    assert english(reply["say"]) == "Seat 3 Play: reads EUR 20.00, a 4× Play, not 3×"  # the buttons' notation
    assert "bets" not in rig.full()["spots"][0] or "play" not in rig.full()["spots"][0]["bets"]
    rig.ok("decide", seat=3, decision="play", multiple=4)
    assert rig.full()["spots"][0]["bets"]["play"] == 2000


def test_a_check_or_a_fold_tapped_with_a_play_in_its_circle_is_refused(rig: Rig) -> None:
    """Found dealing from the console: seat 2's Play circle read EUR 40.00 (a 4x Play), Check was tapped by mistake
    and taken; the seat played nothing. The circle's read refuses it, and the Play tapped then stands."""
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:4])
    rig.put("spot3.play", chip_uids(500, 4, 10))
    for decision in ("check", "fold"):
        reply = rig.cmd("decide", seat=3, decision=decision)
        assert not reply["ok"] and reply["say"] == {"key": "refusal.play_in_circle", "args": {
            "seat": 3, "circle": {"word": "circle.play"}, "amount": {"money": 2000}}}
    rig.ok("decide", seat=3, decision="play", multiple=4)
    assert rig.full()["spots"][0]["bets"]["play"] == 2000


def test_chips_added_after_the_deal_fault_until_a_supervisor_clears(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:3])
    rig.put("spot3.trips", TRIPS + chip_uids(2500, 1))  # past-posting: 3 cards out
    fault = rig.full()["fault"]
    assert fault["kind"] == "chips_moved"
    assert fault["public_say"] == {"key": "fault.chips_moved", "args": {
        "seat": 3, "circle": {"word": "circle.trips"}, "change": {"money": 2500}, "cards": 3}}
    assert not rig.cmd("decide", seat=3, decision="check")["ok"]  # locked
    rig.ok("clear", reason="player took the chip back")
    assert rig.full()["fault"] is None


def test_a_tray_over_what_one_inventory_carries_holds_the_table_on_the_boards_fault(rig: Rig) -> None:
    # The emulated board and the chip reader's host session, wired to the table on a fake clock: a tray of
    # more chips than an INVENTORY carries (drivers/chip_protocol.py MAX_UIDS) is a fault the table stands on.
    board = ChipBoardFirmware(seed=1, antennas=layout("uth", 7), miss_rate=0.0)
    session = ChipSession(confirm=2, settle_s=0.0)
    board.place("tray", [f"E0049900{n:08X}" for n in range(MAX_UIDS + 1)])
    session.connect(0.0)
    board.boot_hello()
    for tick in range(1, 101):  # a second, every 10 ms
        now = tick / 100
        board.receive(session.take_output(), now)
        board.poll(now)
        session.receive(board.take_output(), now)
        session.poll(now)
        for reading in session.take_readings():
            rig.c.handle_reading(reading)
    fault = rig.full()["fault"]
    assert fault["kind"] == "device_fault"
    assert fault["detail"] == f"chips: tray: too many chips to read: {MAX_UIDS + 1} chips, at most {MAX_UIDS}"
    bets_down(rig)
    assert rig.cmd("deal")["code"] == "fault"  # locked
    rig.ok("clear", reason="the tray's surplus sent to the cage")
    assert rig.full()["fault"] is None
    rig.ok("deal")


def test_a_foreign_chip_names_circle_and_uid_on_the_full_feed_only(rig: Rig) -> None:
    rig.put("spot5.ante", [RETIRED])
    public, full = rig.public(), rig.full()
    assert full["fault"]["kind"] == "foreign_chip"
    assert full["fault"]["say"] == {"key": "fault.foreign_chip_circle_uid",
                                    "args": {"seat": 5, "circle": {"word": "circle.ante"}, "uid": RETIRED}}
    assert public["fault"]["say"]["key"] == "fault.foreign_chip_circle"
    assert RETIRED not in json.dumps(public)
    assert {"antenna": "spot5.ante", "uids": [RETIRED]} in full["chip_uids"]
    rig.put("spot5.ante", [RETIRED])  # the same chip read again: one fault
    assert len([f for f in rig.c.table.faults if f["kind"] == "foreign_chip"]) == 1  # type: ignore[union-attr]
    rig.ok("clear", reason="retired chip taken off")
    rig.put("tray", chip_uids(2500, 2) + [chip_uids(500, 1, 901)[0]])
    assert rig.full()["fault"]["say"]["key"] == "fault.foreign_chip_tray_uid"
    assert "circles" not in rig.full()["fault"]  # the tray is no bet circle: nothing to ring


def test_a_paid_hand_closes_with_its_chips_in_the_record(rig: Rig) -> None:
    to_showdown(rig)
    dues = {c["circle"]: c["due"] for c in rig.public()["chips"]["circles"]}
    assert dues == {"ante": 500, "blind": 500, "play": 4000, "trips": 400}
    pay(rig)
    rig.ok("confirm")
    record = rig.c.last_record
    assert record is not None and record["status"] == "settled"
    chips = record["chips"]  # type: ignore[typeddict-item]
    assert chips["bets_read"] == {"3": {"ante": 500, "blind": 500, "trips": 100}}
    assert chips["dues"] == chips["paid"] == {"spot3.ante": 500, "spot3.blind": 500, "spot3.play": 4000,
                                              "spot3.trips": 400}
    assert chips["override"] is None


def test_a_mispay_holds_the_table_until_accepted_and_counted(rig: Rig) -> None:
    to_showdown(rig)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 3, 20))  # paid 1500 of 2000
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))
    rig.ok("confirm")
    full = rig.full()
    assert full["fault"]["kind"] == "mispay" and rig.c.state.light == "fault"
    assert full["fault"]["say"]["args"] == {"seat": 3, "circle": {"word": "circle.play"}, "due": {"money": 4000},
                                            "reads": {"money": 3500}, "more": 0, "circles": 1,
                                            "make": {"word": "to_due.pay", "args": {"amount": {"money": 500}}}}
    assert rig.c.last_record is None or rig.c.last_record["hand"] != 1
    rig.ok("clear", reason="player accepted")
    rig.ok("confirm")
    record = rig.c.last_record
    assert record is not None and record["status"] == "settled"
    override = record["chips"]["override"]  # type: ignore[typeddict-item]
    assert override["accepted"] == {"spot3.play": {"due": 4000, "reads": 3500}}
    assert record["chips"]["counts"]["overrides"] == 1  # type: ignore[typeddict-item]


def test_a_restart_mid_payout_replays_the_chips_exactly(rig: Rig) -> None:
    to_showdown(rig)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 4, 20))
    before = rig.full()
    rig.restart()
    after = rig.full()
    assert after["chips"] == before["chips"] and after["chip_reads"] == before["chip_reads"]
    assert after["chip_uids"] == before["chip_uids"] and after["tray_uids"] == before["tray_uids"]
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))
    rig.ok("confirm")
    assert rig.c.last_record is not None and rig.c.last_record["status"] == "settled"


def test_the_last_hands_chips_must_leave_the_circle_before_they_are_bets_again(rig: Rig) -> None:
    to_showdown(rig)
    pay(rig)
    rig.ok("confirm")
    rig.restart()  # what the closed hand left is carried over
    assert rig.c.table is not None and rig.c.table.closed == "settled"  # the paid hand back on show
    assert rig.circles()["spot3.play"]["value"] == 4000
    reply = rig.cmd("deal")
    assert not reply["ok"] and reply["say"]["key"] == "refusal.chips_stale"
    for circle in ("ante", "blind", "trips", "play"):
        rig.put(f"spot3.{circle}", [])
    rig.restart()  # the players took their chips: the paid hand still on show, the circles empty
    assert rig.c.table is not None and rig.c.table.closed == "settled" and rig.circles() == {}
    bets_down(rig)
    rig.ok("deal")


def test_a_reader_lost_and_back_mid_hand(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:4])
    rig.reader(online=False)
    assert rig.full()["fault"]["kind"] == "device_offline"
    rig.reader(online=True)
    bets_down(rig)  # the same chips read again: nothing moved
    assert rig.full()["fault"]["kind"] == "device_offline"
    rig.ok("clear", reason="reader cable reseated")
    rig.put("spot3.play", PLAY_4X)
    rig.ok("decide", seat=3, decision="play")
    rig.card(*DECK[4:])
    pay(rig)
    rig.ok("confirm")
    assert rig.c.last_record is not None and rig.c.last_record["status"] == "settled"


def test_three_card_poker_play_equals_the_ante(tmp_path: Path) -> None:
    r = Rig(tmp_path, TCP)
    r.reader()
    for seat in range(1, 6):  # the default profile deals with five spots
        r.put(f"spot{seat}.ante", chip_uids(500, 1, seat))
        r.put(f"spot{seat}.pair_plus", chip_uids(100, 1, seat))
    r.ok("deal")
    r.card(*"As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s Ah Kh Qh Jh Th".split())
    r.put("spot1.play", chip_uids(500, 2, 10))
    reply = r.cmd("decide", seat=1, decision="play")
    assert reply["say"]["key"] == "refusal.play_not_legal" and reply["say"]["args"]["seat"] == 1
    r.put("spot1.play", chip_uids(500, 1, 10))
    r.ok("decide", seat=1, decision="play")
    assert r.full()["spots"][0]["bets"] == {"ante": 500, "pair_plus": 100, "play": 500}
    r.ok("decide", seat=2, decision="fold")  # a fold stays a tap
    r.c.journal.close()


def test_a_bad_chip_set_stops_the_start_naming_file_and_line(tmp_path: Path) -> None:
    from firmware_host.service.config import Config, ConfigError

    good = tmp_path / "chips.csv"
    good.write_text(chip_set_text())
    cfg = Config.parse(f'[table]\ngame = "uth"\n[chips]\nset = "{good}"\n', source="t.toml")
    assert cfg.chip_set == {"name": "chips.csv", "sha256": CHIPS.sha256(), "text": chip_set_text()}
    bad = tmp_path / "bad.csv"
    bad.write_text("uid,value,set,status\nE004000100000000,100,test,active\nE004000100000001,1.5,test,active\n")
    with pytest.raises(ConfigError, match=r"t\.toml: \[chips\] set: .*bad\.csv, line 3: value '1\.5'"):
        Config.parse(f'[chips]\nset = "{bad}"\n', source="t.toml")
    with pytest.raises(ConfigError, match=r"\[chips\] set: .*missing\.csv: cannot read"):
        Config.parse(f'[chips]\nset = "{tmp_path / "missing.csv"}"\n', source="t.toml")


def test_the_simulated_table_values_chips_with_the_demo_set() -> None:
    from firmware_host.service.config import Config

    cfg = Config.load(Path(__file__).resolve().parents[2] / "deploy" / "sim.toml")
    assert cfg.chip_set is not None and cfg.chip_set["name"] == "chips-demo.csv"
    assert len(ChipSet.from_csv(cfg.chip_set["text"])) == 2280


def test_chips_left_in_a_circle_with_no_bet_are_a_mispay(rig: Rig) -> None:
    folded_at_the_river(rig)
    for circle in ("ante", "blind", "trips"):
        rig.put(f"spot3.{circle}", [])
    rig.put("spot3.play", chip_uids(100, 1, 50))  # a chip dropped in the Play circle, never a bet
    assert rig.circles()["spot3.play"]["due"] == 0
    rig.ok("confirm")
    assert rig.c.fault is not None and rig.c.fault.kind == "mispay" and "seat 3 Play: due 0, reads 100" in rig.c.fault.detail


def test_chips_taken_while_the_reader_was_away_fault_when_it_is_back(rig: Rig) -> None:
    bets_down(rig)
    rig.ok("deal")
    rig.card(*DECK[:2])
    rig.reader(online=False)
    rig.ok("clear", reason="reader cable reseated")
    rig.reader(online=True)
    rig.put("spot3.ante", ANTE)
    rig.put("spot3.blind", [])  # pinched while no one read it
    fault = rig.full()["fault"]
    assert fault["kind"] == "chips_moved" and fault["say"]["args"]["change"] == {"money": -500}
    assert fault["say"]["args"]["cards"] == 2


def test_the_tray_is_on_the_full_feed_only(rig: Rig) -> None:
    rig.put("tray", chip_uids(2500, 4) + chip_uids(100, 3))
    assert rig.full()["chip_reads"]["tray"] == {"value": 10300, "stable": True}
    assert "chip_reads" not in rig.public() and rig.public()["chips"]["circles"] == []


def test_a_circles_change_sends_its_own_chips_on_the_full_feed_not_the_trays(rig: Rig) -> None:
    rig.put("tray", chip_uids(2500, 4) + chip_uids(100, 3))
    rig.put("spot1.ante", ANTE)
    before = rig.full()
    rig.put("spot3.trips", TRIPS)
    after = rig.full()
    change = diff(before, after)
    place = after["chip_uids"].index({"antenna": "spot3.trips", "uids": sorted(TRIPS)})
    assert change["items"]["chip_uids"] == [len(after["chip_uids"]), [[place, {"antenna": "spot3.trips",
                                                                                  "uids": sorted(TRIPS)}]]]
    assert not {"tray_uids", "chip_reads", "chip_uids"} & set(change["set"])
    assert after["tray_uids"] == sorted(chip_uids(2500, 4) + chip_uids(100, 3))
    assert apply_changes(before, change) == after


def test_a_reading_is_journaled_as_its_change_when_shorter_and_a_restart_reads_it_back_exactly(rig: Rig) -> None:
    tray = chip_uids(2500, 40) + chip_uids(100, 40)
    rig.put("tray", tray)
    rig.put("spot3.ante", ANTE + chip_uids(100, 5, 10), stable=False)
    rig.put("spot3.ante", ANTE + chip_uids(100, 5, 10))  # settled: nothing but `stable` changed
    rig.put("tray", tray[1:] + chip_uids(500, 1, 30), stable=False)
    bodies = rig.reads()[-4:]
    assert [sorted(b) for b in bodies] == [["antenna", "device", "stable", "uids"]] * 2 + [
        ["antenna", "device", "stable"], ["added", "antenna", "device", "removed", "stable"]]  # a settle: `stable` alone
    assert (bodies[3]["added"], bodies[3]["removed"]) == (chip_uids(500, 1, 30), tray[:1])
    before = rig.full()
    rig.restart()  # the changes read back against the readings replayed before them
    after = rig.full()
    assert [after[k] for k in ("chip_uids", "tray_uids", "chips", "chip_reads")] == [
        before[k] for k in ("chip_uids", "tray_uids", "chips", "chip_reads")]
    rig.put("tray", tray[1:] + chip_uids(500, 1, 30))
    assert rig.full()["chip_reads"]["tray"]["stable"] and rig.full()["tray_uids"] == before["tray_uids"]
    assert sorted(rig.reads()[-1]) == ["antenna", "device", "stable"]


def test_the_first_reading_after_a_hand_closed_is_journaled_whole(rig: Rig) -> None:
    to_showdown(rig)
    pay(rig)
    rig.ok("confirm")
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1) + chip_uids(100, 1, 7))  # a recovery may start at the close
    assert "uids" in rig.reads()[-1]
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1) + chip_uids(100, 2, 7))
    assert rig.reads()[-1]["added"] == chip_uids(100, 1, 8)
    before = rig.full()
    rig.restart()
    assert rig.full()["chip_uids"] == before["chip_uids"]


def test_the_views_kept_between_readings_are_the_views_made_afresh(rig: Rig) -> None:
    """Each circle's part of `chips`, `chip_uids` and `tray_uids` is made again only when its reading moved:
    at every step of a hand of random readings they equal the views of the same readings made from nothing."""
    rng = random.Random(24)
    chips = rig.c.state.chips

    def same_as_afresh() -> None:
        fresh = TableChips()
        fresh.__dict__.update({k: v for k, v in chips.__dict__.items() if not k.startswith("_")})
        table = rig.c.state.table
        assert fresh.views(table, rig.c.state.devices) == chips.views(table, rig.c.state.devices)
        assert fresh.uids_views(table) == chips.uids_views(table)

    def shuffle_circles(times: int) -> None:
        for _ in range(times):
            name = f"spot{rng.choice((1, 2, 5))}.{rng.choice(('ante', 'blind', 'trips', 'play'))}"
            rig.put(name, chip_uids(rng.choice((100, 500)), rng.randint(0, 4), 30), stable=rng.random() < 0.5)
            same_as_afresh()
            rig.put("tray", chip_uids(2500, rng.randint(0, 40)), stable=rng.random() < 0.5)
            same_as_afresh()

    shuffle_circles(20)
    for name in [n for n, (u, _) in chips.reads.items() if u]:
        rig.put(name, [])
    to_showdown(rig)
    same_as_afresh()
    pay(rig)
    same_as_afresh()
    shuffle_circles(10)


def test_a_reading_of_no_circle_is_refused_and_changes_nothing(rig: Rig) -> None:
    before = rig.full()
    rig.put("spot3.insurance", ANTE)  # no such circle at UTH
    events = [e for e in rig.c.journal.events()]
    assert events[-1].kind == "refused" and "insurance" in events[-1].body["error"]
    assert rig.full()["fault"]["kind"] == "refused_reading"
    assert rig.full()["chip_uids"] == before["chip_uids"] and rig.full()["tray_uids"] == before["tray_uids"]


def test_an_empty_antenna_under_a_circle_the_profile_does_not_offer_is_no_fault(tmp_path: Path) -> None:
    # the board's 3CP layout has each spot's 6-card bonus circle; the default profile offers no bonus
    r = Rig(tmp_path, TCP)
    r.reader()
    r.put("spot1.ante", chip_uids(500, 1, 1))
    r.put("spot1.bonus", [])
    assert r.full()["fault"] is None and "spot1.bonus" not in {c["antenna"] for c in r.full()["chip_uids"]}
    r.put("spot1.bonus", chip_uids(100, 1, 1))  # chips in it are refused, naming it
    assert r.full()["fault"]["kind"] == "refused_reading" and "bonus" in r.full()["fault"]["detail"]
    r.c.journal.close()


def test_a_play_out_of_turn_gets_the_engines_refusal(rig: Rig) -> None:
    bets_down(rig)
    rig.put("spot5.ante", chip_uids(100, 1, 40))
    rig.put("spot5.blind", chip_uids(100, 1, 41))
    rig.ok("deal")
    rig.card(*"As 5c 2c Ad 5d 7d".split())
    reply = rig.cmd("decide", seat=5, decision="play")
    assert reply["say"]["key"] == "refusal.not_to_act"


def test_croupier_history_says_how_a_smart_tables_hand_was_bet_and_paid(rig: Rig) -> None:
    import io

    from cli.history import history

    to_showdown(rig)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 3, 20))
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))
    rig.ok("confirm")
    rig.ok("clear", reason="player agreed")
    rig.ok("confirm")
    out = io.StringIO()
    history(rig.c.journal, out, 1, as_json=False)
    text = out.getvalue()
    assert "  bets read from the chips" in text
    assert "  paid: spot3.ante 500, spot3.blind 500, spot3.play 3500 (due 4000, pay 500 more), spot3.trips 400" in text
    assert "  mispay accepted: spot3.play due 4000, read 3500" in text


def test_a_restart_mid_hand_keeps_the_circles_locked(rig: Rig) -> None:
    to_showdown_first_hand_then_bet_again(rig)
    rig.ok("deal")
    rig.card(*DECK[:4])
    rig.restart()
    rig.put("spot3.ante", ANTE + chip_uids(2500, 1, 30))  # past-posting after the restart
    assert rig.full()["fault"]["kind"] == "chips_moved"


def to_showdown_first_hand_then_bet_again(r: Rig) -> None:
    """A first hand paid and closed, its chips taken, and the second hand's bets down (what a restart must carry)."""
    to_showdown(r)
    pay(r)
    r.ok("confirm")
    for circle in ("ante", "blind", "trips", "play"):
        r.put(f"spot3.{circle}", [])
    bets_down(r)


def test_a_first_card_while_a_circle_moves_is_a_no_bet_fault_naming_it(rig: Rig) -> None:
    bets_down(rig)
    rig.put("spot3.blind", BLIND + chip_uids(100, 1, 5), stable=False)
    rig.card(DECK[0])
    fault = rig.full()["fault"]
    assert fault["kind"] == "no_bet" and "seat 3 Blind: the chips are still moving" in fault["detail"]
    assert rig.full()["spots"] == []  # nothing dealt, no bet taken


def test_the_dues_kept_between_steps_are_the_dues_worked_out_afresh_at_every_step(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = TableChips.dues
    seen: list[dict[str, int]] = []

    def checked(chips: TableChips, table: Any) -> dict[str, int]:
        due = kept(chips, table)
        was, chips._dues = chips._dues, ((), {})  # forgotten: worked out from the round as it stands
        assert due == kept(chips, table)
        chips._dues = was
        seen.append(due)
        return due

    monkeypatch.setattr(TableChips, "dues", checked)
    to_showdown(rig)
    rig.full()  # the views, and the dues they show
    made = rig.c.state.chips._dues[1]
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 3, 20))  # a mispay, cleared, then paid
    rig.put("spot3.trips", TRIPS + chip_uids(100, 3, 1))
    rig.ok("confirm")
    rig.ok("clear", reason="player accepted")
    rig.full()
    assert made and rig.c.state.chips._dues[1] is made  # chip readings and a fault's clear took no step: kept
    pay(rig)
    rig.ok("confirm")
    for circle in ("ante", "blind", "trips", "play"):
        rig.put(f"spot3.{circle}", [])
    bets_down(rig)  # the next hand: seat 3 folds at the river, every due is 0
    rig.ok("deal")
    rig.card(*DECK[:4])
    for cards in (DECK[4:7], DECK[7:]):
        rig.ok("decide", seat=3, decision="check")
        rig.card(*cards)
    rig.ok("decide", seat=3, decision="fold")
    rig.put("spot3.ante", [])
    rig.ok("confirm")
    dues = [d for n, d in enumerate(seen) if d and (n == 0 or d != seen[n - 1])]
    assert dues[0] == {"spot3.ante": 500, "spot3.blind": 500, "spot3.play": 4000, "spot3.trips": 400}
    assert dues[-1] == {"spot3.ante": 0, "spot3.blind": 0, "spot3.trips": 0}


def test_deal_is_offered_after_a_settled_hand_once_new_chips_lie_in_a_circle(rig: Rig) -> None:
    """The console's Deal at a smart table: no bet is typed for the next hand, so the step follows the circles."""
    to_showdown(rig)
    pay(rig)
    rig.ok("confirm")
    assert rig.public()["steps"]["deal"] is False  # the paid chips still lie in the circles: nothing to read yet
    for antenna in ("spot3.ante", "spot3.blind", "spot3.trips", "spot3.play"):
        rig.put(antenna, [])
    assert rig.public()["steps"]["deal"] is False
    rig.put("spot3.ante", chip_uids(500, 1, 30))
    rig.put("spot3.blind", chip_uids(500, 1, 31), stable=False)
    assert rig.public()["steps"]["deal"] is False  # a circle still settling: Deal waits for it
    rig.put("spot3.blind", chip_uids(500, 1, 31))
    shown = rig.public()
    assert shown["steps"]["deal"] is True and shown["hand"] == 1  # the settled hand 1 still on show
    refused = rig.cmd("deal", hand=1)
    assert not refused["ok"] and refused["say"]["key"] == "refusal.not_current_hand"
    rig.ok("deal")  # the console's Deal after a settled hand: no hand number (the next one's is the controller's)
    assert rig.public()["hand"] == 2 and rig.public()["phase"] == "deal"
    assert rig.full()["spots"][0]["bets"] == {"ante": 500, "blind": 500}


def test_deal_is_not_offered_with_the_reader_offline_and_no_bet_typed(rig: Rig) -> None:
    bets_down(rig)
    assert rig.public()["steps"]["deal"] is True
    rig.reader(online=False)
    assert rig.public()["steps"]["deal"] is False  # the console's taps take the bets: Deal follows them


def test_new_chips_in_place_of_the_last_hands_are_bets_even_if_the_circle_never_read_empty(rig: Rig) -> None:
    """A player picks up his chips and puts a new bet down faster than the readers see the circle empty."""
    to_showdown(rig)
    pay(rig)
    rig.ok("confirm")
    for antenna in ("spot3.trips", "spot3.play"):
        rig.put(antenna, [])
    rig.put("spot3.ante", chip_uids(500, 1, 30))
    rig.put("spot3.blind", BLIND + chip_uids(500, 1, 31))  # one of the last hand's chips left with a new one
    reply = rig.cmd("deal")
    assert not reply["ok"] and reply["say"]["key"] == "refusal.chips_stale"
    assert reply["say"]["args"]["circle"] == {"word": "circle.blind"}
    rig.put("spot3.blind", chip_uids(500, 1, 31))
    rig.ok("deal")
    assert rig.full()["spots"][0]["bets"] == {"ante": 500, "blind": 500}
