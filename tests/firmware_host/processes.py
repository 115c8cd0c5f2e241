"""Test helpers shared by the controller tests: child processes, waiting, and reading feed messages."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def croupier_here(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`croupier ARGS` run in this process (`cli.main`: the same parsing and code, without a second of start-up a
    call), its exit status and what it wrote; an exception it raises fails the test, as a traceback would. `stdin`
    is what it reads on its standard input (UTF-8, `sys.stdin` and `sys.stdin.buffer` alike)."""
    from cli import main

    out, err = io.StringIO(), io.StringIO()
    given = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(given):
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse's refusals
            status = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(given: io.TextIOWrapper) -> Iterator[None]:
    """`sys.stdin` replaced by `given` for the duration."""
    kept, sys.stdin = sys.stdin, given
    try:
        yield
    finally:
        sys.stdin = kept


def start_cli(args: list[str], cwd: Path) -> tuple[Any, dict[str, Any]]:
    """Start `croupier ARGS` and return the process and its one JSON ready line (stderr to cwd/ARG0.log)."""
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], stdout=subprocess.PIPE,
                            stderr=open(cwd / f"{args[0]}.log", "ab"), text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    assert line, f"{args[0]} did not start: {(cwd / f'{args[0]}.log').read_text()[-2000:]}"
    return proc, json.loads(line)


def table_config(tmp_path: Path, commands: str) -> Path:
    """A table with no devices, its feed on ipc:// sockets in tmp_path and its command channel at `commands`."""
    config = tmp_path / "table.toml"
    config.write_text(f"""
[table]
name = "t1"
game = "uth"
[feed]
public = "ipc://{tmp_path}/public"
snapshot = "ipc://{tmp_path}/snapshot"
full = "ipc://{tmp_path}/full"
full_snapshot = ""
[commands]
endpoint = "{commands}"
[shoe]
url = ""
[gpio]
backend = "none"
""", encoding="utf-8")
    return config


def wait_for(predicate: Any, what: str, timeout_s: float = 30.0) -> Any:
    """Poll `predicate` until it returns something true; fail naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


CARD_TEXTS = {r + s for r in "23456789TJQKA" for s in "cdhs"}


def strings_in(value: Any) -> Iterator[str]:
    """Every string in a decoded feed message, keys included: where a leaked card would show."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_in(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_in(v)


def handshake_refused(sock: Any, endpoint: str, timeout_s: float = 10.0) -> bool:
    """Whether `sock`, connected to `endpoint` again (its options as they are), has its ZMTP handshake
    refused (a CURVE key or the mechanism): True at a failed handshake, False at one that succeeded.
    Connected again under a monitor because ZeroMQ does not try again after a refused handshake."""
    import zmq
    from zmq.utils.monitor import recv_monitor_message

    failed = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    sock.disconnect(endpoint)
    monitor = sock.get_monitor_socket(failed | zmq.EVENT_HANDSHAKE_SUCCEEDED)
    try:
        sock.connect(endpoint)
        deadline = time.monotonic() + timeout_s
        while monitor.poll(max(0, int((deadline - time.monotonic()) * 1000))):
            event = recv_monitor_message(monitor)["event"]
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                return False
            if event & failed:
                return True
        raise AssertionError(f"no handshake with {endpoint} within {timeout_s} s")
    finally:
        sock.disable_monitor()
        monitor.close(0)


MADE_FROM_A_CARD = [0]
"""Views made from the last ones and a card's parts (`tables/views.py` `card_views`) in this process so far,
each held to the whole views (`conftest.py`)."""


class Published:
    """Stands in for the controller's feed: each step's views (the reducer's public and full views, built
    together) kept in `views`, and the changes the feed would send for them, through the wire's codec, applied to
    `rebuilt`, as a subscriber rebuilds the states: the feed without its sockets. The changes a clean card's parts
    named (`named`, `protocol.feed.named_changes`) when the feed would send them, else `diff`'s; after every step
    the states rebuilt are the views, public and full, and no public change made from named parts holds a card
    the full view hides (`engine.redact.hidden_cards`)."""

    boot = "views"

    def __init__(self) -> None:
        self.seq = 0
        self.views: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.rebuilt: list[dict[str, Any]] = [{}, {}]  # public, full
        self._last: tuple[Any, Any] = ({}, {})
        self.known = 0  # steps whose moved keys the redaction found (the feed did not look for them)
        self.named = 0  # steps whose changes were made from the parts a card named

    def publish(self, public: dict[str, Any], full: dict[str, Any] | None = None, *, redacted: bool = False,
                known: tuple[Any, list[str]] | None = None, named: Any = None) -> int:
        from engine.redact import hidden_cards
        from protocol.feed import apply_changes, diff, moved, pack, unpack

        full = full if full is not None else public
        keys = None  # as `Feed.publish` looks for them
        if redacted:
            keys = known[1] if known is not None and known[0] is self._last[1] else moved(self._last[1], full)
            self.known += known is not None and known[0] is self._last[1]
        made = None  # as `Feed.publish` takes them
        if named is not None and named.last_public is self._last[0] and named.last_full is self._last[1]:
            made = (named.public, named.full)
            self.named += 1
            hidden = hidden_cards(full)
            assert hidden.isdisjoint(strings_in(named.public)), f"{hidden} in the public changes {named.public}"
        for i, (last, state) in enumerate(zip(self._last, (public, full))):
            if made is not None:
                changes = made[i]
            else:
                changes = diff(last, state, None if keys is None else [k for k in keys if k in state])
                assert changes == diff(last, state), "the changes found among the full state's moved keys are not all"
            self.rebuilt[i] = apply_changes(self.rebuilt[i], unpack(pack(changes)))
            assert self.rebuilt[i] == state, ("public", "full")[i]  # the changes rebuild the very state shown
        self._last = (public, full)  # the objects themselves, as the feed keeps them to take the next changes
        self.seq += 1
        self.views.append((public, full))
        return self.seq
