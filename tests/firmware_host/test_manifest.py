"""The code's signed manifest: `croupier integrity key|sign|verify`, and `croupier run` refusing changed code.

Every check runs against a COPY of the three packages in a temporary directory, imported from
there (`PYTHONPATH`, cwd the copy: the editable install's finder comes after the path, and
`test_the_copy_is_what_is_imported` proves it), so a byte can be changed without touching the tree.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.service import manifest as mf
from protocol import packages
from protocol.audit import AuditLog
from tests.firmware_host.processes import table_config

REPO = Path(__file__).resolve().parents[2]
PACKAGES = packages.TABLE  # what a table's Pi installs


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The packages copied into tmp_path/code, a key pair and a profiles directory beside them."""
    code = tmp_path / "code"
    for name in PACKAGES:
        shutil.copytree(REPO / name, code / name, ignore=shutil.ignore_patterns("__pycache__"))
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    shutil.copy(REPO / "engine" / "profiles" / "default.toml", profiles / "house.toml")
    mf.new_key_pair(tmp_path / "sign.key")
    return code


def croupier(code: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`croupier ARGS` importing the packages from the copy at `code`."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=code, env=_env(code),
                          capture_output=True, text=True, timeout=120)


def _env(code: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NOTIFY_SOCKET")}
    env["PYTHONPATH"] = str(code)
    env.update(mf.NO_BYTECODE)  # as the units run a signed table
    return env


def sign(code: Path) -> Path:
    tmp = code.parent
    out = tmp / "manifest.json"
    done = croupier(code, "integrity", "sign", "--key", str(tmp / "sign.key"), "--out", str(out),
                    "--profiles", str(tmp / "profiles"))
    assert done.returncode == 0, done.stderr
    return out


def verify(code: Path, pubkey: Path | None = None) -> subprocess.CompletedProcess[str]:
    tmp = code.parent
    return croupier(code, "integrity", "verify", "--manifest", str(tmp / "manifest.json"),
                    "--pubkey", str(pubkey or tmp / "sign.key.pub"), "--profiles", str(tmp / "profiles"))


def flip_a_byte(path: Path) -> None:
    """One bit flipped in a letter of the module's docstring: the file changed, still Python (a flip in
    its code could make a syntax error, which an import reports before the manifest is checked)."""
    data = bytearray(path.read_bytes())
    data[data.index(b'"""') + 4] ^= 0x01
    path.write_bytes(bytes(data))


def test_the_copy_is_what_is_imported(copy: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import engine, drivers, firmware_host; "
                           "print(engine.__file__, drivers.__file__, firmware_host.__file__)"],
                          cwd=copy, env=_env(copy), capture_output=True, text=True, check=True)
    files = [Path(p) for p in done.stdout.split()]
    assert [f.parent.parent for f in files] == [copy] * 3


def test_sign_then_verify_ok(copy: Path) -> None:
    manifest = json.loads(sign(copy).read_text())
    assert "engine/cards.py" in manifest["files"] and "engine/profiles/default.toml" in manifest["files"]
    assert manifest["files"]["profiles/house.toml"] == hashlib.sha256(
        (copy.parent / "profiles" / "house.toml").read_bytes()).hexdigest()
    assert not any("__pycache__" in p for p in manifest["files"])
    done = verify(copy)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("code ok: ") and f"{len(manifest['files'])} files as signed" in done.stdout


def test_a_changed_byte_in_one_module_is_named(copy: Path) -> None:
    sign(copy)
    flip_a_byte(copy / "engine" / "three_card_poker.py")
    done = verify(copy)
    assert done.returncode == 1
    assert "engine/three_card_poker.py: changed" in done.stderr
    assert done.stderr.count(": changed") == 1 and "missing" not in done.stderr and "added" not in done.stderr


def test_added_and_removed_files_are_named(copy: Path) -> None:
    sign(copy)
    (copy / "drivers" / "tower_light.py").unlink()
    (copy / "firmware_host" / "service" / "backdoor.py").write_text("OPEN = True\n")
    (copy / "engine" / "evaluate.cpython-311.pyc").write_bytes(b"\0")  # importable without its .py
    (copy.parent / "profiles" / "generous.toml").write_text("[uth]\n")
    (copy.parent / "profiles" / "house.toml").unlink()
    done = verify(copy)
    assert done.returncode == 1
    for line in ("drivers/tower_light.py: missing", "firmware_host/service/backdoor.py: added",
                 "engine/evaluate.cpython-311.pyc: added", "profiles/generous.toml: added",
                 "profiles/house.toml: missing"):
        assert line in done.stderr


def test_a_wrong_public_key_is_refused(copy: Path) -> None:
    sign(copy)
    other = mf.new_key_pair(copy.parent / "other.key")
    done = verify(copy, pubkey=other)
    assert done.returncode == 1
    assert "REFUSED" in done.stderr and "signature does not hold" in done.stderr


def test_a_tampered_manifest_is_refused(copy: Path) -> None:
    path = sign(copy)
    flip_a_byte(copy / "drivers" / "buttons.py")
    manifest = json.loads(path.read_text())  # the changed file's new hash written in: the signature fails
    manifest["files"]["drivers/buttons.py"] = hashlib.sha256((copy / "drivers" / "buttons.py").read_bytes()).hexdigest()
    path.write_text(json.dumps(manifest))
    done = verify(copy)
    assert done.returncode == 1 and "REFUSED" in done.stderr
    signature = bytearray(json.loads(path.read_text())["signature"], "ascii")
    signature[5] = ord("A") if signature[5] != ord("A") else ord("B")
    manifest["signature"] = signature.decode()
    path.write_text(json.dumps(manifest))
    done = verify(copy)
    assert done.returncode == 1 and "REFUSED" in done.stderr


def test_unusable_arguments_exit_2(copy: Path) -> None:
    tmp = copy.parent
    assert os.stat(tmp / "sign.key").st_mode & 0o777 == 0o600
    done = croupier(copy, "integrity", "key", "--out", str(tmp / "sign.key"))
    assert done.returncode == 2 and "not overwritten" in done.stderr
    sign(copy)
    done = verify(copy, pubkey=tmp / "sign.key")  # the secret key given as the public one
    assert done.returncode == 2 and "not an Ed25519 public key" in done.stderr
    done = croupier(copy, "integrity", "verify", "--manifest", str(tmp / "nope.json"), "--pubkey",
                    str(tmp / "sign.key.pub"))
    assert done.returncode == 2 and "nope.json: cannot read" in done.stderr
    done = croupier(copy, "integrity", "sign", "--key", str(tmp / "sign.key.pub"))
    assert done.returncode == 2 and "secret key" in done.stderr
    assert "Traceback" not in done.stderr


def test_hash_tree_leaves_out_pycache_and_does_not_follow_a_linked_directory(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"x")
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.py").write_text("B = 2\n")
    (tmp_path / "pkg" / "sub").symlink_to(tmp_path / "elsewhere")
    tree = mf.hash_tree(tmp_path / "pkg", "pkg")
    assert tree == {"pkg/a.py": hashlib.sha256(b"A = 1\n").hexdigest(),
                    "pkg/sub": f"symlink:{tmp_path / 'elsewhere'}"}


# -- croupier run ------------------------------------------------------------------------------------


def signed_table(copy: Path, key: str = "") -> Path:
    tmp = copy.parent
    config = table_config(tmp, f"ipc://{tmp}/commands")
    with config.open("a", encoding="utf-8") as f:
        f.write(f'[security]\nmanifest = "{tmp / "manifest.json"}"\n'
                f'manifest_key = "{key or tmp / "sign.key.pub"}"\nprofiles = "{tmp / "profiles"}"\n')
    return config


def test_a_changed_module_stops_the_start(copy: Path) -> None:
    sign(copy)
    flip_a_byte(copy / "protocol" / "commands" / "codec.py")
    state = copy.parent / "state"
    done = croupier(copy, "run", "--config", str(signed_table(copy)), "--state", str(state))
    assert done.returncode == 1
    assert "protocol/commands/codec.py: changed" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # never ready
    assert not (state / "journal.sqlite3").exists()  # stopped before the journal
    audit = AuditLog.open(state, readonly=True)
    try:
        entries = audit.entries()
    finally:
        audit.close()
    assert [e.kind for e in entries] == ["integrity_failed"]
    assert entries[0].details["files"] == ["protocol/commands/codec.py: changed"]


def test_a_missing_key_file_is_a_configuration_error(copy: Path) -> None:
    sign(copy)
    done = croupier(copy, "run", "--config", str(signed_table(copy, key=str(copy.parent / "gone.pub"))),
                    "--state", str(copy.parent / "state"))
    assert done.returncode == 2
    assert "[security] manifest_key" in done.stderr and "gone.pub" in done.stderr


def test_an_unchanged_copy_starts_and_records_the_manifest(copy: Path) -> None:
    manifest = sign(copy)
    state = copy.parent / "state"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", "--config", str(signed_table(copy)),
                             "--state", str(state)], cwd=copy, env=_env(copy), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, proc.stderr.read() if proc.stderr else ""
        assert json.loads(line)["ready"] is True
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 0
    audit = AuditLog.open(state, readonly=True)
    try:
        start = next(e for e in audit.entries() if e.kind == "start")
    finally:
        audit.close()
    assert start.details["manifest_sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()


# -- the Pi's install script ---------------------------------------------------------------------------


def test_the_install_script_signs_the_installed_code_with_a_key_it_does_not_copy(tmp_path: Path) -> None:
    root, stick = tmp_path / "root", tmp_path / "stick"
    stick.mkdir()
    mf.new_key_pair(stick / "table-sign.key")
    venv_bin = root / "opt" / "croupier" / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "croupier").symlink_to(Path(sys.executable).parent / "croupier")  # this checkout, installed
    done = subprocess.run(["bash", str(REPO / "deploy" / "install-pi.sh"), "--root", str(root), "--no-venv",
                           "--sign-key", str(stick / "table-sign.key")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    conf = root / "etc" / "croupier"
    assert (conf / "manifest.pub").read_bytes() == (stick / "table-sign.key.pub").read_bytes()
    assert not [p for p in root.rglob("*") if p.is_file() and p.read_bytes() == (stick / "table-sign.key").read_bytes()]
    checked = subprocess.run([str(venv_bin / "croupier"), "integrity", "verify", "--manifest",
                              str(conf / "manifest.json"), "--pubkey", str(conf / "manifest.pub")],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr
