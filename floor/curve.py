"""The floor feed over CURVE: the pit's own certificate as the server, and a ZAP handler letting in only the floor's client keys whose role `[pit] roles` lists.

The pit's XPUB is ZAP domain `floor` and its snapshot ROUTER `floor_snapshot`
(`floorfeed.FloorFeed`). The handler is the table's (`service.zap.ZapHandler`: ZAP 1.0 on the
pit's poller thread, the clients directory read again when it changes, a revoked key cut from the
XPUB by closing and binding it again, its snapshot requests dropped); only who may read is the
floor's: a certificate of `[pit] clients` whose role is in `[pit] roles` (`config.FLOOR_ROLES` by
default). ipc:// endpoints stay plaintext, for processes on the pit's own machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import zmq

from floor.config import PitConfig
from floor.feed import FloorFeed
from protocol.config import AccessConfig
from protocol.keys import load_secret
from protocol.zap import ZapHandler

FLOOR_DOMAINS = ("floor", "floor_snapshot", "ratings")
"""The ZAP domains of the pit's own server sockets: the floor feed, its snapshot, the rating events (its archiver's)."""


class FloorZap(ZapHandler):
    """The table's ZAP handler with the floor's rule: any of `roles` may use both floor sockets."""

    def __init__(self, ctx: zmq.Context[Any], clients: str, roles: tuple[str, ...]) -> None:
        """Bind the ZAP socket (before the CURVE sockets) and read `clients`. Raises zmq.ZMQError (already bound)."""
        super().__init__(ctx, clients, AccessConfig())
        self.roles = roles
        self.pub_sockets = ("floor",)

    def allows(self, domain: str, name: str, role: str | None = None) -> bool:
        cert = self.clients.get(name)
        return (cert is not None and (role is None or cert.role == role) and domain in FLOOR_DOMAINS
                and cert.role in self.roles)

    def refusal(self, role: str, domain: str) -> str:
        return f"role {role} may not read the floor ({domain} socket; [pit] roles: {', '.join(self.roles)})"


def open_floor_feed(ctx: zmq.Context[Any], cfg: PitConfig,
                    clock: Callable[[], float] = time.monotonic) -> tuple[FloorFeed, FloorZap | None]:
    """The floor feed's sockets, CURVE servers with their ZAP handler when `cfg.serves_curve`.
    Raises FeedError (an address in use), KeyFileError (a ValueError: the key file), zmq.ZMQError."""
    if not cfg.serves_curve or cfg.key is None or cfg.clients is None:
        return FloorFeed(ctx, cfg.listen, cfg.snapshot, cfg.heartbeat_s, clock), None
    keys = load_secret(cfg.key)
    zap = FloorZap(ctx, cfg.clients, cfg.roles)  # bound first: a CURVE socket without it lets anyone in
    try:
        feed = FloorFeed(ctx, cfg.listen, cfg.snapshot, cfg.heartbeat_s, clock, keys=keys)
    except Exception:
        zap.close()
        raise
    feed.guard = zap.admits
    return feed, zap
