"""CURVE keys for the simulated table (`croupier demo --secure`, `--key`): where they are, and the configuration that uses them.

Throwaway keys are pyzmq certificates written as `croupier keys new` writes them: `table`
(role `table`, the controller's own), `dealer` (role `dealer`, the bot dealer's commands),
`watcher` (role `surveillance`, the bots' full feed: a dealer's key may not follow it),
`display` (role `display`, the live view) and `console` (role `dealer`, the display's dealer console relaying for the
people signed in at it: the table's `[security] signed_in_relays`, as deploy/pi.toml lists the Pi's), each `NAME.key` + `NAME.key_secret` in one directory, with the
clients' public halves copied to its `clients/` directory (the controller's `[security] clients`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from protocol import access, keys
from protocol.curve import ClientKeys
from protocol.keys import KeyFileError

SECRET_SUFFIX = "_secret"  # pyzmq's: NAME.key is the public certificate, NAME.key_secret both halves


@dataclass(frozen=True, slots=True)
class SimKeys:
    """The files: the table's secret certificate and public one, the clients directory, and the bot
    dealer's, the display's and the bots' full feed's secret certificates; the dealer console's, and the keys the
    table throttles rather than holds (`relays`: its people sign in at a web process)."""

    table_secret: Path
    table_public: Path
    clients: Path
    dealer: Path
    display: Path
    watcher: Path
    console: Path
    relays: tuple[str, ...] = ()

    @classmethod
    def make(cls, directory: Path) -> SimKeys:
        """Write throwaway keys under `directory` (created; the secret files mode 0600)."""
        directory.mkdir(parents=True, exist_ok=True)
        clients = directory / "clients"
        clients.mkdir(exist_ok=True)
        made: dict[str, tuple[Path, Path]] = {}
        for name, role in (("table", "table"), ("dealer", "dealer"), ("display", "display"),
                           ("watcher", "surveillance"), ("console", "dealer")):
            public, secret = directory / f"{name}.key", directory / f"{name}.key{SECRET_SUFFIX}"
            if not (public.is_file() and secret.is_file()):  # a state directory used before keeps its keys
                public, secret = keys.create(directory, name, role)  # the role in both halves, secret 0600
            made[name] = (public, secret)
            if role != "table":
                shutil.copyfile(public, clients / Path(public).name)
        return cls(made["table"][1], made["table"][0], clients, made["dealer"][1], made["display"][1],
                   made["watcher"][1], made["console"][1], ("console",))

    @classmethod
    def given(cls, key: str, server_key: str) -> SimKeys:
        """Keys made beforehand: the client's secret certificate `key` (its public half beside it,
        in the directory the controller takes as its clients; it sends the commands and follows the full
        feed, so its role must be given both) and the table's public certificate `server_key` (its secret
        half beside it, as `croupier keys new` writes them).

        Raises KeyFileError naming what is missing.
        """
        ClientKeys.load(key, server_key)
        client_public = Path(key.removesuffix(SECRET_SUFFIX))
        table_secret = Path(server_key + SECRET_SUFFIX)
        for path, what in ((client_public, "the client's public certificate"),
                           (table_secret, "the table's secret certificate")):
            if not path.is_file():
                raise KeyFileError(f"{path}: no such file ({what}; the demo runs the table itself)")
        return cls(table_secret, Path(server_key), client_public.parent, Path(key), Path(key), Path(key), Path(key))

    def security_lines(self) -> str:
        """The controller's `[security]` keys: its secret certificate, the clients directory, the keys throttled."""
        return (f"server_key = {json.dumps(str(self.table_secret))}\n"
                f"clients = {json.dumps(str(self.clients))}\n"
                + (f"signed_in_relays = {json.dumps(list(self.relays))}\n" if self.relays else ""))

    def access_text(self) -> str:
        """`[rights]` letting the bot dealer (role `dealer`) open the table as the simulation has it do. The
        full feed stays the default's (surveillance, technician): the bots follow it with the `watcher` key."""
        return rights_text((*access.DEFAULT_RIGHTS["dealer"], "open"))


def plain_access_text() -> str:
    """`[rights]` of a demo table without keys: every plaintext ipc client of it is the local role, the dealer, the
    display's recall for /surveillance among them, which asks `history`: a table with keys gives that to the
    display's surveillance key alone (`[display] surveillance_key`); without keys the demo lets the local role read
    it, or its /surveillance could never show the last hands."""
    return rights_text((*access.DEFAULT_RIGHTS["dealer"], "history"))


def rights_text(dealer: Iterable[str]) -> str:
    """The controller's `[rights]` section giving the role `dealer` (the demo's local clients, the bots') `dealer`."""
    return "\n[rights]\ndealer = [" + ", ".join(json.dumps(right) for right in dealer) + "]\n"
