"""A screen of the whole table keeps only the newest state waiting (`bridge.Screen` coalescing); surveillance's screens keep every step."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from firmware_host.display.bridge import Hub


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
