"""A ZeroMQ context for a process that holds thousands of sockets (the pit, floor-sim): its descriptor limit raised to the hard maximum, the context's socket cap lifted."""

from __future__ import annotations

import resource
from typing import Any

import zmq


def many_sockets_context(max_sockets: int = 60000) -> zmq.Context[Any]:
    """A new context for up to `max_sockets` sockets, after raising this process's soft limit on open
    descriptors to its hard one (each socket holds at least one; ZeroMQ's default cap is 1,023 sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, max_sockets)
    return ctx
