"""Tables that open only on a certified paytable (`[table] require_certificate`), over the real command
channel: a certified profile opens, a tampered one and one certified only under another profile's
certificate are refused `uncertified` with the reason, and the audit log records each refusal."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.paytables import read_profile
from cli import main
from protocol.audit import AuditLog
from protocol.certificates import Certificates
from protocol.commands import CommandClient
from firmware_host.service.config import Config
from protocol.config import ConfigError, SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from sim.bots.table import free_tcp_port, make_supervisor

DEFAULT = read_profile("default")


@pytest.fixture(autouse=True)
def shipped_uth_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Certify both games: the builtin profiles file UTH's figures, whose computation ships (`analysis/shipped`:
    instant, never minutes of numpy here); no cache of this machine's stands in for it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def certify(profile: Path | str, out: Path) -> None:
    assert main(["math", "certify", "--profile", str(profile), "--out", str(out)]) == 0


class Table:
    """A controller requiring certificates, with no table open, serving its command channel on loopback."""

    def __init__(self, tmp: Path, ctx: zmq.Context[Any]) -> None:
        self.profiles, self.certificates, self.state = tmp / "profiles", tmp / "certificates", tmp / "state"
        self.profiles.mkdir()
        self.certificates.mkdir()
        (self.profiles / "house.toml").write_text(DEFAULT.text.replace('name = "default"', 'name = "house"'))
        self.supervisor = make_supervisor(tmp / "users.json")
        self.audit = AuditLog.open(self.state)
        security = SecurityConfig(users=str(tmp / "users.json"), profiles=str(self.profiles))
        self.c = Controller(Journal.open(self.state), audit=self.audit, security=security, limits={"minimum": 100},
                            certificates=Certificates(True, str(self.certificates)))
        self.c.recover()
        endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        self.thread = threading.Thread(target=self.c.run, args=(ctx, endpoint), daemon=True)
        self.thread.start()
        self.client = CommandClient(ctx, endpoint)

    def open(self, profile: str, game: str = "3cp") -> dict[str, Any]:
        return self.client.request("open", game=game, profile=profile, auth=self.supervisor)

    def opens(self) -> list[dict[str, Any]]:
        return [e.body for e in self.c.journal.events() if e.kind == "open"]

    def refused(self) -> list[dict[str, Any]]:
        return [e.details for e in self.audit.entries() if e.kind == "open_refused"]

    def close(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()
        self.audit.close()


@pytest.fixture
def table(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Table]:
    t = Table(tmp_path, ctx)
    yield t
    t.close()


def test_a_certified_profile_opens_and_a_tampered_one_is_refused_and_audited(table: Table) -> None:
    house = table.profiles / "house.toml"
    certify(house, table.certificates / "house.json")
    certified_sha = read_profile(house).sha256
    reply = table.open("house.toml")
    assert reply["ok"], reply
    assert table.opens()[-1]["profile"]["sha256"] == certified_sha and table.refused() == []

    house.write_text(house.read_text().replace("straight = [6, 1]", "straight = [7, 1]"))  # Pair Plus pays more
    tampered_sha = read_profile(house).sha256
    reply = table.open("house.toml")
    assert reply["ok"] is False and reply["code"] == "uncertified"
    assert "house" in reply["error"] and "not the one certified" in reply["error"] and "house.json" in reply["error"]
    assert len(table.opens()) == 1  # nothing journaled: the certified table stands
    assert table.c.table is not None and table.c.table.setup.as_body()["profile"]["sha256"] == certified_sha
    [entry] = table.refused()
    assert entry["profile"] == "house" and entry["sha256"] == tampered_sha and entry["code"] == "uncertified"
    assert entry["game"] == "3cp" and "not the one certified" in entry["reason"]
    assert table.audit.verify().ok


def test_the_certificate_of_another_profile_does_not_open_a_table(table: Table) -> None:
    certify("standard", table.certificates / "standard.json")
    shutil.copy(table.certificates / "standard.json", table.certificates / "house.json")  # a name proves nothing
    assert table.open("standard", game="uth")["ok"]
    reply = table.open("house.toml")
    assert reply["ok"] is False and reply["code"] == "uncertified"
    assert f"sha256 {read_profile(table.profiles / 'house.toml').sha256[:16]}" in reply["error"]
    assert "has no certificate" in reply["error"]
    assert [e["profile"] for e in table.refused()] == ["house"]
    assert [o["profile"]["name"] for o in table.opens()] == ["standard"]


def test_a_file_that_is_no_certificate_certifies_nothing(table: Table) -> None:
    (table.certificates / "forged.json").write_text(json.dumps({"profile": {"sha256": DEFAULT.sha256}}))
    (table.certificates / "junk.json").write_text("not json")
    reply = table.open("default")
    assert reply["code"] == "uncertified" and "has no certificate" in reply["error"]


def config_text(tmp: Path, **table: Any) -> str:
    keys = "\n".join(f"{k} = {json.dumps(v)}" for k, v in table.items())
    return f'[table]\ngame = "3cp"\nprofile = "default"\n{keys}\n'


def test_the_configurations_profile_is_held_to_the_same_rule(tmp_path: Path) -> None:
    certificates = tmp_path / "certificates"
    certificates.mkdir()
    with pytest.raises(ConfigError, match=r"\[table\] certificates: require_certificate needs the directory"):
        Config.parse(config_text(tmp_path, require_certificate=True))
    with pytest.raises(ConfigError, match=r"\[table\] profile: profile default .* has no certificate"):
        Config.parse(config_text(tmp_path, require_certificate=True, certificates=str(certificates)))
    certify("default", certificates / "default.json")
    cfg = Config.parse(config_text(tmp_path, require_certificate=True, certificates=str(certificates)))
    assert cfg.table.certificate_policy == Certificates(True, str(certificates))
    assert Config.parse(config_text(tmp_path)).table.certificate_policy.refusal("default", "x") is None
