"""A listening screen's WebSocket: its queued texts sent as they come, until the page goes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import WSMsgType, web


async def pump(ws: web.WebSocketResponse, next_text: Callable[[], Awaitable[str]], leave: Callable[[], None]) -> None:
    """Send `next_text()` to `ws` over and over until the page closes it (anything the page sends is
    ignored: these screens only listen), then `leave()`."""

    async def send() -> None:
        while True:
            await ws.send_str(await next_text())

    sender = asyncio.create_task(send())
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        leave()
        sender.cancel()
