"""The simulated table's setup for bots and harnesses: free ports, its endpoints and limits, its configuration file, the bot supervisor's users file."""

from __future__ import annotations

import random
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.games import MAX_SPOTS
from protocol.users import User, Users


def make_supervisor(path: str | Path, name: str = "bot-floor",
                    people: Mapping[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """Write a users file at `path` holding one supervisor with a freshly drawn PIN (and `people`:
    name -> (role, PIN)), in one atomic write; return the supervisor's sign-off (`{"user", "pin"}`)
    for the bot dealer."""
    pin = f"{secrets.randbelow(10 ** 8):08d}"
    users = {name: User.with_pin(name, "supervisor", pin)}
    for who, (role, their_pin) in (people or {}).items():
        users[who] = User.with_pin(who, role, their_pin)
    Users(users).save(path)
    return {"user": name, "pin": pin}


_PORTS_GIVEN: set[int] = set()
_PORT_RANGE = (20000, 32767)  # below Linux's ephemeral range (32768-60999), which outgoing connections take from


def free_tcp_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago, never one given before in this process.

    Drawn below the ephemeral range: a port the kernel gave for `bind(0)` and that was closed can be
    taken a moment later as the local end of some outgoing connection (a feed's, a shoe's), and the
    server meant to bind it then fails at each restart.
    """
    draw = random.Random()
    for _ in range(200):
        port = draw.randint(*_PORT_RANGE)
        if port in _PORTS_GIVEN:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _PORTS_GIVEN.add(port)
        return port
    raise OSError(f"no free TCP port on 127.0.0.1 in {_PORT_RANGE[0]}-{_PORT_RANGE[1]}")


@dataclass(frozen=True, slots=True)
class TableEndpoints:
    """Where the simulated table's sockets are: ZeroMQ endpoints and the GPIO panel's `host:port`."""

    commands: str
    public: str
    snapshot: str
    full: str
    full_snapshot: str
    panel: str

    @classmethod
    def ipc(cls, directory: str | Path) -> TableEndpoints:
        """ipc:// endpoints in `directory` (keep it short: ipc paths are limited to ~100 bytes)
        and a free TCP port for the panel. Raises ValueError for a directory path too long."""
        d = str(directory)
        if len(d) > 80:
            raise ValueError(f"directory path too long for ipc endpoints: {d!r}")
        return cls(commands=f"ipc://{d}/cmd", public=f"ipc://{d}/pub", snapshot=f"ipc://{d}/snap",
                   full=f"ipc://{d}/full", full_snapshot=f"ipc://{d}/fsnap", panel=f"127.0.0.1:{free_tcp_port()}")

    @classmethod
    def tcp(cls) -> TableEndpoints:
        """Free loopback TCP ports for every socket."""
        ports = [free_tcp_port() for _ in range(6)]
        commands, public, snapshot, full, full_snapshot = (f"tcp://127.0.0.1:{p}" for p in ports[:5])
        return cls(commands, public, snapshot, full, full_snapshot, panel=f"127.0.0.1:{ports[5]}")


@dataclass(frozen=True, slots=True)
class SimLimits:
    """The simulated table's limits (cents)."""

    minimum: int = 500
    maximum: int = 10000
    side_minimum: int = 100
    side_maximum: int = 5000
    chip: int = 100


def write_config(path: str | Path, *, endpoints: TableEndpoints, shoe_url: str, game: str = "uth",
                 table: str = "sim-1", seats: int = MAX_SPOTS, limits: SimLimits = SimLimits(), profile: str = "default",
                 silent_s: float = 3.0, heartbeat_s: float = 0.5, void_hold_s: float = 2.0,
                 users: str | Path = "", security: str = "", extra: str = "") -> Path:
    """Write the controller's TOML configuration for the simulated table; return its path (`users`:
    the users file the bot supervisor signs off from, `[security] users`; `security`: more lines of
    `[security]`, the keys of `sim.keys`; `extra`: more sections, appended)."""
    text = f"""# written by croupier demo / the harness: the simulated table
[table]
name = "{table}"
game = "{game}"
profile = "{profile}"
seats = {seats}

[limits]
minimum = {limits.minimum}
maximum = {limits.maximum}
side_minimum = {limits.side_minimum}
side_maximum = {limits.side_maximum}
chip = {limits.chip}

[feed]
public = "{endpoints.public}"
snapshot = "{endpoints.snapshot}"
full = "{endpoints.full}"
full_snapshot = "{endpoints.full_snapshot}"
heartbeat_s = {heartbeat_s}

[commands]
endpoint = "{endpoints.commands}"

[shoe]
url = "{shoe_url}"
baudrate = 115200
silent_s = {silent_s}

[gpio]
backend = "sim"
panel = "{endpoints.panel}"
void_hold_s = {void_hold_s}
"""
    if users or security:
        text += "\n[security]\n" + security
    if users:
        text += f"""users = "{users}"
local_role = "dealer"                    # the bots' plaintext ipc clients: a dealer; a supervisor signs off
"""
    text += extra
    p = Path(path)
    p.write_text(text, encoding="utf-8")
    return p
