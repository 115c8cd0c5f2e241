"""The `[display]` section of `croupier display --config FILE`, parsed once at start into a typed value.

    [display]
    listen = "127.0.0.1:8080"               # HOST:PORT the pages and the WebSocket are served on (port 0: any free one)
    public = "tcp://127.0.0.1:5556"         # the table's public feed (PUB)
    snapshot = "tcp://127.0.0.1:5557"       # its snapshot socket (ROUTER)
    heartbeat_s = 1.0                       # the table's [feed] heartbeat_s: the pages show "offline" after 3 missed
    key = "/etc/croupier/keys/display.key_secret"   # optional: this client's CURVE certificate ...
    server_key = "/etc/croupier/keys/table.key"     # ... and the table's public one (both or neither)
    users = "/etc/croupier/users.json"      # optional: the users file sign-in checks PINs against (the table's [security] users)
    tls_cert = "/etc/croupier/tls/display.crt"      # optional: serve the pages over HTTPS with this certificate ...
    tls_key = "/etc/croupier/tls/display.key"       # ... and its private key (both or neither)
    full = "tcp://127.0.0.1:5558"           # optional: the table's full feed (PUB) for /surveillance ...
    full_snapshot = "tcp://127.0.0.1:5559"  # ... and its full snapshot socket (both or neither)
    commands = "tcp://127.0.0.1:5555"       # optional: the table's command channel (`history` for /surveillance, the dealer console)
    surveillance_key = "/etc/croupier/keys/eye.key_secret"  # optional: a role-surveillance certificate for
                                            # the full feed and `history` (with server_key)
    dealer_key = "/etc/croupier/keys/console.key_secret"   # optional: the CURVE certificate (role dealer) used on it, with server_key
    chips = [100, 500, 2500, 10000]         # the table's chip values in the smallest unit (the console's chip buttons)
    tournament = "tcp://10.0.0.5:5610"      # optional: the tournament director's feed (`croupier tournament`) for /tournament ...
    tournament_snapshot = "tcp://10.0.0.5:5611"   # ... and its snapshot socket (both or neither)
    tournament_server_key = "/etc/croupier/keys/director-server.key"  # optional: the director's public certificate (with key)
    pit = "tcp://10.0.0.2:6556"             # optional: a pit aggregator's floor feed (`croupier pit`'s [pit] listen)
    pit_snapshot = "tcp://10.0.0.2:6557"    # ... and its floor snapshot ([pit] snapshot): /pit shows its tables
    pit_heartbeat_s = 1.0                   # its [pit] heartbeat_s: every table offline after 3 silent ones
    pit_server_key = "/etc/croupier/keys/pit1.key"  # the pit's public certificate (with key); needed off loopback/ipc
    floor_db = "host=db dbname=floor user=display"  # optional: the floor's archive (read only) for the pit's figures
    figures_s = 30.0                        # how often the pit's figures are read from it
    sessions = "/var/lib/croupier-display/sessions.json"  # optional: where the signed-in sessions are kept over
                                            # a restart (their tokens' hashes; default: beside the users file)
    language = "fr"                         # the pages' language: "en" (default) or "fr" (words.py, lang/*.toml)
    origins = ["https://uth-1.local:8443"]  # optional: the only origins (scheme://host:port) the browsers'
                                            # WebSockets and sign-ins are taken from (default: the served
                                            # scheme with the Host asked for; guard.py)

    [[display.tables]]                      # the pit: several tables, instead of public/snapshot above
    name = "uth-1"                          # the table's name in the pit and in /table?table=NAME
    public = "tcp://10.0.0.11:5556"
    snapshot = "tcp://10.0.0.11:5557"
    heartbeat_s = 1.0                       # optional: the section's heartbeat_s
    key = "..."                             # optional: the section's key and server_key
    server_key = "..."

Without `[[display.tables]]` the section's own keys are the one table, named "table".
The section is checked by the one checker of every configuration file (`protocol/config.py`): an unknown
section or key, or a bad value, is a ConfigError naming the file, the section and the key.
"""

from __future__ import annotations

import importlib.util
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pages.guard import check_origins
from pages.words import LANGUAGES
from protocol.config import (  # the one checker of every configuration file
    ConfigError, Section, both_or_neither, bound_on_loopback, client_pair, endpoint, heartbeat, one_of,
    parse_sections, parse_toml, read_text, secret_file, seconds, text,
)

DEFAULT_CHIPS = (100, 500, 2500, 10000)
MAX_CHIPS = 8


@dataclass(frozen=True, slots=True)
class TableFeed:
    """One table the display follows: its name on the pages, its public feed and snapshot socket, its keys."""

    name: str
    public: str
    snapshot: str
    heartbeat_s: float = 1.0
    key: str | None = None
    server_key: str | None = None


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """Where the pages are served and which table feed they show."""

    listen: tuple[str, int] = ("127.0.0.1", 8080)
    public: str = "tcp://127.0.0.1:5556"
    snapshot: str = "tcp://127.0.0.1:5557"
    heartbeat_s: float = 1.0
    key: str | None = None
    server_key: str | None = None
    users: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    full: str | None = None
    full_snapshot: str | None = None
    commands: str | None = None
    surveillance_key: str | None = None
    dealer_key: str | None = None
    chips: tuple[int, ...] = DEFAULT_CHIPS
    tables: tuple[TableFeed, ...] = ()  # `[[display.tables]]`, when given
    tournament: str | None = None
    tournament_snapshot: str | None = None
    tournament_server_key: str | None = None  # the director's feed over CURVE, with `key`
    pit: str | None = None
    pit_snapshot: str | None = None
    pit_heartbeat_s: float = 1.0
    pit_server_key: str | None = None
    floor_db: str | None = None
    figures_s: float = 30.0
    language: str = "en"
    sessions: str | None = None
    origins: tuple[str, ...] = ()  # `guard.py`: the pages' own origins, when given
    source: str = "<string>"

    @property
    def host(self) -> str:
        return self.listen[0]

    @property
    def port(self) -> int:
        return self.listen[1]

    @property
    def feeds(self) -> tuple[TableFeed, ...]:
        """Every table followed, the first the default of `/table` (one, named "table", without a list)."""
        if self.tables:
            return self.tables
        return (TableFeed("table", self.public, self.snapshot, self.heartbeat_s,
                          self.key if self.server_key is not None else None, self.server_key),)

    @property
    def scheme(self) -> str:
        """`https` when the pages are served over TLS, else `http`."""
        return "https" if self.tls_cert else "http"

    @classmethod
    def load(cls, path: str | Path) -> DisplayConfig:
        """Read and parse a TOML file. Raises ConfigError (unreadable, bad TOML, bad key, bad key file)."""
        return cls.parse(read_text(path), source=str(path))

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> DisplayConfig:
        """Parse TOML text holding a `[display]` section. Raises ConfigError."""
        data = parse_toml(text, source)
        cfg: DisplayConfig = parse_sections(data, source, SCHEMA, {"display": {"source": source}})["display"]
        _check_keys(cfg)
        check_pit(cfg, source)
        _check_files(cfg)
        return _with_tables(cfg, data.get("display", {})) if cfg.tables else cfg


def is_loopback_host(host: str) -> bool:
    """Whether the pages' listening address is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name, or 0.0.0.0 / :: (every interface)


def _listen(raw: Any) -> tuple[str, int]:
    """HOST:PORT (port 0: any free one) as (host, port)."""
    host, _, port = text(raw).rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"must be HOST:PORT, not {raw!r}")
    return host.strip("[]"), int(port)


def _chips(raw: Any) -> tuple[int, ...]:
    """The chip values: 1 to MAX_CHIPS distinct positive integers (the smallest unit), kept in rising order."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_CHIPS:
        raise ValueError(f"must be a list of 1 to {MAX_CHIPS} chip values in the smallest unit, not {raw!r}")
    for value in raw:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 10**12:
            raise ValueError(f"a chip value is a positive integer in the smallest unit, not {value!r}")
    if len(set(raw)) != len(raw):
        raise ValueError(f"a chip value is listed twice: {raw!r}")
    return tuple(sorted(raw))


def _origins(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= 16:
        raise ValueError(f"must be a list of 1 to 16 origins like \"https://uth-1.local:8443\", not {raw!r}")
    check_origins(raw)
    return tuple(raw)


TABLE = Section(TableFeed, {"name": text, "public": endpoint, "snapshot": endpoint, "heartbeat_s": heartbeat,
                            "key": text, "server_key": text},
                required=("name", "public", "snapshot"), unique="name", inherit=("heartbeat_s", "key", "server_key"))
"""A `[[display.tables]]` table: heartbeat and keys default to the section's."""

SCHEMA = {"display": Section(DisplayConfig, {
    "listen": _listen, "public": endpoint, "snapshot": endpoint, "heartbeat_s": heartbeat, "key": text,
    "server_key": text, "users": text, "tls_cert": text, "tls_key": text, "full": endpoint,
    "full_snapshot": endpoint, "commands": endpoint, "surveillance_key": text, "dealer_key": text,
    "chips": _chips, "tables": TABLE, "tournament": endpoint, "tournament_snapshot": endpoint,
    "tournament_server_key": text, "pit": endpoint, "pit_snapshot": endpoint, "pit_heartbeat_s": heartbeat,
    "pit_server_key": text, "floor_db": text, "figures_s": seconds(0.1, 3600.0), "language": one_of(*LANGUAGES),
    "sessions": text, "origins": _origins})}
"""`croupier display`'s file: its one section."""


def _check_keys(cfg: DisplayConfig) -> None:
    """The CURVE certificates: each client key with the server key it is used against, and what each needs."""
    src = cfg.source
    if cfg.server_key is not None or (cfg.pit_server_key is None and cfg.tournament_server_key is None):
        client_pair(src, "[display]", "key, server_key", cfg.key, cfg.server_key)  # else `key` may be the pit's alone
    both_or_neither(src, "[display]", {"full": cfg.full, "full_snapshot": cfg.full_snapshot})
    if cfg.surveillance_key is not None:
        if cfg.server_key is None:
            raise ConfigError(f"{src}: [display] surveillance_key: needs server_key (the table's public certificate)")
        client_pair(src, "[display]", "surveillance_key", cfg.surveillance_key, cfg.server_key)
    if cfg.dealer_key is not None:
        client_pair(src, "[display]", "dealer_key, server_key", cfg.dealer_key, cfg.server_key)
        if cfg.commands is None:
            raise ConfigError(f"{src}: [display] dealer_key: needs commands (the table's command endpoint)")
    both_or_neither(src, "[display]", {"tournament": cfg.tournament, "tournament_snapshot": cfg.tournament_snapshot})
    if cfg.tournament_server_key is not None:
        client_pair(src, "[display]", "key, tournament_server_key", cfg.key, cfg.tournament_server_key)


def _check_files(cfg: DisplayConfig) -> None:
    """TLS and the users file: the pages sign users in over TLS unless on loopback; the secret files private."""
    src = cfg.source
    both_or_neither(src, "[display]", {"tls_cert": cfg.tls_cert, "tls_key": cfg.tls_key})
    if cfg.users is not None and cfg.tls_cert is None and not is_loopback_host(cfg.host):
        raise ConfigError(f"{src}: [display] listen: {cfg.host}:{cfg.port} is off loopback and the pages sign "
                          f"users in (users): their PINs and sessions would cross the floor network in plaintext; "
                          f"give tls_cert and tls_key (croupier keys tls) or listen on 127.0.0.1")
    secret_file(src, "[display]", "users", cfg.users, "users file")
    if cfg.tls_cert is not None and not Path(cfg.tls_cert).is_file():
        raise ConfigError(f"{src}: [display] tls_cert: no such file {cfg.tls_cert!r}")
    secret_file(src, "[display]", "tls_key", cfg.tls_key, "TLS private key")


def _with_tables(cfg: DisplayConfig, given: Mapping[str, Any]) -> DisplayConfig:
    """`[[display.tables]]` instead of the section's own public and snapshot; each table's keys as a pair. A table
    without a server key does not take the section's `key` (it was the pit's or the director's alone)."""
    if "public" in given or "snapshot" in given:
        raise ConfigError(f"{cfg.source}: [display] give public/snapshot or [[display.tables]], not both")
    tables = tuple(replace(t, key=None) if t.server_key is None and "key" not in raw else t
                   for t, raw in zip(cfg.tables, given["tables"]))
    for number, table in enumerate(tables, 1):
        client_pair(cfg.source, f"[[display.tables]] #{number}", "key, server_key", table.key, table.server_key)
    return replace(cfg, tables=tables)


def check_pit(cfg: DisplayConfig, source: str) -> None:
    """The pit aggregator's keys: its two endpoints together; CURVE (`key` with `pit_server_key`) unless both are
    on loopback or ipc; `floor_db` only with psycopg installed (the `floor` extra)."""
    both_or_neither(source, "[display]", {"pit": cfg.pit, "pit_snapshot": cfg.pit_snapshot})
    if cfg.pit_server_key is not None:
        if cfg.pit is None:
            raise ConfigError(f"{source}: [display] pit_server_key: needs pit and pit_snapshot (the pit's floor feed)")
        if cfg.key is None:
            raise ConfigError(f"{source}: [display] pit_server_key: needs key (this display's secret certificate)")
        client_pair(source, "[display]", "key, pit_server_key", cfg.key, cfg.pit_server_key)
    else:
        floor = [("display", "pit", cfg.pit or ""), ("display", "pit_snapshot", cfg.pit_snapshot or "")]
        bound_on_loopback(source, floor, "[display] pit_server_key and key", {"pit": "the floor feed", "pit_snapshot": "its snapshot"},
                          doing="followed on")
    if cfg.floor_db is not None and importlib.util.find_spec("psycopg") is None:
        raise ConfigError(f"{source}: [display] floor_db: reading the archive needs psycopg "
                          f"(pip install 'croupier[floor]')")
