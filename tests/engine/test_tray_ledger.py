"""The tray's ledger over generated shifts: reconciled to the cent when every change is explained, each unexplained one flagged."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine.tray import Flag, Moment, Movement, MovementKind, TrayLedger
from tests.engine.tray_kit import CHIPS, Chips, amount


@dataclass
class Shift:
    """A shift played against a ledger, the chips really moved; `off`: (window number, value) of unexplained changes."""

    rng: random.Random
    chips: Chips = field(default_factory=Chips)
    ledger: TrayLedger = field(default_factory=lambda: TrayLedger(CHIPS))
    event: int = 0
    hand: int = 1
    windows: int = 0
    totals: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MovementKind, 0) | {"net": 0})

    def at(self) -> Moment:
        self.event += 1
        return Moment(self.event, self.hand)

    def read(self) -> None:
        """The tray read: sometimes seen moving first (an unstable reading), then stable."""
        if self.rng.random() < 0.3:
            self.ledger.read(set(self.chips.tray) - {next(iter(self.chips.tray))}, False, self.at())
        self.ledger.read(set(self.chips.tray), True, self.at())

    def move(self, kind: MovementKind, value: int) -> None:
        """A movement recorded and its chips moved, in either order."""
        chips = {MovementKind.BUY_IN: self.chips.out_of_tray, MovementKind.CREDIT: self.chips.out_of_tray,
                 MovementKind.FILL: self.chips.into_tray, MovementKind.COLOUR_UP: self.chips.colour_up}[kind]
        record_first = self.rng.random() < 0.5
        if record_first:
            self.ledger.movement(Movement(kind, value, self.at(), seat=self.rng.randint(1, 7)))
        chips(value)
        self.read()
        if not record_first:
            self.ledger.movement(Movement(kind, value, self.at(), seat=self.rng.randint(1, 7)))
        self.totals[kind] += value

    def between(self, off: int = 0, cards: bool = True) -> None:
        for _ in range(self.rng.choice((0, 0, 1, 2))):
            kind = self.rng.choice(list(MovementKind))
            self.move(kind, amount(self.rng, 5000 if kind is not MovementKind.FILL else 50000))
        self._off(off)
        self.windows += 1
        if cards:
            self.ledger.cards(self.at())

    def play(self, off: int = 0, void: bool = False) -> None:
        """A hand: the cards, the house's net collected or paid at the tray, the close: the dealer pays then
        confirms (the tray settled, or still settling), or confirms then pays."""
        net = 0 if void else self.rng.choice((-1, 1)) * amount(self.rng)
        order = self.rng.choice(("paid, settled", "paid, settling", "confirmed first"))
        if order == "confirmed first":
            self.ledger.hand_closed(self.hand, net, self.at())
        (self.chips.into_tray if net > 0 else self.chips.out_of_tray)(abs(net))
        self._off(off)
        if order == "paid, settled":
            self.read()
        elif order == "paid, settling":
            self.ledger.read(set(self.chips.tray), False, self.at())
            self.ledger.hand_closed(self.hand, net, self.at())
        if order != "paid, settled" or not off:
            self.read()
        if order == "paid, settled":
            self.ledger.hand_closed(self.hand, net, self.at())
        self.totals["net"] += net
        self.windows += 1
        self.hand += 1

    def _off(self, value: int) -> None:
        """A change nobody recorded (chips palmed, a fill never written): read at the tray."""
        if value:
            (self.chips.into_tray if value > 0 else self.chips.out_of_tray)(abs(value))
            self.read()


def play_shift(seed: int, hands: int, off: dict[int, int] | None = None) -> Shift:
    """A shift of `hands` hands; `off`: window number -> an unexplained change in it (even: between hands
    before hand n/2+1, odd: in hand (n+1)/2)."""
    off = off or {}
    shift = Shift(random.Random(seed))
    shift.read()  # the opening inventory
    for _ in range(hands):
        shift.between(off.get(shift.windows, 0))
        shift.play(off.get(shift.windows, 0), void=shift.rng.random() < 0.03)
    shift.between(off.get(shift.windows, 0), cards=False)  # the last movements, then the pit closes the table
    shift.ledger.close(shift.at())
    return shift


@pytest.mark.parametrize("seed", range(20))
def test_a_shift_whose_every_change_is_recorded_reconciles_to_the_cent(seed: int) -> None:
    shift = play_shift(seed, 60)
    ledger, totals = shift.ledger, shift.totals
    assert ledger.flags == ()
    line = ledger.reconciliation()
    assert line.reconciles and line.closed
    assert (line.opening, line.closing) == (9_300_00, shift.chips.tray_value())
    assert (line.fills, line.credits, line.chips_sold, line.colour_ups, line.house_net) == (
        totals[MovementKind.FILL], totals[MovementKind.CREDIT], totals[MovementKind.BUY_IN],
        totals[MovementKind.COLOUR_UP], totals["net"])
    assert [h.hand for h in ledger.hands] == list(range(1, 61))
    assert all(h.difference == 0 and h.change == h.house_net + sum(m.tray_change for m in h.movements)
               for h in ledger.hands)
    assert all(i.difference == 0 for i in ledger.intervals)


@pytest.mark.parametrize("seed", range(20))
def test_each_unexplained_change_is_flagged_with_its_value_and_hand(seed: int) -> None:
    rng = random.Random(1000 + seed)
    windows = rng.sample(range(2 * 40 + 1), 3)
    off = {w: rng.choice((-1, 1)) * amount(rng, 3000) for w in windows}
    shift = play_shift(seed, 40, off)
    expected = [Flag(value, (w + 1) // 2, w % 2 == 0, Moment(0, 0)) for w, value in sorted(off.items())]
    assert [(f.value, f.hand, f.between) for f in shift.ledger.flags] == [(f.value, f.hand, f.between) for f in expected]
    assert shift.ledger.reconciliation().difference == sum(off.values())


def test_a_flag_names_the_moment_it_was_found() -> None:
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.cards(Moment(2, 1))
    chips.out_of_tray(2500)  # paid 25.00 for a hand the house won 10.00: 35.00 missing
    ledger.read(chips.tray, True, Moment(3, 1))
    ledger.hand_closed(1, 1000, Moment(4, 1))
    assert ledger.flags == ()  # a chip of a tall stack may be confirmed a scan late: the next readings may agree
    ledger.cards(Moment(5, 2))  # none came: the hand is checked as the tray read at its close
    assert ledger.flags == (Flag(-3500, 1, False, Moment(4, 1)),)
    assert ledger.flags[0].words() == "the tray is EUR -35.00 off in hand 1 (event 4)"
    assert ledger.reconciliation().difference == -3500


def test_a_chip_confirmed_after_the_close_is_no_difference() -> None:
    """The dealer confirms right after paying; the tray's tall stack is confirmed a few scans after the circles:
    the reading at the close is a chip short, the next one agrees. Nothing is flagged (it was -25.00 in this hand
    and +25.00 between hands, found by hand at the console)."""
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.cards(Moment(2, 1))
    chips.into_tray(5000)  # a losing bet collected...
    late = set(chips.tray)
    chips.into_tray(2500)  # ...and another whose chips the reader confirms late
    ledger.read(late, True, Moment(3, 1))
    ledger.hand_closed(1, 7500, Moment(4, 1))
    ledger.read(chips.tray, True, Moment(5, 1))
    ledger.cards(Moment(6, 2))
    assert ledger.flags == () and ledger.hands[0].difference == 0
    assert ledger.reconciliation().difference == 0


def test_a_chip_confirmed_late_after_a_confirm_made_before_paying_is_no_difference() -> None:
    """The dealer confirms, then collects and pays (or the reader was away during the payout): the tray's first
    stable reading after the close is a chip short (high in a column, confirmed past the settle time), the next
    agrees. Nothing is flagged (it was -5.00 in the hand and +5.00 between hands, through the reader's twin)."""
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.cards(Moment(2, 1))
    ledger.hand_closed(1, 5500, Moment(3, 1))  # the tray unmoved at the close
    chips.into_tray(5000)
    late = set(chips.tray)
    chips.into_tray(500)
    ledger.read(late, True, Moment(4, 1))  # a EUR 5 chip short
    ledger.read(chips.tray, True, Moment(5, 1))
    ledger.cards(Moment(6, 2))
    assert ledger.flags == () and ledger.hands[0].difference == 0
    assert ledger.reconciliation().difference == 0


def test_a_hand_confirmed_before_paying_that_never_agrees_is_checked_at_its_first_reading_after() -> None:
    """What came after that first reading belongs to the time between hands: two flags, each where it happened."""
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.cards(Moment(2, 1))
    ledger.hand_closed(1, 7500, Moment(3, 1))
    chips.into_tray(5000)  # 25.00 short
    ledger.read(chips.tray, True, Moment(4, 1))
    chips.out_of_tray(1000)  # taken between hands, nothing recorded
    ledger.read(chips.tray, True, Moment(5, 1))
    ledger.cards(Moment(6, 2))
    assert [(f.value, f.hand, f.between) for f in ledger.flags] == [(-2500, 1, False), (-1000, 1, True)]


def test_what_came_after_a_close_that_never_agrees_is_the_time_between_hands() -> None:
    """A hand short at its close, then an unrecorded change between hands: two flags, each where it happened."""
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.cards(Moment(2, 1))
    chips.into_tray(5000)
    ledger.read(chips.tray, True, Moment(3, 1))
    ledger.hand_closed(1, 7500, Moment(4, 1))  # 25.00 short
    chips.out_of_tray(1000)  # taken between hands, nothing recorded
    ledger.read(chips.tray, True, Moment(5, 1))
    ledger.cards(Moment(6, 2))
    assert [(f.value, f.hand, f.between) for f in ledger.flags] == [(-2500, 1, False), (-1000, 1, True)]
    assert ledger.reconciliation().difference == -3500


def test_what_happens_before_the_opening_inventory_is_listed_not_reconciled() -> None:
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.movement(Movement(MovementKind.FILL, 10000, Moment(1, 1)))  # before the tray was ever read
    ledger.cards(Moment(2, 1))
    ledger.hand_closed(1, 500, Moment(3, 1))
    ledger.read(chips.tray, True, Moment(4, 2))
    ledger.cards(Moment(5, 2))
    assert ledger.flags == ()
    assert ledger.hands[0].difference is None and ledger.intervals[0].difference is None
    line = ledger.reconciliation()
    assert (line.opening, line.fills, line.house_net, line.difference) == (9_300_00, 0, 0, 0)


def test_the_expected_tray_follows_what_was_recorded_since_it_was_checked() -> None:
    ledger = TrayLedger(CHIPS)
    chips = Chips()
    ledger.read(chips.tray, True, Moment(1, 1))
    ledger.movement(Movement(MovementKind.FILL, 50000, Moment(2, 1)))
    ledger.movement(Movement(MovementKind.BUY_IN, 2000, Moment(3, 1), seat=2))
    assert ledger.expected() == 9_300_00 + 50000 - 2000
    line = ledger.reconciliation()  # so far: the tray not moved yet reads 48,000 short of what was recorded
    assert (line.fills, line.chips_sold, line.closed, line.difference) == (50000, 2000, False, -48000)
