"""`croupier demo --secure` and `--key/--server-key`: the demo's keys, its controller configuration, and clear errors."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import zmq.auth

from cli import COMMANDS
from firmware_host.service.config import Config
from sim.bots.table import TableEndpoints, write_config
from sim.keys import SimKeys


def demo(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "demo", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_throwaway_keys_and_the_configuration_that_uses_them(tmp_path: Path) -> None:
    keys = SimKeys.make(tmp_path / "keys")
    assert zmq.auth.load_certificate(str(keys.table_secret))[1] is not None
    assert zmq.auth.load_certificate(str(keys.table_public))[1] is None
    assert sorted(p.name for p in keys.clients.iterdir()) == ["console.key", "dealer.key", "display.key",
                                                              "watcher.key"]  # public
    assert all(zmq.auth.load_certificate(str(p))[1] is None for p in keys.clients.iterdir())
    for secret in (keys.table_secret, keys.dealer, keys.display, keys.watcher, keys.console):
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert "role = dealer" in keys.dealer.read_text(encoding="utf-8")  # the metadata, as pyzmq writes it
    path = write_config(tmp_path / "t.toml", endpoints=TableEndpoints.tcp(), shoe_url="socket://127.0.0.1:9",
                        security=keys.security_lines(), extra=keys.access_text())
    cfg = Config.load(path)
    assert cfg.security.curve and cfg.security.server_key == str(keys.table_secret)
    assert cfg.security.clients == str(keys.clients)
    # the console's people sign in at the display: its key throttled past 20 failures, as deploy/pi.toml's "console"
    assert cfg.security.signed_in_relays == ("console",) and "role = dealer" in keys.console.read_text(encoding="utf-8")
    assert "role = surveillance" in keys.watcher.read_text(encoding="utf-8")  # the bots' full feed
    assert set(cfg.access.roles("full")) == {"surveillance", "technician"}  # the dealer's key may not follow it
    assert cfg.rights.allows("dealer", "open") and not cfg.rights.allows("dealer", "void")


def test_given_keys_need_their_other_halves(tmp_path: Path) -> None:
    keys = SimKeys.make(tmp_path / "keys")
    given = SimKeys.given(str(keys.dealer), str(keys.table_public))
    assert (given.table_secret, given.clients) == (keys.table_secret, keys.dealer.parent)
    lone = tmp_path / "lone"
    lone.mkdir()
    public, secret = zmq.auth.create_certificates(str(lone), "table", metadata={"role": "table"})
    Path(secret).unlink()  # the public half alone, as copied to a client
    with pytest.raises(ValueError, match="the table's secret certificate"):
        SimKeys.given(str(keys.dealer), public)


def test_demo_key_arguments_errors_exit_2(tmp_path: Path) -> None:
    keys = SimKeys.make(tmp_path / "keys")
    for args, words in [
        (["--key", str(keys.dealer)], "--key and --server-key"),
        (["--key", str(tmp_path / "none"), "--server-key", str(keys.table_public)], "none: no such file"),
        (["--key", str(keys.clients / "dealer.key"), "--server-key", str(keys.table_public)], "only a public key"),
        (["--secure", "--key", str(keys.dealer), "--server-key", str(keys.table_public)], "not both"),
    ]:
        done = demo("--quiet", *args, timeout=60)
        assert done.returncode == 2, done
        assert done.stderr.startswith("croupier demo: ") and words in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif("keys" not in COMMANDS,
                    reason="the controller's CURVE side (croupier keys, its authenticator) is not on this branch")
def test_secure_demo_plays(tmp_path: Path) -> None:
    done = demo("--secure", "--hands", "4", "--seed", "4", "--state", str(tmp_path / "j"))  # 4: the view is up
    assert done.returncode == 0, done.stderr  # well before the last hand on a loaded machine
    lines = done.stdout.splitlines()
    assert json.loads(lines[-1])["settled"] == 4
    # the view, a display key, saw the public feed: its snapshot at least (a loaded machine may start the view's
    # CURVE handshake after the fourth hand's last update: a CI run at 3,600 tests saw no update line)
    assert any(" update " in line or " snapshot " in line for line in lines[:-1]), lines[-5:]
    assert (tmp_path / "j" / "keys" / "clients" / "display.key").is_file()


def test_a_tournament_tables_rights_are_its_own_as_data(tmp_path: Path) -> None:
    from cli.demo import SimTable
    from sim.tournament.director import director_table_sections

    own = director_table_sections(6, (1, 2))
    assert "[rights]" not in own.poker and "hold" in own.dealer_rights
    for keys in (None, SimKeys.make(tmp_path / "keys")):
        tournament = SimTable(tmp_path / "t", game="holdem", structure="no-limit", run_dir=tmp_path, keys=keys,
                              sections=own.poker, rights=own.dealer_rights)
        cfg = Config.load(write_config(tmp_path / "t.toml", endpoints=TableEndpoints.tcp(),
                                       shoe_url="socket://127.0.0.1:9", extra=tournament.access_text() + own.poker))
        assert cfg.rights.dealer == own.dealer_rights  # the tournament's rights, not the demo's nor the keys'
        assert not cfg.rights.allows("dealer", "history")
    plain = SimTable(tmp_path / "p", run_dir=tmp_path)  # the demo's own table: its local role recalls the hands
    cfg = Config.load(write_config(tmp_path / "p.toml", endpoints=TableEndpoints.ipc(tmp_path),
                                   shoe_url="socket://127.0.0.1:9", extra=plain.access_text()))
    assert cfg.rights.allows("dealer", "history") and not cfg.rights.allows("dealer", "hold")
