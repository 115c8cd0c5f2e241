"""`croupier history | head` and friends: a reader that closes the pipe stops the command quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from protocol.commands import Command
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from cli.output import EXIT_BROKEN_PIPE
from firmware_host.tables.house.table import HouseSetup


def run_into_closed_pipe(argv: list[str], stdin: bytes = b"") -> tuple[int, str]:
    """Run `croupier ARGV` with standard output a pipe whose reader is already gone: every write
    fails (EPIPE), as `| head` does once it has its lines. Returns (exit status, standard error)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "cli", *argv], input=stdin, stdout=write_end,
                              stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    return proc.returncode, proc.stderr.decode()


def test_history_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    c = Controller(Journal.open(tmp_path), default_setup=HouseSetup("uth", "default", {"minimum": 100}, 7))
    c.recover()
    for body in ({"cmd": "bet", "seat": 1, "bets": {"ante": 100, "blind": 100}}, {"cmd": "void", "reason": "test"}):
        assert c.handle_command(Command.from_mapping(body))["ok"]
    c.journal.close()
    for extra in ([], ["--json"]):
        status, err = run_into_closed_pipe(["history", "--state", str(tmp_path), *extra])
        assert (status, err) == (EXIT_BROKEN_PIPE, "")


def test_settle_into_a_closed_pipe_is_quiet() -> None:
    round_ = {"game": "3cp", "dealer": ["Qs", "6d", "4c"],
              "spots": [{"seat": 1, "cards": ["As", "Ad", "2c"], "bets": {"ante": 100}, "play": True}]}
    status, err = run_into_closed_pipe(["settle"], (json.dumps(round_) + "\n").encode())
    assert (status, err) == (EXIT_BROKEN_PIPE, "")
