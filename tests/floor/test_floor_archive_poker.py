"""A poker table's closed hand in the archive: its `history` line whole, the variant as its game and its rake as the house's win."""

from __future__ import annotations

import io
import json
from pathlib import Path

import psycopg

from cli.history import history
from floor.archive import Archive
from floor.migrate import migrate
from tests.firmware_host.test_poker_table import HOLDEM, HOLDEM_BOARD, HOLDEM_HOLE, Rig


def test_a_raked_holdem_hand_is_archived_with_its_rake(tmp_path: Path, db: str) -> None:
    rig = Rig(tmp_path)
    try:
        rig.ok("open", **HOLDEM, rake={"rate_bp": 500, "cap": 10})
        rig.ok("deal")
        rig.shoe(HOLDEM_HOLE)
        rig.act(5, "all_in")
        rig.act(6, "fold")
        rig.act(1, "raise", 200)
        rig.act(3, "call")
        rig.shoe(HOLDEM_BOARD)
        rig.act(1, "show")
        rig.act(3, "muck")
        rig.act(5, "show")
        rig.ok("confirm")
        out = io.StringIO()
        history(rig.c.journal, out, 10, True)
    finally:
        rig.c.journal.close()
    line = json.loads(out.getvalue().splitlines()[0])
    rake = line["results"]["rake"]
    assert rake == 10  # 5% of the 500 in the pots, capped at 10
    migrate(db)
    with Archive(db) as archive:
        assert archive.write("poker-1", [line]) == 1
        assert archive.write("poker-1", [line]) == 0
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT game, poker, status, handle, house_net, record FROM hands "
                           "WHERE table_name = 'poker-1' AND hand = 1").fetchone()
    assert row == ("holdem", True, "settled", {}, rake, line)
