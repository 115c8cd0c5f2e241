"""Run a service as a child process and restart it when it dies, the way systemd's `Restart=always` does.

`croupier demo` and the harness tests run the controller (`croupier run ...`) under a `Restarter`:
one monitor thread starts the child, reads its standard output for the one JSON line that says it
is ready (`{"ready": true, ...}`, see `cli.run`), waits for it to exit, and starts it
again after `restart_s` unless it was told to stop. Like systemd's start limit, a child that dies
`burst` times within `burst_s` seconds is not started again (a bad configuration would otherwise
loop for ever). The child's standard error goes to `log_path` (appended), so a terminal view is not
disturbed. Children run in sessions of their own (a Ctrl-C reaches the parent, which stops them) and get
SIGKILL if the restarter's thread dies first (Linux `PR_SET_PDEATHSIG`), so
a crashed test leaves no orphan behind.
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

log = logging.getLogger("croupier.restarter")


class RestarterError(RuntimeError):
    """The service could not be (re)started: it never said it was ready, or hit the start limit."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def spawn(argv: Sequence[str], *, stdout: int | IO[Any] | None = subprocess.PIPE,
          stderr: int | IO[Any] | None = None, env: dict[str, str] | None = None,
          setup: Callable[[], None] | None = None) -> subprocess.Popen[bytes]:
    """Start one child that is killed when the calling thread's process dies; `setup` runs in the child before it
    execs (a bench's scheduling of the part, `bench._units.Scheduling.preexec`). Raises OSError."""
    def child() -> None:  # pragma: no cover - runs in the child between fork and exec
        _die_with_parent()
        if setup is not None:
            setup()
    # its own session: a Ctrl-C at the terminal (SIGINT to the foreground group) or a group's SIGTERM reaches the
    # parent alone, which stops its children in order; a child stopped under it would be counted as a crash
    return subprocess.Popen(list(argv), stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=env,
                            preexec_fn=child if os.name == "posix" else None, start_new_session=os.name == "posix")


def end(proc: subprocess.Popen[Any], timeout_s: float = 5.0) -> None:
    """SIGTERM a child still running, SIGKILL it if it has not exited within `timeout_s`; reaped."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def read_json_line(proc: subprocess.Popen[bytes], timeout_s: float, what: str) -> dict[str, Any]:
    """The first line of `proc`'s standard output, as JSON. Raises RestarterError on timeout, exit or bad JSON."""
    assert proc.stdout is not None
    result: dict[str, Any] = {}
    done = threading.Event()

    def read() -> None:
        stream = proc.stdout
        assert stream is not None
        line = stream.readline()
        try:
            value = json.loads(line)
            result.update(value if isinstance(value, dict) else {"error": line.decode(errors="replace")})
        except ValueError:
            result["error"] = line.decode(errors="replace")
        done.set()
        for _ in stream:  # keep the pipe drained so the child never blocks on a full pipe
            pass

    threading.Thread(target=read, daemon=True, name=f"{what}-stdout").start()
    if not done.wait(timeout_s):
        raise RestarterError(f"{what}: no start line within {timeout_s} s")
    if "error" in result:
        raise RestarterError(f"{what}: exited or said something else at start: {result['error']!r} "
                              f"(exit status {proc.poll()})")
    return result


class Restarter:
    """Keep one child process running; see the module docstring.

    `ready` is the latest start line, `starts` how many times the child was started, `pid` the
    current child's process id (None while it is down).
    """

    def __init__(self, argv: Sequence[str], *, name: str = "service", restart_s: float = 0.1,
                 ready_timeout_s: float = 20.0, burst: int = 5, burst_s: float = 10.0,
                 log_path: str | Path | None = None, env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.name = name
        self.restart_s = restart_s
        self.ready_timeout_s = ready_timeout_s
        self.burst = burst
        self.burst_s = burst_s
        self.log_path = Path(log_path) if log_path is not None else None
        self.env = env
        self.ready: dict[str, Any] = {}
        self.starts = 0
        self.exits: list[int] = []  # exit status of each child that ended (negative: killed by that signal)
        self.failure: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._cond = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- control ----------------------------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        """Start keeping the child; return the child's first start line. Raises RestarterError."""
        if self._thread is not None:
            raise RestarterError(f"{self.name}: already kept")
        self._thread = threading.Thread(target=self._monitor, name=f"restarter-{self.name}", daemon=True)
        self._thread.start()
        return self.wait_ready(1)

    def wait_ready(self, starts: int, timeout_s: float | None = None) -> dict[str, Any]:
        """Wait until the child has been started `starts` times (in all) and said it is ready.

        Raises RestarterError when the restarter gave up or the wait ran out.
        """
        deadline = time.monotonic() + (timeout_s if timeout_s is not None else self.ready_timeout_s + 5)
        with self._cond:
            while not (self.starts >= starts and self.ready.get("start") == self.starts and self._proc is not None):
                if self.failure is not None:
                    raise RestarterError(self.failure)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RestarterError(f"{self.name}: not ready (start {starts}) in time")
                self._cond.wait(left)
            return dict(self.ready)

    @property
    def pid(self) -> int | None:
        with self._cond:
            proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def kill(self, sig: int = signal.SIGKILL) -> int | None:
        """Send `sig` to the running child (the restarter then restarts it). Returns the pid signalled."""
        with self._cond:
            proc = self._proc
        if proc is None or proc.poll() is not None:
            return None
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            return None
        return proc.pid

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop keeping the child: SIGTERM the child, SIGKILL it if it does not exit within `timeout_s`."""
        with self._cond:
            self._stopping = True
            proc = self._proc
            self._cond.notify_all()
        if proc is not None:
            end(proc, timeout_s)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout_s + 1)

    # -- the monitor thread -------------------------------------------------------------------------

    def _monitor(self) -> None:
        recent: list[float] = []
        while True:
            with self._cond:
                if self._stopping:
                    return
            now = time.monotonic()
            recent = [t for t in recent if now - t < self.burst_s] + [now]
            if len(recent) > self.burst:
                self._fail(f"{self.name}: died {self.burst} times within {self.burst_s} s; not restarting "
                           f"(exit statuses {self.exits[-self.burst:]}){self._log_tail()}")
                return
            try:
                proc = self._launch()
            except (OSError, RestarterError) as exc:
                log.error("%s: start failed: %s", self.name, exc)
                if not self._pause():
                    return
                continue
            status = proc.wait()
            with self._cond:
                self.exits.append(status)
                self._proc = None
                stopping = self._stopping
                self._cond.notify_all()
            if stopping:
                return
            log.warning("%s: exited with status %s; restarting in %.1f s", self.name, status, self.restart_s)
            if not self._pause():
                return

    def _pause(self) -> bool:
        """Wait `restart_s`; False when told to stop meanwhile."""
        with self._cond:
            self._cond.wait_for(lambda: self._stopping, self.restart_s)
            return not self._stopping

    def _launch(self) -> subprocess.Popen[bytes]:
        err: Any = subprocess.DEVNULL
        if self.log_path is not None:
            err = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it; closed below
        try:
            proc = spawn(self.argv, stderr=err, env=self.env)
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        with self._cond:
            self.starts += 1
            start = self.starts
            self._proc = proc
        try:
            ready = read_json_line(proc, self.ready_timeout_s, self.name)
        except RestarterError as exc:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            with self._cond:
                self.exits.append(proc.returncode)
                self._proc = None
                self._cond.notify_all()
            raise RestarterError(f"{exc}{self._log_tail()}") from None
        with self._cond:
            self.ready = {**ready, "start": start}
            self._cond.notify_all()
        log.info("%s: started (%d), pid %d", self.name, start, proc.pid)
        return proc

    def _log_tail(self, lines: int = 5) -> str:
        """The last lines the child wrote to its log (what a failed start said), or ''."""
        if self.log_path is None:
            return ""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        tail = [line for line in text.splitlines() if line.strip()][-lines:]
        return "; its log ends: " + " | ".join(tail) if tail else ""

    def _fail(self, message: str) -> None:
        log.error("%s", message)
        with self._cond:
            self.failure = message
            self._cond.notify_all()
