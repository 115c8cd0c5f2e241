"""The `[pit]` section of `croupier pit --config FILE` and its `[[pit.tables]]`, parsed once into typed values.

    [pit]
    name = "pit-1"                       # optional (default: the configuration file's stem): the pit its hands are archived under
    listen = "tcp://127.0.0.1:6556"      # the floor feed (XPUB): every table's messages, the table's name as topic
    snapshot = "tcp://127.0.0.1:6557"    # the floor snapshot (ROUTER): every table's latest state, then a marker
    heartbeat_s = 1.0                    # the tables' [feed] heartbeat_s: offline after 3 missed; the floor's own
    db = "postgresql://pit@db/floor"     # optional: the archive's DSN (needs the `floor` extra)
    key = "/etc/croupier/keys/pit1.key_secret"  # optional: the pit's CURVE certificate (role pit)
    clients = "/etc/croupier/keys/floor-clients"  # with key: the client certificates that may read the floor
    roles = ["pit", "supervisor", "surveillance", "display", "technician"]  # optional: who of them may
    pid_file = "/run/croupier/pit.pid"   # optional (default: the configuration's path + ".pid"): for `croupier pit reload`

    [[pit.tables]]
    name = "uth-07"
    public = "tcp://10.1.7.7:5556"       # the table's public feed (PUB)
    snapshot = "tcp://10.1.7.7:5557"     # its snapshot ROUTER
    commands = "tcp://10.1.7.7:5555"     # its command channel (the `history` request, role pit)
    server_key = "/etc/croupier/keys/uth-07.key"  # optional: the table's public certificate (with [pit] key)

    [[pit.tournaments]]                  # a tournament director's clock feed, relayed as a table's (no catch-up)
    name = "sunday"                      # its topic on the floor feed: `sunday/`
    public = "tcp://10.1.0.5:5610"       # the director's [director] public
    snapshot = "tcp://10.1.0.5:5611"     # its [director] snapshot
    server_key = "/etc/croupier/keys/director-server.key"  # optional: the director's public certificate

With `key` the floor feed and snapshot, when on TCP, are CURVE servers with the pit's certificate
(`floorcurve`): only `clients`' certificates whose role is in `roles` get in. Without `key` they
may only be bound to loopback or ipc, as a table's sockets without `[security]`.

An unknown section or key, a bad value, a table named twice, or a key file that cannot be read is a
ConfigError naming the file, the section and the key (`croupier pit` exits 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import access
from protocol.config import ConfigError, is_restricted_endpoint, parse_toml, read_text
from protocol.curve import client_keys
from protocol.keys import KeyFileError, load_secret

_PIT_KEYS = ("name", "listen", "snapshot", "heartbeat_s", "db", "key", "clients", "roles", "pid_file", "tables",
             "tournaments")

FLOOR_ROLES = ("pit", "supervisor", "surveillance", "display", "technician")
"""The roles whose keys may read the floor feed and snapshot by default (`docs/security.md`, "The
floor feed"): the pit's screens and tools, surveillance and the technician; not a dealer's console
(its own table's feed is all it needs) nor a table."""
_TABLE_KEYS = ("name", "public", "snapshot", "commands", "server_key")
_TOURNAMENT_KEYS = ("name", "public", "snapshot", "server_key")


@dataclass(frozen=True, slots=True)
class PitTable:
    """One table the pit follows: its feed, its snapshot socket, its command channel and its key."""

    name: str
    public: str
    snapshot: str
    commands: str
    server_key: str | None = None


@dataclass(frozen=True, slots=True)
class PitTournament:
    """A tournament director whose clock feed the pit relays: followed as a table's feed, with no catch-up."""

    name: str
    public: str
    snapshot: str
    server_key: str | None = None


@dataclass(frozen=True, slots=True)
class PitConfig:
    """Where the floor is served, and the tables it gathers."""

    listen: str = "tcp://127.0.0.1:6556"
    snapshot: str = "tcp://127.0.0.1:6557"
    heartbeat_s: float = 1.0
    db: str | None = None
    key: str | None = None
    clients: str | None = None
    roles: tuple[str, ...] = FLOOR_ROLES
    pid_file: str = "pit.pid"
    tables: tuple[PitTable, ...] = ()
    source: str = "<string>"
    tournaments: tuple[PitTournament, ...] = ()
    name: str = "pit"

    def keys_for(self, table: PitTable | PitTournament) -> tuple[str | None, str | None]:
        """(the pit's key, the table's server key) when the table is reached over CURVE, else (None, None)."""
        return (self.key, table.server_key) if table.server_key is not None else (None, None)

    @property
    def serves_curve(self) -> bool:
        """Whether the floor feed or its snapshot is a CURVE server (the pit's key set, a TCP endpoint)."""
        return self.key is not None and any(ep.startswith("tcp://") for ep in (self.listen, self.snapshot))

    @classmethod
    def load(cls, path: str | Path) -> PitConfig:
        """Read and parse a TOML file. Raises ConfigError (unreadable, bad TOML, bad key, bad key file)."""
        return cls.parse(read_text(path), source=str(path))

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> PitConfig:
        """Parse TOML text holding a `[pit]` section. Raises ConfigError."""
        data = parse_toml(text, source)
        for name in data:
            if name != "pit":
                raise ConfigError(f"{source}: unknown section [{name}] (known: pit)")
        section = data.get("pit")
        if not isinstance(section, Mapping):
            raise ConfigError(f"{source}: [pit] is missing or not a table of keys")
        values: dict[str, Any] = {"source": source, "pid_file": f"{source}.pid", "name": Path(source).stem or "pit"}
        for key, raw in section.items():
            if key not in _PIT_KEYS:
                raise ConfigError(f"{source}: [pit] unknown key {key!r} (known: {', '.join(_PIT_KEYS)})")
            if key in ("tables", "tournaments"):
                values[key] = _tables(raw, source) if key == "tables" else _tournaments(raw, source)
                continue
            try:
                values[key] = _check(key, raw)
            except ValueError as exc:
                raise ConfigError(f"{source}: [pit] {key}: {exc}") from None
        cfg = cls(**values)
        _check_keys(cfg)
        clash = {t.name for t in cfg.tables} & {t.name for t in cfg.tournaments}
        if clash:
            raise ConfigError(f"{source}: [[pit.tournaments]] name: {sorted(clash)[0]!r} is a table's name too "
                              f"(one topic each on the floor feed)")
        return cfg


def _tables(raw: Any, source: str) -> tuple[PitTable, ...]:
    return tuple(PitTable(**values) for values in _entries(raw, source, "tables", _TABLE_KEYS, "table"))


def _tournaments(raw: Any, source: str) -> tuple[PitTournament, ...]:
    return tuple(PitTournament(**values) for values in _entries(raw, source, "tournaments", _TOURNAMENT_KEYS,
                                                                "tournament"))


def _entries(raw: Any, source: str, section: str, keys: tuple[str, ...], noun: str) -> list[dict[str, Any]]:
    """The checked keys of each `[[pit.SECTION]]` entry (`server_key` optional, the others required),
    no name twice. Raises ConfigError naming the file, the entry and the key."""
    if not isinstance(raw, list) or not all(isinstance(entry, Mapping) for entry in raw):
        raise ConfigError(f"{source}: [[pit.{section}]] must be an array of tables")
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(raw, 1):
        where = f"{source}: [[pit.{section}]] #{i}"
        for key in entry:
            if key not in keys:
                raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(keys)})")
        values: dict[str, Any] = {}
        for key in keys:
            if key not in entry:
                if key == "server_key":
                    continue
                raise ConfigError(f"{where}: {key} is missing")
            try:
                values[key] = _check(key, entry[key])
            except ValueError as exc:
                raise ConfigError(f"{where} {key}: {exc}") from None
        if any(v["name"] == values["name"] for v in out):
            raise ConfigError(f"{where} name: {noun} {values['name']!r} is listed twice")
        out.append(values)
    return out


def _check(key: str, raw: Any) -> Any:
    if key == "roles":
        if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
            raise ValueError(f"must be a list of roles, not {raw!r}")
        unknown = [r for r in raw if r not in access.ROLES or r == "table"]
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(map(repr, unknown))} "
                             f"(known: {', '.join(r for r in access.ROLES if r != 'table')})")
        return tuple(raw)
    if key == "heartbeat_s":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0.05 <= raw <= 60.0:
            raise ValueError("must be a number of seconds between 0.05 and 60")
        return float(raw)
    if not isinstance(raw, str) or not raw:
        raise ValueError(f"must be a non-empty string, not {raw!r}")
    if key in ("listen", "snapshot", "public", "commands") and not raw.startswith(("tcp://", "ipc://")):
        raise ValueError(f"must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not {raw!r}")
    if key == "name" and (raw.startswith("*") or "/" in raw or any(c.isspace() for c in raw)):
        raise ValueError(f"must not start with '*' (the floor's own topic) nor hold '/' (its topics' end) "
                         f"or spaces, not {raw!r}")
    return raw


def _check_keys(cfg: PitConfig) -> None:
    followed: list[tuple[str, tuple[PitTable | PitTournament, ...]]] = [("tables", cfg.tables),
                                                                         ("tournaments", cfg.tournaments)]
    for section, entries in followed:
        for i, table in enumerate(entries, 1):
            if table.server_key is not None and cfg.key is None:
                raise ConfigError(f"{cfg.source}: [[pit.{section}]] #{i} server_key: needs the pit's own [pit] key")
            try:
                client_keys(*cfg.keys_for(table))
            except ValueError as exc:
                raise ConfigError(f"{cfg.source}: [[pit.{section}]] #{i} server_key: {exc}") from None
    if cfg.key is not None and not Path(cfg.key).is_file():
        raise ConfigError(f"{cfg.source}: [pit] key: no such file {cfg.key!r}")
    _check_floor_curve(cfg)


def _check_floor_curve(cfg: PitConfig) -> None:
    """The floor's own sockets: CURVE with `key` and `clients` (both), else loopback or ipc only."""
    src = cfg.source
    if cfg.clients is not None and cfg.key is None:
        raise ConfigError(f"{src}: [pit] clients: needs the pit's own [pit] key (the floor feed's CURVE certificate)")
    if cfg.serves_curve and cfg.clients is None:
        raise ConfigError(f"{src}: [pit] clients: with [pit] key the floor feed is served over CURVE: give the "
                          f"directory of the client certificates that may read it")
    if cfg.clients is not None and not Path(cfg.clients).is_dir():
        raise ConfigError(f"{src}: [pit] clients: no such directory {cfg.clients!r}")
    if cfg.key is not None:
        try:
            load_secret(cfg.key)
        except KeyFileError as exc:
            raise ConfigError(f"{src}: [pit] key: {exc}") from None
        return
    for key, ep in (("listen", cfg.listen), ("snapshot", cfg.snapshot)):
        if not is_restricted_endpoint(ep):
            raise ConfigError(f"{src}: [pit] {key}: without [pit] key and clients (CURVE), the floor feed may only "
                              f"be bound to loopback (tcp://127.0.0.1:PORT) or ipc://, not {ep!r}")
