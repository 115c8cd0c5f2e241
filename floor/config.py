"""The `[pit]` section of `croupier pit --config FILE` and its `[[pit.tables]]`, parsed once into typed values.

    [pit]
    name = "pit-1"                       # optional (default: the configuration file's stem): the pit its hands are archived under
    listen = "tcp://127.0.0.1:6556"      # the floor feed (XPUB): every table's messages, the table's name as topic
    snapshot = "tcp://127.0.0.1:6557"    # the floor snapshot (ROUTER): every table's latest state, then a marker
    heartbeat_s = 1.0                    # the tables' [feed] heartbeat_s: offline after 3 missed; the floor's own
    db = "postgresql://pit@db/floor"     # optional: the archive's DSN (needs the `floor` extra)
    ratings = "tcp://0.0.0.0:6558"       # optional: the feed of rating events to the casino's system (PUB; CURVE with key)
    player_days = 730                    # optional (default 0: kept): the archive's player data (rating sessions, player card events) kept that many days
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

The file is checked by the one checker of every configuration file (`protocol/config.py`): an unknown
section or key, a bad value, a table named twice, or a key file that cannot be read is a ConfigError
naming the file, the section and the key (`croupier pit` exits 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import access
from protocol.config import (  # the one checker of every configuration file
    ConfigError, Section, bound_on_loopback, client_pair, distinct_endpoints, endpoint, heartbeat, integer, names_of, optional_endpoint,
    parse_file, read_text, secret_key, server_keys, text,
)

FLOOR_ROLES = ("pit", "supervisor", "surveillance", "display", "technician")
"""The roles whose keys may read the floor feed and snapshot by default (`docs/security.md`, "The
floor feed"): the pit's screens and tools, surveillance and the technician; not a dealer's console
(its own table's feed is all it needs) nor a table."""


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
    ratings: str = ""  # the rating events' PUB (docs/ratings.md), none when empty
    player_days: int = 0  # the archive's retention of player data, days (0: kept): Archive.purge_players

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
        defaults = {"source": source, "pid_file": f"{source}.pid", "name": Path(source).stem or "pit"}
        cfg: PitConfig = parse_file(text, source, SCHEMA, {"pit": defaults})["pit"]
        _check_keys(cfg)
        clash = {t.name for t in cfg.tables} & {t.name for t in cfg.tournaments}
        if clash:
            raise ConfigError(f"{source}: [[pit.tournaments]] name: {sorted(clash)[0]!r} is a table's name too "
                              f"(one topic each on the floor feed)")
        return cfg


def _topic(raw: Any) -> str:
    """A name that is a topic on the floor feed: `NAME/`."""
    name = text(raw)
    if name.startswith("*") or "/" in name or any(c.isspace() for c in name):
        raise ValueError(f"must not start with '*' (the floor's own topic) nor hold '/' (its topics' end) "
                         f"or spaces, not {name!r}")
    return name


TABLE = Section(PitTable, {"name": _topic, "public": endpoint, "snapshot": endpoint, "commands": endpoint,
                           "server_key": text}, required=("name", "public", "snapshot", "commands"), unique="name")
TOURNAMENT = Section(PitTournament, {"name": _topic, "public": endpoint, "snapshot": endpoint, "server_key": text},
                     required=("name", "public", "snapshot"), unique="name")
SCHEMA = {"pit": Section(PitConfig, {
    "name": _topic, "listen": endpoint, "snapshot": endpoint, "heartbeat_s": heartbeat, "db": text, "key": text,
    "player_days": integer(0, 36500), "ratings": optional_endpoint, "clients": text, "roles": names_of(tuple(r for r in access.ROLES if r != "table"), "roles"), "pid_file": text,
    "tables": TABLE, "tournaments": TOURNAMENT})}
"""`croupier pit`'s file: its one section, with its arrays of tables."""


def _check_keys(cfg: PitConfig) -> None:
    followed: list[tuple[str, tuple[PitTable | PitTournament, ...]]] = [("tables", cfg.tables),
                                                                         ("tournaments", cfg.tournaments)]
    for section, entries in followed:
        for i, table in enumerate(entries, 1):
            if table.server_key is not None and cfg.key is None:
                raise ConfigError(f"{cfg.source}: [[pit.{section}]] #{i} server_key: needs the pit's own [pit] key")
            client_pair(cfg.source, f"[[pit.{section}]] #{i}", "server_key", *cfg.keys_for(table))
    if cfg.key is not None and not Path(cfg.key).is_file():
        raise ConfigError(f"{cfg.source}: [pit] key: no such file {cfg.key!r}")
    _check_floor_curve(cfg)


def _check_floor_curve(cfg: PitConfig) -> None:
    """The floor's own sockets: CURVE with `key` and `clients` (both), else loopback or ipc only. The pit's `key`
    alone is its client certificate towards the tables, with a floor on ipc or loopback."""
    src = cfg.source
    if cfg.clients is not None and cfg.key is None:
        raise ConfigError(f"{src}: [pit] clients: needs the pit's own [pit] key (the floor feed's CURVE certificate)")
    if cfg.serves_curve and cfg.clients is None:
        raise ConfigError(f"{src}: [pit] clients: with [pit] key the floor feed is served over CURVE: give the "
                          f"directory of the client certificates that may read it")
    floor = [("pit", "listen", cfg.listen), ("pit", "snapshot", cfg.snapshot), ("pit", "ratings", cfg.ratings)]
    distinct_endpoints(src, floor)
    if cfg.clients is not None:
        server_keys(src, "pit", cfg.key or "", cfg.clients, names=("key", "clients"))
        return
    if cfg.key is not None:
        secret_key(src, "[pit]", "key", cfg.key)  # its certificate towards the tables; the floor on ipc
    bound_on_loopback(src, floor, "[pit] key and clients", {"listen": "the floor feed", "snapshot": "the floor feed",
                                                            "ratings": "the rating events"})
