"""Tests of the controller configuration: typed values, and clear refusals naming file, section, key."""

from __future__ import annotations

from datetime import time
from pathlib import Path

import pytest

from firmware_host.service.config import Config
from protocol.config import ConfigError, is_restricted_endpoint

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_defaults_when_empty() -> None:
    cfg = Config.parse("", source="empty.toml")
    assert cfg.feed.public == "tcp://127.0.0.1:5556"
    assert cfg.feed.snapshot == "tcp://127.0.0.1:5557"
    assert cfg.feed.heartbeat_s == 1.0
    assert cfg.table.game is None


def test_typed_values() -> None:
    cfg = Config.parse(
        '[table]\nname = "uth-3"\ngame = "uth"\nseats = 6\n'
        '[limits]\nminimum = 500\nmaximum = 10000\n'
        '[feed]\nheartbeat_s = 0.5\nfull = "ipc:///tmp/x.sock"\n'
        '[shoe]\nurl = "socket://127.0.0.1:7000"\n', source="t.toml")
    assert (cfg.table.name, cfg.table.game, cfg.table.seats) == ("uth-3", "uth", 6)
    assert cfg.limits.minimum == 500 and cfg.limits.maximum == 10000
    assert cfg.feed.heartbeat_s == 0.5 and isinstance(cfg.feed.heartbeat_s, float)
    assert cfg.shoe.url == "socket://127.0.0.1:7000"
    assert Config.parse('[security]\nsigned_in_relays = ["console", "pit-web"]\n', source="t.toml").security \
        .signed_in_relays == ("console", "pit-web")  # their people sign in: throttled, never held whole


@pytest.mark.parametrize("text, words", [
    ("[tabel]\nname='x'\n", ["t.toml", "[tabel]", "unknown section"]),
    ("[table]\nnmae='x'\n", ["t.toml", "[table]", "'nmae'", "unknown key"]),
    ("[table]\nseats=11\n", ["t.toml", "[table]", "seats", "between 1 and 10"]),
    ("[table]\ngame='uth'\nseats=9\n", ["t.toml", "[table]", "seats", "at most 7"]),
    ("[table]\ngame='poker'\n", ["[table]", "game", "'poker'"]),
    ("[limits]\nminimum='5'\n", ["[limits]", "minimum", "integer"]),
    ("[limits]\nminimum=true\n", ["[limits]", "minimum", "integer"]),
    ("[limits]\nminimum=500\nmaximum=100\n", ["[limits]", "maximum", "below"]),
    ("[limits]\nminimum=550\nchip=100\n", ["[limits]", "minimum", "chip"]),
    ("[feed]\npublic='http://x'\n", ["[feed]", "public", "endpoint"]),
    ("[feed]\nfull='tcp://0.0.0.0:5558'\n", ["[feed]", "full", "loopback"]),
    ("[feed]\nfull_snapshot='tcp://192.168.1.4:5559'\n", ["[feed]", "full_snapshot", "loopback"]),
    ("[feed]\nsnapshot='tcp://127.0.0.1:5556'\n", ["snapshot", "already used"]),
    ("[shoe]\nurl='COM3'\n", ["[shoe]", "url"]),
    ("[gpio]\nbackend='rpi'\n", ["[gpio]", "backend"]),
    ("[gpio]\nconfirm=17\n", ["[gpio]", "confirm", "pin 17", "card_out"]),
    ("[gpio]\npanel='localhost'\n", ["[gpio]", "panel", "HOST:PORT"]),
    ("[table]\nname=\n", ["t.toml", "TOML"]),
    ("[ratings]\nday_starts='6:00'\n", ["[ratings]", "day_starts", "HH:MM"]),
    ("[ratings]\ntime_zone='Paris'\n", ["[ratings]", "time_zone", "IANA"]),
    ("[security]\nsigned_in_relays='console'\n", ["[security]", "signed_in_relays", "list of client key names"]),
    ("[security]\nsigned_in_relays=['a b']\n", ["[security]", "signed_in_relays", "letters, digits"]),
])
def test_refusals_name_file_section_key(text: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        Config.parse(text, source="t.toml")
    for word in words:
        assert word in str(info.value)


def test_load_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.toml"):
        Config.load(tmp_path / "nope.toml")


def test_restricted_endpoints() -> None:
    assert is_restricted_endpoint("ipc:///run/croupier/full")
    assert is_restricted_endpoint("tcp://127.0.0.1:5558")
    assert is_restricted_endpoint("tcp://localhost:5558")
    assert not is_restricted_endpoint("tcp://0.0.0.0:5558")
    assert not is_restricted_endpoint("tcp://*:5558")
    assert not is_restricted_endpoint("tcp://10.0.0.2:5558")


@pytest.mark.parametrize("name", ["sim.toml", "pi.toml"])
def test_shipped_examples_load(name: str) -> None:
    cfg = Config.load(DEPLOY / name)
    assert cfg.source.endswith(name)
    assert cfg.table.game in ("uth", "3cp")


def test_run_refuses_a_bad_configuration_naming_it(tmp_path: Path) -> None:
    import subprocess
    import sys
    bad = tmp_path / "bad.toml"
    bad.write_text('[feed]\nfull = "tcp://0.0.0.0:5558"\n')
    proc = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(bad),
                           "--state", str(tmp_path / "state")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert str(bad) in proc.stderr and "[feed] full" in proc.stderr and "loopback" in proc.stderr
    assert not (tmp_path / "state").exists()  # refused before anything was opened


@pytest.mark.parametrize("table, limits, words", [
    ('game = "uth"\nprofile = "defualt"\n', "", ["[table] profile", "defualt", "no such profile"]),
    ('game = "3cp"\nprofile = "PROFILE"\n', "", ["[table] profile", "house.toml", "[uth.blind] straight"]),
    ('game = "uth"\nprofile = "MISSING"\n', "", ["[table] profile", "gone.toml", "cannot read"]),
    ('game = "uth"\n', "minimum = 100\nmaximum = 5000\n", ["[limits] maximum", "30 times the minimum"]),
    ('', "minimum = 100\nmaximum = 5000\n", ["[limits] maximum", "30 times the minimum"]),
    ('game = "uth"\n', "minimum = 100\nside_minimum = 500\nside_maximum = 100\n", ["[limits] side_maximum"]),
])
def test_run_refuses_a_bad_profile_or_limits_naming_file_section_and_key(
        tmp_path: Path, table: str, limits: str, words: list[str]) -> None:
    """A bad profile or limits are a configuration error (exit 2, file, [section] key), not a traceback."""
    import subprocess
    import sys
    bad_profile = tmp_path / "house.toml"
    bad_profile.write_text((DEPLOY.parent / "engine" / "profiles" / "default.toml").read_text()
                           .replace("straight = [1, 1]", "straight = [1, -1]", 1))
    table = table.replace("PROFILE", str(bad_profile)).replace("MISSING", str(tmp_path / "gone.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text(f"[table]\n{table}[limits]\n{limits}")
    proc = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(bad),
                           "--state", str(tmp_path / "state")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    for word in [str(bad), *words]:
        assert word in proc.stderr
    assert not (tmp_path / "state").exists()


def test_a_3cp_table_is_not_held_to_the_uth_multiple() -> None:
    cfg = Config.parse('[table]\ngame = "3cp"\n[limits]\nminimum = 100\nmaximum = 5000\n', source="t.toml")
    assert cfg.limits.maximum == 5000 and cfg.profile is not None and cfg.profile.name == "default"


def test_the_deploy_guides_check_refuses_what_the_start_refuses(tmp_path: Path) -> None:
    """`croupier run --check`, the guide's configuration check: 0 for a good file, 2 for a bad limit."""
    import subprocess
    import sys
    guide = (DEPLOY.parent / "docs" / "deploy.md").read_text()
    assert "croupier run --config /etc/croupier/table.toml --check" in guide
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text('[table]\ngame = "uth"\n[limits]\nminimum = 100\nmaximum = 3000\n')
    bad.write_text('[table]\ngame = "uth"\n[limits]\nminimum = 100\nmaximum = 3100\n')
    ran = [subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(f), "--check",
                           "--state", str(tmp_path / "state")], capture_output=True, text=True, timeout=60)
           for f in (good, bad)]
    assert (ran[0].returncode, ran[0].stdout.strip()) == (0, f"configuration ok: {good}")
    assert ran[1].returncode == 2 and f"{bad}: [limits] maximum" in ran[1].stderr
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize("text, words", [
    ("[table]\nseats = " + "9" * 5000 + "\n", ["not valid TOML", "integer of more than"]),
    ("[table]\nname = " + "[" * 5000 + "]" * 5000 + "\n", ["not valid TOML", "nested too deep"]),
    ("[table]\nname = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n", ["not valid TOML", "nested too deep"]),
])
def test_toml_that_tomllib_itself_cannot_read_is_refused_in_words(text: str, words: list[str]) -> None:
    """Found by fuzzing: tomllib let RecursionError and int()'s digit limit out of Config.parse."""
    with pytest.raises(ConfigError) as err:
        Config.parse(text, source="deep.toml")
    assert str(err.value).startswith("deep.toml: ") and all(w in str(err.value) for w in words), str(err.value)


def test_a_file_that_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_bytes(b'[table]\nname = "\xff"\n')
    with pytest.raises(ConfigError, match=r"table.toml: not UTF-8 text \(byte 16"):
        Config.load(bad)


def test_the_gaming_day_a_closed_session_is_adjusted_in_is_read_once() -> None:
    rated = Config.parse("[ratings]\nday_starts = '05:30'\ntime_zone = 'Europe/Paris'\n").ratings
    assert (rated.day_starts, rated.time_zone) == (time(5, 30), "Europe/Paris")
    assert (Config.parse("").ratings.day_starts, Config.parse("").ratings.time_zone) == (time(6), "UTC")
