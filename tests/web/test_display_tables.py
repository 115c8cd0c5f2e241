"""One display for several tables (`[[display.tables]]`): each table's page by its name, the first the default, a table it does not follow refused naming those it does, and the list's configuration checked."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from cli.demo import SimTable
from firmware_host.display.config import DisplayConfig
from protocol.config import ConfigError
from tests.web.teardown import screens_closer


@pytest.fixture
def tables_display(tmp_path: Path,
                   request: pytest.FixtureRequest) -> Iterator[Callable[[list[SimTable]], dict[str, Any]]]:
    """`tables_display(tables)`: a running `croupier display` following every table ([[display.tables]]); its ready
    line."""
    procs: list[subprocess.Popen[str]] = []
    close_screens = screens_closer(request)

    def start(tables: list[SimTable]) -> dict[str, Any]:
        config = tmp_path / "display.toml"
        text = '[display]\nlisten = "127.0.0.1:0"\n'
        for table in tables:
            text += (f'\n[[display.tables]]\nname = "{table.table}"\npublic = "{table.endpoints.public}"\n'
                     f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n')
        config.write_text(text, encoding="utf-8")
        log = tmp_path / "display.log"
        proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                                stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier display did not start: {log.read_text()[-2000:]}"
        ready: dict[str, Any] = json.loads(line)
        return ready

    yield start
    close_screens()  # the test's pages first: the process then stops at once
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def test_each_table_has_its_display_by_name_and_the_first_is_the_default(
        sim_table: Callable[..., SimTable], tables_display: Callable[[list[SimTable]], dict[str, Any]],
        page: Page) -> None:
    uth = sim_table(game="uth", seed=41, seats=2)
    tcp = sim_table(game="3cp", seed=42, seats=2)
    ready = tables_display([uth, tcp])
    page.goto(f"{ready['display']}/table?table={tcp.table}")
    page.wait_for_selector("main[data-table='sim-3cp-1'][data-phase]")  # the 3CP table, not the first (UTH)
    page.goto(ready["table"])
    page.wait_for_selector("main[data-table='sim-uth-1'][data-phase]")  # /table alone: the first table


def test_a_websocket_for_a_table_the_display_does_not_follow_is_refused_naming_the_tables(
        sim_table: Callable[..., SimTable], tables_display: Callable[[list[SimTable]], dict[str, Any]]) -> None:
    uth = sim_table(game="uth", seed=43, seats=2)
    base = tables_display([uth])["display"]

    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{base}/ws/public?table=nope", timeout=10)
    assert err.value.code == 404 and "sim-uth-1" in err.value.read().decode()


def test_display_tables_parse_and_default_to_the_sections_heartbeat() -> None:
    cfg = DisplayConfig.parse('[display]\nheartbeat_s = 0.5\n[[display.tables]]\nname = "a"\npublic = "ipc:///p1"\n'
                              'snapshot = "ipc:///s1"\n[[display.tables]]\nname = "b"\npublic = "tcp://h:1"\n'
                              'snapshot = "tcp://h:2"\nheartbeat_s = 2\n', source="d.toml")
    assert [(t.name, t.public, t.heartbeat_s) for t in cfg.feeds] == [("a", "ipc:///p1", 0.5), ("b", "tcp://h:1", 2.0)]
    assert [t.name for t in DisplayConfig.parse("").feeds] == ["table"]  # the section's own keys: one table


@pytest.mark.parametrize(("text", "says"), [
    ('[display]\ntables = 3\n', "[display] tables: must be an array of tables ([[display.tables]]), not int"),
    ('[[display.tables]]\nname = "a"\npublic = "ipc:///p"\n', "[[display.tables]] #1 snapshot: is missing"),
    ('[[display.tables]]\nname = "a"\npublic = "ipc:///p"\nsnapshot = "ipc:///s"\nport = 1\n', "[[display.tables]] #1 unknown key 'port'"),
    ('[[display.tables]]\nname = "a"\npublic = "http://p"\nsnapshot = "ipc:///s"\n', "#1 public: must be a ZeroMQ"),
    ('[[display.tables]]\nname = "a"\npublic = "ipc:///p"\nsnapshot = "ipc:///s"\n'
     '[[display.tables]]\nname = "a"\npublic = "ipc:///q"\nsnapshot = "ipc:///r"\n', "[[display.tables]] #2 name: 'a' is given twice (#1 too)"),
    ('[display]\npublic = "ipc:///p"\n[[display.tables]]\nname = "a"\npublic = "ipc:///p"\nsnapshot = "ipc:///s"\n',
     "not both"),
])
def test_bad_display_tables_are_refused_naming_the_table_and_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match="d.toml") as err:
        DisplayConfig.parse(text, source="d.toml")
    assert says in str(err.value)
