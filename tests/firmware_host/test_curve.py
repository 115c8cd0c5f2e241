"""CURVE on every TCP socket of the controller: who gets in, who is refused, revoked keys cut (real sockets)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from cli.run import open_feed
from protocol.access import Caller
from protocol.audit import AuditLog, Entry
from protocol.commands import CommandClient
from firmware_host.service.config import Config
from protocol.config import ConfigError
from firmware_host.service.controller import Controller
from protocol.curve import client_keys
from protocol.feed import FeedClient
from firmware_host.service.journal import Journal
from protocol import keys
from protocol.zap import ZapHandler, caller_of
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.processes import croupier_here, start_cli, wait_for

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)
CLIENTS = {"dealer1": "dealer", "dealer2": "dealer", "screen": "display", "screen2": "display", "eye": "surveillance"}


def free_ports(n: int) -> list[int]:
    held = [socket.socket() for _ in range(n)]
    for s in held:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in held]
    for s in held:
        s.close()
    return ports


def make_keys(root: Path) -> dict[str, str]:
    """The table's key, the clients directory, and a stranger's key made elsewhere."""
    keys.create(root / "table", "table", "table")
    for name, role in CLIENTS.items():
        keys.create(root / "clients", name, role)
    keys.create(root / "elsewhere", "stranger", "surveillance")  # a surveillance key the table never got
    return {"server_key": str(root / "table" / "table.key_secret"), "clients": str(root / "clients")}


def config_text(root: Path, security: dict[str, str] | None, host: str = "127.0.0.1") -> str:
    p = free_ports(5)
    text = f"""
[table]
name = "t1"
game = "uth"
[feed]
public = "tcp://{host}:{p[0]}"
snapshot = "tcp://{host}:{p[1]}"
full = "tcp://{host}:{p[2]}"
full_snapshot = "tcp://{host}:{p[3]}"
heartbeat_s = 0.1
[commands]
endpoint = "tcp://{host}:{p[4]}"
"""
    if security is not None:
        text += "[security]\n" + "".join(f'{k} = "{v}"\n' for k, v in security.items())
    return text


class SecureTable:
    """A controller on its own thread with CURVE on every TCP socket, wired as `croupier run` does."""

    def __init__(self, root: Path, ctx: zmq.Context[Any]) -> None:
        self.root, self.ctx = root, ctx
        self.security = make_keys(root)
        self.cfg = Config.parse(config_text(root, self.security), source=str(root / "table.toml"))
        self.audit = AuditLog.open(root / "state")
        self.feed, zap, pair = open_feed(ctx, self.cfg, self.audit)
        assert zap is not None
        self.zap = zap
        self.c = Controller(Journal.open(root / "state"), table="t1", default_setup=UTH, feed=self.feed,
                            audit=self.audit, security=self.cfg.security)
        self.c.zap = self.zap
        self.c.recover()
        self.c.bind_commands(ctx, self.cfg.commands.endpoint, pair)
        self.thread = threading.Thread(target=self.c.run, args=(ctx,), daemon=True)
        self.thread.start()

    def key(self, name: str) -> dict[str, str]:
        folder = "elsewhere" if name == "stranger" else "clients"
        return {"key": str(self.root / folder / f"{name}.key_secret"),
                "server_key": str(self.root / "table" / "table.key")}

    def feed_client(self, name: str, full: bool = False) -> FeedClient:
        f = self.cfg.feed
        pub, snap = (f.full, f.full_snapshot) if full else (f.public, f.snapshot)
        return FeedClient(self.ctx, pub, snap, timeout_s=1.5, **self.key(name))

    def commands(self, name: str) -> CommandClient:
        return CommandClient(self.ctx, self.cfg.commands.endpoint, timeout_s=1.5, name=name, **self.key(name))

    def entries(self, kind: str) -> list[Entry]:
        return [e for e in self.audit.entries() if e.kind == kind]

    def close(self) -> None:
        self.c.stop()
        self.thread.join(10)
        self.feed.close()
        self.zap.close()
        self.c.journal.close()
        self.audit.close()


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[SecureTable]:
    t = SecureTable(tmp_path, ctx)
    yield t
    t.close()


def updates(client: FeedClient, n: int) -> list[dict[str, Any]]:
    """The next `n` messages the client keeps (snapshot first); fails on a silence."""
    got = []
    for _ in range(n):
        m = client.receive(2000)
        assert m is not None, "the feed went silent"
        got.append(m)
    return got


def refused_to(table: SecureTable, name: str) -> set[str]:
    """The sockets whose CURVE handshake the table refused to client `name`'s key (its audit log's entries)."""
    folder = "elsewhere" if name == "stranger" else "clients"
    public = keys.read_certificate(table.root / folder / f"{name}.key").public
    return {e.details["socket"] for e in table.entries("connection_refused") if e.details["key"] == public}


def test_an_unknown_key_receives_nothing_on_any_socket_and_its_commands_get_no_reply(table: SecureTable) -> None:
    for full in (False, True):
        stranger = table.feed_client("stranger", full=full)
        with pytest.raises(TimeoutError):
            stranger.fetch_snapshot()
        # its subscription's handshake refused (audited): a refused CURVE handshake passes no message, and none came
        # though heartbeats go out every 0.1 s (waited on the refusal, not on a second of silence)
        wait_for(lambda: ("full" if full else "public") in refused_to(table, "stranger"), "the SUB's refusal")
        assert stranger.sub.poll(0) == 0
        stranger.close()
    intruder = table.commands("stranger")
    with pytest.raises(TimeoutError):
        intruder.request("bet", seat=1, bets={"ante": 100, "blind": 100})
    intruder.close()
    dealer = table.commands("dealer1")
    state = dealer.request("state")
    assert state["ok"] and state["state"]["spots"] == []  # the stranger's bet was never applied
    dealer.close()
    public = keys.read_certificate(table.root / "elsewhere" / "stranger.key").public
    refused = [e.details for e in table.entries("connection_refused")]
    assert {d["socket"] for d in refused if d["key"] == public} == {"public", "snapshot", "full", "full_snapshot",
                                                                    "commands"}
    assert all(d["address"] == "127.0.0.1" for d in refused)


def test_a_display_key_gets_the_public_feed_but_not_the_full_one(table: SecureTable) -> None:
    screen = table.feed_client("screen")
    first = updates(screen, 3)
    assert first[0]["kind"] == "snapshot" and first[0]["table"] == "t1"
    screen.close()
    peeking = table.feed_client("screen", full=True)
    with pytest.raises(TimeoutError):
        peeking.fetch_snapshot()
    wait_for(lambda: "full" in refused_to(table, "screen"), "the full feed's refusal")  # then nothing can come
    assert peeking.sub.poll(0) == 0
    peeking.close()
    refused = [e.details for e in table.entries("connection_refused")]
    assert {(d["socket"], d["name"]) for d in refused} == {("full", "screen"), ("full_snapshot", "screen")}
    assert "role display may not connect" in refused[0]["reason"]


def test_a_surveillance_key_gets_the_full_feed_and_its_snapshot_and_is_audited(table: SecureTable) -> None:
    dealer = table.commands("dealer1")
    assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100})["ok"]
    table.c.inbox.post(None)
    eye = table.feed_client("eye", full=True)
    snap = eye.fetch_snapshot()
    assert snap["kind"] == "snapshot" and snap["spots"][0]["seat"] == 1
    assert [m["kind"] for m in updates(eye, 2)] == ["heartbeat", "heartbeat"]
    eye.close()
    dealer.close()
    subscribed = [e.details for e in table.entries("full_feed_subscribed")]
    assert {(d["socket"], d["name"], d["role"]) for d in subscribed} == {("full", "eye", "surveillance"),
                                                                       ("full_snapshot", "eye", "surveillance")}


def test_a_revoked_key_is_cut_within_5_s_while_an_allowed_one_keeps_receiving(table: SecureTable) -> None:
    doomed, kept = table.feed_client("screen"), table.feed_client("screen2")
    eye, their_dealer = table.feed_client("eye", full=True), table.commands("dealer2")
    updates(doomed, 2), updates(kept, 2), updates(eye, 2)
    assert their_dealer.request("state")["ok"]  # its connection is open and answered
    asking = table.ctx.socket(zmq.DEALER)  # a snapshot connection held open across the revocation
    client_keys(**table.key("screen")).apply(asking)  # type: ignore[union-attr]
    asking.connect(table.cfg.feed.snapshot)
    asking.send(b"snapshot?")
    assert asking.poll(2000)
    asking.recv()
    keys.revoke(table.security["clients"], "screen")
    keys.revoke(table.security["clients"], "dealer2")
    revoked_at = time.monotonic()
    while doomed.sub.poll(1000):  # what was sent before the cut, then silence
        doomed.sub.recv()
        assert time.monotonic() - revoked_at < 5.0, "the revoked key still receives the public feed"
    assert time.monotonic() - revoked_at < 6.0
    assert doomed.sub.poll(1000) == 0  # and it is not let back in
    asking.send(b"snapshot?")
    assert asking.poll(1000) == 0  # its open snapshot connection is answered no more
    asking.close(0)
    assert len(updates(kept, 5)) == 5  # the allowed one reconnected (a new snapshot on the gap)
    assert len(updates(eye, 3)) == 3  # the full socket it never had was left alone
    with pytest.raises(TimeoutError):
        their_dealer.request("bet", seat=2, bets={"ante": 100, "blind": 100})
    assert [s["seat"] for s in table.commands("dealer1").request("state")["state"]["spots"]] == []
    assert {e.details["name"] for e in table.entries("key_revoked")} == {"screen", "dealer2"}
    keys.create(table.security["clients"], "screen3", "display")
    wait_for(lambda: table.entries("key_added"), "the added key audited", 5.0)
    assert updates(table.feed_client("screen3"), 2)[0]["kind"] == "snapshot"
    for client in (doomed, kept, eye):
        client.close()
    their_dealer.close()


def test_commands_are_attributed_to_the_key_role_and_address_or_the_local_role(tmp_path: Path,
                                                                                ctx: zmq.Context[Any]) -> None:
    security = make_keys(tmp_path)
    zap = ZapHandler(ctx, security["clients"], Config().access)
    server = ctx.socket(zmq.ROUTER)
    keys.serve_curve(server, "tcp://127.0.0.1:0", keys.load_secret(security["server_key"]), "commands")
    server.bind("tcp://127.0.0.1:0")
    local = ctx.socket(zmq.ROUTER)
    local.bind(f"ipc://{tmp_path}/cmd")
    try:
        client = CommandClient(ctx, server.getsockopt_string(zmq.LAST_ENDPOINT), name="d",
                               key=str(tmp_path / "clients" / "dealer1.key_secret"),
                               server_key=str(tmp_path / "table" / "table.key"))
        client._sock.send(b"x")
        while not server.poll(50):
            zap.serve()
        frames = server.recv_multipart(copy=False)
        assert caller_of(frames[-1], "pit", zap) == Caller("dealer", key="dealer1", address="127.0.0.1")
        plain = CommandClient(ctx, f"ipc://{tmp_path}/cmd")
        plain._sock.send(b"x")
        assert local.poll(2000)
        assert caller_of(local.recv_multipart(copy=False)[-1], "pit", zap).role == "pit"  # type: ignore[union-attr]
        client.close()
        plain.close()
    finally:
        server.close(0)
        local.close(0)
        zap.close()


# -- configuration and key files ------------------------------------------------------------------------


def run_check(config: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config),
                           "--state", str(tmp_path / "state")], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("section, key, line", [
    ("commands", "endpoint", 'endpoint = "tcp://0.0.0.0:5555"'),
    ("feed", "public", 'public = "tcp://0.0.0.0:5556"'),
    ("feed", "full", 'full = "tcp://192.168.1.4:5558"'),
])
def test_a_socket_off_loopback_without_security_is_refused_exit_2_naming_it(tmp_path: Path, section: str,
                                                                          key: str, line: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[{section}]\n{line}\n")
    proc = run_check(config, tmp_path)
    assert proc.returncode == 2
    assert f"{config}: [{section}] {key}" in proc.stderr and "[security] server_key and clients" in proc.stderr
    assert not (tmp_path / "state").exists()


def test_with_security_the_full_feed_may_be_bound_off_loopback(tmp_path: Path) -> None:
    cfg = Config.parse(config_text(tmp_path, {"server_key": "k", "clients": "c"}, host="0.0.0.0"))
    assert cfg.feed.full.startswith("tcp://0.0.0.0:")
    with pytest.raises(ConfigError, match=r"\[security\] clients"):
        Config.parse('[security]\nserver_key = "k"\n')


@pytest.mark.parametrize("make, words", [
    (lambda root: None, "not a certificate"),  # no such file
    (lambda root: (root / "table.key_secret").write_text("nonsense\n"), "not a certificate"),
    (lambda root: keys.create(root, "pub", "table") and os.replace(root / "pub.key", root / "table.key_secret"),
     "not a secret certificate"),
])
def test_the_server_key_is_checked_at_start_exit_2_naming_it(tmp_path: Path, make: Any, words: str) -> None:
    (tmp_path / "clients").mkdir()
    make(tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(config_text(tmp_path, {"server_key": str(tmp_path / "table.key_secret"),
                                             "clients": str(tmp_path / "clients")}))
    proc = run_check(config, tmp_path)
    assert proc.returncode == 2
    assert f"{config}: [security] server_key: {tmp_path / 'table.key_secret'}: {words}" in proc.stderr
    assert not (tmp_path / "state").exists()


def test_keys_new_list_and_revoke(tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "cli", "keys"]
    d = str(tmp_path / "clients")
    assert subprocess.run([*cli, "new", "pit1", "--role", "pit", "--dir", d], capture_output=True).returncode == 0
    again = subprocess.run([*cli, "new", "pit1", "--role", "dealer", "--dir", d], capture_output=True, text=True)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert (tmp_path / "clients" / "pit1.key_secret").stat().st_mode & 0o777 == 0o600
    (tmp_path / "clients" / "broken.key").write_text("metadata\ncurve\n")  # no public key: skipped, said why
    listed = subprocess.run([*cli, "list", "--dir", d, "--json"], capture_output=True, text=True)
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    public = keys.load_public(tmp_path / "clients" / "pit1.key_secret").decode()
    assert (row["name"], row["role"], row["public_key"]) == ("pit1", "pit", public)
    assert "broken.key" in listed.stderr
    assert list(keys.load_clients(d)) == ["pit1"]
    table = subprocess.run([*cli, "list", "--dir", d], capture_output=True, text=True).stdout
    assert "pit1" in table and public in table and "ROLE" in table
    assert subprocess.run([*cli, "revoke", "pit1", "--dir", d], capture_output=True).returncode == 0
    assert (tmp_path / "clients" / "revoked" / "pit1.key").exists() and keys.load_clients(d) == {}


# -- end to end: `croupier run` -------------------------------------------------------------------------


def test_croupier_run_serves_curve_to_the_allowed_keys_only(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    security = make_keys(tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(config_text(tmp_path, security))
    cfg = Config.load(config)
    proc, ready = start_cli(["run", "--config", str(config), "--state", str(tmp_path / "state")], tmp_path)
    server = {"server_key": str(tmp_path / "table" / "table.key")}
    try:
        assert ready["ready"]
        eye = FeedClient(ctx, cfg.feed.full, cfg.feed.full_snapshot, key=str(tmp_path / "clients/eye.key_secret"),
                         **server)
        assert eye.fetch_snapshot()["phase"] == "bets"
        dealer = CommandClient(ctx, cfg.commands.endpoint, key=str(tmp_path / "clients/dealer1.key_secret"),
                               **server)
        assert dealer.request("bet", seat=3, bets={"ante": 100, "blind": 100})["ok"]
        seen = wait_for(lambda: (m := eye.receive(1000)) is not None and m["kind"] == "update" and m, "the bet")
        assert seen["spots"][0]["seat"] == 3
        screen = FeedClient(ctx, cfg.feed.full, cfg.feed.full_snapshot, timeout_s=1.0,
                            key=str(tmp_path / "clients/screen.key_secret"), **server)
        with pytest.raises(TimeoutError):
            screen.fetch_snapshot()
        stranger = CommandClient(ctx, cfg.commands.endpoint, timeout_s=1.0,
                                 key=str(tmp_path / "elsewhere/stranger.key_secret"), **server)
        with pytest.raises(TimeoutError):
            stranger.request("void", reason="nobody")
        plain = CommandClient(ctx, cfg.commands.endpoint, timeout_s=1.0)  # no CURVE on a CURVE server
        with pytest.raises(TimeoutError):
            plain.request("state")
        for client in (eye, dealer, screen, stranger, plain):
            client.close()
    finally:
        proc.terminate()
        assert proc.wait(30) == 0
    shown = croupier_here("audit", "show", "--json", "--state", str(tmp_path / "state"))  # in this process
    assert shown.returncode == 0, shown.stderr
    entries = [json.loads(line) for line in shown.stdout.splitlines()]
    refused = {(e["details"]["socket"], e["details"]["name"]) for e in entries if e["kind"] == "connection_refused"}
    assert refused == {("full", "screen"), ("full_snapshot", "screen"), ("commands", "")}
    assert any(e["kind"] == "full_feed_subscribed" and e["details"]["name"] == "eye" for e in entries)


def test_the_zap_handler_speaks_rfc_27_and_audits_a_flood_of_refusals_in_bounds(tmp_path: Path,
                                                                                ctx: zmq.Context[Any]) -> None:
    security = make_keys(tmp_path)
    now = [1000.0]
    audit = AuditLog.open(tmp_path / "state")
    zap = ZapHandler(ctx, security["clients"], Config().access, audit, clock=lambda: now[0])
    asker = ctx.socket(zmq.REQ)  # what libzmq's ZAP client sends, over the same inproc endpoint
    asker.connect("inproc://zeromq.zap.01")

    def ask(*frames: bytes) -> list[bytes]:
        asker.send_multipart(list(frames))
        while not asker.poll(20):
            zap.serve()
        return asker.recv_multipart()

    try:
        eye = zmq.utils.z85.decode(keys.read_certificate(tmp_path / "clients" / "eye.key").public)
        granted = ask(b"1.0", b"r1", b"full", b"10.0.0.9", b"", b"CURVE", eye)
        assert granted[:5] == [b"1.0", b"r1", b"200", b"OK", b"eye"]
        assert granted[5] == b"\x04Role\x00\x00\x00\x0csurveillance"  # ZMTP property layout
        assert ask(b"2.0", b"r2", b"full", b"10.0.0.9", b"", b"CURVE", eye)[2] == b"400"
        assert ask(b"1.0", b"r3", b"full", b"10.0.0.9", b"", b"NULL")[2] == b"400"
        for n in range(150):  # fresh keys each time, as a scan would
            assert ask(b"1.0", b"f", b"public", b"10.0.0.66", b"", b"CURVE", os.urandom(32))[2] == b"400"
        refused = [e for e in audit.entries() if e.kind == "connection_refused"]
        assert len(refused) == 100  # the NULL one and 99 of the scan; the rest counted
        now[0] += 61
        zap.turn()
        last = [e for e in audit.entries() if e.kind == "connection_refused"][-1]
        assert last.details["reason"].startswith("51 more refused")
        assert [e.details["name"] for e in audit.entries() if e.kind == "full_feed_subscribed"] == ["eye"]
    finally:
        asker.close(0)
        zap.close()
        audit.close()
