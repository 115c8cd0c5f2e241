"""`croupier pit`: three (then four) real simulated tables under CURVE, one pit process, its floor feed and snapshot read over real sockets."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from cli.demo import SimTable
from floor.feed import FLOOR_TOPIC
from protocol import keys
from protocol.curve import ClientKeys
from protocol.feed import FeedClient
from firmware_host.service.journal import Journal
from sim.bots.table import free_tcp_port
from sim.keys import SimKeys
from tests.firmware_host.processes import start_cli, wait_for

HEARTBEAT_S = 0.5
PIT_ONLY = ("table", "boot", "seq", "kind", "online", "floor_seq", "archived")


def pit_config(path: Path, floor: Floor, names: list[str]) -> None:
    lines = [f'[pit]\nlisten = "{floor.listen}"\nsnapshot = "{floor.snapshot}"\nheartbeat_s = {HEARTBEAT_S}\n'
             f'key = "{floor.pit_key}"\nclients = "{floor.root / "floor-clients"}"\n'
             f'pid_file = "{floor.root / "pit.pid"}"\n']
    for name in names:
        t = floor.tables[name]
        lines.append(f'[[pit.tables]]\nname = "{name}"\npublic = "{t.endpoints.public}"\n'
                     f'snapshot = "{t.endpoints.snapshot}"\ncommands = "{t.endpoints.commands}"\n'
                     f'server_key = "{floor.keys.table_public}"\n')
    path.write_text("\n".join(lines), encoding="utf-8")


@dataclass
class Floor:
    root: Path
    ctx: zmq.Context[Any]
    keys: SimKeys
    pit_key: Path
    watcher: ClientKeys  # a surveillance key the pit's floor feed (CURVE: [pit] key) lets in
    listen: str
    snapshot: str
    tables: dict[str, SimTable] = field(default_factory=dict)
    pit: subprocess.Popen[str] | None = None
    ready: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> Path:
        return self.root / "pit.toml"

    def log(self) -> str:
        return (self.root / "pit.log").read_text(encoding="utf-8", errors="replace")

    def play(self, name: str, hands: int) -> None:
        dealer = self.tables[name].dealer()
        try:
            dealer.play(hands)
        finally:
            dealer.close()

    def sub(self, *topics: bytes) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = self.ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.LINGER, 0)
        for topic in topics:
            sock.setsockopt(zmq.SUBSCRIBE, topic)
        self.watcher.apply(sock)
        sock.connect(self.listen)
        return sock

    def floor_snapshot(self, prefix: str = "") -> tuple[list[dict[str, Any]], dict[str, Any]]:
        dealer: zmq.Socket[Any] = self.ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        self.watcher.apply(dealer)
        dealer.connect(self.snapshot)
        try:
            dealer.send(msgpack.packb({"want": "snapshot", **({"prefix": prefix} if prefix else {})}))
            states = []
            while True:
                assert dealer.poll(10000), "the pit's snapshot socket did not answer"
                message = msgpack.unpackb(dealer.recv(), raw=False)
                if message["kind"] == "end":
                    return states, message
                states.append(message)
        finally:
            dealer.close(0)

    def own_snapshot(self, name: str) -> dict[str, Any]:
        t = self.tables[name]
        client = FeedClient(self.ctx, t.endpoints.public, t.endpoints.snapshot, timeout_s=5.0,
                            key=str(self.pit_key), server_key=str(self.keys.table_public))
        try:
            return client.fetch_snapshot()
        finally:
            client.close()

    def last_closed_hand(self, name: str) -> int:
        journal = Journal.open(self.tables[name].state_dir, readonly=True)
        try:
            return max((row.hand for row in journal.hands()), default=0)
        finally:
            journal.close()


def state_of(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k not in PIT_ONLY}


def receive(sock: zmq.Socket[Any], timeout_s: float = 10.0) -> list[tuple[bytes, dict[str, Any]]]:
    """Every message the socket holds within `timeout_s`, or up to the first quiet second."""
    got = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and sock.poll(1000):
        topic, body = sock.recv_multipart()
        got.append((topic, msgpack.unpackb(body, raw=False)))
    return got


def receive_until(sock: zmq.Socket[Any], done: Any, what: str,
                  timeout_s: float = 30.0) -> list[tuple[bytes, dict[str, Any]]]:
    """The messages the socket receives up to the one after which `done(got)` holds."""
    got: list[tuple[bytes, dict[str, Any]]] = []
    deadline = time.monotonic() + timeout_s
    while not got or not done(got):
        assert sock.poll(max(0, int((deadline - time.monotonic()) * 1000))), f"never came: {what} ({got[-3:]})"
        topic, body = sock.recv_multipart()
        got.append((topic, msgpack.unpackb(body, raw=False)))
    return got


def joined(sock: zmq.Socket[Any]) -> list[tuple[bytes, dict[str, Any]]]:
    """ZeroMQ's slow joiner: the socket's subscriptions (the pit's own topic among them, set with the
    rest before connecting) are in once the first message came: the pit's heartbeat at the latest."""
    return receive_until(sock, lambda got: True, "the pit's first heartbeat")


def settled_then_heartbeat(sock: zmq.Socket[Any], tables: set[str]) -> list[tuple[bytes, dict[str, Any]]]:
    """Messages up to the pit's first heartbeat after every table named showed a settled hand: each
    message the pit sent before that heartbeat has come (one socket's messages keep their order)."""
    settled: set[str] = set()

    def done(got: list[tuple[bytes, dict[str, Any]]]) -> bool:
        topic, body = got[-1]
        shown = body.get("set") if body.get("kind") == "changes" else body if body.get("kind") == "update" else None
        if shown and shown.get("phase") == "settled":  # a step as the table sent it (its changes), or a whole state
            settled.add(body["table"])
        return topic == FLOOR_TOPIC and settled >= tables
    return receive_until(sock, done, f"{sorted(tables)} settled, then the pit's heartbeat")


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    root = tmp_path_factory.mktemp("floor")
    ctx: zmq.Context[Any] = zmq.Context()
    sim_keys = SimKeys.make(root / "keys")
    public, secret = keys.create(root / "keys", "pit1", "pit")
    shutil.copyfile(public, sim_keys.clients / Path(public).name)
    watcher_public, watcher_secret = keys.create(root / "keys", "floor-watch", "surveillance")
    (root / "floor-clients").mkdir()
    shutil.copyfile(watcher_public, root / "floor-clients" / Path(watcher_public).name)
    f = Floor(root, ctx, sim_keys, Path(secret), ClientKeys.load(str(watcher_secret), str(public)),
              f"tcp://127.0.0.1:{free_tcp_port()}", f"tcp://127.0.0.1:{free_tcp_port()}")
    try:
        for i in range(1, 5):
            name = f"sim-uth-{i}"
            # the third table's restarter waits long enough after a kill for it to be seen offline
            f.tables[name] = SimTable(root / name, table=name, seed=i, seats=2, keys=sim_keys,
                                      heartbeat_s=HEARTBEAT_S, restart_s=4.0 if i == 3 else 0.1)
            f.tables[name].start()
        for name in ("sim-uth-1", "sim-uth-2", "sim-uth-3"):
            f.play(name, 2)
        pit_config(f.config, f, ["sim-uth-1", "sim-uth-2", "sim-uth-3"])
        f.pit, f.ready = start_cli(["pit", "--config", str(f.config), "--log-level", "INFO"], root)
        yield f
    finally:
        if f.pit is not None:
            f.pit.terminate()
            f.pit.wait(10)
        for table in f.tables.values():
            table.stop()
        ctx.destroy(linger=0)


def all_online(floor: Floor, names: list[str]) -> list[dict[str, Any]] | None:
    states, _ = floor.floor_snapshot()
    by_name = {s["table"]: s for s in states}
    if sorted(by_name) == sorted(names) and all(by_name[n]["online"] for n in names):
        return states
    return None


def test_the_pit_starts_and_writes_its_pid_file(floor: Floor) -> None:
    assert floor.ready["pit"] == "ready" and floor.ready["tables"] == 3
    assert int((floor.root / "pit.pid").read_text()) == floor.ready["pid"]


def test_a_table_prefix_gets_only_that_table(floor: Floor) -> None:
    wait_for(lambda: all_online(floor, ["sim-uth-1", "sim-uth-2", "sim-uth-3"]), "three tables online")
    one, every = floor.sub(b"sim-uth-2/", FLOOR_TOPIC), floor.sub(b"")
    try:
        joined(one)
        joined(every)
        floor.play("sim-uth-1", 1)
        floor.play("sim-uth-2", 1)
        got_one = [m for m in settled_then_heartbeat(one, {"sim-uth-2"}) if m[0] != FLOOR_TOPIC]
        got_every = settled_then_heartbeat(every, {"sim-uth-1", "sim-uth-2"})
    finally:
        one.close(0)
        every.close(0)
    assert got_one and {topic for topic, _ in got_one} == {b"sim-uth-2/"}
    assert {body["table"] for _, body in got_one} == {"sim-uth-2"}
    # a step goes on as the table sent it: its changes (the pit's whole `update` only after its snapshot)
    assert any(body["kind"] == "changes" and body["set"].get("phase") == "settled" for _, body in got_one)
    topics = {topic for topic, _ in got_every}
    assert {b"sim-uth-1/", b"sim-uth-2/"} <= topics  # the other table's messages were there to be left out
    floor_seqs = [body["floor_seq"] for _, body in got_every]
    assert floor_seqs == list(range(floor_seqs[0], floor_seqs[0] + len(floor_seqs)))  # no gap floor-wide


def test_the_floor_snapshot_holds_every_tables_own_state_and_its_hands_fetched(floor: Floor) -> None:
    names = ["sim-uth-1", "sim-uth-2", "sim-uth-3"]
    wait_for(lambda: all_online(floor, names), "three tables online")
    for name in names:  # every closed hand fetched over the command channel
        last = floor.last_closed_hand(name)
        assert last >= 2
        wait_for(lambda: {s["table"]: s for s in floor.floor_snapshot()[0]}[name]["archived"] == last,
                 f"{name}'s hands up to {last} fetched")
    states, end = floor.floor_snapshot()
    assert [s["table"] for s in states] == names and end["tables"] == 3
    for s in states:
        own = floor.own_snapshot(s["table"])
        assert state_of(s) == state_of(own) and s["boot"] == own["boot"]
        assert 0 < s["seq"] <= own["seq"]  # the table's seq as the pit last heard it (a heartbeat may follow)
        assert s["online"] is True and s["floor_seq"] <= end["floor_seq"]
    only, _ = floor.floor_snapshot("sim-uth-2/")
    assert [s["table"] for s in only] == ["sim-uth-2"]


def test_a_killed_table_goes_offline_and_comes_back(floor: Floor) -> None:
    wait_for(lambda: all_online(floor, ["sim-uth-1", "sim-uth-2", "sim-uth-3"]), "three tables online")
    table = floor.tables["sim-uth-3"]
    sub = floor.sub(b"sim-uth-3/", FLOOR_TOPIC)
    try:
        joined(sub)
        old_boot = floor.own_snapshot("sim-uth-3")["boot"]
        assert table.controller is not None and table.controller.kill(signal.SIGKILL) is not None
        seen: list[dict[str, Any]] = []

        def kinds() -> bool:
            seen.extend(body for _, body in receive(sub, 0.5))
            return any(m["kind"] == "offline" for m in seen) and any(
                m["kind"] == "update" and m["boot"] != old_boot for m in seen)
        wait_for(kinds, "sim-uth-3 offline then back with a new boot", timeout_s=40)
    finally:
        sub.close(0)
    offline = next(m for m in seen if m["kind"] == "offline")
    assert offline["online"] is False and offline["silent_s"] >= 3 * HEARTBEAT_S
    back = next(m for m in seen if m["kind"] == "update" and m["boot"] != old_boot)
    assert seen.index(offline) < seen.index(back) and back["online"] is True
    states = wait_for(lambda: all_online(floor, ["sim-uth-1", "sim-uth-2", "sim-uth-3"]), "all online again")
    assert {s["table"]: s for s in states}["sim-uth-3"]["boot"] == back["boot"]


def test_reload_adds_a_table_and_drops_one(floor: Floor) -> None:
    sub = floor.sub(b"sim-uth-", FLOOR_TOPIC)
    try:
        joined(sub)
        pit_config(floor.config, floor, ["sim-uth-1", "sim-uth-2", "sim-uth-4"])
        sent = subprocess.run([sys.executable, "-m", "cli", "pit", "reload", "--config",
                               str(floor.config)], capture_output=True, text=True, timeout=60)
        assert sent.returncode == 0, sent.stderr
        assert json.loads(sent.stdout)["pid"] == floor.ready["pid"]
        states = wait_for(lambda: all_online(floor, ["sim-uth-1", "sim-uth-2", "sim-uth-4"]), "the 4th table in")
        got = receive_until(sub, lambda got: got[-1][0] == b"sim-uth-3/" and got[-1][1]["kind"] == "removed",
                            "sim-uth-3 removed")
    finally:
        sub.close(0)
    assert any(topic == b"sim-uth-3/" and body["kind"] == "removed" for topic, body in got)
    four = {s["table"]: s for s in states}["sim-uth-4"]
    assert state_of(four) == state_of(floor.own_snapshot("sim-uth-4"))
    wait_for(lambda: {s["table"]: s for s in floor.floor_snapshot()[0]}["sim-uth-4"]["archived"] == 0,
             "sim-uth-4 caught up (no hands yet)")
    floor.play("sim-uth-4", 1)
    wait_for(lambda: {s["table"]: s for s in floor.floor_snapshot()[0]}["sim-uth-4"]["archived"]
             == floor.last_closed_hand("sim-uth-4"), "sim-uth-4's hand fetched after it closed")


def test_a_bad_reload_is_refused_and_the_old_list_kept(floor: Floor) -> None:
    names = ["sim-uth-1", "sim-uth-2", "sim-uth-4"]
    wait_for(lambda: all_online(floor, names), "the reloaded list online")
    good = floor.config.read_text(encoding="utf-8")
    try:
        floor.config.write_text(good.replace("[[pit.tables]]", "[[pit.tables]]\nseat = 3", 1), encoding="utf-8")
        assert floor.pit is not None
        os.kill(floor.pit.pid, signal.SIGHUP)
        wait_for(lambda: "reload refused" in floor.log(), "the refusal logged")
        assert "unknown key 'seat'" in floor.log()
        sent = subprocess.run([sys.executable, "-m", "cli", "pit", "reload", "--config",
                               str(floor.config)], capture_output=True, text=True, timeout=60)
        assert sent.returncode == 2 and "unknown key 'seat'" in sent.stderr and "Traceback" not in sent.stderr
    finally:
        floor.config.write_text(good, encoding="utf-8")
    states = all_online(floor, names)
    assert states is not None and floor.pit.poll() is None


def test_a_bad_configuration_stops_the_start_naming_file_section_and_key(tmp_path: Path) -> None:
    config = tmp_path / "pit.toml"
    config.write_text('[pit]\nlisten = "tcp://127.0.0.1:1"\nheartbeat_s = 0\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli", "pit", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{config}: [pit] heartbeat_s:" in done.stderr


def test_a_db_down_at_start_does_not_stop_the_pit(tmp_path: Path) -> None:
    """The archive connects when first needed (and again after the server went away): the pit serves
    the floor meanwhile, and each table's catch-up starts from the archive's last hand once it is back."""
    config = tmp_path / "pit.toml"
    config.write_text(f'[pit]\nlisten = "ipc://{tmp_path}/floor"\nsnapshot = "ipc://{tmp_path}/snap"\n'
                      f'db = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"\n', encoding="utf-8")
    pit, ready = start_cli(["pit", "--config", str(config)], tmp_path)
    try:
        assert ready["pit"] == "ready" and ready["tables"] == 0
    finally:
        pit.terminate()
        assert pit.wait(20) == 0


def test_catch_up_pages_through_every_closed_hand_once_and_then_only_the_new(tmp_path: Path) -> None:
    from floor.catchup import CatchUp, CountingSink
    from floor.config import PitTable
    from tests.firmware_host.test_history_request import LocalTable

    ctx: zmq.Context[Any] = zmq.Context()
    table = LocalTable(tmp_path, ctx, 103)  # 103 settled and one voided: two pages
    try:
        sink = CountingSink()
        worker = CatchUp(ctx, sink, lambda t: (None, None))
        worker.set_tables({"t1": PitTable("t1", "ipc://unused", "ipc://unused", table.endpoint)})
        assert worker.catch_up("t1") == 104
        assert (sink.last["t1"], sink.count["t1"], sink.gaps) == (104, 104, {})
        assert worker.catch_up("t1") == 0  # nothing twice
        table.close()  # the table goes down, and comes back having closed two hands more
        table = LocalTable(tmp_path, ctx, 2)
        assert worker.catch_up("t1") == 2  # the two closed while the pit could not ask
        assert (sink.last["t1"], sink.count["t1"], sink.gaps) == (106, 106, {}) and worker.archived["t1"] == 106
        worker.set_tables({})
        assert worker.catch_up("t1") == 0  # removed by a reload: its client closed
    finally:
        table.close()
        ctx.destroy(linger=0)
