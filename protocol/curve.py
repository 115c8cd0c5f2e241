"""A client's CURVE keys: its certificate pair and the table's public key, read from files and set on a client socket.

The files are pyzmq certificates (`croupier keys new NAME --role ROLE` writes `NAME.key`, the
public half, and `NAME.key_secret`, both halves). A client is given its own secret certificate
(`--key`) and the table's public one (`--server-key`); see `docs/security.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.auth

from protocol.file_modes import FileModeError, check_secret
from protocol.keys import KeyFileError

Z85_KEY_LENGTH = 40  # a Curve25519 key, Z85-encoded


def _read(path: str, what: str) -> tuple[bytes, bytes | None]:
    if not Path(path).is_file():
        raise KeyFileError(f"{what} {path}: no such file")
    try:
        public, secret = zmq.auth.load_certificate(path)
    except OSError as exc:
        raise KeyFileError(f"{what} {path}: cannot be read: {exc.strerror or exc}") from None
    except ValueError:
        raise KeyFileError(f"{what} {path}: not a certificate (no public-key line)") from None
    for half, value in (("public", public), ("secret", secret)):
        if value is not None and len(value) != Z85_KEY_LENGTH:
            raise KeyFileError(f"{what} {path}: the {half} key is not a {Z85_KEY_LENGTH}-character Z85 key")
    return public, secret


@dataclass(frozen=True, slots=True)
class ClientKeys:
    """A client's key pair and the server's public key (Z85 bytes; never logged)."""

    public: bytes
    secret: bytes
    server: bytes

    @classmethod
    def load(cls, key: str, server_key: str) -> ClientKeys:
        """Read `key` (the client's secret certificate) and `server_key` (the table's public one).

        Raises KeyFileError naming the file: missing, unreadable, not a certificate, or `key` holding
        only a public key (give the `.key_secret` file).
        """
        public, secret = _read(key, "client key")
        if secret is None:
            raise KeyFileError(f"client key {key}: holds only a public key; give the client's secret "
                               f"certificate (NAME.key_secret)")
        try:
            check_secret(key, "client key")
        except FileModeError as exc:
            raise KeyFileError(str(exc)) from None
        server, _ = _read(server_key, "server key")
        return cls(public, secret, server)

    def apply(self, sock: zmq.Socket[Any]) -> None:
        """Make `sock` a CURVE client of the server (before it connects)."""
        sock.curve_secretkey = self.secret
        sock.curve_publickey = self.public
        sock.curve_serverkey = self.server


def client_keys(key: str | None, server_key: str | None) -> ClientKeys | None:
    """The keys for a client given both files, None given neither. Raises ValueError (KeyFileError)
    for one without the other or a bad file."""
    if key is None and server_key is None:
        return None
    if key is None or server_key is None:
        raise KeyFileError("give both the client's key and the table's server key (--key and --server-key), "
                           f"or neither (got only {'the key' if key is not None else 'the server key'})")
    return ClientKeys.load(key, server_key)
