"""A dealer button and its command are one step: pressed on gpiozero's mock pins or sent on the command
channel, `next`/`deal`, `confirm` and `void` leave the table the same way, with no fault and under each fault kind
(void is taken under any fault but one that locks the table; deal and confirm under none)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.buttons import DEFAULT_PINS, open_buttons
from firmware_host.tables.base import FaultKind
from tests.firmware_host.test_controller import UTH_DECK, Rig

BUTTON_OF = {"deal": "next", "confirm": "confirm", "void": "void"}


def bets_taken(r: Rig) -> None:
    r.ok("bet", seat=1, bets={"ante": 100, "blind": 100})


def mid_hand(r: Rig) -> None:
    bets_taken(r)
    r.ok("deal")
    r.cards(UTH_DECK[:2])


def at_showdown(r: Rig) -> None:
    r.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    r.ok("deal")
    r.cards("As Kd Qh Ac")
    r.ok("decide", seat=1, decision="play", multiple=4)
    r.cards("Tc 9d 2c 7d 9h")
    assert r.c.public_state()["phase"] == "showdown"


WHERE: dict[str, Callable[[Rig], None]] = {"deal": bets_taken, "confirm": at_showdown, "void": mid_hand}


def outcome(r: Rig) -> tuple[Any, ...]:
    """What a step left: the hand, its phase, the fault standing, the hands closed and how."""
    state = r.c.public_state()
    fault = state["fault"]
    closed = [(h.hand, h.status, h.record.get("by")) for h in r.c.journal.hands()]
    return state["hand"], state["phase"], None if fault is None else fault["kind"], closed


def press(r: Rig, button: str) -> None:
    """Press `button` on the dealer's panel (gpiozero mock pins) and let the controller take what it posted."""
    factory = MockFactory()
    buttons = open_buttons("gpio", r.c.inbox.post, pin_factory=factory, hold_s={})  # void posts when pressed
    buttons.start()
    try:
        pin = factory.pin(DEFAULT_PINS[button])
        pin.drive_low()
        pin.drive_high()
    finally:
        buttons.close()
    readings = r.c.inbox.drain()
    assert len(readings) == 1
    r.c.handle_readings(readings)


@pytest.fixture
def rigs(tmp_path: Path) -> Iterator[tuple[Rig, Rig]]:
    by_button, by_command = Rig(tmp_path / "button"), Rig(tmp_path / "command")
    yield by_button, by_command
    by_button.c.journal.close()
    by_command.c.journal.close()


@pytest.mark.parametrize("fault", [None, *FaultKind], ids=lambda f: str(f or "no_fault"))
@pytest.mark.parametrize("step", ["deal", "confirm", "void"])
def test_the_button_and_the_command_give_the_same_outcome(rigs: tuple[Rig, Rig], step: str,
                                                           fault: FaultKind | None) -> None:
    by_button, by_command = rigs
    for r in rigs:
        WHERE[step](r)
        if fault is not None:
            r.c.raise_fault(fault.value, "raised by the test")
    before = outcome(by_button)
    assert before == outcome(by_command)
    press(by_button, BUTTON_OF[step])
    reply = by_command.cmd(step, **({"reason": "misdeal"} if step == "void" else {}))
    after_button, after_command = outcome(by_button), outcome(by_command)
    # the same hand, phase, fault and closed hands (`by` aside: the button's record says "button")
    assert after_button[:3] == after_command[:3]
    assert [h[:2] for h in after_button[3]] == [h[:2] for h in after_command[3]]
    taken = fault is None or (step == "void" and not fault.critical)  # the one rule (docs/house-games.md)
    assert reply["ok"] is taken, reply
    assert (after_button != before) is taken
    if taken and step != "deal":
        status = "voided" if step == "void" else "settled"
        assert after_button[3] == [(1, status, "button")] and after_button[2] is None
    if not taken and fault is not None:
        assert after_button[2] == fault.value
