"""Tests of which profiles an `open` may name: the engine's, or a bounded regular file of `[security] profiles`."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
import zmq

from engine.errors import ProfileError
from engine.paytables import read_profile
from protocol.commands import CommandClient
from sim.bots.table import make_supervisor
from protocol.config import SecurityConfig
from firmware_host.service.journal import Journal
from firmware_host.service.profiles import MAX_PROFILE_BYTES, requested_profile
from tests.firmware_host.rigs import JournalRig
from tests.firmware_host.test_limits import serving

DEFAULT = read_profile("default")
LIMITS = {"minimum": 100}


@pytest.fixture
def profiles(tmp_path: Path) -> Path:
    directory = tmp_path / "profiles"
    (directory / "sub").mkdir(parents=True)
    (directory / "house.toml").write_text(DEFAULT.text.replace('name = "default"', 'name = "house"'))
    (directory / "sub" / "deep.toml").write_text(DEFAULT.text.replace('name = "default"', 'name = "deep"'))
    (tmp_path / "outside.toml").write_text(DEFAULT.text)
    return directory


class Table(JournalRig):
    def __init__(self, path: Path, profiles: str) -> None:
        self.profiles = profiles
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        return {"limits": LIMITS, "security": SecurityConfig(profiles=self.profiles)}


def test_builtin_names_and_files_of_the_profiles_directory_open(tmp_path: Path, profiles: Path) -> None:
    t = Table(tmp_path / "state", str(profiles))
    for name, shown in (("standard", "standard"), ("house.toml", "house"), ("sub/deep.toml", "deep"),
                        (str(profiles / "house.toml"), "house")):
        t.ok("open", game="uth", profile=name)
        assert opened(t)["profile"]["name"] == shown
    t.c.journal.close()


def opened(t: JournalRig) -> dict[str, Any]:
    return [e.body for e in t.c.journal.events() if e.kind == "open"][-1]


def refusal(t: Table, name: str) -> str:
    reply = t.cmd("open", game="3cp", profile=name)
    assert reply["ok"] is False, reply
    return str(reply["error"])


def test_the_refusal_says_nothing_of_files_outside_the_directory(tmp_path: Path, profiles: Path) -> None:
    (profiles / "passwd.toml").symlink_to("/etc/passwd")
    (profiles / "zero.toml").symlink_to("/dev/zero")
    (profiles / "out.toml").symlink_to(tmp_path / "outside.toml")
    t = Table(tmp_path / "state", str(profiles))
    names = ["/etc/passwd", "/nonexistent", "../outside.toml", str(tmp_path / "outside.toml"), "sub/../house.toml",
             "passwd.toml", "zero.toml", "out.toml", "missing.toml", "."]
    # a name over 80 characters (the temporary directory's, on some machines) is said cut, in quotes
    said = {refusal(t, name).replace(name if len(name) <= 80 else f"{name[:80]!r}...", "NAME", 1) for name in names}
    assert said == {"NAME: no such profile (builtin: default, standard, fr_literal; a file of the profiles "
                    "directory)"}, said
    assert [e.kind for e in t.c.journal.events()] == []  # nothing journaled
    assert refusal(t, "sub") == "sub: not a regular file in the profiles directory"  # inside: said as it is
    t.c.journal.close()


def test_without_a_profiles_directory_only_builtins_open(tmp_path: Path, profiles: Path) -> None:
    t = Table(tmp_path / "state", "")
    assert "no profiles directory is configured" in refusal(t, str(profiles / "house.toml"))
    t.ok("open", game="uth", profile="fr_literal")
    t.c.journal.close()


def test_a_fifo_does_not_freeze_the_table_and_a_long_file_is_refused(tmp_path: Path, profiles: Path) -> None:
    os.mkfifo(profiles / "fifo.toml")
    (profiles / "long.toml").write_text(DEFAULT.text + "#" * MAX_PROFILE_BYTES)
    said: list[str] = []
    opened = threading.Thread(target=lambda: said.append(_error(profiles, "fifo.toml")), daemon=True)
    opened.start()
    opened.join(30)
    assert said == ["fifo.toml: not a regular file in the profiles directory"]
    assert f"at most {MAX_PROFILE_BYTES} bytes" in _error(profiles, "long.toml")
    (profiles / "bad.toml").write_bytes(b"\xff\xfe")
    assert _error(profiles, "bad.toml") == "bad.toml: not UTF-8 text"


def _events(tmp_path: Path) -> list[Any]:
    j = Journal.open(tmp_path / "state", readonly=True)
    try:
        return list(j.events())
    finally:
        j.close()


def _error(directory: Path, name: str) -> str:
    with pytest.raises(ProfileError) as info:
        requested_profile(name, str(directory))
    return str(info.value)


def test_open_over_the_socket_reads_only_the_profiles_directory(tmp_path: Path, profiles: Path) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        floor = make_supervisor(tmp_path / "users.json")  # a new profile takes a supervisor's sign-off
        security = SecurityConfig(profiles=str(profiles), users=str(tmp_path / "users.json"), local_role="pit")
        with serving(tmp_path, ctx, security=security) as (_, endpoint):
            dealer = CommandClient(ctx, endpoint)
            passwd = dealer.request("open", game="uth", profile="/etc/passwd", limits=LIMITS)
            nothing = dealer.request("open", game="uth", profile="/nonexistent", limits=LIMITS)
            assert (passwd["code"], nothing["code"]) == ("illegal", "illegal")
            assert passwd["error"].replace("/etc/passwd", "X") == nothing["error"].replace("/nonexistent", "X")
            assert dealer.request("open", game="uth", profile="house.toml", limits=LIMITS)["code"] == "forbidden"
            assert dealer.request("open", game="uth", profile="house.toml", limits=LIMITS, auth=floor)["ok"]
            dealer.close()
        assert [e.body["profile"]["name"] for e in _events(tmp_path) if e.kind == "open"][-1] == "house"
    finally:
        ctx.destroy(linger=0)
