"""Who may connect: the ZAP handler (ZeroMQ RFC 27) of the controller's CURVE sockets, served from its own loop.

Every CURVE server socket of the controller names its socket (`access.SOCKETS`) as its ZAP domain.
libzmq asks this handler, on `inproc://zeromq.zap.01` in the controller's context, about each new
connection; the handler answers from the clients directory: a CURVE key is let in only when a
certificate there holds it and that certificate's role is in `[access]` for the domain. The reply's
User-Id is the certificate's name and its metadata carries `Role`, so every message on that
connection carries both (`caller_of`, `ZapHandler.admits`).

The protocol is spoken here, not through `zmq.auth.Authenticator`: its `handle_zap_message` is a
coroutine built for its own REP socket and thread or event loop, and its replies carry no metadata;
a ROUTER polled by the controller's loop, answering each request at once, needs no thread and
gives the `Role` property. The request and reply layouts are RFC 27's:

    request: [routing id, "", "1.0", request id, domain, address, identity, mechanism, credentials...]
    reply:   [routing id, "", "1.0", request id, status code, status text, user id, metadata]

The directory is read again when its contents change (looked at every `RECHECK_S` from the loop's
turns): a key added or revoked is audited (`key_added`, `key_revoked`). A revoked key (or one whose
certificate changed) is cut: requests on the command socket and snapshot requests from a connection
whose User-Id is no longer allowed are dropped unanswered (`admits`), and each PUB socket it was let
into is closed and bound again (`on_cut`): every subscriber reconnects and is checked again.
A refusal is logged with the peer's address and audited (`connection_refused`), at most once a
`REFUSAL_QUIET_S` for the same key, socket and address (a refused client keeps reconnecting).
"""

from __future__ import annotations

import logging
import struct
import time
from collections.abc import Callable, Mapping
from typing import Any

import zmq
from zmq.utils import z85

from protocol import access, keys
from protocol.access import Caller
from protocol.audit import AuditLog
from protocol.config import AccessConfig

log = logging.getLogger("croupier.zap")

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
RECHECK_S = 1.0
"""How often the clients directory is looked at for a change (the issue asks for within 5 s)."""

REFUSAL_QUIET_S = 60.0
"""A refusal of the same key on the same socket from the same address is audited once this long."""

MOST_REFUSALS = 100
"""Refusals audited (each one an fsync on the loop's thread) within one `REFUSAL_QUIET_S` at most;
past that, a flood of fresh keys is counted and the count audited when the period ends."""

PUB_SOCKETS = ("public", "full")
"""The sockets a revoked key's connection is cut from by closing and binding them again."""

FULL_SOCKETS = ("full", "full_snapshot")
"""Sockets whose granted connections are audited (`full_feed_subscribed`)."""


def encode_metadata(properties: Mapping[str, str]) -> bytes:
    """ZAP metadata (ZMTP's property layout): name length (1 byte), name, value length (4 bytes), value."""
    out = b""
    for name, value in properties.items():
        raw_name, raw_value = name.encode("ascii"), value.encode("utf-8")
        out += bytes([len(raw_name)]) + raw_name + struct.pack(">I", len(raw_value)) + raw_value
    return out


def frame_property(frame: zmq.Frame, name: str) -> str:
    """A message's connection property (`User-Id`, `Role`, `Peer-Address`), "" when it has none."""
    try:
        return str(frame.get(name))
    except (zmq.ZMQError, KeyError, ValueError):
        return ""


class ZapHandler:
    """The one authenticator of the process: a ROUTER at `ZAP_ENDPOINT`, polled by the controller's
    loop (`socket`, `serve`, `turn`). Bind it before any CURVE socket is bound."""

    def __init__(self, ctx: zmq.Context[Any], clients: str, rules: AccessConfig, audit: AuditLog | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Bind the ZAP socket and read the clients directory. Raises zmq.ZMQError (already bound)."""
        self.clients_dir = clients
        self.rules = rules
        self.audit = audit
        self.clock = clock
        self.on_cut: Callable[[str], None] | None = None  # a PUB socket to close and bind again
        self.pub_sockets: tuple[str, ...] = PUB_SOCKETS  # the domains `on_cut` is called for
        self.socket: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        try:
            self.socket.bind(ZAP_ENDPOINT)
        except zmq.ZMQError:
            self.socket.close(0)
            raise
        self.clients = keys.load_clients(clients)
        self._by_key = {c.public: c for c in self.clients.values()}
        self._stamp = keys.directory_stamp(clients)
        self._next_check = clock() + RECHECK_S
        self.granted: dict[str, set[str]] = {}  # certificate name -> the sockets it was let into
        self._refused: dict[tuple[str, str, str], float] = {}
        self._window, self._in_window, self._suppressed = clock(), 0, 0
        log.info("CURVE: %d client certificate(s) allowed from %s", len(self.clients), clients)

    # -- who is allowed -------------------------------------------------------------------------

    def allows(self, domain: str, name: str, role: str | None = None) -> bool:
        """Whether certificate `name` (with `role`, when its connection said one) may use `domain` now."""
        cert = self.clients.get(name)
        return (cert is not None and (role is None or cert.role == role) and domain in access.SOCKETS
                and cert.role in self.rules.roles(domain))

    def refusal(self, role: str, domain: str) -> str:
        """Why a known key is refused on `domain` (the setting that says so)."""
        return f"role {role} may not connect to the {domain} socket ([access] {domain})"

    def admits(self, domain: str, frame: zmq.Frame) -> bool:
        """Whether a message received on `domain` may be taken: a plaintext one (no User-Id: ipc,
        loopback without CURVE) is; a CURVE one only while its certificate is still allowed there."""
        user = frame_property(frame, "User-Id")
        return not user or self.allows(domain, user, frame_property(frame, "Role") or None)

    # -- the protocol ---------------------------------------------------------------------------

    def serve(self) -> int:
        """Answer every pending ZAP request (without blocking). Returns how many."""
        answered = 0
        while True:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return answered
            try:
                self._answer(frames)
            except Exception:  # a request we cannot read is never a reason to stop the table
                log.exception("ZAP request %r", frames[:8])
            answered += 1

    def _answer(self, frames: list[bytes]) -> None:
        if len(frames) < 8 or frames[1] != b"":
            log.error("ZAP request with %d frame(s) dropped: not RFC 27", len(frames))
            return
        head = frames[:2]
        version, request_id, raw_domain, raw_address, _identity, mechanism = frames[2:8]
        if version != b"1.0":
            self.socket.send_multipart([*head, b"1.0", request_id, b"400", b"ZAP version 1.0 only", b"", b""])
            return
        domain = raw_domain.decode("ascii", "replace")
        address = raw_address.decode("ascii", "replace")
        if mechanism != b"CURVE" or len(frames) < 9 or len(frames[8]) != 32:
            self._refuse(head, request_id, domain, address, "", f"mechanism {mechanism!r}: CURVE only")
            return
        public = z85.encode(frames[8]).decode("ascii")
        cert = self._by_key.get(public)
        if cert is None:
            self._refuse(head, request_id, domain, address, public, "key not in the clients directory")
            return
        if not self.allows(domain, cert.name):
            self._refuse(head, request_id, domain, address, public, self.refusal(cert.role, domain), cert.name)
            return
        self.socket.send_multipart([*head, b"1.0", request_id, b"200", b"OK", cert.name.encode("utf-8"),
                                    encode_metadata({"Role": cert.role})])
        self.granted.setdefault(cert.name, set()).add(domain)
        log.info("%s (%s) connected to %s from %s", cert.name, cert.role, domain, address)
        if domain in FULL_SOCKETS and self.audit is not None:
            self.audit.write("full_feed_subscribed", {"socket": domain, "address": address, "name": cert.name,
                                                      "role": cert.role, "key": public})

    def _refuse(self, head: list[bytes], request_id: bytes, domain: str, address: str, public: str, why: str,
                name: str = "") -> None:
        self.socket.send_multipart([*head, b"1.0", request_id, b"400", why.encode("utf-8"), b"", b""])
        now = self.clock()
        seen = (domain, address, public)
        if now < self._refused.get(seen, -REFUSAL_QUIET_S) + REFUSAL_QUIET_S:
            log.debug("connection refused again on %s from %s (key %s)", domain, address, public)
            return
        self._next_window(now)
        if self._in_window >= MOST_REFUSALS:
            self._suppressed += 1
            return
        self._in_window += 1
        self._refused[seen] = now
        log.warning("connection refused on %s from %s: %s (key %s%s)", domain, address, why, public or "none",
                    f", {name}" if name else "")
        if self.audit is not None:
            self.audit.write("connection_refused", {"socket": domain, "address": address, "key": public,
                                                    "name": name, "reason": why})

    def _next_window(self, now: float) -> None:
        """Once a `REFUSAL_QUIET_S` is over: audit how many refusals were not audited one by one."""
        if now < self._window + REFUSAL_QUIET_S:
            return
        if self._suppressed:
            log.warning("%d more connection(s) refused and not audited one by one", self._suppressed)
            if self.audit is not None:
                self.audit.write("connection_refused", {"socket": "", "address": "", "key": "", "name": "",
                                                        "reason": f"{self._suppressed} more refused, not audited "
                                                                  "one by one (a flood)"})
        self._window, self._in_window, self._suppressed = now, 0, 0
        self._refused = {k: t for k, t in self._refused.items() if now < t + REFUSAL_QUIET_S}

    # -- the clients directory --------------------------------------------------------------------

    def turn(self, now: float | None = None) -> float:
        """Called every turn of the loop: read the directory again when it changed (looked at every
        `RECHECK_S`). Returns the seconds until it wants the next look."""
        now = self.clock() if now is None else now
        self._next_window(now)
        if now < self._next_check:
            return self._next_check - now
        self._next_check = now + RECHECK_S
        stamp = keys.directory_stamp(self.clients_dir)
        if stamp != self._stamp:
            self._stamp = stamp
            self.reload()
        return RECHECK_S

    def reload(self) -> None:
        """Take the directory as it is now; audit what was added and revoked; cut the revoked."""
        before, after = self.clients, keys.load_clients(self.clients_dir)
        gone = {n for n, c in before.items()
                if n not in after or (after[n].public, after[n].role) != (c.public, c.role)}
        new = {n for n, c in after.items() if n not in before or n in gone}
        self.clients, self._by_key = after, {c.public: c for c in after.values()}
        for name in sorted(gone):
            cert = before[name]
            log.warning("key %s (%s) revoked: its connections are cut", name, cert.role)
            if self.audit is not None:
                self.audit.write("key_revoked", {"name": name, "role": cert.role, "key": cert.public})
        for name in sorted(new):
            cert = after[name]
            log.info("key %s (%s) added", name, cert.role)
            if self.audit is not None:
                self.audit.write("key_added", {"name": name, "role": cert.role, "key": cert.public})
        cut: set[str] = set()
        for name, domains in list(self.granted.items()):
            lost = domains if name in gone else {d for d in domains if not self.allows(d, name)}
            cut |= lost & set(self.pub_sockets)
            domains -= lost
            if not domains:
                del self.granted[name]
        for domain in sorted(cut):
            log.warning("the %s socket is closed and bound again: a revoked key was connected to it", domain)
            if self.on_cut is not None:
                self.on_cut(domain)

    def close(self) -> None:
        self.socket.close(0)


def caller_of(frame: zmq.Frame, local_role: str, zap: ZapHandler | None) -> Caller | None:
    """Who sent a command (the request's last frame): a CURVE client by its certificate's name, role
    and address; a plaintext one (no User-Id: ipc, loopback) the configuration's `local_role`.
    None: a key no longer allowed on the command socket (revoked since it connected): no reply."""
    user = frame_property(frame, "User-Id")
    if not user:
        return Caller(local_role, address=frame_property(frame, "Peer-Address"))
    role = frame_property(frame, "Role")
    if zap is None or not zap.allows("commands", user, role or None):
        return None
    return Caller(role, key=user, address=frame_property(frame, "Peer-Address"))
