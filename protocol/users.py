"""The users file: the people who sign off privileged steps, each with a role and a salted scrypt hash of their PIN.

A JSON file (`[security] users`, written by `croupier users add`), never holding a PIN:

    {"users": {"ana": {"role": "supervisor",
                       "scrypt": {"n": 16384, "r": 8, "p": 1, "dklen": 32, "salt": "<hex>", "hash": "<hex>"}}}}

The hash's parameters are kept beside it, so a file written with other costs still checks. The file
is written whole to a temporary file beside it and renamed over it (never half written), mode 0600.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.access import ROLES
from protocol.file_modes import FileModeError, check_secret, write_secret

MIN_PIN_DIGITS = 4
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN = 2 ** 14, 8, 1, 32
"""The costs a new PIN is hashed with (about 16 MB and a few tens of milliseconds a check)."""
_MAX_FILE_BYTES = 1_000_000


class UsersError(ValueError):
    """A users file that cannot be read or written, a bad user name, role or PIN."""


@dataclass(frozen=True, slots=True)
class User:
    """One user: name, role and the PIN's scrypt hash with its parameters (never the PIN)."""

    name: str
    role: str
    salt: bytes
    hash: bytes
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P

    @classmethod
    def with_pin(cls, name: str, role: str, pin: str) -> User:
        """A new user whose PIN is hashed now with a fresh salt. Raises UsersError (bad name, role, PIN)."""
        check_name(name)
        if role not in ROLES:
            raise UsersError(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        check_pin(pin)
        salt = secrets.token_bytes(16)
        return cls(name, role, salt, _scrypt(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN))

    def pin_matches(self, pin: str) -> bool:
        """Whether `pin` is this user's PIN (compared in constant time)."""
        if not isinstance(pin, str) or not pin:
            return False
        return hmac.compare_digest(_scrypt(pin, self.salt, self.n, self.r, self.p, len(self.hash)), self.hash)

    def as_json(self) -> dict[str, Any]:
        return {"role": self.role, "scrypt": {"n": self.n, "r": self.r, "p": self.p, "dklen": len(self.hash),
                                              "salt": self.salt.hex(), "hash": self.hash.hex()}}

    @classmethod
    def from_json(cls, name: str, data: Any) -> User:
        """Raises UsersError naming the user and what is wrong."""
        try:
            check_name(name)
            role, terms = data["role"], data["scrypt"]
            if role not in ROLES:
                raise UsersError(f"unknown role {role!r}")
            n, r, p = (int(terms[k]) for k in ("n", "r", "p"))
            salt, digest = bytes.fromhex(terms["salt"]), bytes.fromhex(terms["hash"])
        except UsersError as exc:
            raise UsersError(f"user {name!r}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise UsersError(f"user {name!r}: not a role and a scrypt hash ({type(exc).__name__}: {exc})") from None
        if n < 2 or n & (n - 1) or not 1 <= r <= 64 or not 1 <= p <= 16 or not salt or len(digest) < 16:
            raise UsersError(f"user {name!r}: scrypt parameters out of range")
        return cls(name, role, salt, digest, n, r, p)


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=256 * 1024 * 1024)


def check_name(name: str) -> None:
    """Raises UsersError for a name that is empty, too long or holds anything but letters, digits, `.-_`."""
    if not name or len(name) > 64 or not all(c.isalnum() or c in ".-_" for c in name):
        raise UsersError(f"bad user name {name!r}: 1 to 64 letters, digits, '.', '-' or '_'")


def check_pin(pin: str) -> None:
    """Raises UsersError for a PIN that is not at least MIN_PIN_DIGITS digits."""
    if not (pin.isascii() and pin.isdigit()) or len(pin) < MIN_PIN_DIGITS:
        raise UsersError(f"a PIN is at least {MIN_PIN_DIGITS} digits (0-9), nothing else")


class Users:
    """The users of one file, by name."""

    def __init__(self, users: Mapping[str, User] | None = None) -> None:
        self.by_name: dict[str, User] = dict(users or {})

    def get(self, name: str) -> User | None:
        return self.by_name.get(name)

    @classmethod
    def load(cls, path: str | Path) -> Users:
        """Read a users file. Raises UsersError naming the file and what is wrong (also a file other users may
        read or change: the PINs' hashes are secrets, `file_modes`)."""
        try:
            with open(path, "rb") as f:
                raw = f.read(_MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise UsersError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if len(raw) > _MAX_FILE_BYTES:
            raise UsersError(f"{path}: larger than {_MAX_FILE_BYTES} bytes: not a users file")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UsersError(f"{path}: not a users file (not JSON: {exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("users"), dict):
            raise UsersError(f"{path}: not a users file (no \"users\" map)")
        try:
            users = cls({name: User.from_json(name, entry) for name, entry in data["users"].items()})
        except UsersError as exc:
            raise UsersError(f"{path}: {exc}") from None
        try:
            check_secret(path, "users file")
        except FileModeError as exc:
            raise UsersError(str(exc)) from None
        return users

    @classmethod
    def load_or_empty(cls, path: str | Path) -> Users:
        """The file's users, or none when there is no file yet. Raises UsersError."""
        return cls.load(path) if Path(path).exists() else cls()

    def save(self, path: str | Path) -> None:
        """Write the file atomically (a temporary file renamed over it), mode 0600. Raises UsersError."""
        text = json.dumps({"users": {n: u.as_json() for n, u in sorted(self.by_name.items())}}, indent=2) + "\n"
        try:
            write_secret(path, text)
        except OSError as exc:
            raise UsersError(f"{path}: cannot write: {exc.strerror or exc}") from None
