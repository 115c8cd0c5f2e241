"""The pit's catch-up worker tries a failed table again on its own timer: the archive stopped and started, a table down and back, and no hand closes meanwhile to ask for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import zmq

from floor.archive import Archive
from floor.catchup import CatchUp
from floor.config import PitTable
from floor.migrate import migrate
from tests.firmware_host.processes import wait_for
from tests.firmware_host.test_history_request import LocalTable
from tests.floor.pgserver import PgServer


def rows(dsn: str) -> tuple[int, int, int]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*), count(DISTINCT hand), coalesce(max(hand), 0) FROM hands").fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def test_a_catch_up_refused_by_the_archive_or_the_table_is_done_once_they_are_back(
        tmp_path: Path, ctx: zmq.Context[Any], db: str, pg: PgServer) -> None:
    migrate(db)
    table = LocalTable(tmp_path, ctx, 5)  # five settled and one voided: hands 1-6
    archive = Archive(db)
    worker = CatchUp(ctx, archive, lambda t: (None, None), timeout_s=1.0)
    worker.set_tables({"t1": PitTable("t1", "ipc://unused", "ipc://unused", table.endpoint)})
    worker.start()
    try:
        assert archive.last_hand("t1") == 0  # the archive's connection made (and kept)
        pg.stop()
        worker.want("t1")  # the table's hands closed while the archive is down: refused
        wait_for(lambda: worker.failures >= 1, "the catch-up refused by the archive")
        pg.start()
        # no hand closes, nobody asks again: the worker's own retry archives the table
        wait_for(lambda: worker.archived.get("t1") == 6, "the six hands archived after the archive came back")
        assert rows(db) == (6, 6, 6)
        table.close()  # the table down: its catch-up times out
        failures = worker.failures
        worker.want("t1")
        wait_for(lambda: worker.failures > failures, "the catch-up of a table that is down failing")
        table = LocalTable(tmp_path, ctx, 2)  # back, with two hands more
        wait_for(lambda: worker.archived.get("t1") == 8, "the two hands closed meanwhile archived")
        assert rows(db) == (8, 8, 8)
    finally:
        assert worker.stop()
        archive.close()
        table.close()
