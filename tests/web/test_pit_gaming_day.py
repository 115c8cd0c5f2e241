"""A table whose `[ratings]` gaming day is not the floor's, shown plainly on the pit: the table publishes its setting, the floor's web process compares it with the archive's by the table's own rule (`protocol.gaming_day`), and the tile and the rated list say both days, in English and French (headless Chromium, 1280x720 and 1920x1080)."""

from __future__ import annotations

import asyncio
import os
import signal
from datetime import datetime, time, timezone
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from engine import redact
from firmware_host.service.config import RatingsConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from floor.web.hub import PitHub
from floor.web.pit_feed import FloorFollower
from floor.web.server import make_app
from pages import app as core
from pages.auth import Sessions
from pages.config import TableFeed
from protocol.users import Users
from sim.bots.table import free_tcp_port
from tests.firmware_host.processes import start_cli, table_config, wait_for
from tests.own_loop import LoopThread
from tests.web.test_display_guard import cheap_user
from floor.web.rating import RatingRelay
from tests.firmware_host.test_controller import UTH

SHOTS = Path(os.environ.get("RATE11_SHOTS", "/tmp/rate11"))
AT_0730 = datetime(2026, 12, 4, 7, 30, tzinfo=timezone.utc).timestamp()
"""Between the floor's start (06:00 UTC: the 4th) and the table's (08:00 UTC: still the 3rd)."""
AT_1000 = datetime(2026, 12, 4, 10, 0, tzinfo=timezone.utc).timestamp()
"""Past both starts: the same day, the settings still apart."""
TABLE_DAY = {"starts": "08:00", "time_zone": "UTC"}


def figures(starts: str = "06:00", error: str | None = None) -> dict[str, Any]:
    """The archive's figures as `floor.figures.pit_figures` sends them (one table, an hour of the day)."""
    if error is not None:
        return {"source": "archive", "error": error}
    line = {"hands": [12], "win": [3000], "open_hours": [1.0], "day_hands": 12, "day_win": 3000, "day_open_hours": 1.0,
            "hands_per_hour": 12.0}
    return {"source": "archive", "day": "2026-12-04", "starts": starts, "time_zone": "UTC", "hours": [starts],
            "elapsed": 1.5, "tables": {"uth-1": line}, "pit": {**line, "tables": 1}}


def snapshot(day: dict[str, str] | None = TABLE_DAY) -> dict[str, Any]:
    state: dict[str, Any] = {"kind": "snapshot", "table": "uth-1", "game": "uth", "phase": "betting", "hand": 12,
                             "seq": 12, "boot": "b1", "session": {"hands": 11, "house_net": 3000}, "currency": "EUR",
                             "decimals": 2}
    return state if day is None else {**state, "gaming_day": day}


def test_the_table_publishes_its_ratings_gaming_day_on_its_public_state(tmp_path: Path) -> None:
    c = Controller(Journal.open(tmp_path / "state"), default_setup=UTH)
    assert c.public_state()["gaming_day"] == {"starts": "06:00", "time_zone": "UTC"}  # the default [ratings]
    c.ratings_day = RatingsConfig(day_starts=time(8), time_zone="Europe/Paris")
    public, full = c.states()
    assert public["gaming_day"] == full["gaming_day"] == {"starts": "08:00", "time_zone": "Europe/Paris"}
    assert "gaming_day" in redact.TABLE_KEYS  # the public state's named keys: the pit follows the public feed


def test_the_pit_hub_flags_a_table_whose_gaming_day_is_not_the_floors() -> None:
    now = [AT_0730]
    hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s")], clock=lambda: now[0])
    hub.publish("uth-1", snapshot())
    assert "day_differs" not in hub.states["uth-1"]  # the floor's day not known yet: nothing said
    hub.show_figures(figures())
    assert hub.states["uth-1"]["day_differs"] == {"day": "2026-12-03", "pit_day": "2026-12-04", "starts": "08:00 UTC",
                                                  "pit_starts": "06:00 UTC"}
    now[0] = AT_1000
    hub.publish("uth-1", {**snapshot(), "hand": 13})
    assert hub.states["uth-1"]["day_differs"]["day"] == hub.states["uth-1"]["day_differs"]["pit_day"] == "2026-12-04"
    hub.show_figures(figures("08:00"))  # the floor set to the table's: said no more, at once
    assert "day_differs" not in hub.states["uth-1"]
    hub.show_figures(figures())
    assert "day_differs" in hub.states["uth-1"]
    hub.show_figures(figures(error="the archive's server is down"))  # the floor's day unknown: the table's own
    assert "day_differs" not in hub.states["uth-1"]
    hub.show_figures(figures())
    hub.publish("uth-1", snapshot(None))  # a table of before this change: no setting, nothing said
    assert "day_differs" not in hub.states["uth-1"]
    hub.publish("uth-1", snapshot({"starts": "25:00", "time_zone": "Mars/Olympus"}))  # malformed: nothing said
    assert "day_differs" not in hub.states["uth-1"]


class Pages(LoopThread):
    """The floor's pages in a loop of their own: the hub at 07:30 UTC fed the table, its heartbeats, the figures
    and its rated player."""

    def __init__(self, language: str, users: Path | None = None) -> None:
        self.users = users
        super().__init__()
        self.base: str = self.run(self._start(language))

    async def _start(self, language: str) -> str:
        self.hub = PitHub([TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", 1.0)], clock=lambda: AT_0730)
        self.hub.publish("uth-1", snapshot())
        self.hub.show_figures(figures())
        line = {"player": "••••2222", "seat": 3, "start": AT_0730 - 3600, "played_s": 3000, "hands": 40,
                "average_bet": 2500, "theo_cents": 219, "theo_complete": True, "win": -1500, "on_break": False,
                "breaks": 0, "bets_from": {}, "declined": False, "past_day": None}
        past = {**line, "player": "••••7777", "seat": 5, "start": AT_0730 - 86400, "past_day": "2026-12-02"}
        self.hub.show_rated({"source": "archive", "closed": {}, "tables": {"uth-1": [line, past]}})
        sessions = Sessions(self.users) if self.users is not None else None
        relay = RatingRelay({"uth-1": TableFeed("uth-1", "ipc:///unused-p", "ipc:///unused-s", commands="ipc:///unused-c")})
        app = make_app(self.hub, sessions, language=language, rating=relay)
        self.runner, port = await core.listen(app, "127.0.0.1", 0, None)
        self.beat = asyncio.get_running_loop().create_task(self._beat())
        return f"http://127.0.0.1:{port}"

    async def _beat(self) -> None:
        while True:
            self.hub.publish("uth-1", {"kind": "heartbeat"})
            await asyncio.sleep(0.3)

    async def _stop(self) -> None:
        self.beat.cancel()
        await self.runner.cleanup()

    def close(self) -> None:
        self.stop(self._stop())


SAID = {"en": ("uth-1: gaming day of 3 Dec, the pit is on 4 Dec (the table's day starts at 08:00 UTC, the pit's at "
               "06:00 UTC: set the table's [ratings] to the pit's)"),
        "fr": ("uth-1 : journée de jeu du 3 déc., le pit est au 4 déc. (la journée de la table commence à 08:00 UTC, "
               "celle du pit à 06:00 UTC : réglez le [ratings] de la table sur celui du pit)")}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_pit_says_both_days_on_the_tile_and_in_the_rated_list(page: Page, language: str) -> None:
    served = Pages(language)
    try:
        for width, height in ((1280, 720), (1920, 1080)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{served.base}/pit")
            tile = page.locator('[data-table="uth-1"] .day-differs')
            tile.wait_for(state="visible", timeout=15000)
            listed = page.locator('[data-rated-table="uth-1"] .day-differs')
            listed.wait_for(state="visible", timeout=15000)
            assert tile.text_content() == listed.text_content() == SAID[language]
            assert page.locator('[data-table="uth-1"]').get_attribute("data-day-differs") == "2026-12-03 2026-12-04"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"pit-day-differs-{language}-{width}x{height}.png"), full_page=True)
    finally:
        served.close()


PAST = {"en": "playing · open since 2 Dec, a past day Close…", "fr": "en jeu · ouverte depuis le 2 déc., jour passé Fermer…"}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_session_open_since_a_day_gone_is_shown_so_and_closed_from_the_pit(page: Page, language: str,
                                                                            tmp_path: Path) -> None:
    """The archive's session open since 2 Dec (its table never closed since) is marked in the rated list; its
    Close opens the rating dialog on that table, seat and step (the close is the table's, signed off there)."""
    users = tmp_path / "web-users.json"
    Users({"pat": cheap_user("pat", "pit", "2468")}).save(users)
    served = Pages(language, users)
    try:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{served.base}/pit")
        page.evaluate("async () => { await fetch('/api/signin', {method: 'POST', headers: {'Content-Type': "
                      "'application/json'}, body: JSON.stringify({user: 'pat', pin: '2468'})}); }")
        page.reload()
        past = page.locator('[data-rated-table="uth-1"] tr[data-past-day="2026-12-02"]')
        past.wait_for(state="visible", timeout=15000)
        assert past.get_attribute("data-status") == "open"  # playing, and open since a day gone
        assert (past.locator(".status").text_content() or "").strip() == PAST[language]
        assert page.locator('[data-rated-table="uth-1"] tr[data-rated-seat="3"] .close-past').count() == 0
        page.locator("#rating").wait_for(state="visible", timeout=15000)  # the dialog's section: this user sends steps
        past.locator(".close-past").click()
        dialog = page.locator("dialog[open]")
        dialog.wait_for(state="visible", timeout=5000)
        assert dialog.locator("[name=table]").input_value() == "uth-1"
        assert dialog.locator("[name=seat]").input_value() == "5"
        assert dialog.locator("[name=action]").input_value() == "close"
        assert dialog.locator(".rating-end").is_visible() and not dialog.locator(".rating-hands").is_visible()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"pit-past-open-close-{language}-1280x720.png"))
        page.keyboard.press("Escape")
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.screenshot(path=str(SHOTS / f"pit-past-open-{language}-1920x1080.png"), full_page=True)
    finally:
        served.close()


def test_a_real_tables_gaming_day_reaches_the_pit_through_the_aggregator(tmp_path: Path) -> None:
    """The day warning through the pit's aggregator path, no state made by hand: `croupier run` with `[ratings]`
    08:00 UTC publishes its setting, `croupier pit` follows it and passes it on its floor feed, the floor's web process's
    follower (`floor.web.pit_feed.FloorFollower`) hands it to the hub, which at 07:30 with the floor at 06:00 says
    both days; the floor set to 08:00, it says nothing."""
    config = table_config(tmp_path, f"ipc://{tmp_path}/commands")
    config.write_text(config.read_text(encoding="utf-8") + '[ratings]\nday_starts = "08:00"\ntime_zone = "UTC"\n',
                      encoding="utf-8")
    listen, floor_snapshot = f"tcp://127.0.0.1:{free_tcp_port()}", f"tcp://127.0.0.1:{free_tcp_port()}"
    pit_toml = tmp_path / "pit.toml"
    pit_toml.write_text(f'[pit]\nlisten = "{listen}"\nsnapshot = "{floor_snapshot}"\nheartbeat_s = 0.2\n'
                        f'pid_file = "{tmp_path / "pit.pid"}"\n[[pit.tables]]\nname = "uth-1"\n'
                        f'public = "ipc://{tmp_path}/public"\nsnapshot = "ipc://{tmp_path}/snapshot"\n'
                        f'commands = "ipc://{tmp_path}/commands"\n', encoding="utf-8")
    procs: list[Any] = []
    served = LoopThread()
    try:
        procs.append(start_cli(["run", "--config", str(config), "--state", str(tmp_path / "state")], tmp_path)[0])
        procs.append(start_cli(["pit", "--config", str(pit_toml)], tmp_path)[0])

        async def hub() -> PitHub:
            return PitHub((), source="pit", clock=lambda: AT_0730)
        pit: PitHub = served.run(hub())
        follower = FloorFollower(pit, served.loop, listen, floor_snapshot, 0.2)
        follower.start()

        async def state() -> dict[str, Any]:
            return dict(pit.states.get("uth-1", {}))
        seen = wait_for(lambda: served.run(state()).get("gaming_day"), "the table's gaming day through the pit")
        assert seen == TABLE_DAY

        async def figured(starts: str) -> dict[str, Any]:
            pit.show_figures(figures(starts))
            return dict(pit.states["uth-1"])
        assert served.run(figured("06:00"))["day_differs"] == {"day": "2026-12-03", "pit_day": "2026-12-04",
                                                              "starts": "08:00 UTC", "pit_starts": "06:00 UTC"}
        assert "day_differs" not in served.run(figured("08:00"))
        follower.stop()
        follower.join(5)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
            proc.stdout.close()

        async def nothing() -> None:
            return None
        served.stop(nothing())
