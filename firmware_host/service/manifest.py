"""The code's signed manifest: the SHA-256 of every installed module file and profile, signed with Ed25519.

A manifest is one JSON file:

    {"format": "croupier-manifest/1", "version": "0.1.0",
     "files": {"drivers/__init__.py": "<sha256 hex>", ..., "profiles/house.toml": "<sha256 hex>"},
     "signature": "<base64 Ed25519 signature>"}

`files` names every regular file of the packages `engine`, `drivers` and `firmware_host` as found on
each package's `__path__` (so an editable install and a wheel are hashed alike; `__pycache__`
directories are left out, every other file is in: a stray `.pyc`, `.so` or data file is code as
much as a `.py`), as `PACKAGE/RELATIVE/PATH`, and every file of the profiles directory as
`profiles/RELATIVE/PATH`. A symlink to a directory is not followed: it stands as one entry whose
value is `symlink:TARGET`. The signature is over `canonical(body)`: the manifest without its
`signature`, as JSON with sorted keys, no spaces, ASCII only. The keys are PEM files (PKCS#8 for
the secret key, SubjectPublicKeyInfo for the public one: `openssl pkey` reads both).

Ed25519 from `cryptography` (pyproject.toml says why that library).

Bytecode: the manifest covers sources, but Python loads a `__pycache__/*.pyc` instead of its source
when the bytecode's recorded source time and size match, so a forged `.pyc` beside a signed module
would run unseen. A signed table therefore runs with bytecode off: `PYTHONDONTWRITEBYTECODE=1` and
`PYTHONPYCACHEPREFIX=/dev/null/bytecode` (`NO_BYTECODE`; the systemd units set both), under which
Python reads and writes bytecode only below a path where no file can exist, and compiles every module
from its signed source. `croupier run` with a manifest refuses to start otherwise (`bytecode_off`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import importlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from protocol import packages

FORMAT = "croupier-manifest/1"
PACKAGES = packages.TABLE
"""The packages the manifest must cover (each other top folder installed beside them is covered too: `packages.installed`)."""
PROFILES = "profiles"
"""The prefix of the profiles directory's files in `files`."""
SKIPPED_DIRS = frozenset({"__pycache__"})
NO_BYTECODE = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/dev/null/bytecode"}
"""The environment a signed table runs in: no bytecode written, none read beside the sources (see above)."""


class ManifestError(ValueError):
    """A manifest, key or directory that cannot be used at all (unreadable, not a manifest, not a key)."""


class SignatureRefused(ValueError):
    """The manifest's signature does not hold for the public key: it was changed or signed with another key."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One file that is not as the manifest says: `change` is `changed`, `missing` or `added`."""

    path: str
    change: str

    def __str__(self) -> str:
        return f"{self.path}: {self.change}"


@dataclass(frozen=True, slots=True)
class Checked:
    """What a verification found: the manifest's version, how many files it names, and what differs."""

    version: str
    files: int
    differences: list[Difference]

    @property
    def ok(self) -> bool:
        return not self.differences


# -- hashing -----------------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    """SHA-256 hex of the file's bytes, or `unreadable: REASON` (a file that cannot be read differs)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 16), b""):
                digest.update(block)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return digest.hexdigest()


def hash_tree(root: Path, prefix: str) -> dict[str, str]:
    """Every file under `root` (`__pycache__` left out) as `PREFIX/RELATIVE/PATH` -> its SHA-256 hex;
    a symlinked directory as one entry `symlink:TARGET`, not followed."""
    out: dict[str, str] = {}
    for here, dirs, names in os.walk(root, followlinks=False):
        base = Path(here)
        rel_base = base.relative_to(root).as_posix()
        key_base = prefix if rel_base == "." else f"{prefix}/{rel_base}"
        for d in list(dirs):
            if d in SKIPPED_DIRS:
                dirs.remove(d)
            elif (base / d).is_symlink():
                out[f"{key_base}/{d}"] = f"symlink:{os.readlink(base / d)}"
        for name in names:
            out[f"{key_base}/{name}"] = file_sha256(base / name)
    return out


def installed_files(names: Iterable[str] | None = None) -> dict[str, str]:
    """The hashes of the installed files of `names` (by default every installed top folder of ours:
    `packages.installed`), found from each package's `__path__`. Raises ManifestError when a package cannot
    be imported."""
    out: dict[str, str] = {}
    for name in packages.installed() if names is None else names:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ManifestError(f"package {name} is not installed: {exc}") from exc
        for location in getattr(module, "__path__", ()):
            out.update(hash_tree(Path(location), name))
    return out


def profile_files(directory: str | Path | None) -> dict[str, str]:
    """The hashes of the profiles directory's files (none for no directory). Raises ManifestError
    when `directory` is not a directory."""
    if not directory:
        return {}
    root = Path(directory)
    if not root.is_dir():
        raise ManifestError(f"profiles directory {root}: not a directory")
    return hash_tree(root, PROFILES)


# -- building, signing, checking -----------------------------------------------------------------------


def build(version: str, files: Mapping[str, str]) -> dict[str, Any]:
    """The manifest's body (what is signed)."""
    return {"format": FORMAT, "version": version, "files": dict(sorted(files.items()))}


def canonical(body: Mapping[str, Any]) -> bytes:
    """The bytes the signature is over: JSON with sorted keys, no spaces, ASCII only.

    >>> canonical({"version": "1", "format": "f", "files": {"b": "2", "a": "1"}})
    b'{"files":{"a":"1","b":"2"},"format":"f","version":"1"}'
    """
    return json.dumps(dict(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def sign(body: Mapping[str, Any], secret: Ed25519PrivateKey) -> dict[str, Any]:
    """The signed manifest: `body` with its `signature`."""
    signature = base64.b64encode(secret.sign(canonical(body))).decode("ascii")
    return {**body, "signature": signature}


def check_signature(manifest: Mapping[str, Any], public: Ed25519PublicKey) -> dict[str, Any]:
    """The manifest's body once its signature holds. Raises SignatureRefused."""
    body = {k: v for k, v in manifest.items() if k != "signature"}
    try:
        signature = base64.b64decode(str(manifest.get("signature", "")), validate=True)
        public.verify(signature, canonical(body))
    except (InvalidSignature, binascii.Error, ValueError) as exc:
        raise SignatureRefused("the manifest's signature does not hold for this public key (the manifest was "
                               "changed, or signed with another key)") from exc
    return body


def compare(expected: Mapping[str, str], actual: Mapping[str, str]) -> list[Difference]:
    """Each file changed, missing or added, in path order.

    >>> [str(d) for d in compare({"a": "1", "b": "2"}, {"a": "9", "c": "3"})]
    ['a: changed', 'b: missing', 'c: added']
    """
    out = [Difference(p, "changed") for p in expected if p in actual and actual[p] != expected[p]]
    out += [Difference(p, "missing") for p in expected if p not in actual]
    out += [Difference(p, "added") for p in actual if p not in expected]
    return sorted(out, key=lambda d: d.path)


def verify(manifest: Mapping[str, Any], public: Ed25519PublicKey, actual: Mapping[str, str]) -> Checked:
    """Check the signature, then every file of `actual` (`installed_files() | profile_files(DIR)`)
    against it. Raises SignatureRefused, or ManifestError for a signed body that is not a manifest."""
    body = check_signature(manifest, public)
    files = body.get("files")
    if body.get("format") != FORMAT or not isinstance(files, dict):
        raise ManifestError(f"not a {FORMAT} manifest")
    return Checked(str(body.get("version", "")), len(files), compare(files, actual))


# -- files -------------------------------------------------------------------------------------------


def load(path: str | Path) -> dict[str, Any]:
    """Read a manifest file. Raises ManifestError (unreadable, not JSON, not a manifest)."""
    try:
        data = json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise ManifestError(f"manifest {path}: cannot read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ManifestError(f"manifest {path}: not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or "signature" not in data:
        raise ManifestError(f"manifest {path}: not a signed {FORMAT} manifest")
    return data


def file_hash(path: str | Path) -> str:
    """SHA-256 hex of a manifest file's bytes (what a verified start's audit entry records)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_manifest(path: str | Path, manifest: Mapping[str, Any]) -> None:
    """Write a signed manifest (indented JSON: readable, and only `canonical` is signed)."""
    Path(path).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="ascii")


def new_key_pair(secret_path: str | Path) -> Path:
    """Write a new Ed25519 key pair: the secret key at `secret_path` (mode 0600) and the public key
    beside it as `secret_path.pub`; returns the public key's path. Raises ManifestError when either
    file exists (never overwritten) or cannot be written."""
    secret_file = Path(secret_path)
    public_file = secret_file.with_name(secret_file.name + ".pub")
    for path in (secret_file, public_file):
        if path.exists() or path.is_symlink():
            raise ManifestError(f"{path} exists: not overwritten (move it away, or choose another --out)")
    key = Ed25519PrivateKey.generate()
    secret = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secret)
        os.chmod(secret_file, 0o600)  # whatever the umask
        fd = os.open(public_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(public)
    except OSError as exc:
        raise ManifestError(f"cannot write the key pair: {exc.strerror or exc}: {exc.filename}") from exc
    return public_file


def load_secret_key(path: str | Path) -> Ed25519PrivateKey:
    """Read a secret key file. Raises ManifestError (unreadable, not an Ed25519 secret key)."""
    key = _load_key(path, "secret", serialization.load_pem_private_key)
    if not isinstance(key, Ed25519PrivateKey):
        raise ManifestError(f"{path}: not an Ed25519 secret key")
    return key


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    """Read a public key file. Raises ManifestError (unreadable, not an Ed25519 public key)."""
    key = _load_key(path, "public", serialization.load_pem_public_key)
    if not isinstance(key, Ed25519PublicKey):
        raise ManifestError(f"{path}: not an Ed25519 public key")
    return key


def _load_key(path: str | Path, what: str, loader: Any) -> Any:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read the {what} key: {exc.strerror or exc}") from exc
    try:
        if what == "secret":
            return loader(data, password=None)
        return loader(data)
    except (ValueError, TypeError) as exc:  # not PEM, another kind of key, encrypted
        raise ManifestError(f"{path}: not an Ed25519 {what} key file ({exc})") from exc


# -- at start ----------------------------------------------------------------------------------------


class CodeChanged(RuntimeError):
    """The installed code or profiles are not what the manifest says, or its signature fails: the
    start stops. `differences` names each file (empty for a refused signature)."""

    def __init__(self, message: str, differences: list[Difference], manifest: str) -> None:
        super().__init__(message)
        self.differences = differences
        self.manifest = manifest


def check_at_start(manifest_path: str, key_path: str, profiles: str, source: str) -> str | None:
    """Verify the code before the start, as `[security] manifest`, `manifest_key` and `profiles`
    (from the configuration file `source`) say: None when no manifest is configured, else the
    manifest file's SHA-256 once every file holds.

    Raises ManifestError naming the configuration's key when the manifest, its key or the profiles
    directory cannot be used (a configuration problem), CodeChanged when the signature or a file fails."""
    if not manifest_path:
        if key_path:
            raise ManifestError(f"{source}: [security] manifest: needed with [security] manifest_key")
        return None
    if not key_path:
        raise ManifestError(f"{source}: [security] manifest_key: the public key the manifest "
                            f"{manifest_path} is signed with is needed with [security] manifest")
    why = bytecode_off()
    if why is not None:
        raise ManifestError(f"{source}: [security] manifest: the signed code runs only with bytecode off, but {why}; "
                            f"start it with " + " ".join(f"{k}={v}" for k, v in NO_BYTECODE.items())
                            + " (deploy/croupier.service sets them)")
    public = _at(source, "manifest_key", load_public_key, key_path)
    manifest = _at(source, "manifest", load, manifest_path)
    actual = installed_files()
    actual.update(_at(source, "profiles", profile_files, profiles))
    try:
        checked = verify(manifest, public, actual)
    except (SignatureRefused, ManifestError) as exc:
        raise CodeChanged(f"code integrity: {manifest_path}: {exc}", [], manifest_path) from exc
    if not checked.ok:
        listed = "; ".join(str(d) for d in checked.differences)
        raise CodeChanged(f"code integrity: {len(checked.differences)} file(s) differ from the signed manifest "
                          f"{manifest_path}: {listed}", checked.differences, manifest_path)
    return file_hash(manifest_path)


def bytecode_off() -> str | None:
    """None when this interpreter reads no bytecode beside the signed sources and writes none; else why not."""
    if not sys.flags.dont_write_bytecode:
        return "Python writes bytecode (PYTHONDONTWRITEBYTECODE is not set)"
    prefix = sys.pycache_prefix
    if prefix is None:
        return "Python reads the __pycache__ bytecode beside the signed sources (PYTHONPYCACHEPREFIX is not set)"
    for _here, _dirs, names in os.walk(prefix):
        if names:
            return f"its bytecode directory {prefix} holds files"
    return None


def _at(source: str, key: str, reader: Any, value: str) -> Any:
    try:
        return reader(value)
    except ManifestError as exc:
        raise ManifestError(f"{source}: [security] {key}: {exc}") from exc
