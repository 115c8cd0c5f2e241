"""The director's gate: its CURVE keys and ZAP handler, who sent each request, and the audit log of every request taken or refused.

With `[director] server_key` and `clients` every TCP socket of the director (the clock feed, its
snapshot, the requests) is a CURVE server checked by one ZAP handler (`protocol/zap.py`, the tables'
own), under the access of `DIRECTOR_ACCESS`: only the keys of the clients directory whose role may
send the director something are let onto `commands`; every client role onto the feed. A refused
connection is audited by the handler (`connection_refused`), as at a table. A request is attributed
to its certificate (`access.Caller(role, key=NAME, address=PEER)`); a plaintext one (ipc, loopback
without keys) acts in `[director] role`.

The audit log is the tables' (`protocol/audit.py`): `DIR/audit.sqlite3` in the director's state
directory, read with `croupier audit verify|show --state DIR`. Beside the handler's and the
sign-off's entries (`signoff_granted`, `signoff_refused`, `signoff_held`, `forbidden`), every request
the director takes or refuses is one `director_request` entry: `command`, `outcome` (`taken` or
`refused`), `role`, `key` (the certificate's name; null for a local client), `address`, and `event`
(taken) or `code` and `error` (refused), `args` (the player, the players out, the seconds), and
`signed_off` (the supervisor). A `state` request taken is a read and is not written (a wall screen
asks every second); a `state` refused is.

Limits, as at a table's command channel (`protocol/fairness.py`'s `Admission`): a request is one frame
of at most `MAX_REQUEST_BYTES` (a peer sending one over `MAX_FRAME_FACTOR` times that is cut by
ZeroMQ); each client (its certificate, else its connection) has a token bucket of
`DIRECTOR_RATE_PER_S` requests a second in bursts of `DIRECTOR_BURST`, over which it is answered
`busy` with `retry_s` and nothing is decoded, taken or audited (so an allowed key cannot fill the
audit log: the refusals are counted, and logged once a minute); and the director's loop takes at
most `DIRECTOR_PER_TURN` requests a turn, so its clock goes out on time under a flood.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from typing import Any

import zmq

from floor.director.config import DirectorConfig
from protocol.access import Caller
from protocol.audit import AuditError, AuditLog, config_details, start_details
from protocol.commands import MAX_REQUEST_BYTES
from protocol.config import AccessConfig, server_keys
from protocol.fairness import MAX_FRAME_FACTOR, Admission, Screened
from protocol.feed import Feed
from protocol.keys import KeyPair, serve_curve
from protocol.zap import ZapHandler, caller_of

log = logging.getLogger("croupier.director")

_ANY_CLIENT = ("dealer", "supervisor", "pit", "surveillance", "display", "technician")
DIRECTOR_ACCESS = AccessConfig(public=_ANY_CLIENT, snapshot=_ANY_CLIENT, full=(), full_snapshot=(),
                               commands=("supervisor", "pit", "surveillance", "technician", "display"))
"""Socket -> the roles whose keys the director lets in: its feed to every client role (the clock is
for the room's screens); its requests to the roles that may send it something (`DIRECTOR_RIGHTS`)."""


DIRECTOR_RATE_PER_S = 20.0
"""Requests a second one client may send the director (a wall screen asks once a second, the pit a few)."""

DIRECTOR_BURST = 40
"""Requests one client may send the director at once."""

DIRECTOR_PER_TURN = 16
"""Requests the director's loop takes in one turn (the rest wait for the next)."""

BUSY_LOG_S = 60.0
"""The `busy` refusals are logged at most this often (each is counted)."""


class DirectorGate:
    """The director's keys, its ZAP handler (None without keys) and its audit log (None when it cannot
    be opened: the director runs without it, said at CRITICAL, as a table does)."""

    def __init__(self, cfg: DirectorConfig, state_dir: str, ctx: zmq.Context[Any]) -> None:
        """Open the audit log, read the keys, bind the ZAP handler (before any CURVE socket).
        Raises ConfigError (a key file) or zmq.ZMQError (another handler in this context)."""
        self.local_role = cfg.role
        self.admission = Admission(max_request_bytes=MAX_REQUEST_BYTES, per_turn=DIRECTOR_PER_TURN,
                                   rate_per_s=DIRECTOR_RATE_PER_S, burst=DIRECTOR_BURST)
        self.busy = 0  # requests answered `busy`
        self._busy_logged = (0.0, 0)  # (when the count was last logged, the count then)
        try:
            self.audit: AuditLog | None = AuditLog.open(state_dir)
        except AuditError as exc:
            log.critical("AUDIT LOG CANNOT BE OPENED: %s: the director runs without it", exc)
            self.audit = None
        if self.audit is not None:
            self.audit.write("start", start_details(tournament=cfg.tournament.name, pid=os.getpid()))
            self.audit.write("config", config_details(cfg.source))
        self.keys: KeyPair | None = None
        self.zap: ZapHandler | None = None
        if cfg.server_key:
            self.keys = server_keys(cfg.source, "director", cfg.server_key, cfg.clients)
            self.zap = ZapHandler(ctx, cfg.clients, DIRECTOR_ACCESS, self.audit)

    def bind_commands(self, ctx: zmq.Context[Any], endpoint: str) -> zmq.Socket[Any]:
        """The requests' ROUTER, a CURVE server on TCP with the keys. Raises zmq.ZMQError."""
        sock: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_FACTOR * MAX_REQUEST_BYTES)  # a peer past it is cut
        try:
            serve_curve(sock, endpoint, self.keys, "commands")
            sock.bind(endpoint)
        except zmq.ZMQError:
            sock.close(0)
            raise
        return sock

    def guard(self, feed: Feed) -> None:
        """Snapshot requests of a revoked key dropped; a PUB socket a revoked key was let into bound again."""
        if self.zap is not None:
            feed.guard = self.zap.admits
            self.zap.on_cut = feed.reopen

    def caller(self, frame: zmq.Frame) -> Caller | None:
        """Who sent the request (its last frame); None: a key revoked since it connected (no reply)."""
        return caller_of(frame, self.local_role, self.zap)

    def screen(self, received: list[zmq.Frame], caller: Caller) -> Screened:
        """A request as the ROUTER received it, screened before it is decoded: its envelope, its frame, and
        the reply refusing it (too large, not one frame: audited; `busy`: counted only), or None."""
        frames = [f.bytes for f in received]
        screened = self.admission.screen(frames, caller.key)
        if screened.refusal is None:
            return screened
        if screened.refusal.get("code") == "busy":
            self.busy += 1
            now = time.monotonic()
            if now - self._busy_logged[0] >= BUSY_LOG_S:
                log.warning("director: %d requests answered busy (over %g a second), %d since the last report",
                            self.busy, DIRECTOR_RATE_PER_S, self.busy - self._busy_logged[1])
                self._busy_logged = (now, self.busy)
        else:
            self.audited(caller, None, {}, screened.refusal)
        return screened

    def turn(self) -> None:
        """Each turn of the director's loop: ZAP requests answered, the clients directory looked at."""
        if self.zap is not None:
            self.zap.serve()
            self.zap.turn()

    def audited(self, caller: Caller, command: str | None, args: Mapping[str, Any], reply: Mapping[str, Any],
                signed_off: str | None = None) -> None:
        """One request taken or refused, in the audit log (a `state` read taken is not written)."""
        if self.audit is None or (command == "state" and reply.get("ok")):
            return
        details: dict[str, Any] = {"command": command, "outcome": "taken" if reply.get("ok") else "refused",
                                   "role": caller.role, "key": caller.key, "address": caller.address}
        if reply.get("ok"):
            details["event"] = reply.get("event")
        else:
            details.update(code=reply.get("code"), error=reply.get("error"))
        if args:
            details["args"] = dict(args)
        if signed_off is not None:
            details["signed_off"] = signed_off
        self.audit.write("director_request", details)

    def close(self) -> None:
        """The director stops: `stop` in the audit log; the handler's socket closed."""
        if self.zap is not None:
            self.zap.close()
            self.zap = None
        if self.audit is not None:
            self.audit.write("stop", {"outcome": "stopped", "pid": os.getpid()})
            self.audit.close()
            self.audit = None
