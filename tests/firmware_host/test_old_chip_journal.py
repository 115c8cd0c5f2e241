"""A smart table's journal written before `chip_scan` (one antenna a `chips` event, by e512529's code) replays to the very states that code showed, and goes on with `chip_scan` events after its old ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from drivers.readings import ChipsRead
from firmware_host.service.journal import JOURNAL_FILE
from tests.firmware_host.test_table_chips import Rig, chip_uids

OLD = Path(__file__).resolve().parents[1] / "data" / "journals" / "chips-e512529"


ADDED_SINCE = {"fault": ("circles",)}
"""The state's fields added since e512529 (a chip fault's circles, `smart24`): each replayed state is compared
without them, and what they say of the old journal is checked apart."""
TOP_ADDED_SINCE = ("gaming_day",)
"""The state's own keys added since (the table's `[ratings]` day for the pit, `rate11`)."""


def _json(state: Any) -> Any:
    return json.loads(json.dumps(state))


def _as_then(state: Any) -> Any:
    """A replayed state as e512529's code showed it: the fields added since left out."""
    then = {k: v for k, v in _json(state).items() if k not in TOP_ADDED_SINCE}
    for part, keys in ADDED_SINCE.items():
        if isinstance(then.get(part), dict):
            then[part] = {k: v for k, v in then[part].items() if k not in keys}
    return then


def old_rig(tmp_path: Path) -> Rig:
    (tmp_path / "j").mkdir()
    shutil.copy(OLD / JOURNAL_FILE, tmp_path / "j" / JOURNAL_FILE)
    return Rig(tmp_path / "j")


def test_a_journal_of_one_antenna_a_chips_event_replays_to_the_states_its_code_showed(tmp_path: Path) -> None:
    expected = json.loads((OLD / "expected.json").read_text(encoding="utf-8"))
    rig = old_rig(tmp_path)
    assert {e.kind for e in rig.c.journal.events()} >= {"chips", "chip_set"}
    assert "chip_scan" not in {e.kind for e in rig.c.journal.events()}
    assert _as_then(rig.public()) == expected["public"] and _as_then(rig.full()) == expected["full"]
    assert rig.full()["fault"]["kind"] == "chips_moved"  # the fault it left standing stands: the table locked
    assert rig.full()["fault"]["circles"] == rig.public()["fault"]["circles"] == [{"seat": 3, "circle": "blind"}]
    assert not rig.cmd("decide", seat=3, decision="check")["ok"]
    rig.c.journal.close()


def test_an_old_journal_takes_chip_scans_after_its_chips_events_and_replays_both(tmp_path: Path) -> None:
    rig = old_rig(tmp_path)
    rig.ok("clear", reason="player took the chip back")
    tray = chip_uids(2500, 40) + chip_uids(100, 39)
    play = chip_uids(2500, 1, 50) + chip_uids(100, 3, 50)  # 28.00: a 4x Play of the 7.00 Ante
    rig.c.handle_readings([ChipsRead("spot3.play", frozenset(play), True),  # the Play placed as one leaves the tray
                           ChipsRead("tray", frozenset(tray[1:]), True)])
    scans = [e for e in rig.c.journal.events() if e.kind == "chip_scan"]
    assert len(scans) == 1 and [r["antenna"] for r in scans[0].body["reads"]] == ["spot3.play", "tray"]
    assert scans[0].body["reads"][1] == {"antenna": "tray", "removed": tray[:1], "stable": True}
    rig.ok("decide", seat=3, decision="play")
    assert rig.full()["spots"][0]["bets"]["play"] == 2800 and rig.full()["fault"] is None
    before = _json(rig.full())
    rig.restart()  # the old events and the new replayed together
    assert _json(rig.full()) == before
    assert rig.c.journal.verify_chain() is None
    rig.c.journal.close()
