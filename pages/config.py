"""What the configurations of both web processes share: their common keys and the one check of them (the listening address, TLS, users and sessions, language, origins, the tables and the tournament followed).

The table's display (`[display]`, `firmware_host/display/config.py`) and the floor's web process (`[web]`,
`floor/web/config.py`) declare their sections each with its own keys beside `SERVED_KEYS`, make their
typed value a `Served` one, and check the keys they share with `check_served`, through the one checker of
every configuration file (`protocol/config.py`): a bad value is a ConfigError naming the file, the section
and the key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from pages.guard import check_origins
from pages.words import LANGUAGES
from protocol.config import (
    Checker, ConfigError, Section, both_or_neither, bound_on_loopback, client_pair, endpoint, heartbeat, one_of,
    read_text, secret_file, text,
)


@dataclass(frozen=True, slots=True)
class TableFeed:
    """One table followed: its name on the pages, its public feed and snapshot socket, its keys."""

    name: str
    public: str
    snapshot: str
    heartbeat_s: float = 1.0
    key: str | None = None
    server_key: str | None = None
    commands: str | None = None  # the table's command channel: the floor's pages relay the pit's rating steps there


TABLE = Section(TableFeed, {"name": text, "public": endpoint, "snapshot": endpoint, "heartbeat_s": heartbeat,
                            "key": text, "server_key": text, "commands": endpoint},
                required=("name", "public", "snapshot"), unique="name", inherit=("heartbeat_s", "key", "server_key"))
"""A `[[display.tables]]` or `[[web.tables]]` table: heartbeat and keys default to the section's."""


def is_loopback_host(host: str) -> bool:
    """Whether the pages' listening address is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name, or 0.0.0.0 / :: (every interface)


def listen(raw: Any) -> tuple[str, int]:
    """HOST:PORT (port 0: any free one) as (host, port)."""
    host, _, port = text(raw).rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"must be HOST:PORT, not {raw!r}")
    return host.strip("[]"), int(port)


def origins(raw: Any) -> tuple[str, ...]:
    """The only origins the browsers' WebSockets and sign-ins are taken from (`guard.py`)."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= 16:
        raise ValueError(f"must be a list of 1 to 16 origins like \"https://uth-1.local:8443\", not {raw!r}")
    check_origins(raw)
    return tuple(raw)


SERVED_KEYS: Mapping[str, Checker | Section] = {
    "listen": listen, "heartbeat_s": heartbeat, "key": text, "server_key": text, "tables": TABLE, "users": text,
    "tls_cert": text, "tls_key": text, "sessions": text, "language": one_of(*LANGUAGES), "origins": origins,
    "tournament": endpoint, "tournament_snapshot": endpoint, "tournament_server_key": text,
}
"""The keys both web processes' sections take, each with its checker (`[display]`, `[web]`); each section adds
its own."""


class Served:
    """A web process's configuration as both processes' read it: a mixin of `[display]`'s and `[web]`'s frozen
    dataclasses, whose fields are the `SERVED_KEYS` declared here and their own."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]
    listen: tuple[str, int]
    heartbeat_s: float
    key: str | None
    tables: tuple[TableFeed, ...]
    users: str | None
    tls_cert: str | None
    tls_key: str | None
    tournament: str | None
    tournament_snapshot: str | None
    tournament_server_key: str | None
    source: str

    @property
    def host(self) -> str:
        return self.listen[0]

    @property
    def port(self) -> int:
        return self.listen[1]

    @property
    def scheme(self) -> str:
        """`https` when the pages are served over TLS, else `http`."""
        return "https" if self.tls_cert else "http"

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read and parse a TOML file. Raises ConfigError (unreadable, bad TOML, bad key, bad key file)."""
        return cls.parse(read_text(path), source=str(path))

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> Self:
        """Parse TOML text holding the process's section. Raises ConfigError."""
        raise NotImplementedError


K = TypeVar("K", bound=Served)


def check_served(cfg: K, section: str, given: Mapping[str, Any]) -> K:
    """The keys both web processes share, across keys: the tournament's two endpoints together and its server key
    with `key`; TLS and the users file (`check_files`); `[[SECTION.tables]]` (`tables_of`). `given` is the section
    as the file gives it. Returns `cfg`, its tables' keys settled. Raises ConfigError."""
    src, where = cfg.source, f"[{section}]"
    both_or_neither(src, where, {"tournament": cfg.tournament, "tournament_snapshot": cfg.tournament_snapshot})
    if cfg.tournament_server_key is not None:
        client_pair(src, where, "key, tournament_server_key", cfg.key, cfg.tournament_server_key)
    check_files(cfg, section)
    if not cfg.tables:
        return cfg
    return replace(cfg, tables=tables_of(cfg.tables, given, section, src))


def check_files(cfg: Served, section: str) -> None:
    """TLS and the users file: the pages sign users in over TLS unless on loopback; the secret files private.
    Raises ConfigError."""
    src, where = cfg.source, f"[{section}]"
    host, port = cfg.listen
    both_or_neither(src, where, {"tls_cert": cfg.tls_cert, "tls_key": cfg.tls_key})
    if cfg.users is not None and cfg.tls_cert is None and not is_loopback_host(host):
        raise ConfigError(f"{src}: {where} listen: {host}:{port} is off loopback and the pages sign "
                          f"users in (users): their PINs and sessions would cross the floor network in plaintext; "
                          f"give tls_cert and tls_key (croupier keys tls) or listen on 127.0.0.1")
    secret_file(src, where, "users", cfg.users, "users file")
    if cfg.tls_cert is not None and not Path(cfg.tls_cert).is_file():
        raise ConfigError(f"{src}: {where} tls_cert: no such file {cfg.tls_cert!r}")
    secret_file(src, where, "tls_key", cfg.tls_key, "TLS private key")


def tables_of(tables: tuple[TableFeed, ...], given: Mapping[str, Any], section: str,
              source: str) -> tuple[TableFeed, ...]:
    """`[[SECTION.tables]]` instead of the section's own public and snapshot; each table's keys as a pair. A table
    without a server key does not take the section's `key` (it was the pit's or the director's alone). Raises
    ConfigError."""
    if "public" in given or "snapshot" in given:
        raise ConfigError(f"{source}: [{section}] give public/snapshot or [[{section}.tables]], not both")
    kept = tuple(replace(t, key=None) if t.server_key is None and "key" not in raw else t
                 for t, raw in zip(tables, given["tables"]))
    for number, table in enumerate(kept, 1):
        client_pair(source, f"[[{section}.tables]] #{number}", "key, server_key", table.key, table.server_key)
        if table.server_key is None:  # plaintext: the pit's steps and a supervisor's PIN never leave the host
            bound_on_loopback(source, [(f"[{section}.tables] #{number}", "commands", table.commands or "")],
                              "key and server_key", {"commands": "the table's command channel"}, doing="sent to on")
    return kept
