"""The browser tests' teardown: a test's pages closed before the web process they show (`croupier display`, `pit web`) is ended."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser


def screens_closer(request: pytest.FixtureRequest) -> Callable[[], None]:
    """What a fixture that ends a web process calls first: close the test's browser contexts (their pages' WebSockets
    with them), when the test has a browser. At SIGTERM a web process tells its open screens "going away" and waits for
    their close (SHUTDOWN_S at most, pages/app.py): the pages closed first, nothing is waited for. The page
    fixtures' own close after this does nothing more. Where the stop with a screen open is what a test checks, the
    test stops the process itself (tests/web/test_display_bridge.py, test_dealer_shift's restart)."""
    browser: Browser | None = request.getfixturevalue("browser") if "browser" in request.fixturenames else None

    def close() -> None:
        for context in browser.contexts if browser is not None else ():
            context.close()

    return close
