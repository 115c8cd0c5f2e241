"""`croupier demo --rated P --web`: the demo's /pit lists the rated players from the archive (a throw-away PostgreSQL, the pit's archiver catching the table up), as a floor's pit does, and every row agrees with `croupier ratings --state DIR --json`; players come and go (a closed session not listed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from engine.ratings import mask_card
from tests.firmware_host.processes import croupier_here, wait_for
from tests.web.test_pit_rated import READ_RATED

TABLE = "sim-uth-1"


def sessions(state: Path, starting: bool = False) -> list[dict[str, Any]]:
    """The journal's rating sessions by `croupier ratings --json`; `starting`: none yet while the controller has not
    written its journal (the file made, still empty: "not a journal")."""
    done = croupier_here("ratings", "--state", str(state), "--json")  # in this process: the same code, no start-up
    if starting and done.returncode == 2 and "not a journal" in done.stderr:
        return []
    assert done.returncode == 0, done.stderr
    return [line for line in map(json.loads, done.stdout.splitlines()) if line["kind"] == "session"]


def expected(state: Path) -> list[dict[str, Any]]:
    """The journal's open sessions as the pit's rows should read (`READ_RATED`'s keys), by seat."""
    return sorted(({"seat": s["seats"][-1]["seat"], "player": mask_card(s["player"]), "hands": s["hands"],
                    "averageBet": s["average_bet"], "theoCents": s["theo_cents"], "win": s["win"],
                    "status": "break" if s["on_break"] else "open"}
                   for s in sessions(state) if s["open"]), key=lambda row: row["seat"])


def test_the_demos_pit_lists_its_rated_players_from_the_archive_as_the_journal_rates_them(
        page: Page, tmp_path: Path) -> None:
    state = tmp_path / "j"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "demo", "--rated", "0.6", "--hands", "40", "--seed", "3",
                             "--pace", "0.02", "--web", "127.0.0.1:0", "--quiet", "--state", str(state)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pages: "), (first, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        page.goto(first.split()[2])

        def came_and_went() -> bool:  # a player left and another sat down at that seat
            if proc.poll() is not None:
                raise AssertionError(f"the demo ended: {proc.stderr.read() if proc.stderr else ''}")
            if not (state / "journal.sqlite3").exists():
                return False
            seen = sessions(state, starting=True)
            left = {s["seats"][-1]["seat"] for s in seen if not s["open"]}
            return any(s["open"] and s["hands"] and s["seats"][-1]["seat"] in left for s in seen)
        wait_for(came_and_went, "a player gone and another at the seat", timeout_s=240)
        os.kill(proc.pid, signal.SIGSTOP)  # the bot dealer stops: the table waits, the archive catches up
        try:
            want = expected(state)
            assert want
            shown: list[Any] = []

            def agree() -> bool:
                rows = page.evaluate(READ_RATED).get(TABLE, [])
                shown[:] = [{k: v for k, v in row.items() if k != "cells"} for row in rows]
                return shown == want
            wait_for(agree, f"the pit's rows as the journal's open sessions {want}", timeout_s=60)
            assert shown == want, shown
            text = page.inner_text("body")
            assert not any(s["player"] in text for s in sessions(state))  # the card never in full
            assert len(sessions(state)) > len(want)  # the closed sessions are not listed
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        page.context.close()  # seen: the demo's pages then stop at once (tests/web/teardown.py)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        assert proc.returncode == 143
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
