"""The director's command channel under a flood: a client over its rate answered `busy` (nothing taken, nothing audited), a frame too large refused, and the clock still on the feed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import zmq

from floor.director.gate import DIRECTOR_BURST
from protocol.audit import AuditLog
from protocol.commands import MAX_REQUEST_BYTES
from tests.floor.test_director import Running, director, feed_of  # noqa: F401 (the fixture)


def flood(ctx: zmq.Context[Any], endpoint: str, count: int) -> list[dict[str, Any]]:
    """`count` `enter` requests sent at once from one DEALER, then every reply."""
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(endpoint)
    try:
        for n in range(count):
            dealer.send(msgpack.packb({"id": f"f{n}", "cmd": "enter", "player": f"P{n:03d}"}))
        replies = []
        while len(replies) < count and dealer.poll(5000):
            replies.append(msgpack.unpackb(dealer.recv(), raw=False))
        return replies
    finally:
        dealer.close(0)


def test_a_flood_is_answered_busy_and_fills_neither_the_field_nor_the_audit_log(
        director: Callable[..., Running], tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    d = director()
    replies = flood(ctx, f"ipc://{tmp_path}/dcmd", 300)
    assert len(replies) == 300  # every request answered
    taken = [r for r in replies if r["ok"]]
    busy = [r for r in replies if not r["ok"]]
    assert busy and all(r["code"] == "busy" and r["retry_s"] > 0 for r in busy)
    assert DIRECTOR_BURST <= len(taken) < DIRECTOR_BURST + 20  # the burst, and what the rate refilled
    assert d.ok("state")["state"]["entries"] == len(taken)  # nothing refused was taken
    audit = AuditLog.open(tmp_path / "state", readonly=True)
    try:
        audited = [e.details for e in audit.entries() if e.kind == "director_request"]
    finally:
        audit.close()
    assert len(audited) == len(taken) and {a["command"] for a in audited} == {"enter"}
    feed = feed_of(tmp_path, ctx)
    try:
        assert feed.fetch_snapshot()["entries"] == len(taken)  # the director's loop still serves its feed
    finally:
        feed.close()


def test_a_frame_too_large_is_refused_before_it_is_read(director: Callable[..., Running], tmp_path: Path,
                                                          ctx: zmq.Context[Any]) -> None:
    d = director()
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(f"ipc://{tmp_path}/dcmd")
    try:
        dealer.send(msgpack.packb({"id": "big", "cmd": "enter", "player": "x" * (MAX_REQUEST_BYTES + 10)}))
        assert dealer.poll(5000)
        reply = msgpack.unpackb(dealer.recv(), raw=False)
    finally:
        dealer.close(0)
    assert reply["ok"] is False and reply["code"] == "malformed"
    assert d.ok("state")["state"]["entries"] == 0
