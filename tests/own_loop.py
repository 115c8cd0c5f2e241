"""A coroutine run to its end on an event loop of its own thread: once a browser test ran in a worker, Playwright's sync API holds the worker's thread's loop, and `asyncio.run` there fails."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def in_own_loop(coro: Coroutine[Any, Any, Any], timeout_s: float | None = 120.0) -> Any:
    """`asyncio.run(coro)` in a thread of its own; its result, or what it raised."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, coro).result(timeout=timeout_s)
