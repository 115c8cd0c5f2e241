"""Which requests the controller's loop takes, and when: the size and shape of a frame, a rate per client, a bound per turn.

No client can starve the table or exhaust it (`docs/security.md`, Limits):

- each turn of the loop takes at most `per_turn` requests (fewer when a reading reaches the inbox
  meanwhile); the devices' readings (the inbox, the driven shoe) are served before them and the
  snapshots and the heartbeat after them, every turn;
- each client has a token bucket (`rate_per_s` tokens a second, at most `burst` held); a request
  that finds its client's bucket empty is answered `busy` with `retry_s`, nothing decoded or
  journaled. A client is its CURVE key when the channel has one, else its ROUTER routing id;
- a request is one frame after its envelope (the routing id, and the empty delimiter of a REQ
  socket) of at most `max_request_bytes`: anything else is refused `malformed` before it is decoded.

`Admission.screen` decides, before any decoding, whether a request is taken or refused:

>>> gate = Admission(per_turn=4, rate_per_s=1.0, burst=2, clock=lambda: 0.0)
>>> [gate.screen([b"client", b"\\x80"]).refusal for _ in range(2)]
[None, None]
>>> gate.screen([b"client", b"\\x80"]).refusal["code"]
'busy'
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from protocol.commands import MAX_REQUEST_BYTES, error_reply, request_id_of, too_large
from protocol.requests import Refusal

PER_TURN = 4
"""Requests taken in one turn of the loop by default (`[commands] per_turn`): a card waits for at most four."""

RATE_PER_S = 200.0
"""Requests a second one client may send by default (`[commands] rate_per_s`); a dealer sends a few."""

BURST = 400
"""Requests one client may send at once by default (`[commands] burst`)."""

MAX_FRAME_FACTOR = 64
"""The command socket drops a peer that sends a frame over this many times `max_request_bytes`
(ZeroMQ's MAXMSGSIZE: such a frame is never held in memory); up to it a long frame gets a reply."""

MAX_CLIENTS = 4096
"""Token buckets kept at most: the client heard from longest ago gives up its bucket (it comes back full)."""


class TokenBucket:
    """`rate` tokens a second, at most `burst` held; a request takes one.

    >>> bucket = TokenBucket(rate=2.0, burst=1, now=0.0)
    >>> bucket.take(0.0), bucket.take(0.0), bucket.wait(0.0), bucket.take(0.5)
    (True, False, 0.5, True)
    """

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), now

    def _fill(self, now: float) -> None:
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self, now: float) -> bool:
        """Take a token if one is held. Returns whether one was."""
        self._fill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self, now: float) -> float:
        """Seconds until the next token."""
        self._fill(now)
        return max(0.0, (1.0 - self.tokens) / self.rate)


class Buckets:
    """A token bucket per client (`rate` tokens a second, at most `burst` held), made full at a client's first
    request; past `MAX_CLIENTS` the client heard from longest ago gives up its bucket (it comes back full)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: OrderedDict[Any, TokenBucket] = OrderedDict()

    def of(self, key: Any, now: float) -> TokenBucket:
        """The client's bucket."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
            if len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket


class Screened(NamedTuple):
    """A request as screened: where to answer (`envelope`), its one frame (`payload`), and the reply
    that refuses it (`refusal`), None when it is to be decoded and handled."""

    envelope: list[Any]
    payload: Any
    refusal: Refusal | None


class Admission:
    """The loop's gate on the command channel: frame limits, a token bucket per client, the bound per turn."""

    def __init__(self, *, max_request_bytes: int = MAX_REQUEST_BYTES, per_turn: int = PER_TURN,
                 rate_per_s: float = RATE_PER_S, burst: int = BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_request_bytes = max_request_bytes
        self.per_turn = per_turn
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.clock = clock
        self._buckets = Buckets(rate_per_s, burst)

    @classmethod
    def of(cls, commands: Any) -> Admission:
        """From the configuration's `[commands]` (a `CommandsConfig`; None: the defaults)."""
        if commands is None:
            return cls()
        return cls(max_request_bytes=commands.max_request_bytes, per_turn=commands.per_turn,
                   rate_per_s=commands.rate_per_s, burst=commands.burst)

    def screen(self, frames: Sequence[Any], key: Any = None) -> Screened:
        """Screen one request as the ROUTER received it (`frames`: routing id, a REQ client's empty
        delimiter, the request). `key` is who sent it (a CURVE key; None: the routing id)."""
        envelope = list(frames[:2]) if len(frames) > 2 and len(frames[1]) == 0 else list(frames[:1])
        body = frames[len(envelope):]
        payload = body[-1] if body else b""
        now = self.clock()  # one reading for the take and the wait: a bucket refilled between them said 0 s
        bucket = self._buckets.of(frames[0] if key is None else key, now)
        if not bucket.take(now):
            wait = max(0.001, round(bucket.wait(now), 3))  # never "send again in 0 s"
            reply = error_reply(request_id_of(bytes(payload), self.max_request_bytes), "busy",
                                f"too many requests: at most {self.rate_per_s:g} a second "
                                f"(bursts of {self.burst}); send again in {wait:.3f} s")
            return Screened(envelope, payload, {**reply, "retry_s": wait})
        if len(body) != 1:
            return Screened(envelope, payload, error_reply(None, "malformed", f"a request is one frame, "
                                                           f"not {len(body)} (after the envelope)"))
        if len(payload) > self.max_request_bytes:
            return Screened(envelope, payload, error_reply(None, "malformed",
                                                           too_large(len(payload), self.max_request_bytes)))
        return Screened(envelope, payload, None)
