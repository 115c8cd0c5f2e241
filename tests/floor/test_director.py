"""`croupier tournament`, the director: the clock over the real sockets (levels of a few seconds), its
steps signed off or refused, a restart that finds the clock where it was, and the tables told each
new level on their command channel (a real poker table's controller), taken at their next hand."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from floor.director.service import Director
from floor.director.config import DirectorConfig
from floor.director.state import DirectorError
from protocol.commands import Command, CommandClient
from protocol.config import ConfigError, SecurityConfig
from firmware_host.service.controller import Controller
from protocol.feed import FeedClient
from firmware_host.service.journal import Journal
from protocol.users import User, Users
from tests.firmware_host.processes import start_cli, wait_for

SUPERVISOR = {"user": "ana", "pin": "4321"}

TOURNAMENT = """
name = "Test 100+10"
buy_in = 10000
fee = 1000
starting_stack = 5000
chips = [25, 100]
late_registration_until_level = 2
[tables]
use = ["T1", "T2"]
[[levels]]
small_blind = 25
big_blind = 50
duration_s = 3
[[levels]]
break_s = 2
[[levels]]
small_blind = 50
big_blind = 100
ante = 25
duration_s = 600
[[payouts]]
up_to = 30
shares = [60, 40]
"""


def write_director(tmp: Path, tables: str = "", tournament: str = TOURNAMENT) -> Path:
    """The director's files in `tmp`: the tournament file, a users file (ana, supervisor; dan, dealer), its configuration."""
    (tmp / "tournament.toml").write_text(tournament, encoding="utf-8")
    users = tmp / "users.json"
    if not users.exists():
        Users({"ana": User.with_pin("ana", "supervisor", "4321"),
               "dan": User.with_pin("dan", "dealer", "1234")}).save(users)
    config = tmp / "director.toml"
    config.write_text(f"""
[director]
tournament = "tournament.toml"
public = "ipc://{tmp}/dpub"
snapshot = "ipc://{tmp}/dsnap"
commands = "ipc://{tmp}/dcmd"
users = "users.json"
heartbeat_s = 0.5
{tables}""", encoding="utf-8")
    return config


class Running:
    """A director serving in a thread of this process, on its real sockets; `stop()` ends it."""

    def __init__(self, config: Path, state: Path, ctx: zmq.Context[Any],
                 clock: Callable[[], float] = time.time) -> None:
        self.director = Director(DirectorConfig.load(config), str(state), ctx, clock=clock)
        self.thread = threading.Thread(target=self.director.run)
        self.thread.start()
        self.client = CommandClient(ctx, DirectorConfig.load(config).commands, timeout_s=5.0, name="floor")

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        return self.client.request(cmd, **args)

    def ok(self, cmd: str, **args: Any) -> dict[str, Any]:
        reply = self.ask(cmd, **args)
        assert reply["ok"], reply
        return reply

    def stop(self) -> None:
        self.client.close()
        self.director.stopping.set()
        self.thread.join(timeout=10)


@pytest.fixture
def director(tmp_path: Path, ctx: zmq.Context[Any]) -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def start(config: Path | None = None) -> Running:
        running = Running(config or write_director(tmp_path), tmp_path / "state", ctx)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


def feed_of(tmp: Path, ctx: zmq.Context[Any]) -> FeedClient:
    return FeedClient(ctx, f"ipc://{tmp}/dpub", f"ipc://{tmp}/dsnap", timeout_s=3.0)


def next_view(feed: FeedClient, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """The first message on the feed whose view passes `test`."""
    def seen() -> dict[str, Any] | None:
        message = feed.receive(200)
        return message if message is not None and message["kind"] != "heartbeat" and test(message) else None
    found: dict[str, Any] = wait_for(seen, what, timeout_s=20)
    return found


def test_the_clock_counts_down_breaks_and_changes_level_on_the_feed(director: Callable[..., Running],
                                                                  tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    d = director()
    for player in ("Ann", "Bob", "Cy"):
        d.ok("enter", player=player)
    feed = feed_of(tmp_path, ctx)
    before = feed.fetch_snapshot()
    assert before["table"] == "Test 100+10" and before["started"] is False and before["level"] is None
    assert (before["entries"], before["players_left"], before["prize_pool"]) == (3, 3, 30000)
    assert before["payouts"] == [{"place": 1, "prize": 18000}, {"place": 2, "prize": 12000}]
    assert before["average_stack"] == 5000 and before["next_level"]["big_blind"] == 50
    d.ok("start", auth=SUPERVISOR)
    first = next_view(feed, lambda v: v["running"] and v["level"] is not None, "level 1 on the feed")
    assert first["level"] == {"number": 1, "small_blind": 25, "big_blind": 50, "ante": 0, "duration_s": 3}
    assert first["next_level"]["number"] == 2 and first["next_break"]["duration_s"] == 2
    later = next_view(feed, lambda v: v["level"] is not None and v["left_s"] < first["left_s"], "the clock counting")
    assert later["level"]["number"] == 1
    on_break = next_view(feed, lambda v: v["on_break"], "the break")
    assert on_break["level"] is None and 0 < on_break["left_s"] <= 2 and on_break["next_level"]["ante"] == 25
    level_2 = next_view(feed, lambda v: v["level"] is not None and v["level"]["number"] == 2, "level 2")
    assert level_2["level"]["ante"] == 25 and level_2["left_s"] is None      # the last level lasts for ever
    d.ok("out", players={"Cy": 2000})
    assert next_view(feed, lambda v: v["players_left"] == 2, "Cy out")["average_stack"] == 7500
    feed.close()


def test_the_clocks_steps_need_a_supervisors_sign_off(director: Callable[..., Running]) -> None:
    d = director()
    refused = d.ask("start")
    assert refused["ok"] is False and refused["code"] == "forbidden" and "sign-off" in refused["error"]
    assert d.ask("start", auth={"user": "ana", "pin": "0000"})["code"] == "forbidden"   # a wrong PIN
    assert "not a supervisor" in d.ask("start", auth={"user": "dan", "pin": "1234"})["error"]  # one refusal for all
    assert d.ok("state")["state"]["started"] is False            # nothing was taken
    d.ok("start", auth=SUPERVISOR)
    assert d.ask("pause")["code"] == "forbidden" and d.ok("state")["state"]["running"] is True
    paused = d.ok("pause", auth=SUPERVISOR)["state"]
    assert paused["running"] is False
    assert d.ask("adjust", seconds=30, auth=SUPERVISOR)["code"] == "illegal"   # more than the level's 3 s
    assert d.ask("resume")["code"] == "forbidden" and d.ok("state")["state"]["running"] is False
    assert d.ok("resume", auth=SUPERVISOR)["state"]["running"] is True
    assert d.ask("pause", extra=1)["code"] == "malformed"


def test_a_restart_finds_the_clock_where_it_was(director: Callable[..., Running], tmp_path: Path) -> None:
    d = director()
    d.ok("enter", player="Ann")
    d.ok("start", auth=SUPERVISOR)
    left = d.ok("pause", auth=SUPERVISOR)["state"]["left_s"]
    d.stop()
    again = director()
    assert again.director.replayed == 3
    state = again.ok("state")["state"]
    assert state["running"] is False and state["left_s"] == left and state["entries"] == 1   # paused: to the second
    again.ok("resume", auth=SUPERVISOR)
    again.stop()
    other = write_director(tmp_path, tournament=TOURNAMENT.replace("100+10", "200+20"))
    with pytest.raises(DirectorError, match="another tournament"):
        Director(DirectorConfig.load(other), str(tmp_path / "state"), zmq.Context.instance())


def test_each_new_level_goes_to_the_tables_at_their_next_hand(director: Callable[..., Running], tmp_path: Path,
                                                              ctx: zmq.Context[Any]) -> None:
    """A poker table's controller on its real command channel (local clients acting as the pit): the
    director's `level` requests reach it; a hand begun keeps its blinds, the next hand has the new ones."""
    table = Controller(Journal.open(tmp_path / "T1"), table="T1", security=SecurityConfig(local_role="pit"))
    table.recover()
    opened = table.handle_command(Command.from_mapping({
        "cmd": "open", "game": "holdem", "structure": "no-limit", "stakes": {"blinds": [25, 50]}, "seats": 6,
        "stacks": {"1": 5000, "3": 5000}}))
    assert opened["ok"], opened
    assert table.handle_command(Command.from_mapping({"cmd": "deal"}))["ok"]   # a hand begun at 25/50
    serving = threading.Thread(target=table.run, args=(ctx, f"ipc://{tmp_path}/T1cmd"))
    serving.start()
    try:
        d = director(write_director(tmp_path, tables=f'[[director.tables]]\nname = "T1"\n'
                                                     f'commands = "ipc://{tmp_path}/T1cmd"\n'))
        d.ok("start", auth=SUPERVISOR)
        wait_for(lambda: d.ok("state")["state"]["tables"] == [{"name": "T1", "level": 1}], "T1 at level 1")
        wait_for(lambda: d.ok("state")["state"]["tables"] == [{"name": "T1", "level": 2}], "T1 at level 2")
        assert table.state.level == {"blinds": [50, 100], "antes": 25}
        assert table.full_state()["stakes"] == {"blinds": [25, 50]}    # the hand in progress keeps its blinds
    finally:
        table.stop()
        serving.join(timeout=10)
    assert table.handle_command(Command.from_mapping({"cmd": "void", "reason": "the next hand"}))["ok"]
    assert table.full_state()["stakes"] == {"blinds": [50, 100], "antes": 25}   # the next hand plays level 2
    table.journal.close()


def test_bad_configurations_are_refused_by_name(tmp_path: Path) -> None:
    config = write_director(tmp_path, tables='[[director.tables]]\nname = "T9"\ncommands = "ipc:///tmp/x"\n')
    with pytest.raises(ConfigError, match=r"\[\[director.tables\]\] #1 name: 'T9' is not a table of the tournament"):
        DirectorConfig.load(config)
    config.write_text(config.read_text().replace('commands = "ipc://', 'commands = "tcp://10.0.0.1:1" #'))
    with pytest.raises(ConfigError, match=r"commands: without \[director\] server_key and clients"):
        DirectorConfig.load(config)
    write_director(tmp_path, tournament=TOURNAMENT.replace("big_blind = 50", "big_blind = 20"))
    with pytest.raises(ConfigError, match=r"levels\[0\].big_blind"):
        DirectorConfig.load(tmp_path / "director.toml")


def test_croupier_tournament_starts_and_exits_cleanly(tmp_path: Path, ctx: zmq.Context[Any],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = write_director(tmp_path)
    proc, ready = start_cli(["tournament", "--config", str(config), "--state", str(tmp_path / "state")], tmp_path)
    try:
        assert ready["tournament"] == "Test 100+10" and ready["replayed"] == 0
        client = CommandClient(ctx, ready["commands"], timeout_s=5.0)
        assert client.request("start", auth=SUPERVISOR)["ok"]
        client.close()
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    from cli import main
    (tmp_path / "bad.toml").write_text("[director]\npublic = 1\n", encoding="utf-8")
    assert main(["tournament", "--config", str(tmp_path / "bad.toml"), "--check"]) == 2
    assert "[director] tournament: is missing" in capsys.readouterr().err
    assert main(["tournament", "--config", str(config), "--check"]) == 0
    assert '"tournament": "Test 100+10"' in capsys.readouterr().out
