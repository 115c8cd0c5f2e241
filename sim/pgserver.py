"""A throw-away PostgreSQL cluster (the floor's tests, the rated demo's archive): initdb in a temporary directory, started and stopped with pg_ctl.

A cluster made `watched` (the rated demo's) is stopped and removed when the process that made it dies, however it
dies (a SIGKILL included): the postmaster is pg_ctl's child in a session of its own, so no signal of ours reaches it
and `PR_SET_PDEATHSIG` cannot be set on it; instead a small watcher process, in a session of its own too, reads a
pipe whose only writing end this process holds (never inherited: not across exec, `subprocess`' close_fds). The end
closes when this process exits, the watcher's read ends, and it runs `pg_ctl stop -m immediate` and removes the
cluster's directory (which a postmaster missed would notice, its lock file gone, and shut down within a minute).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

_WATCH = """import json, shutil, subprocess, sys
sys.stdin.buffer.read()  # until its maker's end of the pipe closes: it exited, or was killed
subprocess.run(json.loads(sys.argv[1]), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
shutil.rmtree(sys.argv[2], ignore_errors=True)
"""
"""The watcher of a `watched` cluster: what it runs once the process that made the cluster is gone."""

MISSING = "PostgreSQL's initdb and pg_ctl are missing: `make test` installs Debian's postgresql package"


def pg_bin() -> Path:
    """The directory of Debian's PostgreSQL binaries (the newest under /usr/lib/postgresql/*/bin).

    Raises FileNotFoundError saying `make test` installs `postgresql` when there are none."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if not found:
        on_path = shutil.which("initdb")
        if on_path is None or shutil.which("pg_ctl") is None:
            raise FileNotFoundError(MISSING)
        return Path(on_path).resolve().parent
    return Path(found[-1]).parent


def free_port() -> int:
    """A TCP port free on 127.0.0.1 at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgServer:
    """One cluster: `start()` (initdb the first time), `stop()`, `dsn(dbname)`, `create_database(name)`.

    Run as root (as CI does) the cluster belongs to the `postgres` user and every PostgreSQL binary is
    run through `runuser -u postgres --`; otherwise it is the current user's. `watched`: stopped and removed when
    this process dies (the module's docstring)."""

    def __init__(self, watched: bool = False) -> None:
        self.bin = pg_bin()
        self.root = Path(tempfile.mkdtemp(prefix="crp-pg-"))
        self._watcher: tuple[subprocess.Popen[bytes], int] | None = None
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else os.environ.get("USER", "postgres")
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        os.chmod(self.root, 0o700)
        if watched:
            self._watch()
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.running = False

    def _argv(self, tool: str, *args: str) -> list[str]:
        argv = [str(self.bin / tool), *args]
        return ["runuser", "-u", "postgres", "--", *argv] if self.as_root else argv

    def _watch(self) -> None:
        """The watcher started, the pipe's reading end its standard input; the writing end kept here alone."""
        stop = self._argv("pg_ctl", "stop", "-w", "-t", "60", "-m", "immediate", "-D", str(self.root / "data"))
        read, write = os.pipe()  # neither inheritable (PEP 446): Popen dups the reading end onto the watcher's stdin
        try:
            watcher = subprocess.Popen([sys.executable, "-c", _WATCH, json.dumps(stop), str(self.root)], stdin=read,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/",
                                       start_new_session=True)  # out of reach of a signal to our process group
        except OSError:
            os.close(write)
            raise
        finally:
            os.close(read)
        self._watcher = (watcher, write)

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        argv = self._argv(tool, *args)
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{tool} {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}\n{log}")
        return done

    def start(self) -> None:
        """Start the server on 127.0.0.1:port and wait until it accepts connections."""
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.log), "-o", options)
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (fast shutdown: open sessions are cut; `immediate`: no shutdown checkpoint either, for a
        cluster about to be removed) and wait until it is down."""
        if self.running:
            self._run("pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", str(self.data))
            self.running = False

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname} connect_timeout=5"

    def create_database(self, name: str) -> str:
        """Make an empty database; return its DSN."""
        self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "postgres",
                  "-v", "ON_ERROR_STOP=1", "-q", "-c", f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        """Stop the server if it runs and remove the cluster's directory (a watcher let go and reaped)."""
        try:
            self.stop("immediate")  # its data goes: no checkpoint written for it (0.1 s against 0.6-1.6 s, 40 databases)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            if self._watcher is not None:
                (watcher, write), self._watcher = self._watcher, None
                os.close(write)  # nothing left for it to do: it finds the cluster gone and exits
                try:
                    watcher.wait(30)
                except subprocess.TimeoutExpired:
                    watcher.kill()
                    watcher.wait()
