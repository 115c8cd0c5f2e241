"""The `[web]` section of `croupier pit web --config FILE`, the floor's web process, parsed once at start into a typed value.

    [web]
    listen = "0.0.0.0:8090"                 # HOST:PORT the pages and their WebSockets are served on (port 0: any free one)
    key = "/etc/croupier/keys/pit-web.key_secret"  # optional: this process's CURVE certificate (role pit)
    pit = "tcp://127.0.0.1:6556"            # a pit aggregator's floor feed (`croupier pit`'s [pit] listen) ...
    pit_snapshot = "tcp://127.0.0.1:6557"   # ... and its floor snapshot ([pit] snapshot): /pit shows its tables
    pit_heartbeat_s = 1.0                   # its [pit] heartbeat_s: every table offline after 3 silent ones
    pit_server_key = "/etc/croupier/keys/pit-1.key"  # the pit's public certificate (with key); needed off loopback/ipc
    floor_db = "host=db dbname=floor user=pitweb"  # optional: the floor's archive (read only) for the pit's figures
    figures_s = 30.0                        # how often the pit's figures are read from it
    tournament = "tcp://10.0.0.5:5610"      # optional: the tournament director's feed (`croupier tournament`) for
    tournament_snapshot = "tcp://10.0.0.5:5611"   # /tournament, and its snapshot socket (both or neither)
    tournament_server_key = "/etc/croupier/keys/director-server.key"  # optional: the director's public certificate (with key)
    heartbeat_s = 1.0                       # the director's (and the tables' below) heartbeat_s
    users = "/etc/croupier/users.json"      # optional: the users file sign-in checks PINs against
    pit_roles = ["pit", "supervisor", "surveillance"]  # optional (with users): /pit only for a user signed in with
                                            # one of these roles (default: none asked, a wall screen on the floor)
    tls_cert = "/etc/croupier/tls/pit-web.crt"     # optional: serve the pages over HTTPS with this certificate ...
    tls_key = "/etc/croupier/tls/pit-web.key"      # ... and its private key (both or neither)
    sessions = "/var/lib/croupier-pit-web/sessions.json"  # optional: the signed-in sessions kept over a restart
    language = "fr"                         # the pages' language: "en" (default) or "fr" (pages/lang/*.toml)
    origins = ["https://floor.local:8090"]  # optional: the only origins the browsers' WebSockets and sign-ins
                                            # are taken from (default: the served scheme with the Host asked for)

    [[web.tables]]                          # without a pit aggregator: the tables followed here, each its feed
    name = "uth-1"                          # the table's name on its tile
    public = "tcp://10.0.0.11:5556"
    snapshot = "tcp://10.0.0.11:5557"
    heartbeat_s = 1.0                       # optional: the section's heartbeat_s
    key = "..."                             # optional: the section's key and server_key
    server_key = "..."
    commands = "tcp://10.0.0.11:5555"       # optional: its command channel, for the pit's signed-off rating steps
                                            # (`rating.py`: sent as this process's own client, role pit; off
                                            # loopback only over CURVE, with key and server_key)

/pit shows the pit aggregator's tables (`pit`), or without one the `[[web.tables]]` followed here (a small
floor, a demo). The keys are those the table's display had for its pit and tournament views (`[display]`
until the floor's pages moved here), read by the same checkers (`pages/config.py`, `protocol/config.py`): an
unknown section or key, or a bad value, is a ConfigError naming the file, the section and the key.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from pages.config import SERVED_KEYS, Served, TableFeed, check_served
from protocol.access import ROLES
from protocol.config import (  # the one checker of every configuration file
    ConfigError, Section, both_or_neither, bound_on_loopback, client_pair, endpoint, heartbeat, parse_sections,
    parse_toml, seconds, text,
)


@dataclass(frozen=True, slots=True)
class WebConfig(Served):
    """Where the floor's pages are served and which feeds they show (`host`, `port`, `scheme`, `load`: `Served`)."""

    listen: tuple[str, int] = ("127.0.0.1", 8090)
    key: str | None = None
    pit: str | None = None
    pit_snapshot: str | None = None
    pit_heartbeat_s: float = 1.0
    pit_server_key: str | None = None
    floor_db: str | None = None
    figures_s: float = 30.0
    tournament: str | None = None
    tournament_snapshot: str | None = None
    tournament_server_key: str | None = None  # the director's feed over CURVE, with `key`
    heartbeat_s: float = 1.0
    server_key: str | None = None  # the tables' public certificate when they share one (each table may give its own)
    tables: tuple[TableFeed, ...] = ()  # `[[web.tables]]`, when given
    users: str | None = None
    pit_roles: tuple[str, ...] = ()  # who may open /pit, signed in; () a wall screen, as the tournament clock
    tls_cert: str | None = None
    tls_key: str | None = None
    sessions: str | None = None
    language: str = "en"
    origins: tuple[str, ...] = ()  # `pages/guard.py`: the pages' own origins, when given
    source: str = "<string>"

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> WebConfig:
        """Parse TOML text holding a `[web]` section. Raises ConfigError."""
        data = parse_toml(text, source)
        cfg: WebConfig = parse_sections(data, source, SCHEMA, {"web": {"source": source}})["web"]
        check_pit(cfg, source)
        if cfg.pit is not None and cfg.tables:
            raise ConfigError(f"{source}: [web] give pit (the pit aggregator's tables) or [[web.tables]], not both")
        if cfg.pit_roles and cfg.users is None:
            raise ConfigError(f"{source}: [web] pit_roles: needs users (the users file sign-in checks PINs against)")
        return check_served(cfg, "web", data.get("web", {}))


def _roles(raw: Any) -> tuple[str, ...]:
    """A list of the users' roles (`protocol.access.ROLES`, not `table`), each once."""
    people = [r for r in ROLES if r != "table"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= len(people) or len(set(map(str, raw))) != len(raw) \
            or any(r not in people for r in raw):
        raise ValueError(f"must be a list of roles among {', '.join(people)}, each once, not {raw!r}")
    return tuple(raw)


SCHEMA = {"web": Section(WebConfig, {
    **SERVED_KEYS, "pit": endpoint, "pit_snapshot": endpoint, "pit_heartbeat_s": heartbeat, "pit_server_key": text,
    "floor_db": text, "figures_s": seconds(0.1, 3600.0), "pit_roles": _roles})}
"""`croupier pit web`'s file: its one section, the web processes' shared keys (`pages/config.py`) and the pit's."""


def check_pit(cfg: WebConfig, source: str) -> None:
    """The pit aggregator's keys: its two endpoints together; CURVE (`key` with `pit_server_key`) unless both are
    on loopback or ipc; `floor_db` only with psycopg installed (the `floor` extra). Raises ConfigError."""
    both_or_neither(source, "[web]", {"pit": cfg.pit, "pit_snapshot": cfg.pit_snapshot})
    if cfg.pit_server_key is not None:
        if cfg.pit is None:
            raise ConfigError(f"{source}: [web] pit_server_key: needs pit and pit_snapshot (the pit's floor feed)")
        if cfg.key is None:
            raise ConfigError(f"{source}: [web] pit_server_key: needs key (this process's secret certificate)")
        client_pair(source, "[web]", "key, pit_server_key", cfg.key, cfg.pit_server_key)
    else:
        floor = [("web", "pit", cfg.pit or ""), ("web", "pit_snapshot", cfg.pit_snapshot or "")]
        bound_on_loopback(source, floor, "[web] pit_server_key and key", {"pit": "the floor feed", "pit_snapshot": "its snapshot"},
                          doing="followed on")
    if cfg.floor_db is not None and importlib.util.find_spec("psycopg") is None:
        raise ConfigError(f"{source}: [web] floor_db: reading the archive needs psycopg "
                          f"(pip install 'croupier[floor]')")
