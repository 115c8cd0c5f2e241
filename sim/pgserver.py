"""A throw-away PostgreSQL cluster (the floor's tests, the rated demo's archive): initdb in a temporary directory, started and stopped with pg_ctl.

A cluster made `watched` (the rated demo's) is stopped and removed when the process that made it dies, however it
dies (a SIGKILL included): the postmaster is pg_ctl's child in a session of its own, so no signal of ours reaches it
and `PR_SET_PDEATHSIG` cannot be set on it; instead a small watcher process, in a session of its own too, reads a
pipe whose only writing end this process holds (never inherited: not across exec, `subprocess`' close_fds). The end
closes when this process exits, the watcher's read ends, and it runs `pg_ctl stop -m immediate` and removes the
cluster's directory (which a postmaster missed would notice, its lock file gone, and shut down within a minute).

A cluster left by an earlier run that was not watched (a test process killed, `tools/floor_probe.py`) is swept at the
next start (`sweep`): each cluster's directory holds a marker naming the process that made it (`MARKER`: its PID and
start time), and a directory whose marker is this user's, whose maker is gone and whose postmaster is not running (no
`postmaster.pid`, or its PID dead) is removed. A directory without the marker (not ours, or made before it) and a
cluster whose postmaster still runs are never touched.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import stat
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

MARKER = "croupier-pgserver.json"
"""In each cluster's directory: who made it (`{"pid", "started"}`), which `sweep` reads."""
PREFIX = "crp-pg-"

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


def _started(pid: int) -> int | None:
    """The process's start time (clock ticks since boot, /proc/PID/stat's 22nd field), or None: no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    try:
        return int(text.rsplit(")", 1)[1].split()[19])
    except (IndexError, ValueError):
        return None


def _running(pid: object) -> bool:
    """Whether a process of that PID runs (one that cannot be signalled but exists counts)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale(root: Path) -> bool:
    """Whether `root` is a cluster of ours whose maker is gone and whose postmaster is not running."""
    marker = root / MARKER
    try:
        st = marker.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return False  # not ours: never touched
        made = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(made, dict):
        return False
    pid = made.get("pid")
    if _running(pid) and isinstance(pid, int) and _started(pid) in (made.get("started"), None):
        return False  # its maker runs (the same process: its start time, where /proc tells)
    try:
        postmaster = int((root / "data" / "postmaster.pid").read_text(encoding="ascii").split("\n", 1)[0])
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False  # unreadable: left alone
    return not _running(postmaster)


def sweep(directory: str | Path | None = None) -> list[Path]:
    """Remove the clusters earlier runs left in `directory` (the temporary directory) that are stale (`_stale`); the
    directories removed."""
    swept = []
    for root in sorted(Path(directory if directory is not None else tempfile.gettempdir()).glob(f"{PREFIX}*")):
        if root.is_dir() and not root.is_symlink() and _stale(root):
            shutil.rmtree(root, ignore_errors=True)
            swept.append(root)
    return swept


class PgServer:
    """One cluster: `start()` (initdb the first time), `stop()`, `dsn(dbname)`, `create_database(name)`; earlier runs' stale clusters swept first.

    Run as root (as CI does) the cluster belongs to the `postgres` user and every PostgreSQL binary is
    run through `runuser -u postgres --`; otherwise it is the current user's. `watched`: stopped and removed when
    this process dies (the module's docstring)."""

    def __init__(self, watched: bool = False) -> None:
        self.bin = pg_bin()
        sweep()  # what an earlier run left, its maker and postmaster gone
        self.root = Path(tempfile.mkdtemp(prefix=PREFIX))
        (self.root / MARKER).write_text(json.dumps({"pid": os.getpid(), "started": _started(os.getpid())}),
                                        encoding="utf-8")
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
