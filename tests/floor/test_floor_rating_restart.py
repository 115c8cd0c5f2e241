"""The rating events' feed over an archiver restart, in a real PostgreSQL: the stream a casino system gets when the
archiver stops mid-session and starts again is, message by message, the stream of an archiver that never stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import zmq

from floor.archive import Archive
from floor.migrate import migrate
from floor.rating_feed import RatingFeed
from floor.rating_memory import FeedMemory
from tests.firmware_host.processes import wait_for
from tests.floor.pgserver import PgServer
from tests.floor.test_floor_ratings import croupier, pages

TABLE = "sim-3cp-1"
HANDS = 36
RESTART = 17
"""The archiver stopped after this hand's catch-up: mid-session (the demo's players change every 12 hands)."""


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rated 3CP table's journal: players come and go every 12 hands, breaks now and then."""
    path = tmp_path_factory.mktemp("restart") / TABLE
    done = croupier("demo", "--game", "3cp", "--hands", str(HANDS), "--rated", "0.6", "--quiet", "--seed", "5",
                    "--state", str(path))
    assert done.returncode == 0, done.stderr
    return path


class Archiver:
    """What the pit's archiver process holds: the archive (its folds) and the feed (its memory in the archive)."""

    def __init__(self, ctx: zmq.Context[Any], db: str, endpoint: str) -> None:
        self.archive = Archive(db)
        self.feed = RatingFeed(ctx, endpoint, None, FeedMemory(db))

    def catch_up(self, state: Path, upto: int) -> None:
        a = self.archive
        for page in pages(state, events=False, after=a.last_hand(TABLE)):
            a.write(TABLE, [h for h in page if h["hand"] <= upto])
        for page in pages(state, events=True, after=a.last_event(TABLE)):
            a.write_events(TABLE, [e for e in page if e["hand"] <= upto])
        self.feed.sessions(a.rate(TABLE))

    def stop(self) -> None:
        self.feed.close()
        assert self.feed.memory is not None
        self.feed.memory.close()
        self.archive.close()


def subscribed(ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SUBSCRIBE, b"rating/")
    monitor = sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    sock.connect(endpoint)
    assert monitor.poll(10000), "no handshake with the rating events' feed"
    sock.disable_monitor()
    monitor.close(0)
    return sock


def stream(ctx: zmq.Context[Any], db: str, state: Path, endpoint: str, restart: int | None,
           seq_at: list[int]) -> list[dict[str, Any]]:
    """Every message the casino system gets, an archiver catching up after each hand, stopped after hand `restart`
    and a new one started (a new process: nothing kept but the archive); the last seq before it put in `seq_at`."""
    migrate(db)
    got: list[dict[str, Any]] = []
    archiver, cms = Archiver(ctx, db, endpoint), None
    try:
        for upto in range(1, HANDS + 1):
            if cms is None:
                cms = subscribed(ctx, endpoint)
            archiver.catch_up(state, upto)
            wait_for(lambda: _take(cms, got) and (got[-1]["seq"] if got else 0) == archiver.feed.seq,
                     "the client has every event sent", timeout_s=10)
            if upto == restart:
                seq_at.append(archiver.feed.seq)
                archiver.stop()
                cms.close(0)
                archiver, cms = Archiver(ctx, db, endpoint), None
    finally:
        archiver.stop()
        if cms is not None:
            cms.close(0)
    return got


def _take(sock: zmq.Socket[Any], got: list[dict[str, Any]]) -> bool:
    while sock.poll(0):
        _, body = sock.recv_multipart()
        got.append(json.loads(body))
    return True


def test_an_archiver_started_again_mid_session_sends_what_it_would_have_sent(tmp_path: Path, pg: PgServer,
                                                                             state: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    seq_at: list[int] = []
    try:
        whole = stream(ctx, pg.create_database("restart_whole"), state, f"ipc://{tmp_path}/whole", None, [])
        restarted = stream(ctx, pg.create_database("restart_mid"), state, f"ipc://{tmp_path}/mid", RESTART, seq_at)
        at = next(i for i, m in enumerate(restarted) if m["seq"] > seq_at[0])
    finally:
        ctx.term()
    assert [m["seq"] for m in restarted] == list(range(1, len(whole) + 1))  # seq goes on, no gap, no repeat
    assert restarted == whole  # message by message: event, seq and the session's every field
    opened = [key(m) for m in restarted if m["event"] == "opened"]
    assert len(opened) == len(set(opened))  # no session announced twice
    before = {key(m) for m in restarted[:at] if m["event"] == "opened"}
    after = [m["event"] for m in restarted[at:] if key(m) in before]
    assert "updated" in after, "no session went on over the restart"


def key(message: dict[str, Any]) -> tuple[str, str, float]:
    s = message["session"]
    return s["table"], s["player"], s["start"]
