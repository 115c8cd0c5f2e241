"""`croupier demo --chips --game 3cp`: Three Card Poker's chips demo with every fault kind injected pays the Ante Bonus on the Ante, the tray reconciled (a file of its own: `make test`'s workers take a file each, and this demo runs beside tests/sim/test_chip_demo.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sim.test_chip_demo import EVERY_FAULT, FAST_SCAN, check_run, demo, journal_hands


@pytest.mark.slow
def test_three_card_poker_with_chips_pays_the_ante_bonus_on_the_ante(tmp_path: Path) -> None:
    # seed 1: seat 1's straight plays against a dealer who does not qualify at the second hand (the Ante Bonus)
    status, line, err = demo(tmp_path / "state", 6, EVERY_FAULT.replace("0.3", "0.4"), game="3cp", scan=FAST_SCAN)
    assert status == 0, err
    check_run(tmp_path / "state", line, 6)
    bonuses = [s for r in journal_hands(tmp_path / "state") for s in r["settlement"]["spots"]
               if s["results"].get("ante_bonus", 0) > 0]
    assert bonuses  # the run met an Ante Bonus, and the tray still reconciled
