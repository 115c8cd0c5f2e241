"""The pit view (/pit, the floor's web process) in headless Chromium over a UTH and a 3CP table: each tile's hand and phase as its feed's, the session's figures as the journals', one table's SIGKILL shows only that table offline."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from playwright.sync_api import Page

from cli.demo import SimTable
from cli.demo.console import public_snapshot
from floor.web.config import WebConfig
from floor.web.hub import HOUR_S, HourCount, PitHub
from protocol.config import ConfigError
from protocol.users import Users
from protocol.feed import FeedClient
from sim.bots.players import seat_players
from tests.web.screens import check_sizes
from tests.web.test_display_guard import cheap_user
from tests.web.money import shown as money
from tests.firmware_host.processes import croupier_here
from tests.web.teardown import screens_closer

# Every tile the pit page draws is sampled: which table, the seq and boot it drew, its hand and phase.
SAMPLER = """
window.__pit = [];
document.addEventListener("croupier:rendered", (event) => {
  if (event.detail.kind !== "table") return;
  const tile = document.querySelector(`[data-table="${event.detail.name}"]`);
  window.__pit.push({name: event.detail.name, boot: tile.dataset.boot, seq: Number(tile.dataset.seq),
                     hand: Number(tile.dataset.hand), phase: tile.dataset.phase});
});
"""


class Feed(threading.Thread):
    """Follows one table's public feed as the display does: (hand, phase) after every message, by (boot, seq)."""

    def __init__(self, table: SimTable) -> None:
        super().__init__(daemon=True)
        self.public, self.snapshot = table.endpoints.public, table.endpoints.snapshot
        self.by_seq: dict[tuple[str, int], tuple[int, str]] = {}
        self.latest: dict[str, Any] = {}
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        ctx: zmq.Context[Any] = zmq.Context()
        client = FeedClient(ctx, self.public, self.snapshot, timeout_s=5.0)
        try:
            while not self.stopping.is_set():
                try:
                    message = client.receive(100)
                except TimeoutError:
                    client.state = None
                    continue
                if message is not None and client.state is not None and client.boot is not None:
                    self.by_seq[(client.boot, client.seq)] = (int(client.state["hand"]), str(client.state["phase"]))
                    self.latest = dict(client.state)
                    self.ready.set()
        finally:
            client.close()
            ctx.destroy(linger=0)


def history(state_dir: Path) -> list[dict[str, Any]]:
    """Every finished hand as `croupier history --json` prints it (run in this process: the same code, no start-up)."""
    done = croupier_here("history", "--state", str(state_dir), "--last", "0", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.fixture
def pit_display(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[[list[SimTable]], dict[str, Any]]]:
    """`pit_display(tables)`: a running `croupier pit web` (the floor's pages) following every table
    ([[web.tables]]); its ready line."""
    procs: list[subprocess.Popen[str]] = []
    close_screens = screens_closer(request)

    def start(tables: list[SimTable], language: str = "en", extra: str = "") -> dict[str, Any]:
        config = tmp_path / "pit-web.toml"
        text = f'[web]\nlisten = "127.0.0.1:0"\nlanguage = "{language}"\n{extra}'
        for table in tables:
            text += (f'\n[[web.tables]]\nname = "{table.table}"\npublic = "{table.endpoints.public}"\n'
                     f'snapshot = "{table.endpoints.snapshot}"\nheartbeat_s = {table.heartbeat_s}\n')
        config.write_text(text, encoding="utf-8")
        log = tmp_path / "pit-web.log"
        proc = subprocess.Popen([sys.executable, "-m", "cli", "pit", "web", "--config", str(config)],
                                stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, f"croupier pit web did not start: {log.read_text()[-2000:]}"
        ready: dict[str, Any] = json.loads(line)
        return ready

    yield start
    close_screens()  # the test's pages first: the process then stops at once
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def play(table: SimTable, hands: int, seed: int) -> None:
    dealer = table.dealer(players=seat_players(table.seats, seed))
    try:
        log = dealer.play(hands)
    finally:
        dealer.close()
    assert log.hands == hands and not log.faults


def at_rest(table: SimTable, feed: Feed) -> dict[str, Any]:
    """The table's state once the bots have stopped (the last hand settled on show: it stays until the next
    hand's first step), when the test's own feed client has come to it too. Not the feed client's latest
    at the moment `play` returns: that can be a step the display has already passed (a showdown), and a
    screen that coalesces a burst to its newest state may never draw a passing step at all."""
    rest = public_snapshot(table)
    deadline = time.monotonic() + 30.0
    while (feed.latest.get("hand"), feed.latest.get("phase")) != (rest["hand"], rest["phase"]):
        assert time.monotonic() < deadline, f"the test's feed client never came to {rest['hand']} {rest['phase']}"
        time.sleep(0.05)
    return rest


def tile(page: Page, name: str) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("""(name) => {
      const t = document.querySelector(`[data-table="${name}"]`);
      const num = (sel, key) => Number(t.querySelector(sel).dataset[key]);
      return {hand: Number(t.dataset.hand), phase: t.dataset.phase, offline: t.hasAttribute("data-offline"),
              fault: t.hasAttribute("data-fault"), session: num("[data-session-hands]", "sessionHands"),
              hour: num("[data-hour-hands]", "hourHands"), house: num("[data-house-net]", "houseNet"),
              houseText: t.querySelector("[data-house-net]").textContent};
    }""", name)
    return result


def test_the_pit_shows_every_tables_hand_as_its_feed_and_the_journals_figures_and_only_a_killed_table_offline(
        sim_table: Callable[..., SimTable], pit_display: Callable[[list[SimTable]], dict[str, Any]], page: Page) -> None:
    uth = sim_table(game="uth", seed=31, seats=3, restart_s=600.0)  # killed below: it stays down
    tcp = sim_table(game="3cp", seed=32, seats=5)
    feeds = {t.table: Feed(t) for t in (uth, tcp)}
    for feed in feeds.values():
        feed.start()
        assert feed.ready.wait(20), "the test's own feed client got no snapshot"
    ready = pit_display([uth, tcp])
    page.add_init_script(SAMPLER)
    page.goto(ready["pit"])
    for name in feeds:
        page.wait_for_selector(f"[data-table='{name}'][data-phase]:not([data-offline])")
    play(uth, 3, 31)
    play(tcp, 3, 32)
    for table in (uth, tcp):  # the tiles come to each table's state at rest
        name, last = table.table, at_rest(table, feeds[table.table])
        page.wait_for_selector(f"[data-table='{name}'][data-hand='{last['hand']}'][data-phase='{last['phase']}']")

    samples: list[dict[str, Any]] = page.evaluate("window.__pit")
    assert {s["name"] for s in samples} == set(feeds)
    assert len(samples) > 2 * 3 * 5  # the tiles followed the hands step by step
    for sample in samples:  # every drawn tile is its own table's feed at that seq
        assert feeds[sample["name"]].by_seq.get((sample["boot"], sample["seq"])) == (sample["hand"], sample["phase"])

    for table in (uth, tcp):
        settled = [h for h in history(table.state_dir) if h.get("status") == "settled"]
        shown = tile(page, table.table)
        assert shown["session"] == shown["hour"] == len(settled) == 3
        house = sum(int(h["settlement"]["house_net"]) for h in settled)
        assert shown["house"] == house, (table.table, shown, house)
        assert shown["houseText"] == money(house, signed=True), shown  # the house's result, signed
        assert not shown["offline"] and not shown["fault"]

    # 3 hands each from the seeds: the same tiles every run but for the clock in "hands since HH:MM"
    check_sizes(page, "pit-two-tables", mask=[page.locator("[data-hour-hands]").locator("xpath=..")])

    assert uth.controller is not None and uth.controller.kill(signal.SIGKILL) is not None
    page.wait_for_selector(f"[data-table='{uth.table}'][data-offline]", timeout=30_000)
    assert not tile(page, tcp.table)["offline"]  # the other table is alive ...
    before = tile(page, tcp.table)["hand"]
    play(tcp, 2, 33)  # ... and keeps updating
    last = at_rest(tcp, feeds[tcp.table])
    page.wait_for_selector(f"[data-table='{tcp.table}'][data-hand='{last['hand']}'][data-phase='{last['phase']}']")
    assert tile(page, tcp.table)["hand"] > before
    assert not tile(page, tcp.table)["offline"] and tile(page, uth.table)["offline"]
    assert tile(page, tcp.table)["session"] == 5
    for feed in feeds.values():
        feed.stopping.set()
        feed.join(10)


def test_a_pit_that_asks_roles_signs_its_user_in_first_and_refuses_another_role(
        sim_table: Callable[..., SimTable], pit_display: Callable[..., dict[str, Any]], page: Page,
        tmp_path: Path) -> None:
    uth = sim_table(game="uth", seed=44, seats=2)
    users = tmp_path / "users.json"
    Users({"pat": cheap_user("pat", "pit", "2468"), "ana": cheap_user("ana", "dealer", "4821")}).save(users)
    ready = pit_display([uth], extra=f'users = "{users}"\npit_roles = ["pit", "supervisor"]\n')
    page.goto(ready["pit"])
    form = page.locator("[data-signin]")
    assert form.get_attribute("data-signin") == "pit supervisor"
    for user, pin in (("ana", "4821"), ("pat", "2468")):
        form.locator("input[name='user']").fill(user)
        form.locator("input[name='pin']").fill(pin)
        form.locator("button[type='submit']").click()
        if user == "ana":  # a dealer: signed out again, told why, no tile drawn
            page.wait_for_selector("[data-signin-error]:not([hidden])")
            assert "ana" in page.inner_text("[data-signin-error]") and page.locator("[data-table]").count() == 0
    page.wait_for_selector("[data-signin]", state="detached")
    page.wait_for_selector(f"[data-table='{uth.table}'][data-phase]:not([data-offline])")


def test_the_floors_tables_parse_and_are_the_pit_or_the_tables_not_both() -> None:
    cfg = WebConfig.parse('[web]\nheartbeat_s = 0.5\n[[web.tables]]\nname = "a"\npublic = "ipc:///p1"\n'
                          'snapshot = "ipc:///s1"\n[[web.tables]]\nname = "b"\npublic = "tcp://h:1"\n'
                          'snapshot = "tcp://h:2"\nheartbeat_s = 2\n', source="w.toml")
    assert [(t.name, t.public, t.heartbeat_s) for t in cfg.tables] == [("a", "ipc:///p1", 0.5), ("b", "tcp://h:1", 2.0)]
    with pytest.raises(ConfigError, match=r"w.toml: \[web\] give pit .* or \[\[web.tables\]\], not both"):
        WebConfig.parse('[web]\npit = "ipc:///f"\npit_snapshot = "ipc:///g"\n[[web.tables]]\nname = "a"\n'
                        'public = "ipc:///p1"\nsnapshot = "ipc:///s1"\n', source="w.toml")


@pytest.mark.parametrize(("text", "says"), [
    ('pit_roles = ["pit"]\n', "[web] pit_roles: needs users"),
    ('pit_roles = ["pit", "table"]\nusers = "/u.json"\n', "[web] pit_roles: must be a list of roles among dealer"),
    ('pit_roles = []\nusers = "/u.json"\n', "[web] pit_roles: must be a list of roles"),
])
def test_bad_pit_roles_are_refused_naming_the_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match="w.toml") as err:
        WebConfig.parse(f"[web]\n{text}", source="w.toml")
    assert says in str(err.value)


def test_a_slow_pit_screen_gets_every_tables_latest_summary_and_the_hour_counts_an_hour() -> None:
    now = [1000.0]
    cfg = WebConfig.parse('[[web.tables]]\nname = "a"\npublic = "ipc:///p1"\nsnapshot = "ipc:///s1"\n'
                          '[[web.tables]]\nname = "b"\npublic = "ipc:///p2"\nsnapshot = "ipc:///s2"\n')

    async def run() -> tuple[list[dict[str, Any]], int]:
        pit = PitHub(cfg.tables, clock=lambda: now[0])
        slow = pit.join()
        for seq in range(1, 3 * pit.size):
            for name in ("a", "b"):
                pit.publish(name, {"kind": "update", "table": name, "seq": seq, "hand": seq, "phase": "deal",
                                   "session": {"hands": seq, "house_net": 0}})
        got = [json.loads(slow.queue.get_nowait()) for _ in range(slow.queue.qsize())]
        return got, slow.resyncs

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (Playwright's runs in this thread)
        got, resyncs = pool.submit(asyncio.run, run()).result()
    assert resyncs > 0 and len(got) <= 64  # it skipped to the present (never more than its queue) ...
    last = {m["name"]: m["seq"] for m in got if m["kind"] == "table"}
    assert last == {"a": 3 * max(64, 5) - 1, "b": 3 * max(64, 5) - 1}  # ... every table's latest state
    hour = HourCount(lambda: now[0])
    assert hour.see(10) == {"hands": 0, "since": 1000.0, "full": False}
    now[0] += 600
    assert hour.see(14)["hands"] == 4
    now[0] += HOUR_S
    assert hour.see(20) == {"hands": 6, "since": now[0] - HOUR_S, "full": True}  # 14 was seen over an hour ago


KEYS = re.compile(r"\b(common|game|circle|hand_name|decision|phase|signin|surveillance|pit|tournament)\.[a-z_]+\b")


def test_the_pit_in_french_speaks_the_trade_s_french_and_no_catalog_key(
        sim_table: Callable[..., SimTable], pit_display: Callable[..., dict[str, Any]], page: Page) -> None:
    uth = sim_table(game="uth", seed=31, seats=3)
    tcp = sim_table(game="3cp", seed=32, seats=5)
    ready = pit_display([uth, tcp], language="fr")
    page.goto(ready["pit"])
    play(uth, 3, 31)
    play(tcp, 3, 32)
    for table in (uth, tcp):
        page.wait_for_selector(f"[data-table='{table.table}'][data-hand='3'][data-phase='settled']:not([data-offline])")
    text = page.inner_text("body")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert not KEYS.search(text), KEYS.search(text)
    for word in ("Le pit", "2 tables", "en direct", "Coup", "PAYÉ", "banque", "session", "coups depuis"):
        assert word in text, (word, text)
    assert "house" not in text and "hand " not in text
    for table in (uth, tcp):
        house = sum(int(h["settlement"]["house_net"]) for h in history(table.state_dir) if h.get("status") == "settled")
        assert tile(page, table.table)["houseText"] == money(house, lang="fr", signed=True)
    check_sizes(page, "pit-two-tables-fr", mask=[page.locator("[data-hour-hands]").locator("xpath=..")])
