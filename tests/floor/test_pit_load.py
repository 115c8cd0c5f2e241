"""A bounded load test of `croupier pit`: N light simulated table feeds (the real `Feed`, one thread) -> the pit -> its floor XPUB; lag and gaps logged, no gap asserted."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from protocol.feed import Feed
from tests.firmware_host.processes import start_cli, wait_for

HEARTBEAT_S = 0.5


def table_state(hand: int, step: int) -> dict[str, Any]:
    """A UTH table's public state of a realistic size (five spots, bets, hidden cards): about 700 bytes."""
    phases = ("bets", "deal", "preflop", "flop", "river", "showdown", "settled")
    spots = [{"seat": seat, "cards": ["??", "??"], "bets": {"ante": 500, "blind": 500, "trips": 100},
              "decision": None if step < 3 else "play", "hand_name": None} for seat in range(1, 6)]
    return {"game": "uth", "hand": hand, "phase": phases[step % len(phases)], "board": ["2c", "7d", "9h"][: step % 4],
            "dealer": {"cards": ["??", "??"]}, "spots": spots, "to_act": 1 + step % 5, "next": "spot 3",
            "fault": None, "currency": "EUR", "decimals": 2,
            "session": {"settled": hand - 1, "voided": 0, "house_net": 1250 * hand}}


class FakeFloor:
    """`tables` feeds on ipc in one thread: heartbeats and snapshots always, `burst(total, rate)` updates."""

    def __init__(self, ctx: zmq.Context[Any], root: Path, tables: int) -> None:
        self.feeds = [Feed(ctx, f"load-{i:04d}", public=f"ipc://{root}/p{i}", snapshot=f"ipc://{root}/s{i}",
                           heartbeat_s=HEARTBEAT_S) for i in range(tables)]
        for feed in self.feeds:
            feed.set_state(table_state(1, 0))
        self.published: dict[str, list[int]] = {feed.table: [] for feed in self.feeds}
        self._plan: tuple[int, float] | None = None
        self._stop = threading.Event()
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def burst(self, total: int, rate: float) -> None:
        self.done.clear()
        self._plan = (total, rate)

    def _run(self) -> None:
        poller = zmq.Poller()
        by_socket = {feed.snap: feed for feed in self.feeds}
        for sock in by_socket:
            poller.register(sock, zmq.POLLIN)
        sent, start = 0, 0.0
        while not self._stop.is_set():
            for sock, _ in poller.poll(1):
                by_socket[sock].serve_snapshots(sock)
            plan = self._plan
            if plan is not None:
                total, rate = plan
                start = start or time.monotonic()
                due = min(total, int((time.monotonic() - start) * rate) + 1)
                while sent < due:
                    feed = self.feeds[sent % len(self.feeds)]
                    n = sent // len(self.feeds)
                    state = {**table_state(2 + n // 7, n), "t_ns": time.monotonic_ns()}
                    self.published[feed.table].append(feed.publish(state))
                    sent += 1
                if sent == total:
                    self._plan, sent, start = None, 0, 0.0
                    self.done.set()
            for feed in self.feeds:
                feed.tick()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for feed in self.feeds:
            feed.close()


def run_load(tmp_path: Path, tables: int, total: int, rate: float) -> dict[str, Any]:
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, 50000)
    fake = FakeFloor(ctx, tmp_path, tables)
    listen, snapshot = f"ipc://{tmp_path}/floor", f"ipc://{tmp_path}/floor-snap"
    config = tmp_path / "pit.toml"
    config.write_text(f'[pit]\nlisten = "{listen}"\nsnapshot = "{snapshot}"\nheartbeat_s = {HEARTBEAT_S}\n\n' + "".join(
        f'[[pit.tables]]\nname = "{f.table}"\npublic = "ipc://{tmp_path}/p{i}"\nsnapshot = "ipc://{tmp_path}/s{i}"\n'
        f'commands = "ipc://{tmp_path}/c{i}"\n' for i, f in enumerate(fake.feeds)), encoding="utf-8")
    pit, _ = start_cli(["pit", "--config", str(config), "--log-level", "ERROR"], tmp_path)
    sub: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(listen)
    try:
        def online() -> bool:
            dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(snapshot)
            dealer.send(msgpack.packb({"want": "snapshot"}))
            count = 0
            try:
                while dealer.poll(5000):
                    message = msgpack.unpackb(dealer.recv(), raw=False)
                    if message["kind"] == "end":
                        return count == tables
                    count += bool(message["online"])
                return False
            finally:
                dealer.close(0)
        wait_for(online, f"all {tables} tables online at the pit", timeout_s=120)
        while sub.poll(500):  # what came before the run
            sub.recv_multipart()
        fake.burst(total, rate)
        received: dict[str, list[int]] = {f.table: [] for f in fake.feeds}
        lags: list[int] = []
        got = 0
        deadline = time.monotonic() + total / rate + 60
        while got < total and time.monotonic() < deadline:
            if not sub.poll(1000):
                continue
            topic, body = sub.recv_multipart()
            now = time.monotonic_ns()
            message = msgpack.unpackb(body, raw=False)
            changed = message.get("set") or {} if message.get("kind") == "changes" else {}
            if "t_ns" in changed:  # a step of the burst, passed on as the table sent it
                received[message["table"]].append(message["seq"])
                lags.append(now - changed["t_ns"])
                got += 1
        fake.done.wait(10)
    finally:
        sub.close(0)
        pit.terminate()
        pit.wait(20)
        fake.close()
        ctx.destroy(linger=0)
    lags.sort()
    missing = sum(len(set(fake.published[t]) - set(received[t])) for t in received)
    out_of_order = sum(received[t] != sorted(received[t]) for t in received)
    report = {"tables": tables, "messages": total, "rate": rate, "received": got, "missing": missing,
              "out_of_order": out_of_order,
              "lag_p50_ms": round(lags[len(lags) // 2] / 1e6, 2) if lags else None,
              "lag_p99_ms": round(lags[int(len(lags) * 0.99)] / 1e6, 2) if lags else None}
    print("pit load:", json.dumps(report))
    return report


def test_a_short_load_reaches_the_floor_feed_with_no_gap(tmp_path: Path) -> None:
    report = run_load(tmp_path, tables=40, total=1000, rate=500.0)  # 2 s of burst, 25 a table (4 s, 50 until 2026-12-05)
    assert report["received"] == 1000 and report["missing"] == 0 and report["out_of_order"] == 0


@pytest.mark.soak
def test_a_thousand_tables_at_9000_messages_a_second(tmp_path: Path) -> None:
    seconds = float(os.environ.get("PIT_SOAK_S", "300"))
    report = run_load(tmp_path, tables=1000, total=int(9000 * seconds), rate=9000.0)
    assert report["missing"] == 0 and report["out_of_order"] == 0
