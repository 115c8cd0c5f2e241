"""CURVE certificates: pyzmq certificate files with the role in their metadata, made, listed, revoked and loaded.

`croupier keys new NAME --role ROLE --dir DIR` writes `DIR/NAME.key` (public) and `DIR/NAME.key_secret`
(secret, mode 0600) with `zmq.auth.create_certificates`; pyzmq writes the metadata (the role) into the
secret file only, so the public file is written again here in pyzmq's own layout with the same
`metadata` section: the server reads a client's role from the public certificate it was given.
`zmq.auth.load_certificate` reads both files as before.

A clients directory is every `*.key` file in it (`load_clients`); one that cannot be read, holds no
public key, or names no known role is skipped with the reason logged, never a crash. Revoking moves
`DIR/NAME.key` into `DIR/revoked/`, out of the allowed set.
"""

from __future__ import annotations

import datetime
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.auth

from protocol import access
from protocol.file_modes import FileModeError, check_secret, check_trusted

log = logging.getLogger("croupier.keys")

REVOKED = "revoked"
"""The sub-directory of a clients directory that revoked certificates are moved into."""


class KeyFileError(ValueError):
    """A certificate that cannot be made, read or used; the message names the file."""


@dataclass(frozen=True, slots=True)
class Certificate:
    """One certificate: its name (the file's stem), public key (Z85 text), role, and file."""

    name: str
    public: str
    role: str
    path: Path

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "role": self.role, "public_key": self.public, "file": str(self.path)}


@dataclass(frozen=True, slots=True)
class KeyPair:
    """A secret certificate as a socket takes it (Z85 bytes)."""

    public: bytes
    secret: bytes


def _check_name(name: str) -> str:
    if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
        raise KeyFileError(f"a key's name is 1 to 64 letters, digits, '-', '_' or '.', not {name!r}")
    return name


def create(directory: str | Path, name: str, role: str) -> tuple[Path, Path]:
    """Write `NAME.key` and `NAME.key_secret` (mode 0600) in `directory` (made if absent). Raises
    KeyFileError for a bad name or role, or a name that already exists there (nothing written)."""
    _check_name(name)
    if role not in access.ROLES:
        raise KeyFileError(f"unknown role {role!r} (known: {', '.join(access.ROLES)})")
    folder = Path(directory)
    public, secret = folder / f"{name}.key", folder / f"{name}.key_secret"
    taken = [str(p) for p in (public, secret, folder / REVOKED / f"{name}.key") if p.exists()]
    if taken:
        raise KeyFileError(f"{taken[0]}: a key named {name!r} already exists (revoked keys keep their name)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        old = os.umask(0o077)  # the secret file is never readable by others, not even for an instant
        try:
            made_public, made_secret = zmq.auth.create_certificates(folder, name, metadata={"role": role})
        finally:
            os.umask(old)
        os.chmod(made_secret, 0o600)
        public_key, _ = zmq.auth.load_certificate(made_public)
        _write_public(Path(made_public), public_key.decode("ascii"), role)
    except OSError as exc:
        raise KeyFileError(f"{folder}: cannot write the certificates: {exc.strerror or exc}") from exc
    return public, secret


def _write_public(path: Path, public: str, role: str) -> None:
    """The public certificate in pyzmq's layout, with the role in its metadata."""
    path.write_text(f"#   ****  Generated on {datetime.datetime.now()} by croupier keys new  ****\n"
                    "#   ZeroMQ CURVE Public Certificate\n"
                    "#   A client's goes into the table's clients directory; the table's own to its clients.\n\n"
                    f"metadata\n    role = {role}\ncurve\n    public-key = \"{public}\"\n", encoding="utf-8")
    os.chmod(path, 0o644)


def metadata_of(path: str | Path) -> dict[str, str]:
    """The `metadata` section of a certificate file. Raises OSError, UnicodeDecodeError."""
    meta: dict[str, str] = {}
    section = ""
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        text = line.rstrip()
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if not text[0].isspace():
            section = text.strip()
            continue
        key, sep, value = text.strip().partition("=")
        if section == "metadata" and sep:
            meta[key.strip()] = value.strip().strip("\"'")
    return meta


def read_certificate(path: str | Path) -> Certificate:
    """One certificate file (public or secret). Raises KeyFileError naming the file and why."""
    file = Path(path)
    try:
        public, _ = zmq.auth.load_certificate(file)
        role = metadata_of(file).get("role", "")
    except (OSError, ValueError) as exc:  # unreadable, not text, no public key
        raise KeyFileError(f"{file}: not a certificate: {getattr(exc, 'strerror', None) or exc}") from None
    if len(public) != 40:
        raise KeyFileError(f"{file}: its public-key is not a 40-character Z85 CURVE key")
    if role not in access.ROLES:
        raise KeyFileError(f"{file}: no known role in its metadata ({role!r}; known: {', '.join(access.ROLES)})")
    name = file.name.removesuffix(".key_secret").removesuffix(".key")
    return Certificate(name, public.decode("ascii"), role, file)


def load_clients(directory: str | Path) -> dict[str, Certificate]:
    """The allowed client certificates of a directory: name -> certificate. A bad file is skipped,
    its reason logged; a directory that cannot be read is none allowed (logged)."""
    folder = Path(directory)
    try:
        check_trusted(folder, "clients directory")
    except FileModeError as exc:
        log.error("%s: no client is allowed", exc)
        return {}
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".key" and p.is_file())
    except OSError as exc:
        log.error("clients directory %s cannot be read: %s: no client is allowed", folder, exc.strerror or exc)
        return {}
    found: dict[str, Certificate] = {}
    for file in files:
        try:
            check_trusted(file, "client certificate")
        except FileModeError as exc:
            log.warning("certificate skipped: %s", exc)
            continue
        try:
            cert = read_certificate(file)
        except KeyFileError as exc:
            log.warning("certificate skipped: %s", exc)
            continue
        found[cert.name] = cert
    return found


def directory_stamp(directory: str | Path) -> tuple[Any, ...]:
    """What changes when a certificate of the directory is added, removed or rewritten."""
    folder = Path(directory)
    try:
        stat = folder.stat()
        files = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.iterdir() if p.suffix == ".key")
    except OSError:
        return ("unreadable",)
    return (stat.st_mtime_ns, *files)


def list_certificates(directory: str | Path) -> tuple[list[Certificate], list[str]]:
    """Every certificate of a directory (public files, and secret ones without a public file beside
    them) and the reasons of those that cannot be read. Raises KeyFileError when it is no directory."""
    folder = Path(directory)
    if not folder.is_dir():
        raise KeyFileError(f"{folder}: no such directory")
    certs, bad = [], []
    publics = {p.stem for p in folder.glob("*.key")}
    for file in sorted([*folder.glob("*.key"), *(p for p in folder.glob("*.key_secret") if p.stem not in publics)]):
        try:
            certs.append(read_certificate(file))
        except KeyFileError as exc:
            bad.append(str(exc))
    return certs, bad


def revoke(directory: str | Path, name: str) -> Path:
    """Move `DIR/NAME.key` into `DIR/revoked/`. Returns where it went. Raises KeyFileError."""
    folder = Path(directory)
    public = folder / f"{_check_name(name)}.key"
    if not public.is_file():
        raise KeyFileError(f"{public}: no such certificate in the clients directory")
    target = folder / REVOKED / public.name
    try:
        target.parent.mkdir(exist_ok=True)
        shutil.move(public, target)
    except OSError as exc:
        raise KeyFileError(f"{public}: cannot be moved to {target.parent}: {exc.strerror or exc}") from exc
    return target


def load_secret(path: str | Path) -> KeyPair:
    """A secret certificate (the table's `server_key`, or a client's `--key`). Raises KeyFileError (also for a
    file other users may read or change: `file_modes`)."""
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise KeyFileError(f"{path}: not a certificate: {getattr(exc, 'strerror', None) or exc}") from None
    if secret is None or len(secret) != 40 or len(public) != 40:
        raise KeyFileError(f"{path}: not a secret certificate (no 40-character secret-key): give the .key_secret file")
    try:
        check_secret(path, "secret certificate")
    except FileModeError as exc:
        raise KeyFileError(str(exc)) from None
    return KeyPair(public, secret)


def load_public(path: str | Path) -> bytes:
    """The public key of a certificate (the table's, for a client's `--server-key`). Raises KeyFileError."""
    try:
        public, _ = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise KeyFileError(f"{path}: not a certificate: {getattr(exc, 'strerror', None) or exc}") from None
    if len(public) != 40:
        raise KeyFileError(f"{path}: its public-key is not a 40-character Z85 CURVE key")
    return public


def serve_curve(sock: zmq.Socket[Any], endpoint: str, keys: KeyPair | None, domain: str) -> None:
    """Make `sock` a CURVE server checked under ZAP domain `domain` when `endpoint` is TCP and the
    table has keys (before it is bound); ipc:// and inproc:// stay plaintext, for local processes."""
    if keys is None or not endpoint.startswith("tcp://"):
        return
    sock.curve_secretkey = keys.secret
    sock.curve_publickey = keys.public
    sock.curve_server = True
    sock.zap_domain = domain.encode("ascii")
