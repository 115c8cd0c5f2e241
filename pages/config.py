"""What the configurations of both web processes share: the listening address, the origins, the tables followed, and the sign-in's TLS and users file checks.

The table's display (`[display]`, `firmware_host/display/config.py`) and the floor's web process (`[web]`,
`floor/web/config.py`) read these keys alike, through the one checker of every configuration file
(`protocol/config.py`): a bad value is a ConfigError naming the file, the section and the key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from pages.guard import check_origins
from protocol.config import (
    ConfigError, Section, both_or_neither, bound_on_loopback, client_pair, endpoint, heartbeat, secret_file, text,
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


class Served(Protocol):
    """What `check_files` reads of a web process's configuration."""

    @property
    def listen(self) -> tuple[str, int]: ...
    @property
    def users(self) -> str | None: ...
    @property
    def tls_cert(self) -> str | None: ...
    @property
    def tls_key(self) -> str | None: ...
    @property
    def source(self) -> str: ...


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
