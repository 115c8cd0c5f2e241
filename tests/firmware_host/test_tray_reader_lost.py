"""The tray reconciled through the chip reader's comings and goings: the reader lost at the opening (before its first reading) and mid-hand, then back, with the emulated board's misses and a fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drivers.chip_debounce import CONFIRM, FIRST_SCANS
from drivers.chip_reader import SimChipReader
from firmware_host.service.journal import Journal
from firmware_host.service.tray import TrayWatch
from firmware_host.tables.house.chips import reads_of
from sim.chips.board import ChipBoardFirmware, layout
from sim.chips.bots import SETTLE_MS
from tests.engine.tray_kit import CHIPS
from tests.firmware_host.test_tray import TrayRig

SCAN_S = 0.1
"""The board's scan period (10 scans a second, as the emulated board)."""


class ReaderRig(TrayRig):
    """A 3CP table whose tray is read by the chip reader's twin (`SimChipReader`: the production debounce,
    K = 4, the demo's settle time) on the emulated board's scans (its misses high in a column), a fake clock."""

    def __init__(self, path: Path, seed: int) -> None:
        super().__init__(path, seed)
        self.now = 0.0
        self.board = ChipBoardFirmware(seed=seed, antennas=layout("3cp", 1), miss_rate=0.005)
        self.reader = SimChipReader(self.c.handle_reading, ("tray",), confirm=CONFIRM, settle_s=SETTLE_MS / 1000,
                                    clock=lambda: self.now)
        self.online = False
        self.lose_mid_hand = False

    def start_reader(self) -> None:
        self.reader.start()
        self.online = True

    def lose_reader(self) -> None:
        self.reader.go_offline("unplugged")
        self.online = False

    def back_reader(self) -> None:
        self.reader.go_online()
        self.online = True

    def scan(self, scans: int = 1) -> None:
        """`scans` of the tray as it lies now (the board's stack kept in the order the chips came), the clock on."""
        stack = self.board.stacks["tray"]
        stack[:] = [u for u in stack if u in self.chips.tray] + sorted(self.chips.tray - set(stack))
        for _ in range(scans):
            self.now += SCAN_S
            if self.online:
                self.reader.scan("tray", self.board.read("tray"))
                self.reader.poll()

    def read_tray(self, stable: bool = True) -> None:
        """The dealer waits until the tray reads, stable, what lies in it (as the bot dealer does)."""
        debounce = self.reader.antennas["tray"]
        for _ in range(300):
            self.scan()
            if debounce.stable and debounce.chips == frozenset(self.chips.tray):
                return
        raise AssertionError("the tray never read what lies in it")

    def cards_out(self) -> None:
        """The reader lost before the decisions when asked (`lose_mid_hand`): the table stands its fault, a supervisor
        clears it and the hand goes on."""
        if self.lose_mid_hand:
            self.lose_mid_hand = False
            self.lose_reader()
            fault = self.c.full_state()["fault"]
            assert fault is not None and fault["kind"] == "device_offline"
            self.ok("clear", reason="chip reader unplugged; the hand goes on")

    def tray(self) -> dict[str, Any]:
        return dict(self.c.full_state()["tray"])


@pytest.fixture(params=[1, 2, 3, 4, 5])
def rig(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    r = ReaderRig(tmp_path, seed=request.param)
    yield r
    r.c.journal.close()


def check_shift(rig: ReaderRig, opening: int) -> None:
    """More hands, the pit closes the table: nothing flagged, the line to the cent, the opening the float's."""
    for _ in range(5):
        rig.hand()
    rig.ok("close")
    tray = rig.tray()
    assert tray["flags"] == [] and tray["difference"] == 0, tray["flags"]
    assert (tray["opening"], tray["closing"]) == (opening, rig.chips.tray_value())
    assert tray["closing"] - tray["opening"] - tray["fills"] + tray["credits"] + tray["chips_sold"] == tray["house_net"]
    replayed = TrayWatch.from_journal(Journal.open(rig.path, readonly=True), CHIPS).ledger
    assert replayed is not None and replayed.flags == () and replayed.reconciliation().difference == 0


def test_a_reader_lost_before_its_first_reading_opens_the_shift_with_the_whole_tray_once_back(rig: ReaderRig) -> None:
    opening = rig.chips.tray_value()
    rig.start_reader()
    rig.scan(FIRST_SCANS * CONFIRM - 1)  # a scan short of the first reading
    assert rig.reader.antennas["tray"].chips is None and rig.tray()["opening"] is None
    rig.lose_reader()
    rig.scan(30)
    rig.ok("fill", amount=50000, slip="F-1")  # chips brought to the tray while it is not read: listed, not reconciled
    rig.chips.into_tray(50000)
    rig.back_reader()
    rig.scan(CONFIRM)  # K scans after it came back: no first reading yet, it is made over 3 K scans afresh
    assert rig.reader.antennas["tray"].chips is None
    rig.read_tray()
    first = [read for e in rig.c.journal.events() for read in reads_of(e.kind, e.body) if read["antenna"] == "tray"][0]
    assert sorted(first["uids"]) == sorted(rig.chips.tray)  # the first reading holds every chip of the tray
    assert rig.tray()["opening"] == opening + 50000
    check_shift(rig, opening + 50000)


def test_a_reader_lost_mid_hand_and_back_after_the_payout_reconciles_the_hand(rig: ReaderRig) -> None:
    rig.start_reader()
    rig.read_tray()
    opening = rig.chips.tray_value()
    for _ in range(3):
        rig.hand()
    rig.between_hands()
    rig.lose_mid_hand = True
    rig.bets_and_cards()  # mid-hand: the table stands the reader's fault until a supervisor clears it
    rig.ok("confirm")  # the payouts unverified, the reader away
    net = int(rig.c.journal.hands()[-1].record["settlement"]["house_net"])
    (rig.chips.into_tray if net > 0 else rig.chips.out_of_tray)(abs(net))  # collected and paid while it is away
    rig.totals["net"] += net
    rig.scan(20)
    rig.back_reader()  # its reading said again once K scans confirm it: the hand's tray, not a new opening
    rig.read_tray()
    tray = rig.tray()
    assert tray["opening"] == opening and tray["flags"] == [] and tray["difference"] == 0
    assert tray["reads"] == tray["expected"] == rig.chips.tray_value()
    check_shift(rig, opening)


def test_a_reader_lost_mid_hand_and_back_before_the_payout_reconciles_the_hand(rig: ReaderRig) -> None:
    rig.start_reader()
    rig.read_tray()
    opening = rig.chips.tray_value()
    rig.hand()
    rig.lose_mid_hand = True
    rig.bets_and_cards()
    rig.scan(15)
    rig.back_reader()
    rig.scan(CONFIRM)  # the reading said again, unchanged: the hand's window unmoved
    rig.settle()  # the dealer confirms, collects and pays with the reader back
    tray = rig.tray()
    assert tray["opening"] == opening and tray["flags"] == [] and tray["difference"] == 0
    check_shift(rig, opening)
