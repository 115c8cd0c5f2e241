"""A past gaming day's adjustment reaching the casino system through the pit's archiver process (`floor/archiver.py`, its own process as `croupier pit` runs it) in a real PostgreSQL: each step made in the archive sent `updated` once, with the new figures, in `seq` order, and not again after the archiver is started again."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import psycopg
import pytest
import zmq

from floor.archive import Archive
from floor.archiver import ArchiverProcess
from floor.config import PitConfig
from floor.migrate import migrate
from floor.rating_past import PastStep, adjust, day_sessions
from tests.firmware_host.processes import wait_for
from tests.floor.test_floor_rating_past import ANTE, TABLE, catch_up_quiet, yesterday
from tests.floor.test_floor_ratings import CmsClient, close, croupier, lines


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rated 3CP table's short evening, closed: every session final."""
    path = tmp_path_factory.mktemp("evening") / TABLE
    done = croupier("demo", "--game", "3cp", "--hands", "14", "--rated", "0.5", "--quiet", "--seed", "11",
                    "--state", str(path))
    assert done.returncode == 0, done.stderr
    close(path)
    return path


def step(db: str, session: dict[str, Any], hands: int, request: str) -> dict[str, Any]:
    """The pit's step on a past day's session, made in the archive as /pit and `croupier pit rating` make it."""
    with psycopg.connect(db) as conn:
        return adjust(conn, PastStep(TABLE, session["start"], session["seats"][-1]["seat"], 0, hands=hands,
                                     average_bet=1500, reason="slip found late"), "pat", "sue", request)


def handshake(sock: zmq.Socket[Any]) -> zmq.Socket[Any]:
    """A monitor of `sock`'s handshakes (a reconnection to a feed bound again)."""
    return sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)


def test_a_past_days_adjustment_reaches_the_cms_updated_through_the_archivers_process(
        tmp_path: Path, db: str, evening: Path) -> None:
    migrate(db)
    with Archive(db, pit="pit-1") as a:  # archived by the pit whose archiver publishes its tables' steps
        catch_up_quiet(a, evening)
    day = yesterday(db, time.time() + 86400)  # the whole evening moved to a past gaming day
    sessions = [s for s in lines("--db", db) if not s["open"] and s["hands"]]
    assert len(sessions) >= 3
    with psycopg.connect(db) as conn:
        assert {x["start"] for x in day_sessions(conn, TABLE, day)} >= {s["start"] for s in sessions}
    endpoint = f"ipc://{tmp_path}/ratings"
    cfg = PitConfig.parse(f'[pit]\nname = "pit-1"\ndb = "{db}"\nratings = "{endpoint}"\nlisten = "ipc://{tmp_path}/floor"\n'
                          f'snapshot = "ipc://{tmp_path}/floor-snapshot"\n', source=str(tmp_path / "pit.toml"))
    ctx: zmq.Context[Any] = zmq.Context()
    child: ArchiverProcess | None = ArchiverProcess(ctx, cfg, 5.0)
    cms = CmsClient(ctx, endpoint)  # connected to the child's feed (its handshake waited for)
    monitor: zmq.Socket[Any] | None = None
    try:
        first = step(db, sessions[0], 12, "pit-web:pat:p1")
        wait_for(lambda: cms.take() is None and cms.seq == 1, "the first step's `updated` at the client", timeout_s=30)
        key0 = (TABLE, sessions[0]["player"], sessions[0]["start"])
        assert cms.events == ["updated"] and cms.sessions[key0] == first
        assert Fraction(first["theo"]) - Fraction(sessions[0]["theo"]) == 12 * 1500 * ANTE
        assert first["adjustments"][-1]["via"] == "archive" and first["end"] == sessions[0]["end"]

        second = step(db, sessions[1], 3, "pit-web:pat:p2")  # the next step: sent after it, the first not again
        wait_for(lambda: cms.take() is None and cms.seq == 2, "the second step's `updated`", timeout_s=30)
        assert cms.events == ["updated", "updated"]
        assert cms.sessions[(TABLE, sessions[1]["player"], sessions[1]["start"])] == second

        monitor = handshake(cms.sock)
        assert child.stop()  # the archiver started again: what it published is kept in the archive
        child = ArchiverProcess(ctx, cfg, 5.0)
        assert monitor.poll(15000), "the client did not reconnect to the archiver started again"
        third = step(db, sessions[2], 5, "pit-web:pat:p3")
        wait_for(lambda: cms.take() is None and cms.seq == 3, "the third step's `updated`", timeout_s=30)
        assert cms.events == ["updated"] * 3  # seq 3 after 2 (CmsClient holds them in order): nothing sent twice
        assert cms.sessions[(TABLE, sessions[2]["player"], sessions[2]["start"])] == third
        assert [e for e, _ in cms.steps[key0]] == ["updated"]
    finally:
        if monitor is not None:
            cms.sock.disable_monitor()
            monitor.close(0)
        if child is not None:
            child.stop()
        cms.sock.close(0)
        ctx.destroy(linger=0)
