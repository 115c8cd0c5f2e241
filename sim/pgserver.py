"""A throw-away PostgreSQL cluster (the floor's tests, the rated demo's archive): initdb in a temporary directory, started and stopped with pg_ctl."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

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
    run through `runuser -u postgres --`; otherwise it is the current user's."""

    def __init__(self) -> None:
        self.bin = pg_bin()
        self.root = Path(tempfile.mkdtemp(prefix="crp-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else os.environ.get("USER", "postgres")
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        os.chmod(self.root, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.running = False

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / tool), *args]
        if self.as_root:
            argv = ["runuser", "-u", "postgres", "--", *argv]
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

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are cut) and wait until it is down."""
        if self.running:
            self._run("pg_ctl", "stop", "-w", "-t", "60", "-m", "fast", "-D", str(self.data))
            self.running = False

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname} connect_timeout=5"

    def create_database(self, name: str) -> str:
        """Make an empty database; return its DSN."""
        self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", "postgres",
                  "-v", "ON_ERROR_STOP=1", "-q", "-c", f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        """Stop the server if it runs and remove the cluster's directory."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
