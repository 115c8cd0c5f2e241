"""Secrets and trusted directories that other users may read or change are refused, naming the file and its mode
(`protocol/file_modes.py`), as ssh refuses them: at `croupier run --check`, at start, in the display's check, and
a client certificate others may change is not let in."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import keys
from protocol.users import User, Users
from tests.firmware_host.test_curve import config_text, make_keys


def check(config: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *command, "--config", str(config), "--check"],
                          capture_output=True, text=True, timeout=60)


def secure_table(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    security = make_keys(tmp_path)
    users = tmp_path / "users.json"
    Users({"sue": User.with_pin("sue", "supervisor", "482913")}).save(users)
    security["users"] = str(users)
    config = tmp_path / "table.toml"
    config.write_text(config_text(tmp_path, security), encoding="utf-8")
    return config, security, users


def test_as_installed_the_files_pass(tmp_path: Path) -> None:
    config, _, _ = secure_table(tmp_path)
    done = check(config, "run")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("which, mode, words", [
    ("users", 0o666, "users file {path} is mode 0666: other users may change it"),
    ("users", 0o644, "users file {path} is mode 0644: other users may read it"),
    ("server_key", 0o644, "secret certificate {path} is mode 0644: other users may read it"),
    ("server_key", 0o660, "secret certificate {path} is mode 0660: other users may change it"),
    ("clients", 0o777, "the clients directory {path} is mode 0777: other users may change it"),
])
def test_a_file_others_may_read_or_change_is_refused_naming_it_and_its_mode(tmp_path: Path, which: str, mode: int,
                                                                             words: str) -> None:
    config, security, _ = secure_table(tmp_path)
    path = security[which]
    os.chmod(path, mode)
    done = check(config, "run")
    assert done.returncode == 2, done.stdout
    assert f"[security] {which}" in done.stderr and words.format(path=path) in done.stderr, done.stderr
    assert "chmod" in done.stderr and "Traceback" not in done.stderr


def test_the_displays_users_file_and_key_are_checked_too(tmp_path: Path) -> None:
    _, security, users = secure_table(tmp_path)
    display = tmp_path / "display.toml"
    display.write_text(f'[display]\nusers = "{users}"\nkey = "{tmp_path / "clients" / "screen.key_secret"}"\n'
                       f'server_key = "{tmp_path / "table" / "table.key"}"\n', encoding="utf-8")
    assert check(display, "display").returncode == 0
    os.chmod(users, 0o644)
    done = check(display, "display")
    assert done.returncode == 2 and f"users file {users} is mode 0644" in done.stderr, done.stderr
    os.chmod(users, 0o600)
    os.chmod(tmp_path / "clients" / "screen.key_secret", 0o604)
    done = check(display, "display")
    assert done.returncode == 2 and "screen.key_secret is mode 0604: other users may read it" in done.stderr


def test_a_client_certificate_others_may_change_is_not_let_in(tmp_path: Path) -> None:
    security = make_keys(tmp_path)
    allowed = keys.load_clients(security["clients"])
    assert "screen" in allowed
    os.chmod(Path(security["clients"]) / "screen.key", 0o666)
    assert "screen" not in keys.load_clients(security["clients"])
    os.chmod(security["clients"], 0o777)
    assert keys.load_clients(security["clients"]) == {}


def test_sign_in_off_loopback_needs_https_and_keys_tls_makes_the_certificate(tmp_path: Path) -> None:
    users = tmp_path / "users.json"
    Users({"sue": User.with_pin("sue", "supervisor", "482913")}).save(users)
    display = tmp_path / "display.toml"
    for listen in ("0.0.0.0:8080", "10.0.0.11:8080", "[::]:8080"):
        display.write_text(f'[display]\nlisten = "{listen}"\nusers = "{users}"\n', encoding="utf-8")
        done = check(display, "display")
        assert done.returncode == 2, listen
        assert "[display] listen:" in done.stderr and "off loopback" in done.stderr and "tls_cert" in done.stderr
    for listen in ("127.0.0.1:8080", "[::1]:8080", "localhost:8080"):  # on loopback, or without sign-in
        display.write_text(f'[display]\nlisten = "{listen}"\nusers = "{users}"\n', encoding="utf-8")
        assert check(display, "display").returncode == 0, listen
    display.write_text('[display]\nlisten = "0.0.0.0:8080"\n', encoding="utf-8")
    assert check(display, "display").returncode == 0
    made = subprocess.run([sys.executable, "-m", "cli", "keys", "tls", "--dir", str(tmp_path / "tls"),
                           "--host", "croupier-t1.local", "--host", "10.0.0.11"], capture_output=True, text=True,
                          timeout=60)
    assert made.returncode == 0, made.stderr
    assert re.search(r"SHA-256 fingerprint: ([0-9A-F]{2}:){31}[0-9A-F]{2}\n", made.stdout), made.stdout
    assert (tmp_path / "tls" / "display.key").stat().st_mode & 0o777 == 0o600
    display.write_text(f'[display]\nlisten = "0.0.0.0:8080"\nusers = "{users}"\n'
                       f'tls_cert = "{tmp_path / "tls" / "display.crt"}"\ntls_key = "{tmp_path / "tls" / "display.key"}"\n',
                       encoding="utf-8")
    assert check(display, "display").returncode == 0
    again = subprocess.run([sys.executable, "-m", "cli", "keys", "tls", "--dir", str(tmp_path / "tls"),
                            "--host", "x"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "already there" in again.stderr  # never overwritten
