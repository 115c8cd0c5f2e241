"""One table's public feed followed by the pit without blocking: `FeedClient`'s clone pattern, its snapshot asked on a DEALER the pit's poller watches."""

from __future__ import annotations

from typing import Any

import zmq

from floor.config import PitTable, PitTournament
from protocol.feed import FeedClient, pack

TABLE_QUEUE = 100
"""The messages of one table the pit's SUB holds unread (its RCVHWM, set before it connects): about a
minute of a table's feed at real time, 11-14 s at ten times, and at most ~0.4 MB a table were each a
~3.6 KB whole state (2 GB for 5,000 tables all backed up); a step's changes are a tenth of that or less. Past it the table's messages wait in the kernel's buffers,
then in the table's PUB, which drops the newest past its own high-water mark; the follower then sees
the gap in `seq` and takes the table's snapshot (docs/floor.md, "Scale")."""

class TableFollower:
    """The pit's view of one table: the `FeedClient` holding its boot, seq and latest state (the one
    model of the clone pattern: `FeedClient.follow`, `FeedClient.take_snapshot`), when it was last
    heard, whether it is online, and the snapshot request in flight, if any.

    Every socket here is the pit's poller thread's; nothing blocks: `ask_snapshot` sends on a fresh
    DEALER (while it waits, the SUB is left unread, its messages queued as the clone pattern wants).
    """

    catches_up = True
    """Whether its closed hands are fetched for the archive (a table's are; a tournament's clock has none)."""

    def __init__(self, ctx: zmq.Context[Any], table: PitTable | PitTournament, key: str | None,
                 server_key: str | None, now: float) -> None:
        """Subscribe to the table's feed. Raises ValueError (a bad key file)."""
        self.ctx = ctx
        self.table = table
        self.client = FeedClient(ctx, table.public, table.snapshot, key=key, server_key=server_key, queue=TABLE_QUEUE)
        self.dealer: zmq.Socket[Any] | None = None
        self.asked_at = now
        self.heard = now  # the last message or snapshot from the table
        self.online = False  # until its first snapshot
        self.hand: Any = None  # the hand number last seen, to tell when a hand closes
        self.phase: Any = None

    @property
    def name(self) -> str:
        return self.table.name

    def ask_snapshot(self, now: float) -> zmq.Socket[Any]:
        """Send a snapshot request on a fresh DEALER (any unanswered one is dropped); returns the DEALER."""
        self.drop_request()
        dealer: zmq.Socket[Any] = self.ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        if self.client.keys is not None:
            self.client.keys.apply(dealer)
        dealer.connect(self.table.snapshot)
        try:
            dealer.send(pack({"want": "snapshot"}), zmq.NOBLOCK)
        except zmq.Again:  # no pipe yet: asked again when this one times out
            pass
        self.dealer = dealer
        self.asked_at = now
        return dealer

    def drop_request(self) -> None:
        if self.dealer is not None:
            self.dealer.close(0)
            self.dealer = None

    def hand_closed(self) -> bool:
        """Whether the state now shows a hand closed since the last call: settled, or a new hand number
        (a voided hand gives way to the next at once); or the table itself closed (its `close` event
        fetched for the open time: floor/events.py)."""
        state = self.client.state or {}
        hand, phase = state.get("hand"), state.get("phase")
        closed = ((hand != self.hand and self.hand is not None) or (phase == "settled" and self.phase != "settled")
                  or (phase == "closed" and self.phase not in ("closed", None)))
        self.hand, self.phase = hand, phase
        return closed

    def close(self) -> None:
        self.drop_request()
        self.client.close()


class TournamentFollower(TableFollower):
    """A tournament director's clock feed, followed as a table's (`[[pit.tournaments]]`): the same clone
    pattern and the same offline rule, but no hand ever closes on it, so nothing is caught up."""

    catches_up = False

    def hand_closed(self) -> bool:
        return False


def follower_for(ctx: zmq.Context[Any], followed: PitTable | PitTournament, key: str | None,
                 server_key: str | None, now: float) -> TableFollower:
    """The follower of a table or of a tournament's clock. Raises ValueError (a bad key file)."""
    kind = TournamentFollower if isinstance(followed, PitTournament) else TableFollower
    return kind(ctx, followed, key, server_key, now)
