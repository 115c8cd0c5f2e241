"""A screen of the whole table keeps only the newest state waiting (`bridge.Screen` coalescing); surveillance's screens keep every step."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pages.bridge import QUEUE_MESSAGES, Hub


def _sent(coalesce: bool) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        hub = Hub(1.0, coalesce=coalesce)
        hub.publish({"kind": "snapshot", "table": "t", "boot": "b", "seq": 1, "phase": "betting"})
        screen = hub.join()
        for seq in range(2, 12):  # a burst: a deal's cards at the shoe's line rate
            hub.publish({"kind": "update", "table": "t", "boot": "b", "seq": seq, "phase": "deal"})
        hub.publish({"kind": "heartbeat", "table": "t", "boot": "b", "seq": 11})
        sent = []
        while not screen.queue.empty():
            sent.append(json.loads(await screen.next()))
        hub.publish({"kind": "update", "table": "t", "boot": "b", "seq": 12, "phase": "settled"})
        sent.append(json.loads(await screen.next()))
        return sent

    with ThreadPoolExecutor(1) as worker:  # Playwright's sync API may hold this thread's loop
        return worker.submit(asyncio.run, run()).result(timeout=30)


def test_a_coalescing_screen_is_sent_the_newest_state_of_a_burst_once() -> None:
    sent = _sent(coalesce=True)
    assert [(m["kind"], m.get("seq")) for m in sent] == [("hello", None), ("update", 11), ("heartbeat", 11),
                                                         ("update", 12)]


def test_a_screen_that_shows_every_step_is_sent_every_update() -> None:
    sent = _sent(coalesce=False)
    assert [(m["kind"], m.get("seq")) for m in sent] == ([("hello", None), ("snapshot", 1)]
                                                         + [("update", s) for s in range(2, 12)]
                                                         + [("heartbeat", 11), ("update", 12)])


class _Counted:
    """A value the feed's JSON encodes with `str` (`default=str`): counts how often the message is encoded."""

    def __init__(self) -> None:
        self.encoded = 0

    def __str__(self) -> str:
        self.encoded += 1
        return "counted"


def test_a_message_is_encoded_once_and_the_latest_snapshot_only_when_a_screen_joins_or_overflows() -> None:
    counted = _Counted()

    async def run() -> dict[str, Any]:
        table = Hub(1.0, coalesce=True)
        quick = table.join()
        for seq in range(1, 6):
            table.publish({"kind": "update", "table": "t", "boot": "b", "seq": seq, "mark": counted})
        said = {"published": counted.encoded}
        late = table.join()  # a screen joining is sent the latest state as a snapshot: encoded now, once
        second = table.join()
        said["joined"] = counted.encoded
        said["late"] = [json.loads(await late.next()) for _ in range(2)]
        assert await second.next() and json.loads(await second.next()) == said["late"][1]
        assert json.loads(await quick.next())["kind"] == "hello"

        steps = Hub(1.0)  # every step kept: a full queue is replaced by the latest snapshot
        slow = steps.join()
        before = counted.encoded
        for seq in range(1, QUEUE_MESSAGES + 1):
            steps.publish({"kind": "update", "table": "t", "boot": "b", "seq": seq, "mark": counted})
        said["overflowed"] = counted.encoded - before
        said["resyncs"] = slow.resyncs
        said["after"] = json.loads(await slow.next())
        return said

    with ThreadPoolExecutor(1) as worker:
        said = worker.submit(asyncio.run, run()).result(timeout=30)
    assert said["published"] == 5  # five messages to a screen, each encoded once
    assert said["joined"] == 6  # two screens joined: the snapshot was encoded once for both
    assert said["late"][0]["kind"] == "hello"
    assert said["late"][1] == {"kind": "snapshot", "table": "t", "boot": "b", "seq": 5, "mark": "counted"}
    # QUEUE_MESSAGES updates to a queue holding hello and QUEUE_MESSAGES - 1 more: the last overflowed it
    assert said["resyncs"] == 1 and said["overflowed"] == QUEUE_MESSAGES + 1
    assert said["after"]["kind"] == "snapshot" and said["after"]["seq"] == QUEUE_MESSAGES
