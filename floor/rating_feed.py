"""The feed of rating events to a casino management system: each rating session opened, updated at each hand, closed, published by the pit's archiver over CURVE.

A PUB socket at `[pit] ratings`, a CURVE server with the pit's certificate under ZAP domain `ratings`
when `[pit] key` is set and the endpoint is TCP (the clients of `[pit] clients` whose role `[pit] roles`
lists get in: `floor/curve.py`), else plaintext on loopback or ipc. Each message is two frames:

    rating/TABLE    the topic (subscribe to `rating/` for every table, `rating/uth-07` for one)
    JSON            {"seq": n, "event": "opened" | "updated" | "closed", "session": {...}}

`seq` counts the feed's messages from 1, on from the last one over an archiver restart (a gap: messages
lost to the subscriber); `session` is the session's object as `croupier ratings --db --json` prints it (the card
in full, amounts in cents, `theo` exact as a fraction string, `theo_cents` half-even, times in seconds
since the epoch), its comp at no reinvestment. An event is sent when the archive's fold
(`floor/ratings.py`) writes a session new to the feed (`opened`, and `closed` at once when it ended
already), with other hands or breaks than last sent, gone on or back from a break, or adjusted by the pit
(a signed-off step more, an open or a closed session's, or a past gaming day's made in the archive:
`updated`), or newly ended (`closed`). A consumer keys sessions by (`table`, `player`, `start`). What was
sent of each session and `seq` are kept in the archive (`floor/rating_memory.py`): the archiver started
again sends what changed while it was down, a session announced before as `updated` (or `closed`), never
`opened` twice. There is no snapshot: `croupier ratings --db` is the state.

A certificate revoked from `[pit] clients` (or whose role `[pit] roles` no longer lists) while connected is
cut at once: the ZAP handler (`floor/curve.py`, on the archiver's main thread) sees the directory change
and calls `reopen`, which closes the PUB and binds it again; every client reconnects and is checked
again, the revoked one refused. The others may lose the events sent while they reconnect (a gap in `seq`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import zmq

from engine.ratings import SessionReport
from protocol.keys import KeyPair, serve_curve

if TYPE_CHECKING:  # the archive's (psycopg): an archiver with no database has no feed
    from floor.rating_memory import FeedMemory, Key, Sent
log = logging.getLogger("croupier.pit.ratings")

TOPIC = "rating/"

RatingEventKind = Literal["opened", "updated", "closed"]

def sent_of(report: SessionReport) -> Sent:
    """What a session's event tells of it, compared with what was sent before."""
    return (int(report["hands"]), int(report["breaks"]), bool(report.get("on_break")), report["end"],
            len(report.get("adjustments", [])))


class RatingEvent(TypedDict):
    """A rating event's JSON object (the message's second frame, docs/ratings.md)."""

    seq: int
    event: RatingEventKind
    session: SessionReport


def _events(s: SessionReport, before: Sent | None, adjusted: bool) -> list[RatingEventKind]:
    """The events a session's change makes: `opened` when new to the feed (a past day's adjustment: `updated`
    whatever was sent), then `closed` when it ended since, else `updated`."""
    if adjusted:
        return ["updated"]
    events: list[RatingEventKind] = ["opened"] if before is None else []
    if s["end"] is not None and (before is None or before[3] is None):
        events.append("closed")
    elif before is not None:
        events.append("updated")
    return events


class RatingFeed:
    """The PUB socket and what each session last sent was (its hands, breaks and end). The archiver's catch-up
    worker sends (`sessions`); its main thread, which serves ZAP, may `reopen` the socket: one lock between them
    (a ZeroMQ socket may change threads behind a full memory barrier)."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, keys: KeyPair | None,
                 memory: FeedMemory | None = None) -> None:
        """Bind the PUB (a CURVE server when `keys` and TCP), going on from what `memory` (the archive's) holds.
        Raises zmq.ZMQError (an address in use)."""
        self._ctx, self._endpoint, self._keys = ctx, endpoint, keys
        self._lock = threading.Lock()
        self._sending = threading.Lock()  # the catch-up thread's sessions, the main thread's archive steps
        self.memory = memory
        self.seq, self.step = 0, 0
        try:
            self.seq, self.step = memory.seq() if memory is not None else (0, 0)
        except RuntimeError as exc:  # ArchiveError: the archive down at the start (its catch-ups wait for it too)
            log.warning("the rating feed's memory cannot be read: seq starts from 1: %s", exc)
        self.socket = self._bound(tries=1)
        self.reopened = 0
        self.sent: dict[Key, Sent] = {}

    def sessions(self, reports: Iterable[SessionReport], adjusted: bool = False) -> int:
        """Send what changed in the sessions the fold wrote (`floor.ratings.rate`'s), or, `adjusted`, in sessions
        of a gaming day gone adjusted in the archive (`updated` each). Returns the messages sent."""
        with self._sending:
            reports = list(reports)
            self._recall(reports)
            sent, kept = 0, {}
            for s in reports:
                key = (str(s["table"]), str(s["player"]), float(s["start"]))
                now, before = sent_of(s), self.sent.get(key)
                if before == now:
                    continue
                for event in _events(s, before, adjusted):
                    self.seq += 1
                    message: RatingEvent = {"seq": self.seq, "event": event, "session": s.copy()}
                    body = json.dumps(message, sort_keys=True)
                    with self._lock:
                        self.socket.send_multipart([(TOPIC + key[0]).encode("utf-8"), body.encode("utf-8")])
                    sent += 1
                self.sent[key] = kept[key] = now
            if kept:
                self._keep(kept)
            return sent

    def archive_steps(self) -> int:
        """Publish the adjustments made in the archive (`floor/rating_past.py`) since the last published: an
        `updated` for each session. Returns the messages sent; nothing without a memory. Raises ArchiveError."""
        if self.memory is None:
            return 0
        with self._sending:  # the memory's one connection: never used by both threads at once
            steps = self.memory.steps(self.step)
            if not steps:
                return 0
            self.step = steps[-1][0]
        sent = self.sessions([report for _, report in steps if report is not None], adjusted=True)
        if not sent:  # nothing to send (the sessions purged since): the steps are passed all the same
            with self._sending:
                self._keep({})
        return sent

    def _recall(self, reports: list[SessionReport]) -> None:
        """What the memory holds of the sessions this run has not sent yet (the archiver started again)."""
        if self.memory is None:
            return
        unknown = {(str(s["table"]), str(s["player"]), float(s["start"])) for s in reports} - set(self.sent)
        try:
            self.sent.update(self.memory.recall(unknown))
        except RuntimeError as exc:  # ArchiveError: the archive went down since the fold wrote these
            log.warning("the rating feed's memory cannot be read (a session may be sent `opened` again): %s", exc)

    def _keep(self, kept: dict[Key, Sent]) -> None:
        if self.memory is None:
            return
        try:
            self.memory.keep(kept, self.seq, self.step)
        except RuntimeError as exc:  # ArchiveError: kept here meanwhile: a restart before the next write sends these again
            log.warning("the rating feed's memory cannot be written: %s", exc)

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
