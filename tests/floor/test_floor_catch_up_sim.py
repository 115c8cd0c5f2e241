"""Catch-up from a real `croupier run` table whose hands bots played: the archive's hands equal `croupier history --json` of its journal."""

from __future__ import annotations

import json
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import psycopg
import zmq

from cli.demo import SimTable
from floor.archive import Archive
from floor.migrate import migrate
from protocol.commands import CommandClient
from sim.bots.players import seat_players
from tests.firmware_host.processes import croupier_here


def test_bots_play_a_3cp_table_and_the_pit_archives_its_journal_whole(tmp_path: Path, ctx: zmq.Context[Any],
                                                                      db: str) -> None:
    migrate(db)
    with SimTable(tmp_path / "state", game="3cp", seed=5, seats=6) as table:
        dealer = table.dealer(players=seat_players(6, 5), buttons=0.3)
        try:
            log = dealer.play(12)
        finally:
            dealer.close()
        assert log.hands == 12
        # the same `croupier run` restarted with its plaintext local clients in the pit's role
        text = table.config_path.read_text(encoding="utf-8")
        table.config_path.write_text(text.replace('local_role = "dealer"', 'local_role = "pit"'), encoding="utf-8")
        assert table.controller is not None
        table.controller.kill(signal.SIGTERM)
        table.controller.wait_ready(2)
        client = CommandClient(ctx, table.endpoints.commands, timeout_s=5.0, name="pit")

        def fetch_page(after: int) -> tuple[Sequence[Mapping[str, Any]], bool]:
            reply = client.request("history", after=after, limit=5)
            assert reply["ok"], reply
            return reply["hands"], reply["more"]

        try:
            with Archive(db) as archive:
                assert archive.catch_up("sim-3cp-1", fetch_page) == 12
                assert archive.catch_up("sim-3cp-1", fetch_page) == 0
        finally:
            client.close()
        done = croupier_here("history", "--state", str(table.state_dir), "--json", "--last", "0")
        assert done.returncode == 0, done.stderr
    journal = [json.loads(line) for line in done.stdout.splitlines()]
    assert [h["hand"] for h in journal] == list(range(1, 13))
    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT record, game, handle_total, house_net FROM hands WHERE table_name = 'sim-3cp-1' "
                            "ORDER BY hand").fetchall()
    assert [r[0] for r in rows] == journal
    assert {r[1] for r in rows} == {"3cp"}
    assert sum(r[3] for r in rows) == sum(h["settlement"]["house_net"] for h in journal if h["settlement"])
    assert all(r[2] > 0 for r in rows)  # every settled hand wagered something
