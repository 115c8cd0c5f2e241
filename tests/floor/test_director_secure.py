"""The director over CURVE (real keys, real TCP sockets on loopback): who gets in, who is refused, every
request in the audit log; the pit relaying the director's clock on the floor feed; the tournament's
record written once into the real PostgreSQL archive, across a restart."""

from __future__ import annotations

import json
import re
import threading
from datetime import timedelta
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest
import zmq

from floor.aggregator import Pit
from floor.catchup import CountingSink
from floor.config import PitConfig
from floor.director.service import Director
from floor.director.config import DirectorConfig
from floor.feed import table_topic
from floor.migrate import migrate
from floor.reports import ArchivedTournament, TournamentLevel
from protocol import keys
from protocol.audit import AuditLog, Entry
from protocol.commands import CommandClient
from protocol.config import ConfigError
from protocol.feed import FeedClient
from sim.bots.table import free_tcp_port
from tests.firmware_host.processes import wait_for
from tests.floor.test_director import SUPERVISOR, write_director

CLIENTS = {"pit1": "pit", "screen": "display", "dealer1": "dealer"}


class SecureDirector:
    """A director with CURVE on its TCP sockets, serving in a thread with its own context."""

    def __init__(self, root: Path, extra: str = "") -> None:
        self.root = root
        keys.create(root / "director", "director", "table")
        for name, role in CLIENTS.items():
            keys.create(root / "clients", name, role)
        keys.create(root / "elsewhere", "stranger", "pit")  # a pit key the director never got
        self.ports = [free_tcp_port() for _ in range(3)]
        config = write_director(root)
        text = config.read_text(encoding="utf-8")
        for suffix, port in zip(("dpub", "dsnap", "dcmd"), self.ports):
            text = text.replace(f'"ipc://{root}/{suffix}"', f'"tcp://127.0.0.1:{port}"')
        text += (f'server_key = "{root}/director/director.key_secret"\nclients = "{root}/clients"\n{extra}')
        config.write_text(text, encoding="utf-8")
        self.cfg = DirectorConfig.load(config)
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.director = Director(self.cfg, str(root / "state"), self.ctx)
        self.thread = threading.Thread(target=self.director.run)
        self.thread.start()
        self.clients: list[CommandClient] = []

    @property
    def public(self) -> str:
        return f"tcp://127.0.0.1:{self.ports[0]}"

    @property
    def snapshot(self) -> str:
        return f"tcp://127.0.0.1:{self.ports[1]}"

    @property
    def commands(self) -> str:
        return f"tcp://127.0.0.1:{self.ports[2]}"

    def key(self, name: str) -> dict[str, str]:
        folder = "elsewhere" if name == "stranger" else "clients"
        return {"key": str(self.root / folder / f"{name}.key_secret"),
                "server_key": str(self.root / "director" / "director.key")}

    def client(self, name: str, timeout_s: float = 5.0) -> CommandClient:
        client = CommandClient(self.ctx, self.commands, timeout_s=timeout_s, name=name, **self.key(name))
        self.clients.append(client)
        return client

    def audit(self, kind: str) -> list[Entry]:
        log = AuditLog.open(self.root / "state", readonly=True)
        try:
            return [e for e in log.entries() if e.kind == kind]
        finally:
            log.close()

    def stop(self) -> None:
        for client in self.clients:
            client.close()
        self.director.stopping.set()
        self.thread.join(timeout=15)
        self.ctx.destroy(linger=0)


@pytest.fixture
def secure(tmp_path: Path) -> Iterator[list[SecureDirector]]:
    started: list[SecureDirector] = []
    yield started
    for d in started:
        if d.thread.is_alive():
            d.stop()


def requests(d: SecureDirector) -> list[dict[str, Any]]:
    return [e.details for e in d.audit("director_request")]


def test_over_curve_each_request_is_known_by_its_key_and_audited_taken_or_refused(
        tmp_path: Path, secure: list[SecureDirector], capsys: pytest.CaptureFixture[str]) -> None:
    d = SecureDirector(tmp_path)
    secure.append(d)
    with pytest.raises(TimeoutError):                     # a key the director never got: no reply at all
        d.client("stranger", timeout_s=1.0).request("state")
    refused = wait_for(lambda: d.audit("connection_refused"), "the stranger's refusal audited")
    stranger = keys.read_certificate(tmp_path / "elsewhere" / "stranger.key")
    assert refused[0].details["socket"] == "commands" and refused[0].details["key"] == stranger.public
    assert refused[0].details["reason"] == "key not in the clients directory"
    with pytest.raises(TimeoutError):                     # a dealer's key is not let onto the director's requests
        d.client("dealer1", timeout_s=1.0).request("state")
    assert "role dealer may not connect" in wait_for(lambda: [e for e in d.audit("connection_refused")
                                                            if e.details["name"] == "dealer1"], "dealer1")[0].details["reason"]

    pit = d.client("pit1")
    for player in ("Ann", "Bob", "Cy"):
        assert pit.request("enter", player=player)["ok"]
    out = pit.request("out", players={"Cy": 1200})
    assert out["ok"] and out["state"]["players_left"] == 2
    paused = pit.request("pause")                         # the clock needs a supervisor whoever sends it
    assert paused["ok"] is False and paused["code"] == "forbidden"
    assert d.client("screen").request("enter", player="Dee")["code"] == "forbidden"   # a display reads only
    assert pit.request("start", auth=SUPERVISOR)["ok"]    # signed off, the pit's key relays it
    wall = d.client("screen", timeout_s=1.0)
    assert wall.request("state")["ok"]                    # a read: not written

    seen = requests(d)
    assert [(r["command"], r["outcome"], r["role"], r["key"]) for r in seen] == [
        ("enter", "taken", "pit", "pit1"), ("enter", "taken", "pit", "pit1"), ("enter", "taken", "pit", "pit1"),
        ("out", "taken", "pit", "pit1"), ("pause", "refused", "pit", "pit1"), ("enter", "refused", "display", "screen"),
        ("start", "taken", "pit", "pit1")]
    assert seen[3]["args"] == {"players": {"Cy": 1200}} and seen[3]["event"] == out["event"]
    assert seen[4]["code"] == "forbidden" and "sign-off" in seen[4]["error"]
    assert seen[6]["signed_off"] == "ana" and seen[4]["address"] == "127.0.0.1"
    assert [e.details["command"] for e in d.audit("signoff_refused")] == ["pause"]
    assert d.audit("forbidden")[0].details == {"role": "display", "key": "screen", "command": "enter",
                                               "address": "127.0.0.1"}

    screen = FeedClient(d.ctx, d.public, d.snapshot, timeout_s=5.0, **d.key("screen"))   # the clock over CURVE
    try:
        assert screen.fetch_snapshot()["entries"] == 3
    finally:
        screen.close()
    keys.revoke(tmp_path / "clients", "screen")           # cut at once, on the connection it has
    assert wait_for(lambda: d.audit("key_revoked"), "the screen's key revoked")[0].details["name"] == "screen"
    with pytest.raises(TimeoutError):
        wall.request("state")
    d.stop()
    from cli import main
    capsys.readouterr()
    assert main(["audit", "verify", "--state", str(tmp_path / "state")]) == 0
    assert main(["audit", "show", "--state", str(tmp_path / "state"), "--json"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()[1:]]
    kinds = [e["kind"] for e in shown]
    assert kinds[:2] == ["start", "config"] and kinds[-1] == "stop" and kinds.count("director_request") == 7


def test_a_director_open_to_the_network_needs_its_keys(tmp_path: Path) -> None:
    config = write_director(tmp_path)
    text = config.read_text(encoding="utf-8").replace(f'commands = "ipc://{tmp_path}/dcmd"',
                                                      'commands = "tcp://0.0.0.0:5612"')
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[director\] commands: without \[director\] server_key and clients"):
        DirectorConfig.load(config)
    for key in ("public", "snapshot"):  # the clock feed too: plaintext only where no other machine reaches it
        open_feed = re.sub(rf'^{key} = "ipc://[^"]*"', f'{key} = "tcp://0.0.0.0:56{len(key)}0"', text, flags=re.M)
        config.write_text(open_feed.replace('commands = "tcp://0.0.0.0:5612"', f'commands = "ipc://{tmp_path}/dcmd"'),
                          encoding="utf-8")
        with pytest.raises(ConfigError, match=rf"\[director\] {key}: without \[director\] server_key and clients"):
            DirectorConfig.load(config)
    config.write_text(text + 'server_key = "keys/director.key_secret"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[director\] clients: CURVE needs both"):
        DirectorConfig.load(config)
    keys.create(tmp_path / "keys", "director", "table")
    (tmp_path / "clients").mkdir()
    config.write_text(text + 'server_key = "keys/director.key"\nclients = "clients"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[director\] server_key: .*not a secret certificate"):
        DirectorConfig.load(config)
    config.write_text(text + 'server_key = "keys/director.key_secret"\nclients = "clients"\n', encoding="utf-8")
    assert DirectorConfig.load(config).commands == "tcp://0.0.0.0:5612"


def floor_snapshot(ctx: zmq.Context[Any], endpoint: str, prefix: str) -> list[dict[str, Any]]:
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint)
    try:
        dealer.send(msgpack.packb({"want": "snapshot", "prefix": prefix}))
        states = []
        while True:
            assert dealer.poll(10000), "the pit's snapshot socket did not answer"
            message = msgpack.unpackb(dealer.recv(), raw=False)
            if message["kind"] == "end":
                return states
            states.append(message)
    finally:
        dealer.close(0)


def test_the_pit_relays_the_directors_clock_on_the_floor_feed(tmp_path: Path, secure: list[SecureDirector]) -> None:
    d = SecureDirector(tmp_path)
    secure.append(d)
    pit_ctx: zmq.Context[Any] = zmq.Context()
    listen, snapshot = f"ipc://{tmp_path}/floor", f"ipc://{tmp_path}/floorsnap"
    (tmp_path / "pit.toml").write_text(f"""
[pit]
listen = "{listen}"
snapshot = "{snapshot}"
heartbeat_s = 0.3
key = "{tmp_path}/clients/pit1.key_secret"

[[pit.tournaments]]
name = "sunday"
public = "{d.public}"
snapshot = "{d.snapshot}"
server_key = "{tmp_path}/director/director.key"
""", encoding="utf-8")
    pit = Pit(PitConfig.load(tmp_path / "pit.toml"), pit_ctx, CountingSink())
    running = threading.Thread(target=pit.run)
    running.start()
    sub: zmq.Socket[Any] = pit_ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, table_topic("sunday"))
    sub.connect(listen)
    try:
        first = wait_for(lambda: [s for s in floor_snapshot(pit_ctx, snapshot, "sunday/") if s["online"]],
                         "the director's clock in the floor snapshot")[0]
        assert first["table"] == "sunday" and first["tournament"] == "Test 100+10" and first["entries"] == 0
        assert first["archived"] is None                       # nothing is caught up from a director
        d.client("pit1").request("enter", player="Ann")

        def relayed() -> dict[str, Any] | None:
            if not sub.poll(200):
                return None
            topic, body = sub.recv_multipart()
            message = msgpack.unpackb(body, raw=False)
            assert topic == b"sunday/"
            changed = message.get("set") or {} if message.get("kind") == "changes" else {}
            return message if changed.get("entries") == 1 else None

        update = wait_for(relayed, "the entry relayed on the floor feed")  # the director's changes, passed on
        assert update["table"] == "sunday" and update["set"]["players_left"] == 1 and update["online"] is True
        d.stop()

        def offline() -> dict[str, Any] | None:
            message = relayed_any(sub)
            return message if message is not None and message["kind"] == "offline" else None

        assert wait_for(offline, "the director offline after 3 heartbeats")["online"] is False
        assert floor_snapshot(pit_ctx, snapshot, "sunday/")[0]["online"] is False
    finally:
        pit.stop()
        running.join(timeout=10)
        pit.close()
        sub.close(0)
        pit_ctx.destroy(linger=0)


def relayed_any(sub: zmq.Socket[Any]) -> dict[str, Any] | None:
    if not sub.poll(200):
        return None
    _, body = sub.recv_multipart()
    message: dict[str, Any] = msgpack.unpackb(body, raw=False)
    return message


def test_the_tournaments_record_is_archived_once_across_a_restart(tmp_path: Path, db: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    migrate(db)
    config = write_director(tmp_path)
    config.write_text(config.read_text(encoding="utf-8") + f'db = "{db}"\n', encoding="utf-8")
    ctx: zmq.Context[Any] = zmq.Context()

    def serve() -> tuple[Director, threading.Thread]:
        director = Director(DirectorConfig.load(config), str(tmp_path / "state"), ctx)
        thread = threading.Thread(target=director.run)
        thread.start()
        return director, thread

    director, thread = serve()
    client = CommandClient(ctx, f"ipc://{tmp_path}/dcmd", timeout_s=5.0)
    try:
        for player in ("Ann", "Bob", "Cy"):
            assert client.request("enter", player=player)["ok"]
        assert client.request("start", auth=SUPERVISOR)["ok"]
        assert client.request("close")["ok"]
        assert client.request("out", players={"Cy": 800})["ok"]
        assert director.record is not None and director.record.outcome is None   # two left: not over
        assert client.request("out", players={"Bob": 4000})["ok"]
        wait_for(lambda: director.record is not None and director.record.outcome == "written", "the record written")
        director.stopping.set()
        thread.join(timeout=15)
        director, thread = serve()                            # over already: tried again, and nothing twice
        wait_for(lambda: director.record is not None and director.record.outcome == "already archived",
                 "the restart's record found archived")
    finally:
        client.close()
        director.stopping.set()
        thread.join(timeout=15)
        ctx.destroy(linger=0)
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM tournaments").fetchone() == (1,)
        places = conn.execute("SELECT player, place, prize FROM tournament_places ORDER BY place").fetchall()
        pool = conn.execute("SELECT prize_pool FROM tournaments").fetchone()
        levels = conn.execute("SELECT stage, level, big_blind FROM tournament_levels ORDER BY stage").fetchall()
        started, finished = conn.execute("SELECT started_at, finished_at FROM tournaments").fetchone()
        hand = ("INSERT INTO hands (table_name, hand, status, opened_at, record) "
                "VALUES (%s, %s, 'settled', %s, '{}'::jsonb)")
        conn.execute(hand, ("T1", 1, started))                          # a hand of its table while it ran
        conn.execute(hand, ("T1", 2, finished + timedelta(hours=1)))    # the table's next game, after it
        conn.execute(hand, ("uth-1", 1, started))                       # another table's
    assert places == [("Ann", 1, 18000), ("Bob", 2, 12000), ("Cy", 3, 0)]
    assert pool == (30000,) and sum(p[2] for p in places) == 30000
    assert levels[0] == (0, 1, 50)
    from cli import main
    capsys.readouterr()
    assert main(["stats", "--db", db, "--tournaments", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["tournaments"]
    assert len(shown) == 1 and shown[0]["tournament"] == "Test 100+10" and shown[0]["entries"] == 3
    assert shown[0].keys() == ArchivedTournament.__annotations__.keys()  # its type's keys
    assert shown[0]["levels"][0].keys() == TournamentLevel.__annotations__.keys()
    assert shown[0]["places"][0] == {"place": 1, "player": "Ann", "prize": 18000, "shared": 1}
    assert shown[0]["tables"] == ["T1", "T2"] and shown[0]["hands"] == 1 and shown[0]["levels"][0]["level"] == 1
    assert main(["stats", "--db", db, "--tournaments"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "1 tournament(s) archived" and "3 entries, pool 30000, fees 3000" in text[1]
    assert text[2:] == ["    1. Ann  18000", "    2. Bob  12000"]
    assert main(["stats", "--db", db, "--tournaments", "--csv"]) == 2
    assert "--tournaments is a report of its own" in capsys.readouterr().err


def test_the_floors_pages_follow_a_curve_director_with_their_key_and_the_directors(tmp_path: Path) -> None:
    from floor.web.config import WebConfig
    keys.create(tmp_path, "director", "table")
    keys.create(tmp_path, "wall", "display")
    section = (f'[web]\ntournament = "tcp://127.0.0.1:5610"\ntournament_snapshot = "tcp://127.0.0.1:5611"\n'
               f'tournament_server_key = "{tmp_path}/director.key"\n')
    with pytest.raises(ConfigError, match=r"\[web\] key, tournament_server_key: give both"):
        WebConfig.parse(section)
    cfg = WebConfig.parse(section + f'key = "{tmp_path}/wall.key_secret"\n')
    assert cfg.tournament_server_key == f"{tmp_path}/director.key"
