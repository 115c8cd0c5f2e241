"""`croupier display`'s configuration and its feed bridge: the [display] section's errors, bounded screen queues, the WebSocket's snapshot first."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cli.demo import SimTable
from pages.bridge import QUEUE_MESSAGES, Hub
from firmware_host.display.config import DisplayConfig
from protocol.config import ConfigError
from sim.keys import SimKeys
from tests.own_loop import in_own_loop


def test_the_display_section_parses_into_typed_values() -> None:
    cfg = DisplayConfig.parse('[display]\nlisten = "0.0.0.0:8081"\npublic = "ipc:///tmp/p"\n'
                              'snapshot = "ipc:///tmp/s"\nheartbeat_s = 0.5\n', source="d.toml")
    assert (cfg.host, cfg.port, cfg.public, cfg.snapshot, cfg.heartbeat_s) == ("0.0.0.0", 8081, "ipc:///tmp/p",
                                                                                "ipc:///tmp/s", 0.5)
    assert DisplayConfig.parse("").port == 8080


@pytest.mark.parametrize(("text", "says"), [
    ('[display]\nlisten = "8080"\n', "[display] listen: must be HOST:PORT"),
    ('[display]\nport = 8080\n', "[display] unknown key 'port'"),
    ('[table]\nname = "t1"\n', "unknown section [table]"),
    ('[display]\npublic = "http://x"\n', "[display] public: must be a ZeroMQ endpoint"),
    ('[display]\nheartbeat_s = 0\n', "[display] heartbeat_s"),
    ('[display]\nkey = "/nonexistent/d.key_secret"\n', "give both"),
    ('[display\n', "not valid TOML"),
])
def test_a_bad_display_section_is_refused_naming_the_key(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match="d.toml") as err:
        DisplayConfig.parse(text, source="d.toml")
    assert says in str(err.value)


def test_croupier_display_with_a_bad_file_says_why_without_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "display.toml"
    config.write_text('[display]\nlisten = "nowhere"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli", "display", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "[display] listen: must be HOST:PORT" in done.stderr and "Traceback" not in done.stderr


def test_a_slow_screen_gets_the_latest_state_and_never_holds_up_the_others() -> None:
    async def run() -> tuple[list[str], list[str], int]:
        hub = Hub(heartbeat_s=1.0)
        slow, quick = hub.join(), hub.join()
        got: list[str] = []
        for seq in range(1, 3 * QUEUE_MESSAGES):
            hub.publish({"kind": "update", "table": "t1", "boot": "b", "seq": seq, "hand": seq})
            while not quick.queue.empty():  # the quick screen reads as it goes
                got.append(quick.queue.get_nowait())
        backlog = []
        while not slow.queue.empty():
            backlog.append(slow.queue.get_nowait())
        return got, backlog, slow.resyncs

    got, backlog, resyncs = in_own_loop(run())
    seqs = [json.loads(text).get("seq") for text in got[1:]]
    assert json.loads(got[0])["kind"] == "hello" and seqs == list(range(1, 3 * QUEUE_MESSAGES))  # nothing lost
    assert resyncs >= 1 and len(backlog) <= QUEUE_MESSAGES
    newest = json.loads(backlog[-1])
    assert newest["seq"] == 3 * QUEUE_MESSAGES - 1  # the slow one still ends on the latest state
    assert json.loads(backlog[0])["kind"] == "snapshot"  # the backlog was dropped for the state of that moment


@pytest.mark.parametrize("curve", [False, True], ids=["plaintext", "curve"])
def test_a_screen_gets_hello_then_the_tables_state_over_the_websocket(
        sim_table: Callable[..., SimTable], display: Callable[[SimTable], dict[str, Any]], tmp_path: Path,
        curve: bool) -> None:
    table = sim_table(game="3cp", seed=5, seats=3, keys=SimKeys.make(tmp_path / "keys") if curve else None)
    ready = display(table)

    async def first_two() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(ready["display"] + "/ws/public", origin=ready["display"]) as ws:
                first = json.loads(await ws.receive_str(timeout=30))
                second = json.loads(await ws.receive_str(timeout=30))
                return [first, second]

    async def page_text() -> str:
        async with aiohttp.ClientSession() as session:
            async with session.get(ready["table"]) as response:
                assert response.status == 200
                return await response.text()

    hello, state = in_own_loop(first_two())
    assert hello == {"kind": "hello", "heartbeat_s": table.heartbeat_s}
    assert state["kind"] == "snapshot" and state["table"] == "sim-3cp-1" and state["game"] == "3cp"
    assert 'data-table=""' in in_own_loop(page_text())


def test_a_display_stops_at_sigterm_while_a_screen_is_connected(tmp_path: Path) -> None:
    # systemd stops the unit with SIGTERM: the screens' WebSockets are told "going away" (1001) at once, the pages
    # reconnecting to the display that comes back, not held for aiohttp's default of a minute nor until SHUTDOWN_S
    # cut them (no table here: the screen is shown offline)
    config = tmp_path / "display.toml"
    config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "ipc://{tmp_path}/public"\n'
                      f'snapshot = "ipc://{tmp_path}/snapshot"\nheartbeat_s = 0.5\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = json.loads(proc.stdout.readline() if proc.stdout else "")

        async def connect_then_stop() -> tuple[aiohttp.WSMsgType, Any]:
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(ready["display"] + "/ws/public", origin=ready["display"]) as ws:
                    hello = json.loads(await ws.receive_str(timeout=30))
                    assert hello["kind"] == "hello"
                    proc.terminate()
                    closing = await ws.receive(timeout=30)  # the display closes it
                    return closing.type, closing.data

        assert in_own_loop(connect_then_stop()) == (aiohttp.WSMsgType.CLOSE, aiohttp.WSCloseCode.GOING_AWAY)
        assert proc.wait(timeout=15) == 0  # well before the minute it took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
