"""Coroutines on an event loop of their own thread: once a browser test ran in a worker, Playwright's sync API holds the worker's thread's loop, and `asyncio.run` there fails."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def in_own_loop(coro: Coroutine[Any, Any, Any], timeout_s: float | None = 120.0) -> Any:
    """`asyncio.run(coro)` in a thread of its own; its result, or what it raised."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, coro).result(timeout=timeout_s)


class LoopThread:
    """An event loop running in a thread of its own, for as long as a test serves from it (the floor's pages a
    browser reads): `run` a coroutine there and wait for it; `stop` after a last coroutine, the loop closed."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout_s: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    def stop(self, last: Coroutine[Any, Any, Any]) -> None:
        self.run(last)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
