"""The tray reconciled at the table: a shift of 3CP hands with the tray's antenna read, buy-ins, colour-ups, fills and credits, through the controller and its journal."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from drivers.readings import ChipsRead
from engine.cards import Card
from firmware_host.service.journal import Journal
from firmware_host.service.tray import TrayWatch
from firmware_host.tables.house.table import HouseSetup
from protocol.access import Caller
from protocol.commands import Command, Malformed
from tests.engine.tray_kit import CHIPS, Chips, amount
from tests.firmware_host.rigs import JournalRig

TCP = HouseSetup("3cp", "default", {"minimum": 100}, 7)
DECK = [str(Card.parse(rank + suit)) for rank in "23456789TJQKA" for suit in "cdhs"]


class TrayRig(JournalRig):
    """A 3CP table with the demo chip set; the chips really moved (`Chips`), the tray's antenna read."""

    def __init__(self, path: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.chips = Chips()
        super().__init__(path)
        self.totals = {"net": 0, "buy_in": 0, "colour_up": 0, "fill": 0, "credit": 0}

    def controller_args(self) -> dict[str, Any]:
        return {"default_setup": TCP, "chips": CHIPS}

    def read_tray(self, stable: bool = True) -> None:
        self.c.handle_reading(ChipsRead("tray", frozenset(self.chips.tray), stable))

    def between_hands(self) -> None:
        """What the table does between two hands: now and then a buy-in, a colour-up, a fill or a credit."""
        for _ in range(self.rng.choice((0, 0, 0, 1, 2))):
            kind = self.rng.choice(("buy_in", "colour_up", "fill", "credit"))
            value = amount(self.rng, 50000 if kind == "fill" else 10000, 500)
            args: dict[str, Any] = {"seat": self.rng.randint(1, 7)} if kind in ("buy_in", "colour_up") else {}
            self.ok(kind, amount=value, **args)
            {"buy_in": self.chips.out_of_tray, "credit": self.chips.out_of_tray, "fill": self.chips.into_tray,
             "colour_up": self.chips.colour_up}[kind](value)
            self.read_tray(stable=False)
            self.read_tray()
            self.totals[kind] += value

    def bets_and_cards(self) -> None:
        seats = list(range(1, self.rng.randint(5, 7) + 1))  # the default profile deals to five spots or more
        for seat in seats:
            bets = {"ante": amount(self.rng, 5000, 500)}
            if self.rng.random() < 0.5:
                bets["pair_plus"] = amount(self.rng, 2500, 500)
            self.ok("bet", seat=seat, bets=bets)
        for card in self.rng.sample(DECK, 3 * len(seats) + 3):
            self.ok("card", card=card)
        self.cards_out()
        for seat in seats:
            self.ok("decide", seat=seat, decision=self.rng.choice(("play", "play", "fold")))

    def cards_out(self) -> None:
        """The hand's cards are out, the decisions to come (what a subclass does then)."""

    def settle(self, off: int = 0) -> int:
        """The dealer collects and pays at the tray (`off`: chips that go missing besides), then confirms.
        Returns the hand's house net."""
        self.ok("confirm")
        record = self.c.last_record
        assert record is not None and record["status"] == "settled"
        net = int(record["settlement"]["house_net"])
        (self.chips.into_tray if net > 0 else self.chips.out_of_tray)(abs(net))
        if off:
            (self.chips.into_tray if off > 0 else self.chips.out_of_tray)(abs(off))
        self.read_tray(stable=False)  # the tray settles after the confirm
        self.read_tray()
        self.totals["net"] += net
        return net

    def hand(self, off: int = 0) -> int:
        self.between_hands()
        self.bets_and_cards()
        return self.settle(off)

    def trail(self) -> tuple[Any, ...]:
        ledger = self.c.tray.ledger
        assert ledger is not None
        return ledger.hands, ledger.intervals, ledger.flags, ledger.reconciliation()


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    r = TrayRig(tmp_path, seed=24)
    r.read_tray()  # the opening inventory
    yield r
    r.c.journal.close()


def test_a_shift_of_200_hands_reconciles_to_the_cent(rig: TrayRig) -> None:
    for _ in range(200):
        rig.hand()
    recorded = {kind: sum(m["read"] for row in rig.c.journal.hands() for m in row.record.get("tray", {}).get(
        "movements", []) if m["kind"] == kind) for kind in ("buy_in", "fill", "credit")}
    assert recorded == {kind: rig.totals[kind] for kind in recorded}  # each hand carries what the tray read before it
    rig.between_hands()
    tray = rig.c.full_state()["tray"]
    assert tray["flags"] == [] and tray["difference"] == 0 and tray["closing"] is None
    assert tray["reads"] == tray["expected"] == rig.chips.tray_value()
    rig.ok("close")  # the pit closes the table: the closing inventory
    tray = rig.c.full_state()["tray"]
    assert (tray["opening"], tray["closing"]) == (9_300_00, rig.chips.tray_value())
    assert (tray["fills"], tray["credits"], tray["chips_sold"], tray["house_net"]) == (
        rig.totals["fill"], rig.totals["credit"], rig.totals["buy_in"], rig.totals["net"])
    assert tray["closing"] - tray["opening"] - tray["fills"] + tray["credits"] + tray["chips_sold"] == \
        tray["house_net"] == rig.c.state.session["house_net"]
    assert tray["difference"] == 0 and tray["flagged"] == 0
    ledger = rig.c.tray.ledger
    assert ledger is not None and len(ledger.hands) == 200 and all(h.difference == 0 for h in ledger.hands)
    assert rig.totals["fill"] and rig.totals["credit"] and rig.totals["buy_in"] and rig.totals["colour_up"]


def test_an_unexplained_change_is_flagged_with_its_value_and_hand(rig: TrayRig) -> None:
    for _ in range(5):
        rig.hand()
    rig.hand(off=-2500)  # hand 6: a EUR 25 chip does not come back to the tray
    rig.hand()
    rig.chips.out_of_tray(10000)  # between hands 7 and 8: EUR 100 leaves the tray, nothing recorded
    rig.read_tray()
    rig.hand()
    tray = rig.c.full_state()["tray"]
    assert [(f["value"], f["hand"], f["between"]) for f in tray["flags"]] == [(-2500, 6, False), (-10000, 7, True)]
    assert tray["difference"] == -12500 and tray["flagged"] == 2
    assert "tray" not in rig.c.public_state()  # the tray is the full feed's; the pit is told of the differences
    assert rig.c.public_state()["tray_alert"] == rig.c.full_state()["tray_alert"] == {
        "flagged": 2, "difference": -12500, "last": tray["flags"][1]}
    assert rig.c.state.fault is None  # `tray_difference_stops` is off: the table deals on
    flagged = {row.hand: row.record["tray"]["flags"] for row in rig.c.journal.hands() if "flags" in row.record.get("tray", {})}
    assert {hand: [(f["value"], f["hand"], f["between"]) for f in flags] for hand, flags in flagged.items()} == {
        7: [(-2500, 6, False)], 8: [(-10000, 7, True)]}  # each record: the flags found since the hand before closed
    events = {e.id: e for e in rig.c.journal.events()}
    assert events[tray["flags"][0]["event"]].kind == "confirm" and events[tray["flags"][0]["event"]].hand == 6
    assert events[tray["flags"][1]["event"]].kind == "card" and events[tray["flags"][1]["event"]].hand == 8


def test_a_restart_in_the_middle_replays_the_same_trail(rig: TrayRig) -> None:
    for n in range(100):
        rig.hand(off=500 if n == 40 else 0)
    rig.between_hands()
    rig.bets_and_cards()  # hand 101's cards are out: the table restarts here
    before = rig.trail()
    rig.restart()
    assert rig.trail() == before
    rig.settle()
    for _ in range(99):
        rig.hand()
    rig.ok("close")
    live = rig.trail()
    assert live[2][0].value == 500 and live[2][0].hand == 41 and len(live[2]) == 1
    assert live[3].closed and live[3].difference == 500 and len(live[0]) == 200
    replayed = TrayWatch.from_journal(Journal.open(rig.path, readonly=True), CHIPS).ledger
    assert replayed is not None
    assert (replayed.hands, replayed.intervals, replayed.flags, replayed.reconciliation()) == live
    rig.restart()  # the table stands closed: the closed shift is still the one shown
    assert rig.trail() == live


def test_a_new_shift_starts_when_the_table_opens_again(rig: TrayRig) -> None:
    rig.hand(off=100)
    rig.ok("close")
    assert rig.c.full_state()["tray"]["flagged"] == 1
    rig.ok("open", game="3cp", limits={"minimum": 100})
    rig.read_tray()
    tray = rig.c.full_state()["tray"]
    assert (tray["opening"], tray["flagged"], tray["closing"]) == (rig.chips.tray_value(), 0, None)
    rig.hand()
    assert rig.c.full_state()["tray"]["difference"] == 0


def test_fills_and_credits_need_a_supervisors_sign_off(rig: TrayRig) -> None:
    for cmd, args in (("fill", {"amount": 50000}), ("credit", {"amount": 50000, "slip": "C-7"})):
        reply = rig.c.handle_command(Command.from_mapping({"cmd": cmd, **args}), Caller("dealer"))
        assert (reply["ok"], reply["code"]) == (False, "forbidden")
    reply = rig.c.handle_command(Command.from_mapping({"cmd": "buy_in", "seat": 3, "amount": 10000}), Caller("dealer"))
    assert reply["ok"]
    assert [e.kind for e in rig.c.journal.events()][-1] == "buy_in"


def test_a_buy_in_names_a_seat_of_the_table(rig: TrayRig) -> None:
    rig.ok("open", game="3cp", seats=5, limits={"minimum": 100})
    reply = rig.cmd("buy_in", seat=6, amount=10000)
    assert not reply["ok"] and reply["say"]["key"] == "refusal.no_such_seat"
    with pytest.raises(Malformed, match="buy_in: missing seat"):
        Command.from_mapping({"cmd": "buy_in", "amount": 10000})


def test_a_table_set_to_stop_on_a_tray_difference_holds_until_a_clear(tmp_path: Path) -> None:
    class StoppingRig(TrayRig):
        def controller_args(self) -> dict[str, Any]:
            return {**super().controller_args(), "tray_stops": True}

    rig = StoppingRig(tmp_path, seed=3)
    rig.read_tray()
    rig.hand()
    rig.chips.out_of_tray(2500)  # between hands: EUR 25 leaves the tray, nothing recorded
    rig.read_tray()
    for seat in range(1, 6):
        rig.ok("bet", seat=seat, bets={"ante": 500})
    rig.ok("card", card="As")  # the hand's cards start: the time between hands is checked, the table stops
    fault = rig.c.full_state()["fault"]
    assert fault is not None and fault["kind"] == "tray_difference"
    assert "the tray is EUR -25.00 off between hand 1 and the next" in fault["detail"]
    assert rig.c.light == "fault"
    assert not rig.cmd("card", card="Ks")["ok"]
    rig.restart()  # journaled: it stands after a restart
    assert rig.c.full_state()["fault"]["kind"] == "tray_difference"
    rig.ok("clear", reason="tray counted: EUR 25 short, surveillance informed", then="void")
    assert rig.c.full_state()["fault"] is None and rig.c.journal.hands()[-1].status == "voided"


def test_a_restart_between_the_confirm_and_the_tray_settling_keeps_the_hand_waiting(rig: TrayRig) -> None:
    for _ in range(3):
        rig.hand()
    rig.between_hands()
    rig.bets_and_cards()
    rig.ok("confirm")  # the dealer confirms, then collects and pays: the hand waits for the tray
    net = int(rig.c.journal.hands()[-1].record["settlement"]["house_net"])
    before = rig.trail()
    assert len(before[0]) == 3
    rig.restart()
    assert rig.trail() == before
    (rig.chips.into_tray if net > 0 else rig.chips.out_of_tray)(abs(net))
    rig.read_tray()
    hands, _, flags, line = rig.trail()
    assert len(hands) == 4 and hands[-1].difference == 0 and flags == () and line.difference == 0


def test_a_settled_hand_stays_on_show_through_a_buy_in_and_a_restart(rig: TrayRig) -> None:
    rig.bets_and_cards()
    rig.ok("confirm")  # (no tray reading after it: a chips reading's own place is the chips branch's)
    rig.ok("buy_in", seat=2, amount=10000)  # at the tray, between hands: the table is untouched
    rig.ok("fill", amount=50000)
    shown = rig.c.public_state()
    assert shown["phase"] == "settled" and shown["hand"] == 1
    rig.restart()
    assert rig.c.public_state()["phase"] == "settled" and rig.c.public_state()["spots"] == shown["spots"]


def test_the_chip_set_journaled_at_the_start_values_the_tray(tmp_path: Path) -> None:
    """`[chips] set` as croupier run gives it (the `chip_set` event's body): the tray is read by it, no set given
    to the tray itself, and after a restart too (the journal alone values the chips)."""
    text = (Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv").read_text(encoding="utf-8")

    class ConfiguredRig(JournalRig):
        def controller_args(self) -> dict[str, Any]:
            return {"default_setup": TCP, "chip_set": {"name": "chips-demo.csv", "sha256": CHIPS.sha256(), "text": text}}

    rig = ConfiguredRig(tmp_path)
    chips = Chips()
    rig.c.handle_reading(ChipsRead("tray", frozenset(chips.tray), True))
    rig.ok("fill", amount=50000, slip="F-9")
    chips.into_tray(50000)
    rig.c.handle_reading(ChipsRead("tray", frozenset(chips.tray), True))
    tray = rig.c.full_state()["tray"]
    assert (tray["opening"], tray["reads"], tray["expected"], tray["fills"], tray["difference"]) == (
        9_300_00, 9_300_00 + 50000, 9_300_00 + 50000, 50000, 0)
    rig.restart()
    assert rig.c.full_state()["tray"] == tray
    rig.c.journal.close()


def test_the_tray_as_shown_is_made_again_whenever_the_ledger_changes(rig: TrayRig, monkeypatch: pytest.MonkeyPatch) -> None:
    # `TrayWatch.shown` is kept between events that leave the ledger as it was (a circle's chips, a card): at every
    # event of a shift with movements, flags, a restart and the close, what it gives is what a fresh one makes
    seen, checked = TrayWatch.seen, []

    def checking(watch: TrayWatch, *args: Any, **kwargs: Any) -> Any:
        watch.shown()  # the views made after the event before (the cache filled)
        flags = seen(watch, *args, **kwargs)
        kept = watch.shown()
        watch._shown = None
        assert kept == watch.shown()
        checked.append(args[0])
        return flags

    monkeypatch.setattr(TrayWatch, "seen", checking)
    for n in range(12):
        rig.hand(off=-500 if n == 4 else 0)
        if n == 6:
            rig.chips.out_of_tray(2500)  # between hands: nothing recorded
            rig.read_tray()
            rig.restart()
    rig.ok("close")
    assert {"card", "bet", "decide", "confirm", "chip_scan", "close"} <= set(checked)
    tray = rig.c.full_state()["tray"]
    assert tray["flagged"] == 2 and tray["closing"] is not None
