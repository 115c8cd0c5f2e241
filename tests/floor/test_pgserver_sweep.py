"""Throw-away PostgreSQL clusters left by an earlier run that was not watched (`sim.pgserver`) are swept at the next start: only ours (the marker, this user's), only when their maker is gone and their postmaster is not running."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from sim.pgserver import MARKER, PREFIX, _started, pg_bin, sweep
from tests.floor.test_pgserver_watched import REPO, alive, wait_for


def gone_pid() -> int:
    """The PID of a process that ran and was reaped."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def cluster(tmp: Path, name: str, maker: dict[str, object] | None, postmaster: int | None) -> Path:
    root = tmp / f"{PREFIX}{name}"
    (root / "data").mkdir(parents=True)
    if maker is not None:
        (root / MARKER).write_text(json.dumps(maker), encoding="utf-8")
    if postmaster is not None:
        (root / "data" / "postmaster.pid").write_text(f"{postmaster}\n{root / 'data'}\n", encoding="ascii")
    return root


def test_only_our_clusters_whose_maker_and_postmaster_are_gone_are_swept(tmp_path: Path) -> None:
    me = {"pid": os.getpid(), "started": _started(os.getpid())}
    dead = {"pid": gone_pid(), "started": 1}
    stale = [cluster(tmp_path, "never-started", dead, None), cluster(tmp_path, "postmaster-dead", dead, gone_pid()),
             cluster(tmp_path, "pid-reused", {"pid": os.getpid(), "started": -1}, None)]  # our PID, another process
    kept = [cluster(tmp_path, "postmaster-runs", dead, os.getpid()), cluster(tmp_path, "maker-runs", me, None),
            cluster(tmp_path, "no-marker", None, None), cluster(tmp_path, "bad-marker", None, None)]
    (kept[-1] / MARKER).write_text("not json", encoding="utf-8")
    elsewhere = cluster(tmp_path / "other", "x", dead, None)  # a stale cluster reached by a link: never followed
    (tmp_path / f"{PREFIX}link").symlink_to(elsewhere)
    linked = cluster(tmp_path, "marker-linked", None, None)  # a marker that is a link to a stale one's: not ours
    (linked / MARKER).symlink_to(stale[0] / MARKER)
    assert sorted(sweep(tmp_path)) == sorted(stale)
    assert not any(root.exists() for root in stale)
    assert all(root.exists() for root in [*kept, elsewhere, linked])
    assert sweep(tmp_path) == []


def test_a_cluster_left_by_a_killed_run_is_kept_while_its_postmaster_runs_then_swept() -> None:
    """A real cluster, not watched, whose maker is SIGKILLed: its postmaster runs on (kept: a sweep never stops a
    server); once it is down, the next start sweeps the directory."""
    tmp_path = Path(tempfile.mkdtemp(prefix="crp-sweep-"))  # not pytest's: run as root, `postgres` must get in
    os.chmod(tmp_path, 0o755)
    maker_code = ("import time\nfrom sim.pgserver import PgServer\ns = PgServer()\ns.start()\n"
                  "print(s.root, flush=True)\ntime.sleep(300)\n")
    maker = subprocess.Popen([sys.executable, "-c", maker_code], stdout=subprocess.PIPE, text=True, cwd=REPO,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        assert maker.stdout is not None
        root = Path(maker.stdout.readline().strip())
        assert root.parent == tmp_path and (root / MARKER).is_file()
        postmaster = int((root / "data" / "postmaster.pid").read_text().splitlines()[0])
        os.kill(maker.pid, signal.SIGKILL)
        maker.wait(10)
        assert sweep(tmp_path) == [] and root.exists() and alive(postmaster)
        argv = [str(pg_bin() / "pg_ctl"), "stop", "-w", "-t", "60", "-m", "immediate", "-D", str(root / "data")]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, capture_output=True, check=False, timeout=90)
        assert wait_for(lambda: not alive(postmaster), 60)
        if (root / "data" / "postmaster.pid").exists():  # an immediate stop may leave it: its PID is dead
            assert not alive(int((root / "data" / "postmaster.pid").read_text().splitlines()[0]))
        assert sweep(tmp_path) == [root] and not root.exists()
    finally:
        if maker.poll() is None:
            maker.kill()
            maker.wait()
        shutil.rmtree(tmp_path, ignore_errors=True)
