"""The pit's own floor feed and snapshot over CURVE: a key whose role may read the floor gets the snapshot and the updates; an unknown key, a dealer's, or none gets nothing; a revoked key is cut; a floor open to the network without a key is refused."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from floor.config import PitConfig
from protocol import keys
from protocol.config import ConfigError
from protocol.curve import ClientKeys
from sim.bots.table import free_tcp_port
from sim.floor.tables import Endpoints, FloorSim
from sim.floor.watch import FloorWatch, floor_snapshot
from tests.firmware_host.processes import start_cli, wait_for


def sub(ctx: zmq.Context[Any], endpoint: str, client: ClientKeys | None) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    if client is not None:
        client.apply(sock)
    sock.setsockopt(zmq.SUBSCRIBE, b"")
    sock.connect(endpoint)
    return sock


def drain(sock: zmq.Socket[Any]) -> list[dict[str, Any]]:
    got = []
    while sock.poll(0):
        _, body = sock.recv_multipart()
        got.append(msgpack.unpackb(body, raw=False))
    return got


def test_only_the_keys_whose_role_may_read_the_floor_get_its_snapshot_and_updates(tmp_path: Path) -> None:
    _, pit_secret = keys.create(tmp_path / "keys", "pit1", "pit")
    clients = tmp_path / "floor-clients"
    made = {name: keys.create(tmp_path / "keys", name, role)
            for name, role in (("surveillance-1", "surveillance"), ("dealer-1", "dealer"), ("stranger", "display"))}
    for name in ("surveillance-1", "dealer-1"):  # the stranger's certificate is not in the clients directory
        clients.mkdir(exist_ok=True)
        shutil.copyfile(made[name][0], clients / made[name][0].name)
    pit_public = str(pit_secret).removesuffix("_secret")
    client = {name: ClientKeys.load(str(secret), pit_public) for name, (_, secret) in made.items()}
    ctx: zmq.Context[Any] = zmq.Context()
    sim = FloorSim(ctx, 1, 200.0, lambda i: Endpoints(f"ipc://{tmp_path}/p{i}", f"ipc://{tmp_path}/s{i}",
                                                      f"ipc://{tmp_path}/c{i}"), heartbeat_s=0.5)
    table = sim.tables[0]
    listen, snapshot = f"tcp://127.0.0.1:{free_tcp_port()}", f"tcp://127.0.0.1:{free_tcp_port()}"
    config = tmp_path / "pit.toml"
    config.write_text(f'[pit]\nlisten = "{listen}"\nsnapshot = "{snapshot}"\nheartbeat_s = 0.5\n'
                      f'key = "{pit_secret}"\nclients = "{clients}"\n\n[[pit.tables]]\nname = "{table.name}"\n'
                      f'public = "{table.endpoints.public}"\nsnapshot = "{table.endpoints.snapshot}"\n'
                      f'commands = "{table.endpoints.commands}"\n', encoding="utf-8")
    pit, ready = start_cli(["pit", "--config", str(config), "--log-level", "INFO"], tmp_path)
    watch = FloorWatch(ctx, listen, client["surveillance-1"])  # the floor-sim's watcher, with its key
    subs = {"dealer": sub(ctx, listen, client["dealer-1"]), "stranger": sub(ctx, listen, client["stranger"]),
            "no key": sub(ctx, listen, None)}
    try:
        assert ready["curve"] is True
        watch.start()
        for t in sim.tables:
            t.on_publish = watch.published

        def allowed_sees_it() -> bool:
            view = floor_snapshot(ctx, snapshot, 2.0, client["surveillance-1"])
            return watch.heard and view is not None and bool(view.get(table.name, {}).get("online"))
        assert sim.linger(allowed_sees_it, 30), "the surveillance key got no floor snapshot with the table online"
        watch.counting = True
        sim.run(2.0)  # hands played: updates on the table's feed, passed on by the pit
        sim.linger(lambda: not watch.sent, 10.0)
        watch.counting = False
        report = watch.report()
        assert report["received"] > 5 and report["missing"] == 0 and report["floor_gaps"] == 0
        for name, sock in subs.items():
            assert drain(sock) == [], f"{name}: got the floor feed"
        for name in ("dealer-1", "stranger"):
            assert floor_snapshot(ctx, snapshot, 1.0, client[name]) is None, f"{name} got the floor snapshot"
        assert floor_snapshot(ctx, snapshot, 1.0) is None  # no key: the handshake never completes

        # revoked: the key's file moved out of the directory; its subscription is cut, its snapshot refused
        revoked = clients / "revoked"
        revoked.mkdir()
        shutil.move(str(clients / "surveillance-1.key"), revoked / "surveillance-1.key")
        wait_for(lambda: "surveillance-1 (surveillance) revoked" in (tmp_path / "pit.log").read_text(),
                 "the pit saw the key revoked", timeout_s=10)
        cut = sub(ctx, listen, client["surveillance-1"])
        try:
            sim.run(1.5)
            assert drain(cut) == []
        finally:
            cut.close(0)
        assert floor_snapshot(ctx, snapshot, 1.0, client["surveillance-1"]) is None
    finally:
        watch.stop()
        for sock in subs.values():
            sock.close(0)
        pit.terminate()
        pit.wait(20)
        sim.close()
        ctx.destroy(linger=0)
    log = (tmp_path / "pit.log").read_text()
    assert "connection refused on floor" in log and "role dealer may not read the floor" in log


def test_a_floor_open_to_the_network_needs_the_pits_key_and_clients(tmp_path: Path) -> None:
    _, secret = keys.create(tmp_path, "pit1", "pit")
    (tmp_path / "clients").mkdir()
    head = '[pit]\nlisten = "LISTEN"\nsnapshot = "tcp://127.0.0.1:6557"\n'
    assert not PitConfig.parse(head.replace("LISTEN", "tcp://127.0.0.1:6556"), "pit.toml").serves_curve
    assert PitConfig.parse(head.replace("LISTEN", "ipc:///tmp/floor"), "pit.toml").listen == "ipc:///tmp/floor"
    with pytest.raises(ConfigError, match=r"pit.toml: \[pit\] listen: without \[pit\] key and clients \(CURVE\), "
                                          r"the floor feed may only be bound to loopback"):
        PitConfig.parse(head.replace("LISTEN", "tcp://0.0.0.0:6556"), "pit.toml")
    open_floor = head.replace("LISTEN", "tcp://0.0.0.0:6556") + f'key = "{secret}"\n'
    with pytest.raises(ConfigError, match=r"\[pit\] clients: with \[pit\] key the floor feed is served over CURVE"):
        PitConfig.parse(open_floor, "pit.toml")
    cfg = PitConfig.parse(open_floor + f'clients = "{tmp_path / "clients"}"\n', "pit.toml")
    assert cfg.serves_curve and cfg.roles == ("pit", "supervisor", "surveillance", "display", "technician")
    with pytest.raises(ConfigError, match=r"\[pit\] clients: needs the pit's own \[pit\] key"):
        PitConfig.parse(head.replace("LISTEN", "ipc:///tmp/f") + f'clients = "{tmp_path}"\n', "pit.toml")
    with pytest.raises(ConfigError, match=r"\[pit\] roles: unknown roles 'table'"):
        PitConfig.parse(open_floor + f'clients = "{tmp_path}"\nroles = ["pit", "table"]\n', "pit.toml")
    with pytest.raises(ConfigError, match=r"\[pit\] key: .*not a secret certificate"):
        PitConfig.parse(open_floor.replace(str(secret), str(secret).removesuffix("_secret"))
                        + f'clients = "{tmp_path}"\n', "pit.toml")
    config = tmp_path / "pit.toml"
    config.write_text(head.replace("LISTEN", "tcp://0.0.0.0:6556"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli", "pit", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "the floor feed may only be bound to loopback" in done.stderr
    assert "Traceback" not in done.stderr
