"""The feed of rating events to a casino management system: each rating session opened, updated at each hand, closed, published by the pit's archiver over CURVE.

A PUB socket at `[pit] ratings`, a CURVE server with the pit's certificate under ZAP domain `ratings`
when `[pit] key` is set and the endpoint is TCP (the clients of `[pit] clients` whose role `[pit] roles`
lists get in: `floor/curve.py`), else plaintext on loopback or ipc. Each message is two frames:

    rating/TABLE    the topic (subscribe to `rating/` for every table, `rating/uth-07` for one)
    JSON            {"seq": n, "event": "opened" | "updated" | "closed", "session": {...}}

`seq` counts the feed's messages from 1 since the archiver started (a gap: messages lost to the
subscriber); `session` is the session's object as `croupier ratings --db --json` prints it (the card
in full, amounts in cents, `theo` exact as a fraction string, `theo_cents` half-even, times in seconds
since the epoch), its comp at no reinvestment. An event is sent when the archive's fold
(`floor/ratings.py`) writes a session new to the feed (`opened`, and `closed` at once when it ended
already), with other hands or breaks than last sent, gone on or back from a break, or adjusted by the pit
(a signed-off step more, an open or a closed session's: `updated`), or newly ended (`closed`). A consumer
keys sessions by (`table`, `player`, `start`): the archiver started again sends each session of each
table's current opening once more. There is no snapshot: `croupier ratings --db` is the state.

A certificate revoked from `[pit] clients` (or whose role `[pit] roles` no longer lists) while connected is
cut at once: the ZAP handler (`floor/curve.py`, on the archiver's main thread) sees the directory change
and calls `reopen`, which closes the PUB and binds it again; every client reconnects and is checked
again, the revoked one refused. The others may lose the events sent while they reconnect (a gap in `seq`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from typing import Any, Literal, TypedDict

import zmq

from engine.ratings import SessionReport
from protocol.keys import KeyPair, serve_curve

TOPIC = "rating/"

RatingEventKind = Literal["opened", "updated", "closed"]


class RatingEvent(TypedDict):
    """A rating event's JSON object (the message's second frame, docs/ratings.md)."""

    seq: int
    event: RatingEventKind
    session: SessionReport


class RatingFeed:
    """The PUB socket and what each session last sent was (its hands, breaks and end). The archiver's catch-up
    worker sends (`sessions`); its main thread, which serves ZAP, may `reopen` the socket: one lock between them
    (a ZeroMQ socket may change threads behind a full memory barrier)."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, keys: KeyPair | None) -> None:
        """Bind the PUB (a CURVE server when `keys` and TCP). Raises zmq.ZMQError (an address in use)."""
        self._ctx, self._endpoint, self._keys = ctx, endpoint, keys
        self._lock = threading.Lock()
        self.socket = self._bound(tries=1)
        self.seq = 0
        self.reopened = 0
        self.sent: dict[tuple[str, str, float], tuple[int, int, bool, float | None, int]] = {}

    def sessions(self, reports: Iterable[SessionReport]) -> int:
        """Send what changed in the sessions the fold wrote (`floor.ratings.rate`'s). Returns the messages sent."""
        sent = 0
        for s in reports:
            key = (str(s["table"]), str(s["player"]), float(s["start"]))
            now = (int(s["hands"]), int(s["breaks"]), bool(s.get("on_break")), s["end"], len(s.get("adjustments", [])))
            before = self.sent.get(key)
            if before == now:
                continue
            events: list[RatingEventKind] = ["opened"] if before is None else []
            if s["end"] is not None and (before is None or before[3] is None):
                events.append("closed")
            elif before is not None:
                events.append("updated")
            for event in events:
                self.seq += 1
                message: RatingEvent = {"seq": self.seq, "event": event, "session": s.copy()}
                body = json.dumps(message, sort_keys=True)
                with self._lock:
                    self.socket.send_multipart([(TOPIC + key[0]).encode("utf-8"), body.encode("utf-8")])
                sent += 1
            self.sent[key] = now
        return sent

    def _bound(self, tries: int) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = self._ctx.socket(zmq.PUB)
        sock.setsockopt(zmq.LINGER, 0)
        serve_curve(sock, self._endpoint, self._keys, "ratings")
        for attempt in range(tries):
            try:
                sock.bind(self._endpoint)
                return sock
            except zmq.ZMQError as exc:
                if attempt + 1 == tries or exc.errno != zmq.EADDRINUSE:
                    sock.close(0)
                    raise
                time.sleep(0.01)  # the closed socket's port is released by ZeroMQ's I/O thread
        raise AssertionError("unreachable")

    def reopen(self, domain: str) -> None:
        """Close the PUB (ZAP domain `ratings`) and bind it again: every client is cut and reconnects, checked by
        the ZAP handler again (a revoked key is refused). Another domain: nothing to do. Raises zmq.ZMQError
        (the address taken meanwhile by another process)."""
        if domain != "ratings":
            return
        with self._lock:
            self.socket.close(0)
            self.socket = self._bound(tries=200)
            self.reopened += 1

    def close(self) -> None:
        with self._lock:
            self.socket.close(0)
