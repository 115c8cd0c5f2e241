"""`croupier tray`: the tray's trail and the shift's reconciliation read from a table's journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from firmware_host.service.journal import Journal
from tests.engine.tray_kit import CHIPS, Chips
from tests.firmware_host.test_tray import TrayRig

CHIPS_CSV = str(Path(__file__).resolve().parents[2] / "deploy" / "chips-demo.csv")


def shift(path: Path, off: int = 0) -> TrayRig:
    """Six hands with a buy-in, a fill and a credit among them, the table closed; `off` in hand 4."""
    rig = TrayRig(path, seed=7)
    rig.read_tray()
    for n in range(1, 7):
        rig.hand(off=off if n == 4 else 0)
    rig.ok("buy_in", seat=2, amount=20000)
    rig.chips.out_of_tray(20000)
    rig.ok("fill", amount=100000, slip="F-0042")
    rig.chips.into_tray(100000)
    rig.ok("credit", amount=50000)
    rig.chips.out_of_tray(50000)
    rig.read_tray()
    rig.ok("close")
    rig.c.journal.close()
    return rig


def test_a_reconciled_shift_prints_its_trail_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rig = shift(tmp_path)
    assert main(["tray", "--state", str(tmp_path), "--chips", CHIPS_CSV, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [h["hand"] for h in out["hands"]] == [1, 2, 3, 4, 5, 6]
    assert all(h["difference"] == 0 and h["tray_change"] == h["house_net"] for h in out["hands"])
    last = out["between"][-1]
    assert (last["after_hand"], last["tray_change"], last["difference"]) == (6, -20000 + 100000 - 50000, 0)
    assert [(m["kind"], m["amount"], m.get("seat"), m.get("slip")) for m in last["movements"]] == [
        ("buy_in", 20000, 2, None), ("fill", 100000, None, "F-0042"), ("credit", 50000, None, None)]
    line = out["reconciliation"]
    assert line["closed"] and line["reconciles"] and line["difference"] == 0 and out["flags"] == []
    assert line["closing"] == rig.chips.tray_value() and line["house_net"] == rig.totals["net"]
    assert main(["tray", "--state", str(tmp_path), "--chips", CHIPS_CSV]) == 0
    text = capsys.readouterr().out
    assert "hand 4: house net EUR" in text and "fill EUR 1000.00 (slip F-0042)" in text
    assert text.rstrip().endswith("reconciles") and "FLAGGED" not in text


def test_an_unexplained_change_is_flagged_and_the_shift_does_not_reconcile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shift(tmp_path, off=-500)
    assert main(["tray", "--state", str(tmp_path), "--chips", CHIPS_CSV, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [(f["value"], f["hand"], f["between"]) for f in out["flags"]] == [(-500, 4, False)]
    assert out["reconciliation"]["difference"] == -500 and not out["reconciliation"]["reconciles"]
    assert main(["tray", "--state", str(tmp_path), "--chips", CHIPS_CSV]) == 1
    text = capsys.readouterr().out
    assert "FLAGGED: the tray is EUR -5.00 off in hand 4" in text and "DOES NOT RECONCILE: EUR -5.00" in text


def test_bad_arguments_say_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "chips.csv"
    bad.write_text("uid,value,set,status\nE004,5,x,active\n", encoding="utf-8")
    assert main(["tray", "--state", str(tmp_path), "--chips", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main(["tray", "--state", str(tmp_path), "--chips", CHIPS_CSV, "--currency", "XYZ"]) == 2
    assert "unknown currency" in capsys.readouterr().err


def test_the_chip_set_the_table_journaled_values_the_tray(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A `chip_set` event (`[chips] set` journaled at the table's start) values the tray without --chips."""
    chips = Chips()
    journal = Journal.open(tmp_path)
    text = Path(CHIPS_CSV).read_text(encoding="utf-8")
    journal.append(1, "chip_set", {"name": "chips-demo.csv", "sha256": CHIPS.sha256(), "text": text}, 1.0)
    tray = {"antenna": "tray", "stable": True, "device": "chips"}
    journal.append(1, "chips", {**tray, "uids": sorted(chips.tray)}, 2.0)
    journal.append(1, "deal", {}, 3.0)
    chips.into_tray(1500)
    journal.append(1, "chips", {**tray, "uids": sorted(chips.tray)}, 4.0)
    journal.append_close(1, "confirm", {}, 5.0, None, "3cp", "settled",
                         {"hand": 1, "status": "settled", "settlement": {"house_net": 1500}})
    journal.close()
    assert main(["tray", "--state", str(tmp_path), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)["reconciliation"]
    assert (line["opening"], line["closing"], line["house_net"], line["difference"]) == (
        9_300_00, 9_300_00 + 1500, 1500, 0)
    empty = tmp_path / "no-set"
    Journal.open(empty).close()
    assert main(["tray", "--state", str(empty)]) == 2
    assert "journaled no chip set" in capsys.readouterr().err
