"""The surveillance log when its page falls behind: a hand whose close it never saw is said voided only when it was."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route, WebSocketRoute

from engine.games import MAX_SPOTS
from pages.words import words_for
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from pages.app import static_files
from protocol.commands import Command

STATIC = Path(__file__).resolve().parents[2] / "firmware_host" / "display" / "static"
FILES = static_files(STATIC)  # what the display serves under /static/: its own files and the shared ones
BASE = "http://surveillance.test"
HAND = [("bet", {"seat": 1, "bets": {"ante": 100, "blind": 100}}), *[("card", {"card": c}) for c in "Ah Ad 2c Ks".split()],
        ("decide", {"seat": 1, "decision": "play", "multiple": 4}),
        *[("card", {"card": c}) for c in "Ac 9h 8d 7s 2h".split()], ("confirm", {})]


def full_states() -> tuple[dict[str, Any], dict[str, Any]]:
    """The full state of hand 1 with its hole cards out, and of hand 2's bet, hand 1 settled in between."""
    with tempfile.TemporaryDirectory() as root:
        c = Controller(Journal.open(Path(root)), default_setup=HouseSetup("uth", "default", {"minimum": 100}, MAX_SPOTS))
        c.recover()
        taken = []
        for step, (cmd, args) in enumerate([*HAND, HAND[0]]):
            assert c.handle_command(Command.from_mapping({"cmd": cmd, **args}))["ok"]
            if step in (4, len(HAND)):  # the dealer's second card, then hand 2's bet
                taken.append({**c.state.views()[1], "kind": "update", "table": "uth-1", "boot": "b1", "seq": step})
        c.journal.close()
    return taken[0], taken[1]


def serve(page: Page, states: list[dict[str, Any]]) -> None:
    """The surveillance page from the shipped files, a signed-in surveillance user, and a full feed that sends
    `states` and nothing between them (as to a page fallen behind: the display gives it the latest state)."""
    def static(route: Route) -> None:
        name = route.request.url.split("/static/")[1].split("?")[0]
        route.fulfill(path=FILES[name], content_type="text/css" if name.endswith(".css") else "text/javascript")

    page.route(f"{BASE}/surveillance", lambda r: r.fulfill(path=STATIC / "surveillance.html", content_type="text/html"))
    page.route(f"{BASE}/static/**", static)
    page.route(f"{BASE}/words.json", lambda r: r.fulfill(json=words_for("en")))
    page.route(f"{BASE}/api/me", lambda r: r.fulfill(json={"user": "eve", "role": "surveillance"}))

    def feed(ws: WebSocketRoute) -> None:
        ws.send(json.dumps({"kind": "hello", "heartbeat_s": 0}))
        for state in states:
            ws.send(json.dumps(state))

    page.route_web_socket(f"{BASE.replace('http', 'ws')}/ws/full", feed)
    page.goto(f"{BASE}/surveillance")


def last_line(page: Page, hand: int) -> tuple[str, str]:
    page.wait_for_selector(f"[data-steps] > li[data-hand='{hand + 1}']")
    kind, text = page.eval_on_selector(f"[data-steps] > li[data-hand='{hand}']",
                                       "e => [e.dataset.step, e.lastChild.textContent]")  # the newest first
    return str(kind), str(text)


def test_a_hand_closed_unseen_is_not_said_voided(page: Page) -> None:
    dealt, next_hand = full_states()
    assert (dealt["hand"], next_hand["hand"], next_hand["session"]["voided"]) == (1, 2, 0)
    serve(page, [dealt, next_hand])
    assert last_line(page, 1) == ("phase", "Hand 1 closed while this page was behind: its last steps are in the "
                                           "last hands below")


def test_a_hand_voided_unseen_is_said_voided(page: Page) -> None:
    dealt, next_hand = full_states()
    voided = {**next_hand, "session": {**next_hand["session"], "voided": 1}}  # as when hand 1 was voided instead
    serve(page, [dealt, voided])
    assert last_line(page, 1) == ("void", "Hand 1 voided: every bet returned")
