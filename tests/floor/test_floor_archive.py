"""The archive in a real PostgreSQL: idempotent writes, and catch-up from a real controller's `history` pages over ZeroMQ, the server stopped mid-way."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq

from floor.archive import Archive, ArchiveError
from floor.migrate import migrate
from protocol.access import Caller
from protocol.commands import Command, CommandClient
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from protocol.users import User, Users
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import croupier_here
from tests.floor.pgserver import PgServer, free_port

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


def play(c: Controller, settled: int) -> None:
    """`settled` UTH hands settled (one spot, the seat turning), then a hand the dealer voids, then one
    voided by a supervisor clearing a duplicate-card fault, then one more settled."""
    def do(cmd: str, caller: Caller | None = None, **args: object) -> None:
        reply = c.handle_command(Command.from_mapping({"cmd": cmd, **args}), caller)
        assert reply["ok"], reply

    def settle(i: int) -> None:
        do("bet", seat=1 + i % 3, bets={"ante": 100, "blind": 100, "trips": 25 * (i % 2)} if i % 2
           else {"ante": 100, "blind": 100})
        for card in "Ah Ad 2c Ks".split():
            do("card", card=card)
        do("decide", seat=1 + i % 3, decision="play", multiple=4)
        for card in "Ac 9h 8d 7s 2h".split():
            do("card", card=card)
        do("confirm")

    for i in range(settled):
        settle(i)
    do("bet", seat=2, bets={"ante": 100, "blind": 100})
    do("card", card="5s")
    do("void", reason="a card on the floor")
    do("bet", seat=3, bets={"ante": 200, "blind": 200})
    do("card", card="6s")
    c.handle_command(Command.from_mapping({"cmd": "card", "card": "6s"}))  # read twice: a fault
    do("clear", Caller("dealer"), reason="card read twice", then="void", auth={"user": "sup-7", "pin": "4321"})
    settle(settled)


class PitTable:
    """A real controller on its own thread, its journal on disk and its command channel on ipc; the
    local client is the pit (plaintext local role `pit`)."""

    def __init__(self, root: Path, ctx: zmq.Context[Any], settled: int) -> None:
        self.state = root / "state"
        self.state.mkdir()
        Users({"sup-7": User.with_pin("sup-7", "supervisor", "4321")}).save(self.state / "users.json")
        self.c = Controller(Journal.open(self.state), default_setup=UTH,
                            security=SecurityConfig(local_role="pit", users=str(self.state / "users.json")))
        self.c.recover()
        play(self.c, settled)
        self.endpoint = f"ipc://{root}/commands"
        self.c.bind_commands(ctx, self.endpoint)
        self.thread = threading.Thread(target=self.c.run, args=(ctx,), daemon=True)
        self.thread.start()
        self.client = CommandClient(ctx, self.endpoint, timeout_s=5.0, name="pit")
        self.pages: list[int] = []

    def fetch_page(self, after: int) -> tuple[Sequence[Mapping[str, Any]], bool]:
        reply = self.client.request("history", after=after, limit=4)
        assert reply["ok"], reply
        self.pages.append(after)
        return reply["hands"], reply["more"]

    def history_json(self) -> list[dict[str, Any]]:
        done = croupier_here("history", "--state", str(self.state), "--json", "--last", "0")
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    def close(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[PitTable]:
    t = PitTable(tmp_path, ctx, 9)
    yield t
    t.close()


@pytest.fixture
def archive(db: str) -> Iterator[Archive]:
    migrate(db)
    with Archive(db) as a:
        yield a


def archived(dsn: str, table: str) -> list[dict[str, Any]]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT record FROM hands WHERE table_name = %s ORDER BY hand", (table,)).fetchall()
    return [r[0] for r in rows]


def query(dsn: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(sql, params).fetchall()


def test_catch_up_archives_exactly_the_tables_journal(table: PitTable, archive: Archive, db: str) -> None:
    assert archive.last_hand("uth-7") == 0
    assert archive.catch_up("uth-7", table.fetch_page) == 12  # nine settled, two voided, one settled
    journal = table.history_json()
    assert [h["hand"] for h in journal] == list(range(1, 13))
    assert archived(db, "uth-7") == journal
    assert table.pages == [0, 4, 8]  # pages of 4 from the archive's last hand on
    assert archive.last_hand("uth-7") == 12 and archive.last_hand("uth-8") == 0
    assert archive.catch_up("uth-7", table.fetch_page) == 0 and table.pages[-1] == 12  # nothing new
    assert query(db, "SELECT count(*) FROM hands") == [(12,)]


def test_the_same_records_written_twice_are_one_row_each(table: PitTable, archive: Archive, db: str) -> None:
    journal = table.history_json()
    assert archive.write("uth-7", journal[:5]) == 5
    assert archive.write("uth-7", journal[:5]) == 0
    assert archive.write("uth-7", journal[3:]) == 7  # overlapping: only hands 6.. are new
    assert archive.write("uth-7", journal) == 0
    assert archive.write("uth-9", journal[:2]) == 2  # another table's hand 1 is its own row
    assert query(db, "SELECT table_name, count(*), count(DISTINCT hand) FROM hands GROUP BY 1 ORDER BY 1") == [
        ("uth-7", 12, 12), ("uth-9", 2, 2)]
    assert archived(db, "uth-7") == journal
    assert query(db, "SELECT count(*) FROM faults") == [(1,)] and query(db, "SELECT count(*) FROM voids") == [(2,)]


def test_columns_beside_the_record_hold_what_the_figures_need(table: PitTable, archive: Archive, db: str) -> None:
    journal = table.history_json()
    archive.write("uth-7", journal)
    first = query(db, "SELECT game, status, voided, profile_name, profile_sha256, limits, handle, handle_total, "
                  "house_net, signed_off FROM hands WHERE table_name = 'uth-7' AND hand = 1")[0]
    # hand 1: seat 1, ante 100 blind 100, Play 4x = 400: Pair of aces against the dealer's pair of twos
    assert first[:5] == ("uth", "settled", False, "default", journal[0]["profile"]["sha256"])
    assert first[5] == {"minimum": 100, "maximum": 0, "side_minimum": 0, "side_maximum": 0, "chip": 1}
    assert first[6] == {"ante": 100, "blind": 100, "play": 400} and first[7] == 600
    assert first[8] == journal[0]["settlement"]["house_net"] and first[9] is False
    second = query(db, "SELECT handle, handle_total FROM hands WHERE hand = 2")[0]
    assert second == ({"ante": 100, "blind": 100, "trips": 25, "play": 400}, 625)
    total = query(db, "SELECT sum(house_net) FROM hands WHERE table_name = 'uth-7'")[0][0]
    assert total == sum(h["settlement"]["house_net"] for h in journal if h["status"] == "settled")


def test_a_voided_hand_and_a_fault_with_its_sign_off_are_archived(table: PitTable, archive: Archive,
                                                                  db: str) -> None:
    archive.catch_up("uth-7", table.fetch_page)
    assert query(db, "SELECT hand, status, voided, handle_total, house_net, signed_off FROM hands "
                 "WHERE voided ORDER BY hand") == [(10, "voided", True, 0, 0, False), (11, "voided", True, 0, 0, True)]
    assert query(db, "SELECT hand, reason FROM voids ORDER BY hand") == [
        (10, "a card on the floor"), (11, "fault cleared by sup-7: card read twice")]
    assert query(db, "SELECT hand, n, kind, cleared_by, reason, then_step FROM faults") == [
        (11, 1, "duplicate_card", "sup-7", "card read twice", "void")]
    assert query(db, "SELECT hand, step, signed_by, reason FROM sign_offs") == [
        (11, "clear", "sup-7", "card read twice")]


def test_postgresql_stopped_mid_catch_up_then_a_retry_leaves_no_gap_and_nothing_twice(
        table: PitTable, archive: Archive, pg: PgServer, db: str) -> None:
    stopped: list[int] = []

    def stop_after_first_page(after: int) -> tuple[Sequence[Mapping[str, Any]], bool]:
        page = table.fetch_page(after)
        if after > 0 and not stopped:
            pg.stop()  # the archive's server goes down between the first page's write and the second's
            stopped.append(after)
        return page

    with pytest.raises(ArchiveError, match="the archive's server"):
        archive.catch_up("uth-7", stop_after_first_page)
    with pytest.raises(ArchiveError, match="cannot reach the archive's server"):
        archive.last_hand("uth-7")  # still down: every call says so, none hangs or tracebacks
    pg.start()
    assert archive.last_hand("uth-7") == 4  # the first page stayed written
    assert archive.catch_up("uth-7", table.fetch_page) == 8
    assert archived(db, "uth-7") == table.history_json()
    assert query(db, "SELECT count(*), count(DISTINCT hand), min(hand), max(hand) FROM hands") == [(12, 12, 1, 12)]


def test_a_batch_with_a_bad_record_writes_nothing_and_says_which(table: PitTable, archive: Archive, db: str) -> None:
    journal = table.history_json()
    with pytest.raises(ArchiveError, match="hand 3: status 'playing'"):
        archive.write("uth-7", [journal[0], journal[1], {**journal[2], "status": "playing"}])
    with pytest.raises(ArchiveError, match="without a hand number"):
        archive.write("uth-7", [{"status": "settled"}])
    assert query(db, "SELECT count(*) FROM hands") == [(0,)]


def test_an_archive_whose_server_is_not_there_raises_archive_error(pg: PgServer) -> None:
    with Archive(f"host=127.0.0.1 port={free_port()} user=postgres dbname=x connect_timeout=2") as a:
        with pytest.raises(ArchiveError, match="cannot reach the archive's server"):
            a.last_hand("uth-7")
        with pytest.raises(ArchiveError, match="cannot reach the archive's server"):
            a.write("uth-7", [{"hand": 1, "status": "voided"}])


def test_an_archive_without_its_schema_says_to_run_migrate(db: str) -> None:
    with Archive(db) as a:
        with pytest.raises(ArchiveError, match="run `croupier pit migrate --db DSN`"):
            a.last_hand("uth-7")
        with pytest.raises(ArchiveError, match="schema is not made"):
            a.write("uth-7", [{"hand": 1, "status": "voided"}])
    migrate(db)
    with Archive(db) as a:
        assert a.write("uth-7", [{"hand": 1, "status": "voided"}]) == 1 and a.last_hand("uth-7") == 1


def test_a_connection_kept_across_a_server_restart_is_made_again_at_once(table: PitTable, archive: Archive,
                                                                         pg: PgServer, db: str) -> None:
    journal = table.history_json()
    assert archive.write("uth-7", journal[:4]) == 4  # the archive's connection made and kept
    pg.stop()
    pg.start()  # the kept connection is dead now: the next call must not fail for it
    assert archive.last_hand("uth-7") == 4
    pg.stop()
    pg.start()
    assert archive.write("uth-7", journal[4:]) == 8
    assert archived(db, "uth-7") == journal
