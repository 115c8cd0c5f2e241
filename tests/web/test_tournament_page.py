"""The tournament clock page (`/tournament`) in Chromium at a wall screen's 1920x1080: a real director
(`floor/director/service.py`, on its sockets) followed by `croupier pit web`; the clock counting down, a break,
a level change, a pause; the screenshot compared with its reference."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page, expect

from tests.floor.test_director import SUPERVISOR, Running, write_director
from tests.web.screens import check_screenshot
from tests.web.test_accessibility import axe_violations

SCHEDULE = """
name = "Sunday 200+20"
buy_in = 20000
fee = 2000
starting_stack = 10000
chips = [25, 100]
late_registration_until_level = 2
[tables]
use = ["T1", "T2", "T3"]
[[levels]]
small_blind = 25
big_blind = 50
duration_s = 3
[[levels]]
break_s = 2
[[levels]]
small_blind = 100
big_blind = 200
ante = 25
duration_s = 1200
[[levels]]
break_s = 600
[[levels]]
small_blind = 200
big_blind = 400
ante = 50
duration_s = 1200
[[payouts]]
up_to = 30
shares = [50, 30, 20]
"""


@pytest.fixture
def clock_display(tmp_path: Path, page: Page) -> Iterator[tuple[Running, str]]:
    """A director and `croupier pit web` (the floor's pages) following it; (the director, the page's address). The
    page is closed first at the end, so the process is not kept waiting by its WebSocket."""
    ctx: zmq.Context[Any] = zmq.Context()
    director = Running(write_director(tmp_path, tournament=SCHEDULE), tmp_path / "state", ctx)
    config = tmp_path / "pit-web.toml"
    config.write_text(f'[web]\nlisten = "127.0.0.1:0"\nheartbeat_s = 0.5\n'
                      f'tournament = "ipc://{tmp_path}/dpub"\ntournament_snapshot = "ipc://{tmp_path}/dsnap"\n',
                      encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "pit", "web", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=open(tmp_path / "pit-web.log", "ab"), text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, (tmp_path / "pit-web.log").read_text()[-2000:]
        ready = json.loads(line)
        assert ready["tournament"].endswith("/tournament")
        yield director, ready["tournament"]
    finally:
        page.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        director.stop()
        ctx.destroy(linger=0)


def left(page: Page) -> int:
    return int(page.locator("[data-tournament]").get_attribute("data-left") or "-1")


def test_the_clock_counts_down_changes_level_and_pauses(page: Page, clock_display: tuple[Running, str]) -> None:
    director, url = clock_display
    for n in range(24):
        director.ok("enter", player=f"player{n + 1:02d}")
    director.ok("out", players={"player24": 0, "player23": 0, "player22": 0})
    page.goto(url)
    clock = page.locator("[data-tournament]")
    expect(clock).to_have_attribute("data-status", "not started")
    expect(page.locator("[data-players]")).to_have_text("21 of 24")
    expect(page.locator("[data-pool]")).to_have_text("€4,800.00")
    expect(page.locator("[data-payouts] li")).to_have_count(3)
    expect(page.locator("[data-payouts] li").first).to_contain_text("€2,400.00")
    expect(page.locator("[data-average]")).to_have_text("11,428")
    director.ok("start", auth=SUPERVISOR)
    expect(clock).to_have_attribute("data-level", "1")
    expect(page.locator("[data-blinds]")).to_have_text("25 / 50")
    first = left(page)
    page.wait_for_function("(n) => Number(document.querySelector('[data-tournament]').dataset.left) < n", arg=first)
    expect(page.locator("[data-level-name]")).to_have_text("LEVEL 1")
    expect(page.locator("[data-break]")).to_contain_text("Break in")
    expect(clock).to_have_attribute("data-status", "break", timeout=15000)
    expect(page.locator("[data-level-name]")).to_have_text("BREAK")
    expect(page.locator("[data-next]")).to_contain_text("100 / 200 ante 25")
    expect(clock).to_have_attribute("data-level", "2", timeout=15000)
    expect(page.locator("[data-blinds]")).to_have_text("100 / 200")
    expect(page.locator("[data-ante]")).to_have_text("ANTE 25")
    director.ok("pause", auth=SUPERVISOR)
    expect(clock).to_have_attribute("data-status", "paused")
    held = page.locator("[data-time]").inner_text()
    drawn = page.evaluate("""(n) => new Promise((resolve) => {  // the time as the page draws it, 6 times more
      const time = document.querySelector("[data-time]");
      const seen = [];
      new MutationObserver((_, observer) => {
        seen.push(time.textContent);
        if (seen.length >= n) { observer.disconnect(); resolve(seen); }
      }).observe(time, { childList: true, characterData: true, subtree: true });
    })""", 6)
    assert drawn == [held] * 6 and held.startswith(("19:", "20:"))  # a paused clock: the same time over a second of ticks
    check_screenshot(page, "tournament-clock-1920", mask=[page.locator("[data-time]"), page.locator("[data-break]")])
    assert axe_violations(page) == []  # axe-core: no serious or critical violation (tests/web/test_accessibility.py)
