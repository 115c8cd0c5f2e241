"""`croupier demo --dealer web --players-by web`: no bot plays; every bet and decision comes from the console's channel.

Driven as the console drives it, without a browser: signed in with the printed demo credentials, the
commands sent over `/ws/dealer`; the emulated shoe deals when the controller expects a card.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp

PAGES = re.compile(r"^pages: \S+/table \S+/pit \S+/surveillance (?P<dealer>\S+)/dealer \(demo credentials: "
                   r"dealer (?P<name>\S+) PIN (?P<pin>\d+), supervisor \S+ PIN \d+, surveillance \S+ PIN \d+\) "
                   r"players: every bet and decision at \S+/dealer, no bot plays; the shoe deals$")
STAKE = {"ante": 700, "blind": 700}  # no bot bets 7.00: every stake on the table is the console's


async def _play_one_hand(base: str, user: str, pin: str) -> list[dict[str, Any]]:
    """Bet two spots, wait, deal, decide every turn (the first legal decision), confirm: the replies."""
    replies: list[dict[str, Any]] = []
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), headers={"Origin": base}) as session:
        signed = await session.post(f"{base}/api/signin", json={"user": user, "pin": pin})
        assert signed.status == 200, await signed.text()
        async with session.ws_connect(f"{base}/ws/dealer") as ws:
            counter = 0

            async def send(command: dict[str, Any]) -> dict[str, Any]:
                nonlocal counter
                counter += 1
                await ws.send_json({"kind": "command", "id": f"t{counter}", "command": command})
                while (message := await ws.receive_json(timeout=60))["kind"] != "reply":
                    assert message["kind"] != "error", message
                replies.append(message["reply"])
                return dict(message["reply"])

            async def state_where(test: Any) -> dict[str, Any]:
                while True:
                    reply = await send({"cmd": "state"})
                    if test(reply["state"]):
                        return dict(reply["state"])
                    await asyncio.sleep(0.2)

            first = await state_where(lambda s: s.get("phase") == "bets" and s["steps"]["bet"])
            await asyncio.sleep(2.0)  # a yielding bot with --bot-wait 0 would have bet by now
            assert not any(s.get("bets") for s in (await state_where(lambda s: True)).get("spots") or []), first
            for seat in (1, 2):
                assert (await send({"cmd": "bet", "seat": seat, "bets": STAKE}))["ok"]
            assert (await send({"cmd": "deal"}))["ok"]
            while True:
                state = await state_where(lambda s: s["steps"]["confirm"] or (s.get("to_act") and s.get("legal")))
                if state["steps"]["confirm"]:
                    break
                choice = state["legal"][0]
                assert (await send({"cmd": "decide", "seat": state["to_act"], **choice}))["ok"]
            assert (await send({"cmd": "confirm"}))["ok"]
    return replies


def test_the_console_plays_every_seat_and_no_bot_acts(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "cli", "demo", "--dealer", "web", "--players-by", "web",
                             "--bot-wait", "0", "--web", "127.0.0.1:0", "--quiet", "--hands", "1", "--game", "uth",
                             "--seats", "2", "--state", str(tmp_path / "j")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        found = PAGES.match(line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        # its own thread and event loop: Playwright's sync API keeps a loop running on this thread in a session
        # that also runs the browser tests
        with ThreadPoolExecutor(1) as pool:
            replies = pool.submit(asyncio.run, asyncio.wait_for(
                _play_one_hand(found["dealer"], found["name"], found["pin"]), 240)).result()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["hands"] == 1 and summary["settled"] == 1
    assert all(r["ok"] for r in replies)
    from firmware_host.service.journal import Journal
    journal = Journal.open(tmp_path / "j", readonly=True)
    try:
        (hand,) = journal.hands()
        steps = [e for e in journal.events() if e.kind in ("bet", "decide")]
    finally:
        journal.close()
    assert [{k: v for k, v in s["bets"].items() if k != "play"} for s in hand.record["spots"]] == [STAKE, STAKE]
    assert steps and all(e.req is not None and e.req.startswith("web-") for e in steps)  # the console's relay, every one
