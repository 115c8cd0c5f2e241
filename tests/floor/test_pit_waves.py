"""The pit asks its tables' snapshots in waves (`floor/snapshots.py`): never more in flight than its bound, at start and on a reload adding tables, and every table comes online all the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import zmq

from floor.aggregator import Pit
from floor.config import PitConfig, PitTable
from floor.snapshots import SnapshotWaves
from sim.floor.tables import Endpoints, FloorSim


def _turn_until_online(pit: Pit, sim: FloorSim, names: list[str], turns: int = 3000) -> int:
    """Turn the pit and serve the tables (one thread) until every one of `names` is online. Returns the most
    snapshots the pit had in flight at once."""
    most = len(pit.by_socket)
    for _ in range(turns):
        sim.serve(0)
        pit.turn(5)
        most = max(most, len(pit.by_socket))
        if all(pit.followers[name].online for name in names):
            return most
    raise AssertionError(f"not online: {[n for n in names if not pit.followers[n].online][:5]}")


def test_sixty_tables_come_online_eight_snapshots_at_a_time(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, 5000)
    sim = FloorSim(ctx, 60, 1.0, lambda i: Endpoints(*(f"ipc://{tmp_path}/t{i}-{s}" for s in ("pub", "snap", "cmd"))),
                   pool=2, heartbeat_s=0.5)
    tables = tuple(PitTable(t.name, t.endpoints.public, t.endpoints.snapshot, t.endpoints.commands) for t in sim.tables)
    cfg = PitConfig(listen=f"ipc://{tmp_path}/floor", snapshot=f"ipc://{tmp_path}/floor-snap", heartbeat_s=0.5,
                    tables=tables[:30])
    pit = Pit(cfg, ctx, in_flight=8)
    try:
        assert len(pit.by_socket) == 8 and pit.snapshots.waiting == 22  # the first wave out, the rest queued
        first = _turn_until_online(pit, sim, [t.name for t in tables[:30]])
        added, removed = pit.apply_tables(tables)  # a reload adding 30 tables: through the same queue
        assert len(added) == 30 and removed == [] and len(pit.by_socket) == 8
        then = _turn_until_online(pit, sim, [t.name for t in tables])
        assert first == then == 8  # the bound reached, never passed
        assert pit.snapshots.asked == pit.snapshots.waiting == 0 and not pit.by_socket
    finally:
        pit.close()
        sim.close()
        ctx.destroy(linger=0)


def test_a_table_asked_again_goes_to_the_back_and_a_dropped_one_leaves_the_queue() -> None:
    waves: SnapshotWaves[str] = SnapshotWaves(limit=2)
    for name in ("a", "b", "c", "d"):
        waves.want(name)
    waves.want("c")  # wanted twice: queued once, in its place
    assert waves.due() == ["a", "b"] and waves.due() == []
    waves.want("a")  # unanswered, asked again: its place to the next, itself at the back
    waves.forget("d")  # dropped by a reload
    assert waves.due() == ["c"]
    waves.answered("b")
    assert waves.due() == ["a"] and (waves.asked, waves.waiting) == (2, 0)
    with pytest.raises(ValueError):
        SnapshotWaves(limit=0)
