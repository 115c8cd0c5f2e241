"""The dealer console shows the pit's hold (`tables/hold.py`): a banner "HELD – hand-for-hand" while the table
may not begin a hand, no Deal button (the state's steps), both gone once the hold is released."""

from __future__ import annotations

from typing import Any

import zmq
from playwright.sync_api import Page

from cli.demo import SimTable
from protocol.commands import CommandClient
from tests.web.test_dealer_poker import _panel, _sign_in, _wait_for, poker_console  # noqa: F401 (the fixture)


def _held(page: Page) -> str | None:
    return page.evaluate("() => { const b = document.getElementById('held'); return b.hidden ? null : b.textContent; }")


def test_the_console_shows_the_hold_and_the_deal_waits_for_its_release(page: Page,
                                                                       poker_console: dict[str, Any]) -> None:
    table: SimTable = poker_console["table"]
    floor = table.supervisor
    assert floor is not None
    _sign_in(page, poker_console["ready"]["display"])
    _wait_for(page, lambda s: "deal" in s["actions"], "the deal button")
    assert _held(page) is None
    ctx: zmq.Context[Any] = zmq.Context()
    pit = CommandClient(ctx, table.endpoints.commands, timeout_s=3.0, name="floor")
    auth = {"user": floor["user"], "pin": floor["pin"]}
    try:
        assert pit.request("hold", reason="hand-for-hand", by="tournament", auth=auth)["ok"]
        page.wait_for_function("() => !document.getElementById('held').hidden")
        assert _held(page) == "HELD \u2013 hand-for-hand (from hand 1)"
        held = _wait_for(page, lambda s: "deal" not in s["actions"], "no Deal while held")  # the state's steps
        assert held["phase"] == "waiting"
        assert pit.request("hold", release=True, auth=auth)["ok"]
        page.wait_for_function("() => document.getElementById('held').hidden")
        page.click('[data-poker] [data-action="deal"]')
        _wait_for(page, lambda s: s["to_act"] is not None, "the hand dealt")
    finally:
        pit.close()
        ctx.destroy(linger=0)
