"""The `[director]` section of `croupier tournament --config FILE`, parsed once at start into a typed value.

    [director]
    tournament = "sunday.toml"              # the tournament file (engine/tournament/config.py), relative to this file
    public = "tcp://0.0.0.0:5610"           # the clock and standings feed (PUB; protocol/feed.py's frames)
    snapshot = "tcp://0.0.0.0:5611"         # its snapshot socket (ROUTER)
    commands = "tcp://127.0.0.1:5612"       # the director's requests (ROUTER): loopback or ipc, or any with server_key
    role = "pit"                            # the role a request on `commands` acts in (default pit)
    users = "/etc/croupier/users.json"      # the users file sign-offs are checked against (the tables' [security] users)
    heartbeat_s = 1.0                       # the feed's heartbeat; the clock itself goes out every second
    key = "/etc/croupier/keys/director.key_secret"  # optional: the director's CURVE certificate (role pit) on the tables
    server_key = "/etc/croupier/keys/director-server.key_secret"  # optional: its own secret certificate: CURVE on its TCP sockets
    clients = "/etc/croupier/keys/director-clients"  # with server_key: the client certificates let in (by role)
    db = "postgresql://pit@db/floor"        # optional: the floor's archive, where the tournament's record goes

    [[director.tables]]                     # the tables it commands: each a name of the tournament file's tables.use
    name = "T1"
    commands = "tcp://10.0.0.11:5555"       # the table's command channel
    server_key = "/etc/croupier/keys/T1.key"   # optional: the table's public certificate (with key)
    public = "tcp://10.0.0.11:5556"         # optional, with snapshot: the table's public feed, its players out read from it
    snapshot = "tcp://10.0.0.11:5557"       # its snapshot socket
    shoe = true                             # its shoe deals the high cards for the button (default true, with
                                            # public); false: the director draws it (`director_button.py`)

An unknown section or key, or a bad value, is a ConfigError naming the file, the section and the key;
a tournament file that is refused is a ConfigError with the tournament file's own words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import TournamentError
from engine.tournament.config import TournamentFile, parse_tournament
from protocol.access import ROLES
from protocol.config import (
    ConfigError, SecurityConfig, is_restricted_endpoint, parse_toml, read_text, table_keys,
)
from protocol.curve import client_keys

_KEYS = ("tournament", "public", "snapshot", "commands", "role", "users", "heartbeat_s", "key", "server_key", "clients",
         "db", "tables")
_TABLE_KEYS = ("name", "commands", "server_key", "public", "snapshot", "shoe")


@dataclass(frozen=True, slots=True)
class TableLink:
    """One table the director commands: its name in the tournament file, its command channel, its public
    key, and its public feed and snapshot sockets when the director reads its hands (`director_feeds.py`)."""

    name: str
    commands: str
    server_key: str | None = None
    public: str | None = None
    snapshot: str | None = None
    shoe: bool = True   # with a feed read: its shoe draws the first button (`director_button.py`)


@dataclass(frozen=True, slots=True)
class DirectorConfig:
    """Where the director publishes, where it takes commands, which tables it commands."""

    tournament: TournamentFile
    tournament_text: str
    public: str
    snapshot: str
    commands: str
    role: str = "pit"
    users: str = ""
    heartbeat_s: float = 1.0
    key: str | None = None
    tables: tuple[TableLink, ...] = ()
    source: str = "<string>"
    server_key: str = ""
    clients: str = ""
    db: str | None = None

    @classmethod
    def load(cls, path: str | Path) -> DirectorConfig:
        """Read and parse the file and its tournament file. Raises ConfigError."""
        return cls.parse(read_text(path), source=str(path), base=Path(path).parent)

    @classmethod
    def parse(cls, text: str, source: str = "<string>", base: Path = Path(".")) -> DirectorConfig:
        """Parse TOML text holding a `[director]` section. Raises ConfigError."""
        data = parse_toml(text, source)
        unknown = sorted(set(data) - {"director"})
        if unknown:
            raise ConfigError(f"{source}: unknown section [{unknown[0]}] (known: director)")
        section = data.get("director")
        if not isinstance(section, Mapping):
            raise ConfigError(f"{source}: [director] is missing")
        for key in section:
            if key not in _KEYS:
                raise ConfigError(f"{source}: [director] unknown key {key!r} (known: {', '.join(_KEYS)})")
        for key in ("tournament", "public", "snapshot", "commands"):
            if key not in section:
                raise ConfigError(f"{source}: [director] {key} is missing")
        values = {key: _text(source, key, section[key]) for key in ("public", "snapshot", "commands")}
        for key, endpoint in values.items():
            if not endpoint.startswith(("tcp://", "ipc://")):
                raise ConfigError(f"{source}: [director] {key}: must be a ZeroMQ endpoint tcp://HOST:PORT or "
                                  f"ipc://PATH, not {endpoint!r}")
        server_key, clients = _curve(source, section, base)
        for key, what in (("commands", "the director's requests may only be taken"),
                          ("public", "the clock feed may only be bound"), ("snapshot", "its snapshot may only be bound")):
            if not server_key and not is_restricted_endpoint(values[key]):  # as a table's [security] is checked
                raise ConfigError(f"{source}: [director] {key}: without [director] server_key and clients (CURVE), "
                                  f"{what} on loopback (tcp://127.0.0.1:PORT) or ipc://, not {values[key]!r}")
        tournament_path = base / _text(source, "tournament", section["tournament"])
        tournament_text = read_text(tournament_path)
        try:
            tournament = parse_tournament(tournament_text, str(tournament_path))
        except TournamentError as exc:
            raise ConfigError(f"{source}: [director] tournament: {exc}") from None
        role = _text(source, "role", section.get("role", "pit"))
        if role not in ROLES:
            raise ConfigError(f"{source}: [director] role: {role!r} is not a role ({', '.join(ROLES)})")
        heartbeat = section.get("heartbeat_s", 1.0)
        if isinstance(heartbeat, bool) or not isinstance(heartbeat, (int, float)) or not 0.05 <= heartbeat <= 60:
            raise ConfigError(f"{source}: [director] heartbeat_s: must be a number of seconds between 0.05 and 60")
        users = str(base / _text(source, "users", section["users"])) if "users" in section else ""
        key = str(base / _text(source, "key", section["key"])) if "key" in section else None
        tables = _tables(source, section.get("tables", []), tournament, key, base)
        db = _text(source, "db", section["db"]) if "db" in section else None
        return cls(tournament, tournament_text, values["public"], values["snapshot"], values["commands"], role,
                   users, float(heartbeat), key, tables, source, server_key=server_key, clients=clients, db=db)


def _text(source: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source}: [director] {key}: must be a non-empty string, not {value!r}")
    return value


def _curve(source: str, section: Mapping[str, Any], base: Path) -> tuple[str, str]:
    """`server_key` and `clients` (both or neither), their files checked as `croupier run` checks a
    table's. Raises ConfigError naming the key."""
    server_key = str(base / _text(source, "server_key", section["server_key"])) if "server_key" in section else ""
    clients = str(base / _text(source, "clients", section["clients"])) if "clients" in section else ""
    if bool(server_key) != bool(clients):
        missing = "clients" if server_key else "server_key"
        raise ConfigError(f"{source}: [director] {missing}: CURVE needs both server_key (the director's secret "
                          f"certificate) and clients (the directory of allowed client certificates)")
    if server_key:
        try:
            table_keys(SecurityConfig(server_key=server_key, clients=clients), source)
        except ConfigError as exc:
            raise ConfigError(str(exc).replace("[security]", "[director]")) from None
    return server_key, clients


def _tables(source: str, raw: Any, tournament: TournamentFile, key: str | None,
            base: Path) -> tuple[TableLink, ...]:
    if not isinstance(raw, list) or not all(isinstance(t, Mapping) for t in raw):
        raise ConfigError(f"{source}: [director] tables must be a list of [[director.tables]]")
    out: list[TableLink] = []
    for number, table in enumerate(raw, 1):
        where = f"{source}: [[director.tables]] #{number}"
        for k in table:
            if k not in _TABLE_KEYS:
                raise ConfigError(f"{where}: unknown key {k!r} (known: {', '.join(_TABLE_KEYS)})")
        for k in ("name", "commands"):
            if not isinstance(table.get(k), str) or not table[k].strip():
                raise ConfigError(f"{where}: {k} is missing")
        name, endpoint = table["name"], table["commands"]
        if name not in tournament.tables:
            raise ConfigError(f"{where}: name {name!r} is not a table of the tournament "
                              f"(tables.use: {', '.join(tournament.tables)})")
        if any(t.name == name for t in out):
            raise ConfigError(f"{where}: the table {name!r} is given twice")
        if not endpoint.startswith(("tcp://", "ipc://")):
            raise ConfigError(f"{where}: commands must be a ZeroMQ endpoint, not {endpoint!r}")
        server_key = str(base / table["server_key"]) if isinstance(table.get("server_key"), str) else None
        try:
            client_keys(key, server_key)
        except ValueError as exc:
            raise ConfigError(f"{where}: key, server_key: {exc}") from None
        shoe = table.get("shoe", True)
        if not isinstance(shoe, bool):
            raise ConfigError(f"{where}: shoe must be true or false, not {shoe!r}")
        out.append(TableLink(name, endpoint, server_key, *_feed(where, table), shoe=shoe))
    return tuple(out)


def _feed(where: str, table: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A table's `public` and `snapshot` (both or neither). Raises ConfigError naming the key."""
    given = {k: table[k] for k in ("public", "snapshot") if k in table}
    if len(given) == 1:
        missing = "snapshot" if "public" in given else "public"
        raise ConfigError(f"{where}: {missing} is missing: the table's feed needs both public and snapshot")
    for k, endpoint in given.items():
        if not isinstance(endpoint, str) or not endpoint.startswith(("tcp://", "ipc://")):
            raise ConfigError(f"{where}: {k} must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not {endpoint!r}")
    return given.get("public"), given.get("snapshot")
