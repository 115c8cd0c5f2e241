"""The demo chip set the simulated smart table plays with: `deploy/chips-demo.csv`, made here and checked against the file.

Denominations as a European table's (EUR 1 white, 5 red, 25 green, 100 black, 500 purple), enough of
each for 7 spots of 4 circles and a full tray, and a few chips that are not money here (retired,
sample, void) for the simulation's foreign-chip faults. UIDs are NXP ISO 15693 ones (`E004`), the
rest a counter: deterministic, so the file never changes unless this does.
"""

from __future__ import annotations

from engine.chips import ChipSet, ChipStatus

SET_NAME = "demo-2026"
COUNTS: tuple[tuple[int, int, ChipStatus], ...] = (
    (100, 800, ChipStatus.ACTIVE),
    (500, 800, ChipStatus.ACTIVE),
    (2500, 400, ChipStatus.ACTIVE),
    (10000, 200, ChipStatus.ACTIVE),
    (50000, 50, ChipStatus.ACTIVE),
    (500, 10, ChipStatus.RETIRED),
    (2500, 10, ChipStatus.SAMPLE),
    (10000, 10, ChipStatus.VOID),
)
"""(value in cents, how many, status): the set's lines in order."""


def demo_chips_csv() -> str:
    """The demo set's file as text: a header, then one chip a line."""
    lines = ["# Croupier's demo chip set (sim/demo_chips.py makes it): uid, value in cents, set, status",
             "uid,value,set,status"]
    serial = 0
    for value, count, status in COUNTS:
        for _ in range(count):
            serial += 1
            lines.append(f"E0040150{serial:08X},{value},{SET_NAME},{status}")
    return "\n".join(lines) + "\n"


def demo_chip_set() -> ChipSet:
    """The demo set, parsed."""
    return ChipSet.from_csv(demo_chips_csv(), where="the demo chip set")
