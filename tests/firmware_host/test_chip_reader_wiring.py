"""`[chip_reader]`: its keys typed and refused by file, section and key; `croupier run` with a reader journals its chips."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_host.service.config import Config
from firmware_host.service.journal import JOURNAL_FILE
from firmware_host.tables.house.chips import reads_of
from protocol.config import ConfigError
from sim.chips.board import ChipBoardClient, ChipBoardFirmware, ChipBoardServer, layout
from tests.firmware_host.processes import table_config, wait_for

A, B = "E004010000000C01", "E004010000000C02"


def test_the_chip_reader_section_typed_with_its_defaults() -> None:
    assert Config.parse("", source="t.toml").chip_reader.url == ""  # no reader: bets are tapped
    cfg = Config.parse('[chip_reader]\nurl = "socket://127.0.0.1:7002"\nconfirm = 5\nsettle_ms = 250\n'
                       'silent_s = 1.5\ndevice = "chips-2"\n', source="t.toml")
    reader = cfg.chip_reader
    assert (reader.url, reader.confirm, reader.settle_ms, reader.silent_s, reader.device, reader.baudrate) == (
        "socket://127.0.0.1:7002", 5, 250, 1.5, "chips-2", 115200)


@pytest.mark.parametrize("text, said", [
    ("url = 'COM3'", "t.toml: [chip_reader] url: must be a device path or a pyserial URL"),
    ("confirm = 0", "t.toml: [chip_reader] confirm: must be between 1 and 20"),
    ("confirm = 2.5", "t.toml: [chip_reader] confirm: must be an integer"),
    ("settle_ms = -1", "t.toml: [chip_reader] settle_ms: must be between 0 and 10000"),
    ("silent_s = 0", "t.toml: [chip_reader] silent_s: must be a number of seconds between 0.2 and 3600"),
    ("device = 'shoe'", "t.toml: [chip_reader] device: must not be 'shoe'"),
    ("device = 'chips reader'", "t.toml: [chip_reader] device: must be 1 to 64 letters"),
    ("baudrate = 300", "t.toml: [chip_reader] baudrate: must be between 1200 and 12000000"),
    ("channels = 29", "t.toml: [chip_reader] unknown key 'channels'"),
])
def test_bad_values_are_refused_naming_file_section_and_key(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.parse(f"[chip_reader]\n{text}\n", source="t.toml")
    assert str(caught.value).startswith(said)


def test_the_reader_cannot_be_on_the_shoes_line() -> None:
    with pytest.raises(ConfigError, match=r"t.toml: \[chip_reader\] url: '/dev/ttyUSB0' is the shoe's"):
        Config.parse('[shoe]\nurl = "/dev/ttyUSB0"\n[chip_reader]\nurl = "/dev/ttyUSB0"\n', source="t.toml")


def journaled_chips(state: Path) -> list[dict[str, Any]]:
    """The chips readings the journal holds, in order: those of `chip_scan` events (or, while the table takes none,
    of the `refused` events that keep such a scan as it came: a reading is never dropped), each with its device."""
    path = state / JOURNAL_FILE
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT kind, body FROM events ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()
    bodies = [(kind, json.loads(body)) for kind, body in rows]
    return [dict(read) for kind, body in bodies
            for read in (reads_of(body["kind"], body["body"]) if kind == "refused" else reads_of(kind, body))]


def test_croupier_run_journals_the_readers_chips_and_its_comings_and_goings(tmp_path: Path) -> None:
    board = ChipBoardServer(ChipBoardFirmware(seed=2, antennas=layout("uth", 2), boot=77, miss_rate=0.0),
                            link="tcp").start()
    config = table_config(tmp_path, f"ipc://{tmp_path}/cmd")
    config.write_text(config.read_text(encoding="utf-8") + f"""
[chip_reader]
url = "{board.port_url}"
confirm = 2
settle_ms = 100
silent_s = 0.5
""", encoding="utf-8")
    state = tmp_path / "state"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", "--config", str(config), "--state", str(state),
                             "--log-level", "ERROR"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["ready"] is True
        with ChipBoardClient(board.control_address) as hand:
            hand.place("spot2.trips", A, B)
            # settled: journaled as its change since the reading before (none but `stable`), which holds the chips
            wanted = {"antenna": "spot2.trips", "stable": True, "device": "chips"}
            seen = wait_for(lambda: wanted in (got := journaled_chips(state)) and got, "the stable reading journaled")
            trips = [b for b in seen[:seen.index(wanted)] if b["antenna"] == "spot2.trips"]
            assert trips[-1] == {"antenna": "spot2.trips", "uids": [A, B], "stable": False, "device": "chips"}
            assert {"antenna": "tray", "uids": [], "stable": True, "device": "chips"} in seen  # the first readings
            hand.fault("lost", 1.0)
            devices = lambda: [(e["online"], e.get("kind")) for e in journaled_devices(state)]  # noqa: E731
            wait_for(lambda: devices()[-2:] == [(False, "device_offline"), (True, None)], "offline, then back")
            assert devices()[0] == (True, None)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        board.close()
    assert proc.returncode == 0


def journaled_devices(state: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(f"file:{state / JOURNAL_FILE}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT body FROM events WHERE kind = 'device' ORDER BY id").fetchall()
    finally:
        conn.close()
    return [body for (text,) in rows if (body := json.loads(text))["device"] == "chips"]


@pytest.mark.parametrize("name", ["sim.toml", "pi.toml"])
def test_the_commented_section_in_the_deploy_files_loads_once_uncommented(name: str) -> None:
    lines = (Path(__file__).resolve().parents[2] / "deploy" / name).read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("# [chip_reader]"))
    section = []
    for line in lines[start:]:
        if not line.startswith("# "):
            break
        section.append(line[2:])
    reader = Config.parse("\n".join(section), source=name).chip_reader
    assert reader.url and reader.confirm == 4 and reader.settle_ms == 300 and reader.device == "chips"
