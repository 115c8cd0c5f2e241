"""floor-sim's watcher in a process of its own (`sim/watch_process.py`): against a real `croupier pit` fed by simulated tables, every update noted is matched on the floor feed with a lag; against a floor feed that drops one update and skips a floor_seq, the report counts them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

from cli.floor_sim import pit_config
from sim.floor.tables import Endpoints, FloorSim
from sim.floor.watch import FLOOR_HEAD, all_online, floor_head, floor_snapshot
from sim.watch_process import WatchProcess
from tests.firmware_host.processes import start_cli


class PitArgs:
    """The arguments `pit_config` reads, as `croupier floor-sim` would have them."""

    def __init__(self, root: Path) -> None:
        self.pit_listen, self.pit_snapshot = f"ipc://{root}/floor", f"ipc://{root}/floor-snap"
        self.heartbeat_s, self.db = 0.5, None


def test_the_watcher_process_matches_every_update_a_real_pit_passes_on(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(ctx, 3, 200.0, lambda i: Endpoints(f"ipc://{tmp_path}/p{i}", f"ipc://{tmp_path}/s{i}",
                                                      f"ipc://{tmp_path}/c{i}"), heartbeat_s=0.5)
    args = PitArgs(tmp_path)
    config = tmp_path / "pit.toml"
    config.write_text(pit_config(args, sim.tables), encoding="utf-8")  # type: ignore[arg-type]  # the args it reads
    pit, _ = start_cli(["pit", "--config", str(config), "--log-level", "INFO"], tmp_path)
    watch = WatchProcess(ctx, args.pit_listen)
    names = [t.name for t in sim.tables]
    try:
        for table in sim.tables:
            table.on_publish = watch.published
        sim.on_batch = watch.flush
        assert watch.process.pid != pit.pid and watch.process.is_alive()
        assert sim.linger(lambda: watch.heard and all_online(floor_snapshot(ctx, args.pit_snapshot, 2.0), names), 30)
        watch.counting = True
        sim.run(2.0)
        watch.counting = False
        watch.finish(10.0)
        assert sim.linger(watch.done, 15.0)
        report = watch.report()
    finally:
        watch.stop()
        pit.terminate()
        pit.wait(20)
        sim.close()
        ctx.destroy(linger=0)
    sent = sum(t.feed.seq for t in sim.tables)  # updates and heartbeats: the updates are most of them
    assert report["missing"] == 0 and report["floor_gaps"] == 0
    assert 0.5 * sent < report["received"] <= sent
    assert 0 < report["lag_p50_ms"] <= report["lag_p99_ms"] <= report["lag_max_ms"]
    assert not watch.process.is_alive()


def floor_message(pub: zmq.Socket[Any], table: str, seq: int, floor_seq: int) -> None:
    body = {"table": table, "boot": "b1", "seq": seq, "kind": "update", "phase": "bets", "online": True,
            "floor_seq": floor_seq}
    pub.send_multipart([table.encode() + b"/", msgpack.packb(body, use_bin_type=True)])


def test_an_update_never_passed_on_is_missing_and_a_skipped_floor_seq_a_gap(tmp_path: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    floor: zmq.Socket[Any] = ctx.socket(zmq.PUB)  # standing in for the pit's floor XPUB
    floor.setsockopt(zmq.LINGER, 0)
    floor.bind(f"ipc://{tmp_path}/floor")
    watch = WatchProcess(ctx, f"ipc://{tmp_path}/floor")
    floor_seq = 0
    try:
        while not watch.heard:  # heartbeats until the watcher's subscription is in (it hears them in order)
            floor.send_multipart([b"*", msgpack.packb({"kind": "heartbeat", "floor_seq": floor_seq})])
            floor_seq += 1
            time.sleep(0.05)
        watch.counting = True
        for seq in range(1, 11):
            watch.published("t1", "b1", seq)
            if seq == 4:
                watch.flush()
                time.sleep(0.06)  # update 4 reaches the floor feed 60 ms or more after its note
            if seq == 7:
                continue  # update 7 never passed on
            if seq == 9:
                floor_seq += 1  # a floor message lost
            if seq >= 8:
                watch.flush()  # updates 1-3 and 5-6 arrive before their notes, 8-10 after
            floor_message(floor, "t1", seq, floor_seq)
            floor_seq += 1
        watch.finish(0.5)
        report = watch.report()
    finally:
        watch.stop()
        floor.close(0)
        ctx.destroy(linger=0)
    assert report["received"] == 9 and report["missing"] == 1 and report["floor_gaps"] == 1
    assert report["lag_max_ms"] >= 60 and report["lag_p50_ms"] >= 0


def test_the_floor_head_read_key_by_key_is_the_decoded_message_s() -> None:
    state = {"game": "uth", "phase": "bets", "board": ["??"] * 5, "note": "table", "history": [{"hand": 1}] * 40}
    laid_out = [{"table": "t1", "boot": "b1", "seq": 4, "kind": "changes", "set": state, "del": ["fault"], "online": True,
                 "floor_seq": 11},{**state, "table": "t1", "boot": "b1", "seq": 3, "kind": "update", "online": True, "floor_seq": 9},
                {**state, "table": "table", "boot": "b1", "seq": 3, "kind": "update", "online": True, "floor_seq": 9},
                {"table": "t1", "boot": "b1", "seq": 3, "kind": "update", **state, "online": True, "floor_seq": 9},
                {"kind": "heartbeat", "floor_seq": 10, "tables": 3, "online": 2},  # no table
                {"floor_seq": 2**40, "table": "t1", "kind": "update", "seq": 4, "boot": "b1", **state}]
    for message in laid_out:
        want = {k: v for k, v in message.items() if k in FLOOR_HEAD}
        assert floor_head(msgpack.packb(message, use_bin_type=True)) == want
