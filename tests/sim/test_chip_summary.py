"""The chips demo's summary in words when it ends before any hand: nothing to reconcile, not a difference of None."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.service.journal import Journal
from sim.chips.bots import chip_summary


def test_a_demo_stopped_before_any_hand_says_the_tray_has_nothing_to_reconcile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # SIGINT to `croupier demo --chips --dealer web` before the tray's opening inventory was journaled (found on main:
    # "the tray does not reconcile: difference None")
    Journal.open(tmp_path).close()
    chips, ok = chip_summary(tmp_path, 1, 10 ** 9, {})
    said = capsys.readouterr().err
    assert said == "croupier demo: no hand closed: the tray has nothing to reconcile\n"
    assert "None" not in said and chips == {"injected": {}, "caught": {}, "tray_difference": None} and ok
