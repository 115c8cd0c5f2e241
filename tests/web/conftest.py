"""Browser-test fixtures: Debian's Chromium driven by Playwright (the one launch of every browser test), a simulated table, `croupier display`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from cli.demo import SimTable
from tests.web.teardown import screens_closer

CHROMIUM = "/usr/bin/chromium"  # Debian's package (`make test` installs it); `playwright install` is never run
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium, launched once for the session."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page at the table display's size, 1920x1080."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    yield context.new_page()
    context.close()


@pytest.fixture
def sim_table(tmp_path: Path) -> Iterator[Callable[..., SimTable]]:
    """`sim_table(game=..., seed=..., **options)`: a started simulated table (controller, shoe); always ended."""
    tables: list[SimTable] = []

    def make(**options: Any) -> SimTable:
        table = SimTable(tmp_path / f"state{len(tables)}", **options)
        tables.append(table)
        table.start()
        return table

    yield make
    for table in tables:
        table.stop()


@pytest.fixture
def display(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[[SimTable], dict[str, Any]]]:
    """`display(table)`: a running `croupier display` on a free port for the table's public feed (with
    the simulation's display key when the table has CURVE keys); its ready line."""
    procs: list[subprocess.Popen[str]] = []
    close_screens = screens_closer(request)

    def start(table: SimTable) -> dict[str, Any]:
        config = tmp_path / f"display{len(procs)}.toml"
        keys = "" if table.keys is None else (f'key = "{table.keys.display}"\n'
                                              f'server_key = "{table.keys.table_public}"\n')
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "{table.endpoints.public}"\n'
                          f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n{keys}',
                          encoding="utf-8")
        log = tmp_path / f"display{len(procs)}.log"
        proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config),
                                 "--log-level", "INFO"], stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier display did not start: {log.read_text()[-2000:]}"
        ready: dict[str, Any] = json.loads(line)
        return ready

    yield start
    close_screens()  # the test's pages first: the display then stops at once
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
