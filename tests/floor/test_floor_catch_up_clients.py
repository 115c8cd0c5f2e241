"""The catch-up keeps only the tables' command channels it used last (`catchup.CLIENTS_KEPT`), so the archiver child's file descriptors stay bounded at any floor size, and every table's hands still arrive whole."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import zmq

from floor import catchup
from floor.catchup import CatchUp, CountingSink
from floor.config import PitTable
from sim.floor.tables import Endpoints, FloorSim


def test_twelve_tables_caught_up_through_three_channels_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catchup, "CLIENTS_KEPT", 3)
    sim_ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(sim_ctx, 12, 400.0, lambda i: Endpoints(*(f"ipc://{tmp_path}/t{i}-{s}" for s in ("pub", "snap", "cmd"))),
                   pool=2, heartbeat_s=0.5)
    done = threading.Event()
    sim.run(1.5)  # at 400x: a few hands closed at every table
    serving = threading.Thread(target=sim.linger, args=(done.is_set, 60.0), daemon=True)
    serving.start()  # the tables answer `history` on their own thread from here on
    ctx: zmq.Context[Any] = zmq.Context()
    sink = CountingSink()
    worker = CatchUp(ctx, sink, lambda t: (None, None), timeout_s=5.0)
    try:
        worker.set_tables({t.name: PitTable(t.name, t.endpoints.public, t.endpoints.snapshot, t.endpoints.commands)
                           for t in sim.tables})
        most = 0
        for _ in range(2):  # each table twice: the second time most of them connect again
            for table in sim.tables:
                worker.catch_up(table.name)
                most = max(most, len(worker._clients))
        assert most == 3
        last = sim.last_hands()
        assert all(n > 0 for n in last.values())
        assert sink.last == last and sink.count == last and not sink.gaps  # every hand, once, in order
    finally:
        for _, client in worker._clients.values():
            client.close()
        ctx.destroy(linger=0)
        done.set()
        serving.join(10)
        sim.close()
        sim_ctx.destroy(linger=0)
