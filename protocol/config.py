"""The checks every Croupier configuration file shares: reading TOML, typed values, endpoints, keys and roles."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import tomltext
from engine.money import Money
from protocol import access
from protocol.file_modes import FileModeError, check_trusted
from protocol.keys import KeyFileError, KeyPair, load_secret


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names file, section and key."""



@dataclass(frozen=True, slots=True)
class SecurityConfig:
    """`[security]`: keys, users and the code manifest (`docs/security.md`).

    `server_key` is the table's secret certificate (`croupier keys new NAME --role table`) and
    `clients` the directory of the client certificates allowed in: with both set, every TCP socket
    is a CURVE server. `users` is the supervisors' file (`croupier users add`), `manifest` the
    signed list of the code's hashes checked before the start (`croupier integrity sign`) and
    `manifest_key` the public key it is signed with. `profiles` is the only directory `open` reads
    a profile file from. `local_role` is the role of a local client (loopback, ipc) without CURVE.
    `full_delay_s` holds every full-feed message back that long.
    """

    server_key: str = ""
    clients: str = ""
    users: str = ""
    manifest: str = ""
    manifest_key: str = ""
    profiles: str = ""
    local_role: str = "dealer"
    full_delay_s: float = 0.0

    @property
    def curve(self) -> bool:
        """Whether the TCP sockets are CURVE servers."""
        return bool(self.server_key)


@dataclass(frozen=True, slots=True)
class AccessConfig:
    """`[access]`: socket -> the roles whose keys may connect to it (`access.DEFAULT_ACCESS`)."""

    public: tuple[str, ...] = access.DEFAULT_ACCESS["public"]
    snapshot: tuple[str, ...] = access.DEFAULT_ACCESS["snapshot"]
    full: tuple[str, ...] = access.DEFAULT_ACCESS["full"]
    full_snapshot: tuple[str, ...] = access.DEFAULT_ACCESS["full_snapshot"]
    commands: tuple[str, ...] = access.DEFAULT_ACCESS["commands"]

    def roles(self, socket: str) -> tuple[str, ...]:
        roles: tuple[str, ...] = getattr(self, socket)
        return roles


@dataclass(frozen=True, slots=True)
class RightsConfig:
    """`[rights]`: role -> the commands it may send (`access.DEFAULT_RIGHTS`; unlisted: none)."""

    dealer: tuple[str, ...] = access.DEFAULT_RIGHTS["dealer"]
    supervisor: tuple[str, ...] = access.DEFAULT_RIGHTS["supervisor"]
    pit: tuple[str, ...] = access.DEFAULT_RIGHTS["pit"]
    surveillance: tuple[str, ...] = access.DEFAULT_RIGHTS["surveillance"]
    display: tuple[str, ...] = ()
    technician: tuple[str, ...] = access.DEFAULT_RIGHTS["technician"]
    table: tuple[str, ...] = ()

    def allows(self, role: str, cmd: str) -> bool:
        return role in access.ROLES and cmd in getattr(self, role)



def read_text(path: str | Path) -> str:
    """A configuration file's text. Raises ConfigError naming it (unreadable, not UTF-8)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text as data. Raises ConfigError naming `source` ("not valid TOML: ...")."""
    try:
        return tomltext.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc


# -- schema: section -> key -> checker ------------------------------------------------------------

Checker = Callable[[Any], Any]  # returns the typed value or raises ValueError with the reason


def string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"must be a string, not {type(v).__name__}")
    return v


def plain_name(v: Any) -> str:
    text = string(v)
    if not text or len(text) > 64 or not all(c.isalnum() or c in "-_." for c in text):
        raise ValueError("must be 1 to 64 letters, digits, '-', '_' or '.'")
    return text


def integer(lo: int, hi: int | None = None) -> Checker:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be an integer, not {type(v).__name__}")
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}")
        return v
    return check


def seconds(lo: float, hi: float) -> Checker:
    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"must be a number of seconds, not {type(v).__name__}")
        if not lo <= v <= hi:
            raise ValueError(f"must be between {lo} and {hi} seconds")
        return float(v)
    return check


def rate(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"must be a number of requests a second, not {type(v).__name__}")
    if not 0.001 <= v <= 10**6:
        raise ValueError("must be between 0.001 and 1000000 requests a second")
    return float(v)


def boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"must be true or false, not {v!r}")
    return v


def one_of(*choices: str) -> Checker:
    def check(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"must be one of {', '.join(repr(c) for c in choices)}, not {v!r}")
        return str(v)
    return check


def integer_list(lo: int, hi: int, most: int) -> Checker:
    def check(v: Any) -> tuple[int, ...]:
        if not isinstance(v, list) or len(v) > most:
            raise ValueError(f"must be a list of at most {most} integers")
        return tuple(integer(lo, hi)(x) for x in v)
    return check


def names_of(choices: tuple[str, ...], what: str) -> Checker:
    def check(v: Any) -> tuple[str, ...]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"must be a list of {what}")
        unknown = [x for x in v if x not in choices]
        if unknown:
            raise ValueError(f"unknown {what} {', '.join(map(repr, unknown))} (known: {', '.join(choices)})")
        return tuple(dict.fromkeys(v))
    return check


def endpoint(v: Any) -> str:
    text = string(v)
    if not text.startswith(("tcp://", "ipc://", "inproc://")) or len(text) < 8:
        raise ValueError(f"must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not {text!r}")
    return text


def optional_endpoint(v: Any) -> str:
    return "" if v == "" else endpoint(v)


def currency(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"must be a currency code string like \"EUR\", not {v!r}")
    return Money.of(v).currency


def host_port(v: Any) -> str:
    text = string(v)
    host, _, port = text.rpartition(":")
    if text and (not host or not port.isdigit() or not 0 < int(port) < 65536):
        raise ValueError(f"must be HOST:PORT, not {text!r}")
    return text



def is_restricted_endpoint(endpoint: str) -> bool:
    """True for ipc://, inproc:// and tcp:// bound to a loopback address only."""
    if endpoint.startswith(("ipc://", "inproc://")):
        return True
    if endpoint.startswith("tcp://"):
        host = endpoint[6:].rsplit(":", 1)[0]
        return host in ("localhost", "::1", "[::1]") or host.startswith("127.")
    return False



def table_keys(security: SecurityConfig, source: str) -> KeyPair | None:
    """The table's key pair from `[security] server_key`, the clients directory checked; None
    without CURVE. Raises ConfigError naming the file, section and key (a missing, unreadable or
    public-only certificate, a clients directory that is not one)."""
    if not security.server_key:
        return None
    try:
        pair = load_secret(security.server_key)
    except KeyFileError as exc:
        raise ConfigError(f"{source}: [security] server_key: {exc}") from None
    clients = Path(security.clients)
    if not clients.is_dir() or not os.access(clients, os.R_OK | os.X_OK):
        raise ConfigError(f"{source}: [security] clients: {clients}: not a readable directory")
    try:
        check_trusted(clients, "the clients directory")
    except FileModeError as exc:
        raise ConfigError(f"{source}: [security] clients: {exc}") from None
    return pair
