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
    tournament = "tcp://10.0.0.5:5610"      # optional: the tournament director's feed (`croupier tournament`): a
    tournament_snapshot = "tcp://10.0.0.5:5611"   # tournament table's clock on /table, and its snapshot socket
    tournament_server_key = "/etc/croupier/keys/director-server.key"  # optional: the director's public certificate (with key)
    sessions = "/var/lib/croupier-display/sessions.json"  # optional: where the signed-in sessions are kept over
                                            # a restart (their tokens' hashes; default: beside the users file)
    language = "fr"                         # the pages' language: "en" (default) or "fr" (words.py, lang/*.toml)
    origins = ["https://uth-1.local:8443"]  # optional: the only origins (scheme://host:port) the browsers'
                                            # WebSockets and sign-ins are taken from (default: the served
                                            # scheme with the Host asked for; guard.py)

    [[display.tables]]                      # several tables (/table?table=NAME), instead of public/snapshot above
    name = "uth-1"                          # the table's name in /table?table=NAME
    public = "tcp://10.0.0.11:5556"
    snapshot = "tcp://10.0.0.11:5557"
    heartbeat_s = 1.0                       # optional: the section's heartbeat_s
    key = "..."                             # optional: the section's key and server_key
    server_key = "..."

Without `[[display.tables]]` the section's own keys are the one table, named "table". The pit's and the
tournament director's pages are the floor's web process's (`croupier pit web`, `floor/web/config.py`).
The section is checked by the one checker of every configuration file (`protocol/config.py`): an unknown
section or key, or a bad value, is a ConfigError naming the file, the section and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pages.config import SERVED_KEYS, Served, TableFeed, check_served
from protocol.config import (  # the one checker of every configuration file
    ConfigError, Section, both_or_neither, client_pair, endpoint, parse_sections, parse_toml, text,
)

DEFAULT_CHIPS = (100, 500, 2500, 10000)
MAX_CHIPS = 8


@dataclass(frozen=True, slots=True)
class DisplayConfig(Served):
    """Where the pages are served and which table feed they show (`host`, `port`, `scheme`, `load`: `Served`)."""

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
    language: str = "en"
    sessions: str | None = None
    origins: tuple[str, ...] = ()  # `guard.py`: the pages' own origins, when given
    source: str = "<string>"

    @property
    def feeds(self) -> tuple[TableFeed, ...]:
        """Every table followed, the first the default of `/table` (one, named "table", without a list)."""
        if self.tables:
            return self.tables
        return (TableFeed("table", self.public, self.snapshot, self.heartbeat_s,
                          self.key if self.server_key is not None else None, self.server_key),)

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> DisplayConfig:
        """Parse TOML text holding a `[display]` section. Raises ConfigError."""
        data = parse_toml(text, source)
        section = data.get("display")
        moved = sorted(set(section) & MOVED_TO_FLOOR) if isinstance(section, dict) else []
        if moved:
            raise ConfigError(f"{source}: [display] {moved[0]}: the pit's pages moved to the floor's web process: "
                              f"give {', '.join(moved)} in its [web] section (croupier pit web, docs/floor.md)")
        cfg: DisplayConfig = parse_sections(data, source, SCHEMA, {"display": {"source": source}})["display"]
        _check_keys(cfg)
        return check_served(cfg, "display", data.get("display", {}))


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


MOVED_TO_FLOOR = frozenset(("pit", "pit_snapshot", "pit_heartbeat_s", "pit_server_key", "floor_db", "figures_s"))
"""The pit view's keys of the display before the pit's pages moved to the floor (`croupier pit web`'s `[web]`)."""

SCHEMA = {"display": Section(DisplayConfig, {
    **SERVED_KEYS, "public": endpoint, "snapshot": endpoint, "full": endpoint, "full_snapshot": endpoint,
    "commands": endpoint, "surveillance_key": text, "dealer_key": text, "chips": _chips})}
"""`croupier display`'s file: its one section, the web processes' shared keys (`pages/config.py`) and the table's."""


def _check_keys(cfg: DisplayConfig) -> None:
    """The CURVE certificates: each client key with the server key it is used against, and what each needs."""
    src = cfg.source
    if cfg.server_key is not None or cfg.tournament_server_key is None:
        client_pair(src, "[display]", "key, server_key", cfg.key, cfg.server_key)  # else `key` may be the director's alone
    both_or_neither(src, "[display]", {"full": cfg.full, "full_snapshot": cfg.full_snapshot})
    if cfg.surveillance_key is not None:
        if cfg.server_key is None:
            raise ConfigError(f"{src}: [display] surveillance_key: needs server_key (the table's public certificate)")
        client_pair(src, "[display]", "surveillance_key", cfg.surveillance_key, cfg.server_key)
    if cfg.dealer_key is not None:
        client_pair(src, "[display]", "dealer_key, server_key", cfg.dealer_key, cfg.server_key)
        if cfg.commands is None:
            raise ConfigError(f"{src}: [display] dealer_key: needs commands (the table's command endpoint)")
