"""The command line's clear errors (never a traceback): unusable state directories, journals that are
empty or damaged, a command endpoint already bound; each run as the real `croupier` process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import zmq

from firmware_host.service.journal import JOURNAL_FILE, Journal
from tests.firmware_host.processes import table_config


def croupier(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def assert_clear(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr, (word, proc.stderr)


def finished_journal(state: Path, hands: int = 40) -> Path:
    """A journal holding `hands` finished hands (big enough to fill several pages); its file."""
    journal = Journal.open(state)
    for hand in range(1, hands + 1):
        event = journal.begin(hand, "confirm", {"note": "x" * 400}, float(hand))
        journal.close_hand(hand, "uth", "settled", event, float(hand), {"round": {"note": "y" * 400}})
        journal.commit()
    journal.close()
    return state / JOURNAL_FILE


# -- --state that cannot be used ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["file", "under_a_file"])
def test_run_with_a_state_that_is_or_is_under_a_file_says_so(tmp_path: Path, where: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a directory\n")
    state = afile if where == "file" else afile / "state"
    proc = croupier("run", "--config", str(table_config(tmp_path, "tcp://127.0.0.1:0")), "--state", str(state))
    assert_clear(proc, 1, str(afile), "not a directory")
    assert afile.read_text() == "not a directory\n"  # nothing written over it


@pytest.mark.parametrize("command", [["history"], ["history", "--json"], ["phh", "export"]])
def test_history_and_export_with_a_state_that_is_a_file_say_so(tmp_path: Path, command: list[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    proc = croupier(*command, "--state", str(afile))
    assert_clear(proc, 2 if command[0] == "phh" else 1, str(afile), "not a directory")


def test_run_with_a_journal_path_that_is_a_directory_says_so(tmp_path: Path) -> None:
    (tmp_path / "state" / JOURNAL_FILE).mkdir(parents=True)
    proc = croupier("run", "--config", str(table_config(tmp_path, "tcp://127.0.0.1:0")),
                    "--state", str(tmp_path / "state"))
    assert_clear(proc, 1, JOURNAL_FILE, "a directory, not a journal file")


# -- empty and damaged journals ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["history"], ["history", "--json"], ["phh", "export"]])
@pytest.mark.parametrize("content, words", [
    (None, ["no journal at"]),                                    # an empty state directory
    (b"", ["an empty file, not a journal"]),                      # a zero-byte journal
    (b"garbage " * 600, ["not a journal", "not a database"]),     # not SQLite at all
])
def test_history_on_an_empty_or_garbage_journal_says_what_is_wrong(
        tmp_path: Path, command: list[str], content: bytes | None, words: list[str]) -> None:
    state = tmp_path / "state"
    state.mkdir()
    if content is not None:
        (state / JOURNAL_FILE).write_bytes(content)
    proc = croupier(*command, "--state", str(state))
    assert_clear(proc, 2 if command[0] == "phh" else 1, str(state), *words)
    assert proc.stdout == ""


def test_history_on_a_foreign_sqlite_file_says_it_is_not_a_journal(tmp_path: Path) -> None:
    import sqlite3
    conn = sqlite3.connect(tmp_path / JOURNAL_FILE)
    conn.execute("CREATE TABLE notes(text)")
    conn.commit()
    conn.close()
    assert_clear(croupier("history", "--state", str(tmp_path)), 1, "not a journal", "no table boots, events, hands")


@pytest.mark.parametrize("command", [["history", "--json"], ["history"], ["phh", "export"]])
def test_history_on_a_journal_damaged_past_its_first_page_says_so(tmp_path: Path, command: list[str]) -> None:
    path = finished_journal(tmp_path)
    data = bytearray(path.read_bytes())
    assert len(data) > 4 * 4096
    data[4096:] = b"\xa5" * (len(data) - 4096)  # every page but the header and the schema's
    path.write_bytes(bytes(data))
    proc = croupier(*command, "--state", str(tmp_path))
    assert_clear(proc, 2 if command[0] == "phh" else 1, str(path))


# -- the command endpoint already bound --------------------------------------------------------------


def test_run_with_the_command_endpoint_in_use_names_file_section_and_key(tmp_path: Path) -> None:
    ctx = zmq.Context()
    try:
        squatter = ctx.socket(zmq.ROUTER)
        squatter.setsockopt(zmq.LINGER, 0)
        port = squatter.bind_to_random_port("tcp://127.0.0.1")
        config = table_config(tmp_path, f"tcp://127.0.0.1:{port}")
        proc = croupier("run", "--config", str(config), "--state", str(tmp_path / "state"))
    finally:
        ctx.destroy(linger=0)
    assert_clear(proc, 2, str(config), "[commands] endpoint", f"tcp://127.0.0.1:{port}", "in use")
