"""A forged `.pyc` beside the signed code (issue: bytecode beside the signed sources): Python loads it when its
recorded source time and size match; a signed table runs with bytecode off (`manifest.NO_BYTECODE`, the units'
environment), which ignores it, and `croupier run` with a manifest refuses to start without that environment.

Every check runs against a copy of the packages (test_manifest's `copy`), never the tree itself.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import struct
import subprocess
import sys
from pathlib import Path

from firmware_host.service import manifest as mf
from tests.firmware_host.test_manifest import REPO, copy, sign, signed_table  # noqa: F401 (copy: a fixture)

VICTIM = Path("firmware_host") / "service" / "notify.py"  # imported at every start of `croupier run`


def forge(code: Path, marker: Path) -> Path:
    """A `.pyc` for VICTIM whose header records the real source's time and size, its code a payload that
    writes `marker`: what Python's default, timestamp-checked loading takes for the module's."""
    source = code / VICTIM
    payload = f"open({str(marker)!r}, 'w').write('forged bytecode ran')\n"
    body = compile(payload, str(source), "exec")
    stat = source.stat()
    header = importlib.util.MAGIC_NUMBER + struct.pack("<III", 0, int(stat.st_mtime) & 0xFFFFFFFF,
                                                       stat.st_size & 0xFFFFFFFF)
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.parent.mkdir(exist_ok=True)
    pyc.write_bytes(header + marshal.dumps(body))
    return pyc


def _import(code: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import firmware_host.service.notify"], cwd=code, env=env,
                          capture_output=True, text=True, timeout=60)


def _env(code: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {**env, "PYTHONPATH": str(code), **extra}


def unit_environment(name: str) -> dict[str, str]:
    """The `Environment=` lines of a shipped systemd unit."""
    out: dict[str, str] = {}
    for line in (REPO / "deploy" / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("Environment="):
            key, _, value = line.removeprefix("Environment=").partition("=")
            out[key] = value
    return out


def test_a_forged_pyc_runs_by_default_and_never_under_the_units_environment(copy: Path, tmp_path: Path) -> None:
    marker = tmp_path / "payload-ran"
    forge(copy, marker)
    assert _import(copy, _env(copy)).returncode == 0
    assert marker.exists()  # the forgery is real: Python's default loading runs it
    marker.unlink()
    for unit in ("croupier.service", "croupier-display.service", "croupier-pit.service",
                 "croupier-tournament.service"):
        environment = unit_environment(unit)
        assert {k: environment.get(k) for k in mf.NO_BYTECODE} == mf.NO_BYTECODE, unit
        done = _import(copy, _env(copy, **environment))
        assert done.returncode == 0, done.stderr
        assert not marker.exists(), unit  # compiled from the signed source, the .pyc ignored


def test_a_signed_start_without_bytecode_off_is_refused_naming_what_to_set(copy: Path) -> None:
    sign(copy)
    state = copy.parent / "state"
    env = _env(copy)
    done = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(signed_table(copy)),
                           "--state", str(state)], cwd=copy, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "[security] manifest: the signed code runs only with bytecode off" in done.stderr
    assert "PYTHONPYCACHEPREFIX=/dev/null/bytecode" in done.stderr and "Traceback" not in done.stderr
    assert not (state / "journal.sqlite3").exists()
    # with it, the same copy and manifest start: test_manifest's runs all use NO_BYTECODE
    # (test_an_unchanged_copy_starts_and_records_the_manifest)


def test_the_pi_install_compiles_no_bytecode() -> None:
    script = (REPO / "deploy" / "install-pi.sh").read_text(encoding="utf-8")
    install = next(line for line in script.splitlines() if '"$STAGE[web]"' in line)
    assert "--no-compile" in install
