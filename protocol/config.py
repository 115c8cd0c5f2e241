"""The one checker of every Croupier configuration file: typed sections, the shared value checks, endpoints, keys.

Each file kind (`croupier run`'s table file, `croupier display`, `croupier pit`, `croupier tournament`)
declares its sections once, as a `Section` per section name: the frozen dataclass the section's keys
fill and each key's checker (a function of the raw TOML value that returns the typed value or raises
ValueError with the reason); an array of tables (`[[pit.tables]]`) is a key whose schema is itself a
`Section`. `parse_file` reads the text and walks the schema; every refusal is a ConfigError that names
the file, the section and the key, in one form: `FILE: [SECTION] KEY: WHY`, `FILE: [SECTION] unknown key
'KEY' (known: ...)`, `FILE: unknown section [NAME] (known: ...)`, `FILE: [[SECTION.KEY]] #N KEY: WHY`.
The checks across keys that more than one file makes are here too: a socket without CURVE bound off
loopback (`bound_on_loopback`), an endpoint given twice, the CURVE server's certificate and clients
directory, a client's key pair, a secret file's mode.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Feed:
...     public: str = "tcp://127.0.0.1:5556"
...     heartbeat_s: float = 1.0
>>> schema = {"feed": Section(Feed, {"public": endpoint, "heartbeat_s": heartbeat})}
>>> parse_file('[feed]\\nheartbeat_s = 0.5\\n', "t.toml", schema)
{'feed': Feed(public='tcp://127.0.0.1:5556', heartbeat_s=0.5)}
>>> parse_file('[feed]\\nheartbeat_s = 0\\n', "t.toml", schema)
Traceback (most recent call last):
...
protocol.config.ConfigError: t.toml: [feed] heartbeat_s: must be a number of seconds between 0.05 and 60, not 0
"""

from __future__ import annotations

import inspect
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine import tomltext
from engine.money import Money
from protocol import access
from protocol.curve import client_keys
from protocol.file_modes import FileModeError, check_secret, check_trusted
from protocol.keys import KeyFileError, KeyPair, load_secret


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names file, section and key."""


@dataclass(frozen=True, slots=True)
class SecurityConfig:
    """`[security]`: keys, users and the code manifest (`docs/security.md`).

    `server_key` is the table's secret certificate (`croupier keys new NAME --role table`) and
    `clients` the directory of the client certificates allowed in: with both set, every TCP socket
    is a CURVE server. `users` is the supervisors' file (`croupier users add`), `manifest` the
    signed list of the code's hashes checked before the start (`croupier integrity sign`) and
    `manifest_key` the public key it is signed with. `profiles` is the only directory `open` reads
    a profile file from. `local_role` is the role of a local client (loopback, ipc) without CURVE.
    `full_delay_s` holds every full-feed message back that long. `signed_in_relays`: the client keys (certificate
    names; `local`: the local clients without one) that relay for people signed in at a web process (the display's
    consoles' key, the pit's `[web] key`): their people's failures together space their PIN checks, never hold them
    whole (`protocol.signoff_holds`); any other key relaying a typed name is held whole at twenty.
    """

    server_key: str = ""
    clients: str = ""
    users: str = ""
    manifest: str = ""
    manifest_key: str = ""
    profiles: str = ""
    local_role: str = "dealer"
    full_delay_s: float = 0.0
    signed_in_relays: tuple[str, ...] = ()

    @property
    def curve(self) -> bool:
        """Whether the TCP sockets are CURVE servers."""
        return bool(self.server_key)


@dataclass(frozen=True, slots=True)
class AccessConfig:
    """`[access]`: socket -> the roles whose keys may connect to it (`access.DEFAULT_ACCESS`)."""

    public: tuple[str, ...] = access.DEFAULT_ACCESS["public"]
    snapshot: tuple[str, ...] = access.DEFAULT_ACCESS["snapshot"]
    full: tuple[str, ...] = access.DEFAULT_ACCESS["full"]
    full_snapshot: tuple[str, ...] = access.DEFAULT_ACCESS["full_snapshot"]
    commands: tuple[str, ...] = access.DEFAULT_ACCESS["commands"]

    def roles(self, socket: str) -> tuple[str, ...]:
        roles: tuple[str, ...] = getattr(self, socket)
        return roles


@dataclass(frozen=True, slots=True)
class RightsConfig:
    """`[rights]`: role -> the commands it may send (`access.DEFAULT_RIGHTS`; unlisted: none)."""

    dealer: tuple[str, ...] = access.DEFAULT_RIGHTS["dealer"]
    supervisor: tuple[str, ...] = access.DEFAULT_RIGHTS["supervisor"]
    pit: tuple[str, ...] = access.DEFAULT_RIGHTS["pit"]
    surveillance: tuple[str, ...] = access.DEFAULT_RIGHTS["surveillance"]
    display: tuple[str, ...] = ()
    technician: tuple[str, ...] = access.DEFAULT_RIGHTS["technician"]
    table: tuple[str, ...] = ()

    def allows(self, role: str, cmd: str) -> bool:
        return role in access.ROLES and cmd in getattr(self, role)



def read_text(path: str | Path) -> str:
    """A configuration file's text. Raises ConfigError naming it (unreadable, not UTF-8)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text as data. Raises ConfigError naming `source` ("not valid TOML: ...")."""
    try:
        return tomltext.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc


# -- the value checkers: each takes the raw TOML value, returns the typed one or raises ValueError ---------------

Checker = Callable[[Any], Any]


def string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"must be a string, not {type(v).__name__}")
    return v


def text(v: Any) -> str:
    """A non-empty string (a file's path, a DSN, a name)."""
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"must be a non-empty string, not {v!r}")
    return v


def clock_time(v: Any) -> time:
    """A local time of day as "HH:MM" (a gaming day's start: the table's `[ratings] day_starts`, the floor's as a
    `rating` step carries it)."""
    text = string(v)
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", text):
        raise ValueError(f"must be a local time of day as \"HH:MM\" (e.g. \"06:00\"), not {text!r}")
    return time.fromisoformat(text)


def time_zone(v: Any) -> str:
    """A time zone's IANA name ("Europe/Paris", "UTC")."""
    name = string(v)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"must be a time zone's IANA name (e.g. \"Europe/Paris\", \"UTC\"), not {name!r}") from None
    return name


def plain_name(v: Any) -> str:
    name = string(v)
    if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError("must be 1 to 64 letters, digits, '-', '_' or '.'")
    return name


def path_in(base: Path) -> Checker:
    """A non-empty path, relative to `base` (the configuration file's folder) unless absolute."""
    def check(v: Any) -> str:
        return str(base / text(v))
    return check


def integer(lo: int, hi: int | None = None) -> Checker:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be an integer, not {type(v).__name__}")
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}")
        return v
    return check


def seconds(lo: float, hi: float) -> Checker:
    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise ValueError(f"must be a number of seconds between {lo:g} and {hi:g}, not {v!r}")
        return float(v)
    return check


heartbeat = seconds(0.05, 60.0)
"""A feed's `heartbeat_s`: a client calls the feed offline after 3 missed (`protocol/feed.py`)."""


def rate(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"must be a number of requests a second, not {type(v).__name__}")
    if not 0.001 <= v <= 10**6:
        raise ValueError("must be between 0.001 and 1000000 requests a second")
    return float(v)


def boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"must be true or false, not {v!r}")
    return v


def one_of(*choices: str) -> Checker:
    def check(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"must be one of {', '.join(repr(c) for c in choices)}, not {v!r}")
        return str(v)
    return check


def integer_list(lo: int, hi: int, most: int) -> Checker:
    def check(v: Any) -> tuple[int, ...]:
        if not isinstance(v, list) or len(v) > most:
            raise ValueError(f"must be a list of at most {most} integers")
        return tuple(integer(lo, hi)(x) for x in v)
    return check


def names_of(choices: tuple[str, ...], what: str) -> Checker:
    def check(v: Any) -> tuple[str, ...]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"must be a list of {what}, not {v!r}")
        unknown = [x for x in v if x not in choices]
        if unknown:
            raise ValueError(f"unknown {what} {', '.join(map(repr, unknown))} (known: {', '.join(choices)})")
        return tuple(dict.fromkeys(v))
    return check


def endpoint(v: Any) -> str:
    """A ZeroMQ endpoint: tcp://HOST:PORT (PORT a number, or * or 0 to bind any free one), ipc://PATH, inproc://NAME."""
    where = string(v)
    host, colon, port = where.removeprefix("tcp://").rpartition(":")
    if where.startswith("tcp://"):
        good = bool(host and colon and (port == "*" or (port.isdigit() and 0 <= int(port) < 65536)))
    else:
        good = where.startswith(("ipc://", "inproc://")) and len(where) > len("ipc://")
    if not good:
        raise ValueError(f"must be a ZeroMQ endpoint tcp://HOST:PORT or ipc://PATH, not {where!r}")
    return where


def optional_endpoint(v: Any) -> str:
    return "" if v == "" else endpoint(v)


def currency(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"must be a currency code string like \"EUR\", not {v!r}")
    return Money.of(v).currency


def host_port(v: Any) -> str:
    where = string(v)
    host, _, port = where.rpartition(":")
    if where and (not host or not port.isdigit() or not 0 < int(port) < 65536):
        raise ValueError(f"must be HOST:PORT, not {where!r}")
    return where


# -- the schema and its walk ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Section:
    """One section's schema: `kind` (a frozen dataclass, or a function making one) takes the checked keys by
    name; `keys` maps each key to its checker, or to the `Section` of each table of the array `[[NAME.KEY]]`;
    `required` keys must be given. For the tables of an array: `unique` is the key no two of them share and
    `inherit` the keys a table takes from its section when it does not give them."""

    kind: Callable[..., Any]
    keys: Mapping[str, Checker | Section]
    required: tuple[str, ...] = ()
    unique: str = ""
    inherit: tuple[str, ...] = ()


def parse_file(text: str, source: str, schema: Mapping[str, Section],
               defaults: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """TOML `text` read against `schema` (section name -> Section): section name -> its typed value, every
    section of the schema included (one the file leaves out is parsed as empty). `defaults` gives a
    section's values the file does not (e.g. its `source`). Raises ConfigError naming file, section, key."""
    return parse_sections(parse_toml(text, source), source, schema, defaults)


def parse_sections(data: Mapping[str, Any], source: str, schema: Mapping[str, Section],
                   defaults: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """`parse_file` of already parsed TOML data."""
    for name in data:
        if name not in schema:
            raise ConfigError(f"{source}: unknown section [{name}] (known: {', '.join(schema)})")
    return {name: parse_section(source, name, data.get(name, {}), section, (defaults or {}).get(name))
            for name, section in schema.items()}


def parse_section(source: str, section: str, data: Any, schema: Section,
                  defaults: Mapping[str, Any] | None = None) -> Any:
    """The table `[SECTION]` of the file `source` as `schema.kind`: each key checked by its checker, an array
    of tables by its own Section. Raises ConfigError naming the file, the section and the key."""
    return _parse(source, f"[{section}]", section, data, schema, dict(defaults or {}))


def parse_entries(source: str, name: str, raw: Any, schema: Section,
                  defaults: Mapping[str, Any] | None = None) -> tuple[Any, ...]:
    """The array of tables `[[NAME]]` (NAME = "section.key"), each as `schema.kind`, numbered from 1 in the errors."""
    if not isinstance(raw, list) or not all(isinstance(entry, Mapping) for entry in raw):
        raise ConfigError(f"{source}: [{name.partition('.')[0]}] {name.partition('.')[2]}: must be an array of "
                          f"tables ([[{name}]]), not {type(raw).__name__}")
    out: list[Any] = []
    seen: dict[Any, int] = {}
    for number, entry in enumerate(raw, 1):
        label = f"[[{name}]] #{number}"
        value = _parse(source, label, name, entry, schema, dict(defaults or {}))
        if schema.unique:
            key = getattr(value, schema.unique)
            if key in seen:
                raise ConfigError(f"{source}: {label} {schema.unique}: {key!r} is given twice (#{seen[key]} too)")
            seen[key] = number
        out.append(value)
    return tuple(out)


def _parse(source: str, label: str, name: str, data: Any, schema: Section, values: dict[str, Any]) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: {label} must be a table of keys, not {type(data).__name__}")
    for key in data:
        if key not in schema.keys:
            raise ConfigError(f"{source}: {label} unknown key {key!r} (known: {', '.join(schema.keys)})")
    for key in schema.required:
        if key not in data:
            raise ConfigError(f"{source}: {label} {key}: is missing")
    for key, raw in data.items():
        check = schema.keys[key]
        if isinstance(check, Section):
            continue  # an array of tables: once the section's own keys are known
        try:
            values[key] = check(raw)
        except ValueError as exc:
            raise ConfigError(f"{source}: {label} {key}: {exc}") from None
    for key, check in schema.keys.items():
        if isinstance(check, Section) and key in data:
            inherited = {k: values[k] if k in values else _default(schema.kind, k) for k in check.inherit}
            values[key] = parse_entries(source, f"{name}.{key}", data[key], check, inherited)
    return schema.kind(**values)


def _default(kind: Callable[..., Any], key: str) -> Any:
    """The default of `kind`'s parameter `key` (a dataclass field's default)."""
    return inspect.signature(kind).parameters[key].default


# -- the checks across keys that more than one file makes -------------------------------------------------------

Where = tuple[str, str, str]
"""(section, key, endpoint): an endpoint and where the file gives it."""


def is_restricted_endpoint(endpoint: str) -> bool:
    """True for ipc://, inproc:// and tcp:// bound to a loopback address only."""
    if endpoint.startswith(("ipc://", "inproc://")):
        return True
    if endpoint.startswith("tcp://"):
        host = endpoint[6:].rsplit(":", 1)[0]
        return host in ("localhost", "::1", "[::1]") or host.startswith("127.")
    return False


def bound_on_loopback(source: str, endpoints: Iterable[Where], curve: str,
                      carries: Mapping[str, str] | None = None, *, doing: str = "bound to") -> None:
    """Without CURVE a socket is plaintext: each endpoint must be on loopback or ipc. `curve` names the keys that
    would make it CURVE ("[security] server_key and clients"); `carries` says what a key's socket carries (default
    "a socket"). Raises ConfigError naming the first endpoint off loopback (an empty one is not given)."""
    for section, key, where in endpoints:
        if where and not is_restricted_endpoint(where):
            what = (carries or {}).get(key, "a socket")
            raise ConfigError(f"{source}: [{section}] {key}: without {curve} (CURVE), {what} may only be {doing} "
                              f"loopback (tcp://127.0.0.1:PORT) or ipc://, not {where!r}")


def distinct_endpoints(source: str, endpoints: Iterable[Where]) -> None:
    """No two sockets of one file on the same endpoint. Raises ConfigError naming the second."""
    seen: dict[str, str] = {}
    for section, key, where in endpoints:
        if where and where in seen:
            raise ConfigError(f"{source}: [{section}] {key}: endpoint {where!r} is already used by {seen[where]}")
        if where:
            seen[where] = f"[{section}] {key}"


def both_or_neither(source: str, label: str, given: Mapping[str, Any]) -> None:
    """Two keys that go together (`full` and `full_snapshot` ...): both given or neither (None or "" is not given).
    Raises ConfigError naming the section and both keys."""
    if len({v is None or v == "" for v in given.values()}) > 1:
        raise ConfigError(f"{source}: {label} {', '.join(given)}: give both or neither")


def curve_server(source: str, section: str, server_key: str, clients: str, whose: str,
                 names: tuple[str, str] = ("server_key", "clients")) -> bool:
    """Whether a process's sockets are CURVE servers: its secret certificate (`server_key`) and the directory of
    the client certificates it lets in (`clients`), both or neither. Raises ConfigError naming the one missing;
    `whose` says whose certificate it is ("the table's")."""
    if bool(server_key) != bool(clients):
        missing = names[1] if server_key else names[0]
        raise ConfigError(f"{source}: [{section}] {missing}: CURVE needs both {names[0]} ({whose} secret "
                          f"certificate) and {names[1]} (the directory of allowed client certificates)")
    return bool(server_key)


def server_keys(source: str, section: str, server_key: str, clients: str,
                names: tuple[str, str] = ("server_key", "clients")) -> KeyPair | None:
    """A CURVE server's key pair from its secret certificate, its clients directory checked; None without CURVE.
    Raises ConfigError naming the file, the section and the key (a missing, unreadable, public-only or
    world-readable certificate, a clients directory that is not one or that others may write)."""
    if not server_key:
        return None
    pair = secret_key(source, f"[{section}]", names[0], server_key)
    folder = Path(clients)
    if not folder.is_dir() or not os.access(folder, os.R_OK | os.X_OK):
        raise ConfigError(f"{source}: [{section}] {names[1]}: {folder}: not a readable directory")
    try:
        check_trusted(folder, "the clients directory")
    except FileModeError as exc:
        raise ConfigError(f"{source}: [{section}] {names[1]}: {exc}") from None
    return pair


def secret_key(source: str, label: str, key: str, path: str) -> KeyPair:
    """A secret CURVE certificate (`protocol/keys.py`), private to its owner or group (`protocol/file_modes.py`).
    Raises ConfigError naming the file, the section and the key."""
    try:
        return load_secret(path)
    except KeyFileError as exc:
        raise ConfigError(f"{source}: {label} {key}: {exc}") from None


def table_keys(security: SecurityConfig, source: str) -> KeyPair | None:
    """The table's key pair from `[security] server_key` and `clients` (`server_keys`); None without CURVE."""
    return server_keys(source, "security", security.server_key, security.clients)


def client_pair(source: str, label: str, names: str, key: str | None, server_key: str | None) -> None:
    """A client's CURVE certificates: its secret one and the server's public one, both or neither, both readable
    and the secret one private (`protocol/file_modes.py`). Raises ConfigError naming `label` and the keys."""
    try:
        client_keys(key, server_key)
    except ValueError as exc:
        raise ConfigError(f"{source}: {label} {names}: {exc}") from None


def secret_file(source: str, label: str, key: str, path: str | None, what: str) -> None:
    """A secret file the process reads (the users file, a TLS private key): there, and readable by its owner or
    group alone. Raises ConfigError naming the key."""
    if path is None:
        return
    if not Path(path).is_file():
        raise ConfigError(f"{source}: {label} {key}: no such file {path!r}")
    try:
        check_secret(path, what)
    except FileModeError as exc:
        raise ConfigError(f"{source}: {label} {key}: {exc}") from None
