"""The rated demo's floor: a throw-away PostgreSQL archive and the pit's process (`croupier pit`, its archiver) catching the demo's table up, so that the demo's /pit lists the rated players from the archive as a floor's pit does.

`croupier demo --rated P` with its pages starts one (`DemoArchive.start`): a cluster made with initdb in the demo's
run directory (`sim.pgserver`), the archive's schema migrated (`floor.migrate`), and `croupier pit --config` on a
configuration naming the demo's table (its feeds and its command channel, which answers the archiver's `history`),
whose archiver folds the table's `player` events and hands into rating sessions after each hand
(docs/ratings.md, "The archive"). The demo's `croupier pit web` gets `floor_db` (and `figures_s` = `FIGURES_S`): its
rated players and figures are the archive's, read by `floor.figures.pit_rated` as on a floor, theo never computed
another way. Without PostgreSQL's binaries or psycopg, `start` says why and the demo's pit lists no rated players.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from sim.pgserver import PgServer
from sim.restarter import RestarterError, end, read_json_line, spawn

FIGURES_S = 2.0
"""How often the demo's pit reads its figures and rated players from the archive (a floor's default is 30 s)."""


@dataclass(frozen=True, slots=True)
class TableFeeds:
    """What the pit follows of the demo's table: its name, feed, snapshot, command channel and heartbeat."""

    name: str
    public: str
    snapshot: str
    commands: str
    heartbeat_s: float


@dataclass(slots=True)
class DemoArchive:
    """The demo's archive and pit process; `dsn` once started, `close()` ends both (safe to call twice)."""

    run_dir: Path
    dsn: str = ""
    server: PgServer | None = None
    pit: subprocess.Popen[bytes] | None = None

    @classmethod
    def start(cls, run_dir: Path, table: TableFeeds) -> DemoArchive | None:
        """The archive made and the pit started on `table`; None when it cannot be (said on standard error)."""
        archive = cls(run_dir)
        try:
            archive._start(table)
        except (FileNotFoundError, ImportError, RuntimeError, RestarterError, OSError) as exc:
            print(f"croupier demo: the pit lists no rated players (no archive: {exc})".replace("\n", " "),
                  file=sys.stderr)
            archive.close()
            return None
        return archive

    def _start(self, table: TableFeeds) -> None:
        from floor.archive import ArchiveError
        from floor.migrate import migrate  # psycopg: the `floor` extra
        self.server = PgServer(watched=True)  # stopped and removed even when the demo is killed
        self.server.start()
        self.dsn = self.server.create_database("floor")
        try:
            migrate(self.dsn)
        except ArchiveError as exc:
            raise RuntimeError(str(exc)) from exc
        config = self.run_dir / "pit.toml"
        config.write_text(
            f'[pit]\nname = "demo-pit"\nlisten = "ipc://{self.run_dir}/floor"\n'
            f'snapshot = "ipc://{self.run_dir}/floor-snapshot"\nheartbeat_s = {table.heartbeat_s}\n'
            f'db = "{self.dsn}"\npid_file = "{self.run_dir / "pit.pid"}"\n\n'
            f'[[pit.tables]]\nname = "{table.name}"\npublic = "{table.public}"\nsnapshot = "{table.snapshot}"\n'
            f'commands = "{table.commands}"\n', encoding="utf-8")
        with open(self.run_dir / "pit.log", "ab") as err:
            self.pit = spawn([sys.executable, "-m", "cli", "pit", "--config", str(config), "--log-level", "WARNING"],
                             stderr=err)
        read_json_line(self.pit, 30.0, "croupier pit")

    def web_lines(self) -> str:
        """The `[web]` keys of the demo's `croupier pit web` reading this archive."""
        return f'floor_db = "{self.dsn}"\nfigures_s = {FIGURES_S}\n'

    def close(self) -> None:
        """End the pit's process, then the archive's server (its cluster removed)."""
        if self.pit is not None:
            end(self.pit)
            self.pit = None
        if self.server is not None:
            server, self.server = self.server, None
            try:
                server.close()
            except RuntimeError as exc:
                print(f"croupier demo: the archive's server: {exc}".replace("\n", " "), file=sys.stderr)
