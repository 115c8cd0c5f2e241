"""The dealer console's relay waits for a signed-off command as long as the command desk may take to answer it, against a table on a real ZeroMQ socket that answers late."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import zmq

from firmware_host.display.dealer import REQUEST_TIMEOUT_S, Console, Relay
from firmware_host.service.command_desk import MAX_DEFER_S, SIGNED_OFF_WAIT_S
from tests.own_loop import in_own_loop

LATE_S = 1.5
"""How late the slow table answers: longer than both sends of the short relay below."""


class SlowTable(threading.Thread):
    """A table's command socket that answers each request `LATE_S` after it came (a sign-off's hash on a loaded
    machine), and only the first send of each id (a re-send's answer would be the same reply)."""

    def __init__(self, ctx: zmq.Context[Any]) -> None:
        super().__init__(daemon=True)
        self.sock: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.received: list[dict[str, Any]] = []
        self.halt = threading.Event()

    def run(self) -> None:
        pending: list[tuple[float, list[bytes], str]] = []
        answered: set[str] = set()
        while not self.halt.is_set():
            if self.sock.poll(20):
                envelope = self.sock.recv_multipart()
                request = msgpack.unpackb(envelope[-1], raw=False)
                self.received.append(request)
                if request["id"] not in answered:
                    answered.add(request["id"])
                    pending.append((time.monotonic() + LATE_S, envelope[:-1], request["id"]))
            for due in [p for p in pending if p[0] <= time.monotonic()]:
                pending.remove(due)
                self.sock.send_multipart([*due[1], msgpack.packb({"id": due[2], "ok": True}, use_bin_type=True)])
        self.sock.close(0)


@pytest.fixture
def table() -> Iterator[SlowTable]:
    ctx: zmq.Context[Any] = zmq.Context()
    slow = SlowTable(ctx)
    slow.start()
    yield slow
    slow.halt.set()
    slow.join(5)
    ctx.destroy(linger=0)


def relay_once(relay: Relay, command: dict[str, Any]) -> dict[str, Any]:
    ctx: zmq.Context[Any] = zmq.Context()

    async def one() -> dict[str, Any]:
        console = Console(relay, "ana", ctx)
        try:
            return await console.relay_command("c1", command)
        finally:
            await console.close()
    try:
        return in_own_loop(one(), timeout_s=60)
    finally:
        ctx.destroy(linger=0)


def test_a_signed_off_command_waits_as_long_as_the_desk_may_take() -> None:
    assert SIGNED_OFF_WAIT_S >= 2 * MAX_DEFER_S  # the hash's wait for a pause, and its answer's
    relay = Relay("tcp://127.0.0.1:1")
    assert relay.wait_s({"cmd": "bet"}) == REQUEST_TIMEOUT_S
    assert relay.wait_s({"cmd": "void", "auth": {"user": "bo", "pin": "1234"}}) == SIGNED_OFF_WAIT_S > REQUEST_TIMEOUT_S


def test_a_late_answer_to_a_sign_off_reaches_the_console_sent_once(table: SlowTable) -> None:
    relay = Relay(table.endpoint, timeout_s=LATE_S / 3)  # both sends of a plain command over before the answer
    answer = relay_once(relay, {"cmd": "void", "hand": 3, "auth": {"user": "bo", "pin": "1234"}})
    assert answer == {"kind": "reply", "id": "c1", "reply": {"id": answer["reply"]["id"], "ok": True}}
    assert [(r["cmd"], r["auth"]) for r in table.received] == [("void", {"user": "bo", "pin": "1234", "at": "ana"})]


def test_a_plain_command_unanswered_in_time_says_so_in_its_own_seconds(table: SlowTable) -> None:
    relay = Relay(table.endpoint, timeout_s=LATE_S / 3)
    answer = relay_once(relay, {"cmd": "bet", "hand": 3, "seat": 1, "bets": {"ante": 100}})
    assert answer["kind"] == "error" and answer["say"] == {"key": "console.no_answer", "args": {"seconds": 1}}
    assert "within 1 s" in answer["error"]
    assert table.received[0]["cmd"] == "bet"  # it reached the table: its answer came too late
