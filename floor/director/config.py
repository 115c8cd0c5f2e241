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

The file is checked by the one checker of every configuration file (`protocol/config.py`): an unknown
section or key, or a bad value, is a ConfigError naming the file, the section and the key; a tournament
file that is refused is a ConfigError with the tournament file's own words. Paths are relative to this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import TournamentError
from engine.tournament.config import TournamentFile, parse_tournament
from protocol.access import ROLES
from protocol.config import (  # the one checker of every configuration file
    ConfigError, Section, boolean, both_or_neither, bound_on_loopback, client_pair, curve_server, distinct_endpoints,
    endpoint, heartbeat, one_of, parse_file, path_in, read_text, server_keys, text,
)


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
        cfg: DirectorConfig = parse_file(text, source, schema(base), {"director": {"source": source}})["director"]
        sockets = [("director", "public", cfg.public), ("director", "snapshot", cfg.snapshot),
                   ("director", "commands", cfg.commands)]
        distinct_endpoints(source, sockets)
        if curve_server(source, "director", cfg.server_key, cfg.clients, "the director's"):
            server_keys(source, "director", cfg.server_key, cfg.clients)
        else:  # as a table's [security] is checked
            bound_on_loopback(source, sockets, "[director] server_key and clients",
                              {"commands": "the director's requests", "public": "the clock feed",
                               "snapshot": "its snapshot"})
        for number, table in enumerate(cfg.tables, 1):
            where = f"[[director.tables]] #{number}"
            if table.name not in cfg.tournament.tables:
                raise ConfigError(f"{source}: {where} name: {table.name!r} is not a table of the tournament "
                                  f"(tables.use: {', '.join(cfg.tournament.tables)})")
            both_or_neither(source, where, {"public": table.public, "snapshot": table.snapshot})
            client_pair(source, where, "key, server_key", cfg.key, table.server_key)
        return cfg

    @classmethod
    def from_section(cls, tournament: str, source: str, **values: Any) -> DirectorConfig:
        """The checked `[director]` keys, with the tournament file at `tournament` read and checked by the
        engine's rules. Raises ConfigError naming `[director] tournament`."""
        try:
            tournament_text = read_text(tournament)
            terms = parse_tournament(tournament_text, tournament)
        except (ConfigError, TournamentError) as exc:
            raise ConfigError(f"{source}: [director] tournament: {exc}") from None
        return cls(terms, tournament_text, source=source, **values)


def schema(base: Path) -> dict[str, Section]:
    """`croupier tournament`'s file, its paths relative to `base` (the file's folder)."""
    path = path_in(base)
    table = Section(TableLink, {"name": text, "commands": endpoint, "server_key": path, "public": endpoint,
                                "snapshot": endpoint, "shoe": boolean}, required=("name", "commands"), unique="name")
    return {"director": Section(DirectorConfig.from_section, {
        "tournament": path, "public": endpoint, "snapshot": endpoint, "commands": endpoint, "role": one_of(*ROLES),
        "users": path, "heartbeat_s": heartbeat, "key": path, "server_key": path, "clients": path, "db": text,
        "tables": table}, required=("tournament", "public", "snapshot", "commands"))}
