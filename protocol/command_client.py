"""The dealer side of the command channel (tests, bots, tools): one DEALER socket, a request and its answer (`service.commands`)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from typing import Any

import msgpack
import zmq

from protocol.curve import client_keys

__all__ = ["CommandClient"]


class CommandClient:
    """The dealer side (tests, bots, tools): one DEALER socket, request and wait for the answer."""

    _ids = itertools.count(1)

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, timeout_s: float = 5.0, name: str = "dealer", *,
                 key: str | None = None, server_key: str | None = None) -> None:
        """Connect to `endpoint`; a CURVE client with `key` (this client's secret certificate file)
        and `server_key` (the table's public one). Raises ValueError (a bad key file, or one of the
        two without the other)."""
        self.ctx = ctx
        self.endpoint = endpoint
        self.timeout_ms = int(timeout_s * 1000)
        self.name = name
        self.keys = client_keys(key, server_key)
        self._sock = self._connect()

    def _connect(self) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = self.ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        # a send with no peer to take it (a refused CURVE handshake tears the pipe down) waits at most
        # the timeout, then raises zmq.Again: never blocks for good
        sock.setsockopt(zmq.SNDTIMEO, self.timeout_ms)
        if self.keys is not None:
            self.keys.apply(sock)
        sock.connect(self.endpoint)
        return sock

    def request(self, cmd: str, *, req_id: str | int | None = None, retries: int = 0,
                auth: Mapping[str, str] | None = None, **args: Any) -> dict[str, Any]:
        """Send one command and return the reply map (`auth`: a supervisor's sign-off, user and pin).

        With `retries`, a request unanswered in time is re-sent with the same id on a fresh socket
        (the controller recognises the id, so it is applied once). A `busy` answer (this client is
        over its rate) is waited out for its `retry_s` and the request sent again, within the
        timeout; past it the `busy` reply is returned. A request that cannot be put in a frame (an integer
        beyond 64 bits, a value msgpack has no type for) is not sent: a `malformed` refusal is returned, as the
        controller's own would be. Raises TimeoutError.
        """
        if req_id is None:
            req_id = f"{self.name}-{next(self._ids)}"
        request = {"id": req_id, "cmd": cmd, **args, **({"auth": dict(auth)} if auth is not None else {})}
        try:
            frame = msgpack.packb(request, use_bin_type=True)
        except (OverflowError, TypeError, ValueError) as exc:  # e.g. a page's 10**30: nothing sent, refused here
            from protocol.commands.codec import error_reply  # noqa: PLC0415 - the package imports this module
            if isinstance(exc, OverflowError):
                return dict(error_reply(req_id, "malformed", f"{cmd}: a number beyond 64 bits: not sent",
                                        {"key": "refusal.number_out_of_range", "args": {}}))
            return dict(error_reply(req_id, "malformed", f"{cmd}: {exc}"))
        deadline = time.monotonic() + self.timeout_ms / 1000
        attempt = 0
        while attempt <= retries:
            try:
                self._sock.send(frame)
            except zmq.Again:  # nobody to send to within the timeout: as unanswered
                pass
            while self._sock.poll(self.timeout_ms):
                reply: dict[str, Any] = msgpack.unpackb(self._sock.recv(), raw=False)
                if reply.get("id") != req_id:
                    continue
                wait = float(reply.get("retry_s") or 0.01) if reply.get("code") == "busy" else None
                if wait is None or time.monotonic() + wait > deadline:
                    return reply
                time.sleep(min(wait, 1.0))  # not taken: send it again once a token is due
                break
            else:
                attempt += 1
                self._sock.close(0)
                self._sock = self._connect()
        raise TimeoutError(f"no reply to {cmd} from {self.endpoint}")

    def send_raw(self, frame: bytes) -> dict[str, Any]:
        """Send a raw frame (for tests of malformed requests). Raises TimeoutError."""
        try:
            self._sock.send(frame)
        except zmq.Again:
            raise TimeoutError("no peer took the request") from None
        if not self._sock.poll(self.timeout_ms):
            raise TimeoutError("no reply")
        reply: dict[str, Any] = msgpack.unpackb(self._sock.recv(), raw=False)
        return reply

    def close(self) -> None:
        self._sock.close(0)
