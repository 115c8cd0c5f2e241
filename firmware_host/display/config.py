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
An unknown section or key, or a bad value, is a ConfigError naming the file, the section and the key.
"""

from __future__ import annotations

import importlib.util
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from protocol.config import ConfigError, is_restricted_endpoint, parse_toml, read_text
from firmware_host.display.guard import check_origins
from firmware_host.display.words import LANGUAGES
from protocol.curve import client_keys
from protocol.file_modes import FileModeError, check_secret

_KEYS = ("listen", "public", "snapshot", "heartbeat_s", "key", "server_key", "users", "tls_cert", "tls_key",
         "full", "full_snapshot", "commands", "surveillance_key", "dealer_key", "chips", "tables", "tournament",
         "tournament_snapshot", "tournament_server_key", "pit", "pit_snapshot", "pit_heartbeat_s", "pit_server_key",
         "floor_db", "figures_s", "language", "sessions", "origins")
_ENDPOINTS = ("public", "snapshot", "full", "full_snapshot", "commands", "tournament", "tournament_snapshot", "pit",
              "pit_snapshot")
DEFAULT_CHIPS = (100, 500, 2500, 10000)
MAX_CHIPS = 8
_TABLE_KEYS = ("name", "public", "snapshot", "heartbeat_s", "key", "server_key")


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

    host: str = "127.0.0.1"
    port: int = 8080
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
    table_list: tuple[TableFeed, ...] = ()  # `[[display.tables]]`, when given

    @property
    def tables(self) -> tuple[TableFeed, ...]:
        """Every table followed, the first the default of `/table` (one, named "table", without a list)."""
        if self.table_list:
            return self.table_list
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
        for name in data:
            if name != "display":
                raise ConfigError(f"{source}: unknown section [{name}] (known: display)")
        section = data.get("display", {})
        if not isinstance(section, Mapping):
            raise ConfigError(f"{source}: [display] must be a table of keys")
        return cls.from_section(section, source)

    @classmethod
    def from_section(cls, section: Mapping[str, Any], source: str) -> DisplayConfig:
        values: dict[str, Any] = {"source": source}
        for key, raw in section.items():
            if key == "tables":
                continue
            if key not in _KEYS:
                raise ConfigError(f"{source}: [display] unknown key {key!r} (known: {', '.join(_KEYS)})")
            try:
                values.update(_check(key, raw))
            except ValueError as exc:
                raise ConfigError(f"{source}: [display] {key}: {exc}") from None
        cfg = cls(**values)
        try:
            if cfg.server_key is not None or (cfg.pit_server_key is None and cfg.tournament_server_key is None):
                # without server_key, `key` may be for the pit or the director alone
                client_keys(cfg.key, cfg.server_key)
        except ValueError as exc:
            raise ConfigError(f"{source}: [display] key, server_key: {exc}") from None
        _check_surveillance(cfg, source)
        if cfg.dealer_key is not None:
            try:
                client_keys(cfg.dealer_key, cfg.server_key)
            except ValueError as exc:
                raise ConfigError(f"{source}: [display] dealer_key, server_key: {exc}") from None
            if cfg.commands is None:
                raise ConfigError(f"{source}: [display] dealer_key: needs commands (the table's command endpoint)")
        if (cfg.tournament is None) != (cfg.tournament_snapshot is None):
            raise ConfigError(f"{source}: [display] tournament, tournament_snapshot: give both or neither")
        if cfg.tournament_server_key is not None:
            try:
                client_keys(cfg.key, cfg.tournament_server_key)
            except ValueError as exc:
                raise ConfigError(f"{source}: [display] key, tournament_server_key: {exc}") from None
        check_pit(cfg, source)
        if (cfg.tls_cert is None) != (cfg.tls_key is None):
            raise ConfigError(f"{source}: [display] tls_cert, tls_key: give both or neither")
        if cfg.users is not None and cfg.tls_cert is None and not is_loopback_host(cfg.host):
            raise ConfigError(f"{source}: [display] listen: {cfg.host}:{cfg.port} is off loopback and the pages sign "
                              f"users in (users): their PINs and sessions would cross the floor network in plaintext; "
                              f"give tls_cert and tls_key (croupier keys tls) or listen on 127.0.0.1")
        for key in ("users", "tls_cert", "tls_key"):
            path = getattr(cfg, key)
            if path is not None and not Path(path).is_file():
                raise ConfigError(f"{source}: [display] {key}: no such file {path!r}")
        for key, what in (("users", "users file"), ("tls_key", "TLS private key")):
            try:
                if getattr(cfg, key) is not None:
                    check_secret(getattr(cfg, key), what)
            except FileModeError as exc:
                raise ConfigError(f"{source}: [display] {key}: {exc}") from None
        if "tables" in section:
            if "public" in section or "snapshot" in section:
                raise ConfigError(f"{source}: [display] give public/snapshot or [[display.tables]], not both")
            cfg = replace(cfg, table_list=_tables(section["tables"], cfg, source))
        return cfg


def is_loopback_host(host: str) -> bool:
    """Whether the pages' listening address is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name, or 0.0.0.0 / :: (every interface)


def _tables(raw: Any, cfg: DisplayConfig, source: str) -> tuple[TableFeed, ...]:
    """The `[[display.tables]]` list: each a name, public and snapshot; heartbeat and keys default to the section's."""
    if not isinstance(raw, list) or not raw or not all(isinstance(t, Mapping) for t in raw):
        raise ConfigError(f"{source}: [display] tables must be a non-empty list of [[display.tables]]")
    out: list[TableFeed] = []
    for number, table in enumerate(raw, 1):
        where = f"{source}: [[display.tables]] #{number}"
        values: dict[str, Any] = {"heartbeat_s": cfg.heartbeat_s, "key": cfg.key, "server_key": cfg.server_key}
        for key, value in table.items():
            if key not in _TABLE_KEYS:
                raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(_TABLE_KEYS)})")
            try:
                values.update({key: value} if key == "name" and isinstance(value, str) and value.strip()
                              else _check(key, value))
            except ValueError as exc:
                raise ConfigError(f"{where} {key}: {exc}") from None
        if values["server_key"] is None and "key" not in table:  # the section's key was the pit's alone
            values["key"] = None
        for key in ("name", "public", "snapshot"):
            if key not in values:
                raise ConfigError(f"{where}: {key} is missing")
        if any(t.name == values["name"] for t in out):
            raise ConfigError(f"{where}: the name {values['name']!r} is given twice")
        try:
            client_keys(values["key"], values["server_key"])
        except ValueError as exc:
            raise ConfigError(f"{where} key, server_key: {exc}") from None
        out.append(TableFeed(**values))
    return tuple(out)


def _check(key: str, raw: Any) -> dict[str, Any]:
    if key == "figures_s":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0.1 <= raw <= 3600.0:
            raise ValueError("must be a number of seconds between 0.1 and 3600")
        return {key: float(raw)}
    if key in ("heartbeat_s", "pit_heartbeat_s"):
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0.05 <= raw <= 60.0:
            raise ValueError("must be a number of seconds between 0.05 and 60")
        return {key: float(raw)}
    if key == "chips":
        return {key: _chips(raw)}
    if key == "origins":
        if not isinstance(raw, list) or not 1 <= len(raw) <= 16:
            raise ValueError(f"must be a list of 1 to 16 origins like \"https://uth-1.local:8443\", not {raw!r}")
        check_origins(raw)
        return {key: tuple(raw)}
    if key == "language":
        if raw not in LANGUAGES:
            raise ValueError(f"must be one of {', '.join(repr(x) for x in LANGUAGES)}, not {raw!r}")
        return {key: raw}
    if not isinstance(raw, str) or not raw:
        raise ValueError(f"must be a non-empty string, not {raw!r}")
    if key == "listen":
        host, _, port = raw.rpartition(":")
        if not host or not port.isdigit() or not 0 <= int(port) < 65536:
            raise ValueError(f"must be HOST:PORT, not {raw!r}")
        return {"host": host.strip("[]"), "port": int(port)}
    if key in _ENDPOINTS and not raw.startswith(("tcp://", "ipc://")):
        raise ValueError(f"must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not {raw!r}")
    return {key: raw}


def _check_surveillance(cfg: DisplayConfig, source: str) -> None:
    """The surveillance view's keys: the full feed's two endpoints together, its certificate with the table's."""
    if (cfg.full is None) != (cfg.full_snapshot is None):
        raise ConfigError(f"{source}: [display] full, full_snapshot: give both or neither")
    if cfg.surveillance_key is not None:
        if cfg.server_key is None:
            raise ConfigError(f"{source}: [display] surveillance_key: needs server_key (the table's public certificate)")
        try:
            client_keys(cfg.surveillance_key, cfg.server_key)
        except ValueError as exc:
            raise ConfigError(f"{source}: [display] surveillance_key: {exc}") from None


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


def check_pit(cfg: DisplayConfig, source: str) -> None:
    """The pit aggregator's keys: its two endpoints together; CURVE (`key` with `pit_server_key`) unless both are
    on loopback or ipc; `floor_db` only with psycopg installed (the `floor` extra)."""
    if (cfg.pit is None) != (cfg.pit_snapshot is None):
        raise ConfigError(f"{source}: [display] pit, pit_snapshot: give both or neither")
    if cfg.pit_server_key is not None:
        if cfg.pit is None:
            raise ConfigError(f"{source}: [display] pit_server_key: needs pit and pit_snapshot (the pit's floor feed)")
        if cfg.key is None:
            raise ConfigError(f"{source}: [display] pit_server_key: needs key (this display's secret certificate)")
        try:
            client_keys(cfg.key, cfg.pit_server_key)
        except ValueError as exc:
            raise ConfigError(f"{source}: [display] key, pit_server_key: {exc}") from None
    elif cfg.pit is not None and cfg.pit_snapshot is not None:
        for key, endpoint in (("pit", cfg.pit), ("pit_snapshot", cfg.pit_snapshot)):
            if not is_restricted_endpoint(endpoint):
                raise ConfigError(f"{source}: [display] {key}: {endpoint!r} is off loopback: the floor feed is "
                                  f"followed in plaintext only on loopback or ipc (give pit_server_key and key)")
    if cfg.floor_db is not None and importlib.util.find_spec("psycopg") is None:
        raise ConfigError(f"{source}: [display] floor_db: reading the archive needs psycopg "
                          f"(pip install 'croupier[floor]')")
