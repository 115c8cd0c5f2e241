"""A chip scan's views made from the chips' parts (`tables/views.py` `chip_views`) against the whole views, over many chip hands with faults."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from drivers.readings import CardRead, ChipsRead, DeviceOffline, DeviceOnline, OfflineKind
from engine.cards import DECK
from engine.chips import ChipSet
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables import state as table_state
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import Published, strings_in
from tests.firmware_host.test_card_views import _Hands
from tests.firmware_host.test_table_chips import RETIRED, chip_set_text, chip_uids

VALUES = (2500, 500, 100)
UID = re.compile(r"E004\d{12}")


CHIPS = ChipSet.from_csv(chip_set_text(900), where="test-chips.csv")  # 900 a value: the tray's float and the racks
CHIP_SET = {"name": "test-chips.csv", "sha256": CHIPS.sha256(), "text": chip_set_text(900)}
TRAY_FLOAT = {2500: 100, 500: 100, 100: 200}


class _Public(Published):
    """The test feed (`Published`: each step's changes rebuild the very states shown), and after every step no chip's
    UID in the public state rebuilt from the changes, nor in a public change made from named parts."""

    def publish(self, public: dict[str, Any], full: dict[str, Any] | None = None, **options: Any) -> int:
        named = options.get("named")
        seq = super().publish(public, full, **options)
        leaked = [s for s in strings_in(self.rebuilt[0]) if UID.search(s)]
        leaked += [s for s in strings_in(named.public if named is not None else {}) if UID.search(s)]
        assert not leaked, f"UIDs on the public feed: {leaked[:3]}"
        return seq


class _ChipHands(_Hands):
    """A UTH table of 7 spots with a chip reader in process, fed what its readers would post: the players' stakes
    placed in the circles (one circle a scan, or every circle in one scan as the bots do), the Play read, the dealer
    collecting to the tray and paying from it; faults now and then (past-posting, pinching, a foreign chip, the reader
    lost mid-hand, a mispay, a void) and a restart on the journal."""

    def __init__(self, path: Path, rng: random.Random) -> None:
        super().__init__(path, rng)
        self.on: dict[str, set[str]] = {}  # antenna -> the chips in it
        self.pool = {value: chip_uids(value, 900 - TRAY_FLOAT[value], TRAY_FLOAT[value]) for value in VALUES}
        tray = {uid for value in VALUES for uid in chip_uids(value, TRAY_FLOAT[value])}
        self.c.handle_reading(DeviceOnline("chips", "sim-chips", "CR-1", "1.0", 7))
        self.scan({"tray": tray})
        self.faults: list[str] = []

    def feed(self) -> Published:
        return _Public()

    def _start(self) -> Controller:
        c = Controller(Journal.open(self.path), table="chips", feed=self.published,  # type: ignore[arg-type]
                       default_setup=HouseSetup("uth", "default", {"minimum": 100}, 7), chip_set=CHIP_SET)
        c.recover()
        return c

    def scan(self, now: dict[str, set[str]], settle: bool = True) -> None:
        """Circles' chips now: read moving, then (`settle`) stable; all in one scan, or (at random) a circle a scan."""
        self.on.update({name: set(chips) for name, chips in now.items()})
        together = self.rng.random() < 0.5
        for stable in (False, True) if settle else (False,):
            reads = [ChipsRead(name, frozenset(self.on[name]), stable) for name in now]
            for batch in [reads] if together else [[read] for read in reads]:
                self.c.handle_readings(list(batch))

    def take(self, amount: int, source: dict[int, list[str]]) -> set[str]:
        """Chips making `amount`, the highest values first, taken out of `source`."""
        out: list[str] = []
        for value in VALUES:
            count = min(amount // value, len(source[value]))
            out += source[value][:count]
            del source[value][:count]
            amount -= count * value
        assert amount == 0, f"short by {amount}"
        return set(out)

    def give(self, chips: set[str], to: dict[int, list[str]]) -> None:
        for uid in chips:
            chip = CHIPS.get(uid)
            if chip is not None and chip.status.value == "active":
                to[chip.value].append(uid)

    def tray(self) -> dict[int, list[str]]:
        """The tray's chips by value (taken from: what is taken leaves `self.on["tray"]` at the next `scan`)."""
        out: dict[int, list[str]] = {value: [] for value in VALUES}
        self.give(self.on["tray"], out)
        return out

    def clear_fault(self) -> None:
        self.faults.append(str(self.c.fault.kind) if self.c.fault is not None else "")
        assert self.do("clear", reason="checked", then=self.rng.choice(["continue", "continue", "void"]))["ok"]

    def hand(self) -> str:
        """One hand: stakes read, dealt, decided, paid and confirmed (or voided), the circles emptied after."""
        rng = self.rng
        seats = rng.sample(range(1, 8), rng.choice([1, 2, 3, 7]))
        stakes: dict[str, set[str]] = {}
        for seat in seats:
            unit = 200 * rng.randint(1, 5)
            for circle in ("ante", "blind") + (("trips",) if rng.random() < 0.5 else ()):
                stakes[f"spot{seat}.{circle}"] = self.take(unit if circle != "trips" else 200, self.pool)
        self.scan(stakes)
        ante = {seat: CHIPS.value(self.on[f"spot{seat}.ante"]) for seat in seats}
        assert self.do("deal")["ok"]
        end = self.play(ante)
        self.take_chips_back()
        return end

    def play(self, ante: dict[int, int]) -> str:
        deck = [str(card) for card in DECK]
        self.rng.shuffle(deck)
        rng = self.rng
        while True:
            c = self.c
            if c.fault is not None:
                self.clear_fault()
                if c.table is not None and not c.table.started:
                    return "voided"
                continue
            rnd = c.state.need_table().round  # type: ignore[attr-defined]
            if rnd.phase == "showdown":
                return self.pay()
            r = rng.random()
            if r < 0.01:
                self.restart()
            elif r < 0.03:
                self.fault_in_a_circle(ante)
            elif r < 0.035:
                self.c.handle_reading(DeviceOffline("chips", "cable pulled", OfflineKind.DEVICE_OFFLINE))
                self.c.handle_reading(DeviceOnline("chips", "sim-chips", "CR-1", "1.0", 7))
            elif r < 0.04:
                assert self.do("void", reason="random void")["ok"]
                return "voided"
            elif rnd.next_target() is not None:
                self.seq = (self.seq + 1) % 256
                c.handle_reading(CardRead(deck.pop(), "shoe", self.seq))
            else:
                self.decide(rnd, ante)

    def fault_in_a_circle(self, ante: dict[int, int]) -> None:
        """Past-posting, pinching or a foreign chip in a circle of a spot in the hand."""
        seat = self.rng.choice(sorted(ante))
        name = f"spot{seat}.{self.rng.choice(['ante', 'blind'])}"
        kind = self.rng.choice(["past_post", "pinch", "foreign"])
        if kind == "past_post":
            self.scan({name: self.on[name] | self.take(100, self.pool)})
        elif kind == "pinch" and len(self.on[name]) > 1:
            pinched = sorted(self.on[name])[0]
            self.give({pinched}, self.pool)
            self.scan({name: self.on[name] - {pinched}})
        elif kind == "foreign":
            self.scan({name: self.on[name] | {RETIRED}})
            self.scan({name: self.on[name] - {RETIRED}})  # taken off again: the fault stands till cleared

    def decide(self, rnd: Any, ante: dict[int, int]) -> None:
        seat = rnd.to_act()
        choices = [(a, m) for a, m in [("play", 4), ("play", 3), ("play", 2), ("play", 1), ("check", None),
                                        ("fold", None)] if rnd.can_decide(seat, a, m)]
        action, multiple = self.rng.choice(choices)
        if action == "play":
            self.scan({f"spot{seat}.play": self.take(multiple * ante[seat], self.pool)})
        reply = self.do("decide", seat=seat, decision=action)
        assert reply["ok"], reply

    def pay(self) -> str:
        """Every circle with a due paid (or collected) from the tray, now and then one short (a mispay); confirmed."""
        circles = [c for c in self.c.public_state()["chips"]["circles"] if "due" in c]
        tray = self.tray()
        now: dict[str, set[str]] = {}
        for circle in circles:
            name = f"spot{circle['seat']}.{circle['circle']}"
            held, due = set(self.on.get(name, ())), int(circle["due"])
            if CHIPS.value(held) > due or RETIRED in held:
                self.give(held, tray)
                held = set()
            short = 100 if due and self.rng.random() < 0.1 else 0  # a mispay
            now[name] = held | self.take(due - CHIPS.value(held) - short, tray)
        now["tray"] = {uid for chips in tray.values() for uid in chips}
        self.scan(now)
        while True:
            reply = self.do("confirm")
            if reply["ok"] and (self.c.table is None or self.c.table.closed is not None):
                return "settled"
            assert self.c.fault is not None, reply
            self.clear_fault()
            if self.c.table is not None and not self.c.table.started:  # cleared with then=void
                return "voided"

    def take_chips_back(self) -> None:
        """The players take their chips: every circle emptied (its chips back in the players' racks)."""
        now = {}
        for name, chips in self.on.items():
            if name != "tray" and chips:
                self.give(chips, self.pool)
                now[name] = set()
        self.scan(now)
        if self.c.fault is not None:
            self.clear_fault()


def test_a_chip_scans_views_are_the_whole_views_after_every_step(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """50 chip hands: at every step the views equal the whole views (`conftest.py`), the feed's changes (made from a
    clean chip scan's named parts, else the whole states' diff: `Published`) rebuild the very states shown, public
    and full, and no chip's UID is ever in the public state they rebuild nor in a public change made from parts."""
    made = [0, 0]
    chip_views = table_state.chip_views

    def counted(*args: Any) -> Any:
        out = chip_views(*args)
        made[out is None] += 1
        return out

    monkeypatch.setattr(table_state, "chip_views", counted)
    hands = _ChipHands(tmp_path / "state", random.Random(20261205))
    named = hands.published.named
    ends = []
    for n in range(50):
        ends.append(hands.hand())
        assert tuple(hands.published.rebuilt) == hands.c.states(), f"hand {n}: the changes do not rebuild the state"
    assert ends.count("settled") >= 30 and ends.count("voided") >= 3, ends
    assert made[0] > 50 * 10 and made[1] < made[0] // 20, made  # nearly every scan's views made from its parts
    assert hands.published.named - named > 50 * 8  # and their changes from the parts they named
    assert {"chips_moved", "foreign_chip", "mispay", "device_offline"} <= {f.split(".")[-1].lower() for f in hands.faults}
    hands.c.journal.close()
