"""Tests of the CURVE clients (service.curve): FeedClient, CommandClient and `croupier watch` against plain CURVE servers on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.auth

from protocol.commands import CommandClient
from protocol.curve import ClientKeys, client_keys
from protocol.keys import KeyFileError
from protocol.feed import FeedClient, pack, unpack

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """Certificates as `croupier keys new` writes them: the table's, a display's, another table's."""
    made: dict[str, Path] = {}
    (tmp_path / "keys").mkdir()
    for name, role in (("table", "table"), ("display", "display"), ("other", "table")):
        public, secret = zmq.auth.create_certificates(str(tmp_path / "keys"), name, metadata={"role": role})
        made[name], made[f"{name}_secret"] = Path(public), Path(secret)
        os.chmod(secret, 0o600)  # a secret others may read is refused (protocol/file_modes.py)
    return made


class CurveTable(threading.Thread):
    """A plain CURVE server (no ZAP handler: libzmq lets any CURVE client in): a PUB sending an
    update every 30 ms, a snapshot ROUTER and a command ROUTER echoing each request's id and cmd."""

    def __init__(self, ctx: zmq.Context[Any], secret_file: Path) -> None:
        super().__init__(daemon=True)
        public, secret = zmq.auth.load_certificate(str(secret_file))
        self.stop = threading.Event()
        self.sockets: list[zmq.Socket[Any]] = []
        self.pub, self.snap, self.cmd = (self._bind(ctx, kind, public, secret)
                                         for kind in (zmq.PUB, zmq.ROUTER, zmq.ROUTER))
        self.seq = 0

    def _bind(self, ctx: zmq.Context[Any], kind: int, public: bytes, secret: bytes | None) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        sock.curve_server = True
        sock.curve_publickey = public
        sock.curve_secretkey = secret
        sock.bind("tcp://127.0.0.1:*")
        self.sockets.append(sock)
        return sock

    @staticmethod
    def endpoint(sock: zmq.Socket[Any]) -> str:
        return str(sock.getsockopt_string(zmq.LAST_ENDPOINT))

    def state(self, kind: str) -> bytes:
        return pack({"table": "t1", "boot": "b1", "seq": self.seq, "kind": kind, "hand": 1, "game": "uth",
                     "phase": "bets", "spots": []})

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.snap, zmq.POLLIN)
        poller.register(self.cmd, zmq.POLLIN)
        try:
            while not self.stop.is_set():
                ready = dict(poller.poll(30))
                if self.snap in ready:
                    identity, _ = self.snap.recv_multipart()
                    self.snap.send_multipart([identity, self.state("snapshot")])
                if self.cmd in ready:
                    identity, frame = self.cmd.recv_multipart()
                    request = unpack(frame)
                    self.cmd.send_multipart([identity, pack({"id": request["id"], "ok": True, "cmd": request["cmd"]})])
                self.seq += 1
                self.pub.send(self.state("update"))
        finally:
            for sock in self.sockets:
                sock.close(0)


@pytest.fixture
def table(ctx: zmq.Context[Any], keys: dict[str, Path]) -> Iterator[CurveTable]:
    server = CurveTable(ctx, keys["table_secret"])
    server.start()
    yield server
    server.stop.set()
    server.join(5)


def test_a_curve_feed_client_gets_the_snapshot_and_the_updates(table: CurveTable, keys: dict[str, Path],
                                                               ctx: zmq.Context[Any]) -> None:
    client = FeedClient(ctx, table.endpoint(table.pub), table.endpoint(table.snap), timeout_s=5.0,
                        key=str(keys["display_secret"]), server_key=str(keys["table"]))
    try:
        first = client.receive()
        assert first is not None and first["kind"] == "snapshot" and first["table"] == "t1"
        updates = [m for m in (client.receive(5000) for _ in range(3)) if m is not None]
        assert updates and all(m["kind"] in ("update", "snapshot") for m in updates)
        assert client.state is not None and client.state["phase"] == "bets"
    finally:
        client.close()


def test_a_curve_command_client_gets_its_reply(table: CurveTable, keys: dict[str, Path],
                                               ctx: zmq.Context[Any]) -> None:
    client = CommandClient(ctx, table.endpoint(table.cmd), timeout_s=5.0,
                           key=str(keys["display_secret"]), server_key=str(keys["table"]))
    try:
        reply = client.request("state", req_id="r-1")
        assert reply == {"id": "r-1", "ok": True, "cmd": "state"}
        # re-sent on a fresh socket (the retry path): that socket is a CURVE client too
        assert client.request("state", req_id="r-2", retries=1)["ok"]
    finally:
        client.close()


def test_without_keys_a_curve_table_gives_nothing(table: CurveTable, ctx: zmq.Context[Any]) -> None:
    feed = FeedClient(ctx, table.endpoint(table.pub), table.endpoint(table.snap), timeout_s=0.5)
    commands = CommandClient(ctx, table.endpoint(table.cmd), timeout_s=0.5)
    try:
        with pytest.raises(TimeoutError):
            feed.fetch_snapshot()
        assert not feed.sub.poll(500)
        with pytest.raises(TimeoutError):
            commands.request("state")
    finally:
        feed.close()
        commands.close()


def test_the_wrong_server_key_gets_nothing(table: CurveTable, keys: dict[str, Path], ctx: zmq.Context[Any]) -> None:
    wrong = {"key": str(keys["display_secret"]), "server_key": str(keys["other"])}
    feed = FeedClient(ctx, table.endpoint(table.pub), table.endpoint(table.snap), timeout_s=0.5, **wrong)
    commands = CommandClient(ctx, table.endpoint(table.cmd), timeout_s=0.5, **wrong)
    try:
        with pytest.raises(TimeoutError):
            feed.receive()
        assert not feed.sub.poll(500), "an update reached a client that does not trust this table's key"
        with pytest.raises(TimeoutError):
            commands.request("state", retries=1)
    finally:
        feed.close()
        commands.close()


def test_key_files_are_checked_with_clear_errors(tmp_path: Path, keys: dict[str, Path],
                                                 ctx: zmq.Context[Any]) -> None:
    loaded = ClientKeys.load(str(keys["display_secret"]), str(keys["table"]))
    assert loaded.server == zmq.auth.load_certificate(str(keys["table"]))[0]
    assert client_keys(None, None) is None
    garbage = tmp_path / "garbage.key"
    garbage.write_bytes(b"\x00\xffnot a certificate\n")
    cases = [
        ((str(tmp_path / "missing.key_secret"), str(keys["table"])), "missing.key_secret: no such file"),
        ((str(keys["display"]), str(keys["table"])), "holds only a public key"),
        ((str(keys["display_secret"]), str(tmp_path / "nope.key")), "nope.key: no such file"),
        ((str(keys["display_secret"]), str(garbage)), "not a certificate"),
        ((str(keys["display_secret"]), str(tmp_path)), "no such file"),  # a directory
        ((str(keys["display_secret"]), None), "or neither"),
        ((None, str(keys["table"])), "or neither"),
    ]
    for (key, server_key), words in cases:
        with pytest.raises(KeyFileError, match=words):
            client_keys(key, server_key)
        with pytest.raises(ValueError, match=words):  # the clients' keyword arguments say the same
            FeedClient(ctx, "tcp://127.0.0.1:9", "tcp://127.0.0.1:10", key=key,
                       server_key=server_key)


def croupier(*args: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def test_watch_key_arguments_errors_exit_2(tmp_path: Path, keys: dict[str, Path]) -> None:
    ep = ["tcp://127.0.0.1:9"]
    for args, words in [
        (["--key", str(keys["display_secret"])], "--key and --server-key"),
        (["--server-key", str(keys["table"])], "--key and --server-key"),
        (["--key", str(tmp_path / "none"), "--server-key", str(keys["table"])], "none: no such file"),
        (["--key", str(keys["display"]), "--server-key", str(keys["table"])], "holds only a public key"),
    ]:
        done = croupier("watch", *ep, *args)
        assert done.returncode == 2, done
        assert done.stderr.startswith("croupier watch: ") and words in done.stderr
        assert "Traceback" not in done.stderr


def test_watch_follows_a_curve_table(table: CurveTable, keys: dict[str, Path]) -> None:
    done = croupier("watch", table.endpoint(table.pub), "--snapshot", table.endpoint(table.snap), "--count", "2",
                    "--timeout", "10", "--plain", "--key", str(keys["display_secret"]),
                    "--server-key", str(keys["table"]))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[3] == "snapshot" and "table=t1" in lines[0]
    # and without the right table key it sees nothing
    wrong = croupier("watch", table.endpoint(table.pub), "--snapshot", table.endpoint(table.snap), "--timeout",
                     "1", "--plain", "--key", str(keys["display_secret"]), "--server-key", str(keys["other"]))
    assert wrong.returncode == 1 and wrong.stdout == ""

