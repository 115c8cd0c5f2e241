"""`croupier demo --chips --game 3cp`: Three Card Poker's chips demo with every fault kind injected pays the Ante Bonus on the Ante, the tray reconciled (a file of its own: `make test`'s workers take a file each, and this demo runs beside tests/sim/test_chip_demo.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.chips.bots import parse_faults
from tests.sim.test_chip_demo import EVERY_FAULT, FAST_SCAN, check_run, demo, journal_hands


@pytest.mark.slow
def test_three_card_poker_with_chips_pays_the_ante_bonus_on_the_ante(tmp_path: Path) -> None:
    # seed 1398: an Ante Bonus at each hand (seat 2's straight, then seat 6's) and every fault kind in the two hands
    # (mispay, past-post, foreign chip and misread in the first, a pinch in the second: seed 1 took 6 hands)
    status, line, err = demo(tmp_path / "state", 2, EVERY_FAULT.replace("0.3", "0.4"), seed=1398, game="3cp",
                             scan=FAST_SCAN)
    assert status == 0, err
    assert all(line["chips"]["injected"].get(kind, 0) >= 1 for kind in parse_faults(EVERY_FAULT)), line
    check_run(tmp_path / "state", line, 2)
    bonuses = [s for r in journal_hands(tmp_path / "state") for s in r["settlement"]["spots"]
               if s["results"].get("ante_bonus", 0) > 0]
    assert bonuses  # the run met an Ante Bonus, and the tray still reconciled
