"""A house table's `open` body carries the profile's text and sha256 and the limits spelt out; replayed with no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ProfileError
from engine.paytables import read_profile
from firmware_host.tables.house.opening import MissingLimits, changes, open_body, profile_of

DEFAULT = read_profile("default")


def test_the_body_carries_the_profile_and_every_limit(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(DEFAULT.text.replace("flush = [3, 2]", "flush = [2, 1]", 1).replace('name = "default"', 'name = "house"'))
    body = open_body("uth", str(path), {"minimum": 5, "chip": 5}, 6)
    assert body["limits"] == {"minimum": 5, "maximum": 0, "side_minimum": 0, "side_maximum": 0, "chip": 5}
    assert body["profile"]["content"] == path.read_text() and body["profile"]["name"] == "house"
    path.unlink()  # moved away: the journaled body alone makes the profile
    assert profile_of(body).uth.blind["flush"] == (2, 1)
    with pytest.raises(ProfileError, match="cannot read"):
        open_body("uth", str(path), {"minimum": 5})


def test_limits_from_the_configuration_or_refused() -> None:
    assert open_body("3cp", default_limits={"minimum": 100, "maximum": 2000})["limits"]["maximum"] == 2000
    with pytest.raises(MissingLimits, match="no limits given"):
        open_body("3cp")


def test_a_content_that_is_not_its_sha256_is_refused() -> None:
    body = open_body("uth", limits={"minimum": 100})
    body["profile"]["content"] = body["profile"]["content"].replace("[3, 2]", "[9, 1]")
    with pytest.raises(ValueError, match="is not the one of sha256"):
        profile_of(body)


def test_changes_name_each_key() -> None:
    before = open_body("uth", limits={"minimum": 100, "maximum": 3000})
    after = open_body("uth", "standard", {"minimum": 100, "maximum": 2000}, 7)
    assert changes(before, before) == []
    said = changes(before, after)
    assert "limits.maximum 3000 -> 2000" in said
    assert any(s.startswith("profile profiles/default.toml (sha256 ") and "profiles/standard.toml" in s for s in said)
    assert changes({"game": "uth", "profile": "default", "limits": {"minimum": 100}, "seats": 7}, before) == [
        f"profile default -> profiles/default.toml (sha256 {DEFAULT.sha256[:12]})", "limits.maximum 0 -> 3000"]


@pytest.mark.parametrize("limits, words", [
    ({"minimum": 0}, "minimum: must be at least 1, not 0"),
    ({"minimum": 100, "maximum": -1}, "maximum: must be at least 0, not -1"),
    ({"minimum": 100, "chip": 0}, "chip: must be at least 1, not 0"),
])
def test_the_limits_an_open_sends_are_checked_by_the_engine_alone(tmp_path: Path, limits: dict[str, int],
                                                                     words: str) -> None:
    # the command channel takes the engine's keys, each an integer; the engine's bounds refuse the value, in its words
    from firmware_host.service.controller import Controller
    from firmware_host.service.journal import Journal
    from protocol.commands import Command
    c = Controller(Journal.open(tmp_path))
    c.recover()
    try:
        reply = c.handle_command(Command.from_mapping({"cmd": "open", "game": "uth", "limits": limits}))
        assert reply["ok"] is False and reply["code"] == "illegal" and words in reply["error"], reply
        assert c.table is None
    finally:
        c.journal.close()


def test_the_configuration_takes_the_engines_limit_keys() -> None:
    from dataclasses import fields

    from engine.house import TableLimits
    from firmware_host.service.config import LimitsConfig
    from protocol.commands import LIMIT_KEYS
    assert tuple(f.name for f in fields(LimitsConfig)) == TableLimits.KEYS == LIMIT_KEYS
