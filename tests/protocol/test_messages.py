"""The typed messages (protocol/messages.py, requests.py, records.py) against docs/feed.md, which lists their fields; real states, journal events and closed hands of played hands against the JSON Schema made from them; the display serving the public state's schema."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from aiohttp.test_utils import TestClient, TestServer

from drivers.readings import (ButtonPress, ChipsRead, DeviceFault, DeviceOffline, DeviceOnline, Misread, Sensor,
                              SensorChange)
from pages.bridge import Hub
from firmware_host.display.server import make_app
from firmware_host.service.history import hand_line, hand_lines
from firmware_host.service.journal import Journal
from firmware_host.service.table_events import event_line
from firmware_host.service.tray import TrayWatch
from protocol import chip_alerts, history, messages, records, requests
from protocol.chip_alerts import ChipNote
from protocol.schema import json_schema
from tests.firmware_host import test_controller as house
from tests.firmware_host import test_table_chips as chips
from tests.firmware_host import test_poker_table as poker
from tests.engine import tray_kit
from tests.protocol.schema_check import problems

DOC = (Path(__file__).resolve().parents[2] / "docs" / "feed.md").read_text(encoding="utf-8")
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def section(title: str) -> str:
    """The text under the heading `title` up to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", DOC, re.M | re.S)
    assert match is not None, f"docs/feed.md has no section {title!r}"
    return match.group(1)


def table(text: str) -> dict[str, str]:
    """A two-or-more-column table's rows: each key named in the first column (`a`, `b`) -> the second column."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if not line.startswith("| `") or len(cells) < 2:
            continue
        for key in re.findall(r"`([^`]+)`", cells[0]):
            rows[key] = cells[1]
    return rows


def fields(cell: str) -> set[str]:
    """The field names a cell lists: the quoted keys of its outermost map (`{"a", "b": ...}`, not inside
    parentheses, not a value after `:` or `/`) and, outside any map, the names it gives in backticks
    (`a`, `b`) but for those in parentheses (what a field means)."""
    names: set[str] = set()
    braces = parens = 0
    previous = ""
    in_ticks = False
    i = 0
    while i < len(cell):
        char = cell[i]
        if char == "`":
            in_ticks = not in_ticks
            if in_ticks and braces == 0 and parens == 0:
                end = cell.index("`", i + 1)
                word = cell[i + 1:end].split(": ")[0]  # `keep_seats: true`
                if _NAME.fullmatch(word):
                    names.add(word)
                    in_ticks = False
                    i = end
        elif char == '"':
            end = cell.index('"', i + 1)
            word = cell[i + 1:end]
            if braces == 1 and parens == 0 and previous not in ":/" and _NAME.fullmatch(word):
                names.add(word)
            previous = '"'
            i = end
        elif char in "{(":
            braces += char == "{"
            parens += char == "("
        elif char in "})":
            braces -= char == "}"
            parens -= char == ")"
        if not char.isspace() and char not in '"`':
            previous = char
        i += 1
    return names


def keys(typed: Any) -> set[str]:
    return set(typed.__annotations__) | set().union(*(getattr(b, "__annotations__", {}) for b in typed.__mro__))


HOUSE_STATE = table(section("State (update and snapshot)"))
POKER_STATE = table(section("State (update and snapshot) at a poker table"))

# each nested message a state's cell lists, by the key it is under: the cells of the house and the poker
# table together list its fields (a key both describe, e.g. `spots`, lists its fields in both)
NESTED: dict[str, Any] = {
    "dealer": messages.Dealer, "spots": messages.Spot, "fault": messages.FullFault, "steps": messages.Steps,
    "corrections": messages.Correction, "hold": messages.Hold, "race": messages.Race,
    "button_draw": messages.ButtonDraw, "session": messages.Session, "limits": messages.Limits,
    "paytable": messages.Paytable, "history": messages.HistoryHand, "stakes": messages.Stakes,
    "expected": messages.Expected,
    "results": messages.PokerResults, "tournament": messages.Tournament, "clock": messages.Clock,
    "chips": messages.Chips, "tray_alert": messages.TrayAlert, "signoff_alert": messages.SignoffAlert,
}


def test_the_state_tables_list_every_key_of_the_public_state_and_no_other() -> None:
    documented = set(HOUSE_STATE) | set(POKER_STATE)
    assert documented == keys(messages.PublicState)
    # what both states carry is typed once (TableFields); each adds its own hands and fault
    assert keys(messages.PublicState) <= keys(messages.FullState)


def test_the_redaction_lets_through_exactly_the_public_states_keys() -> None:
    from engine import redact

    assert redact.TABLE_KEYS == keys(messages.PublicState)
    assert redact.HAND_KEYS == keys(messages.Spot) | keys(messages.Dealer)
    assert redact.FAULT_KEYS | {"say"} == keys(messages.Fault)


@pytest.mark.parametrize("key", sorted(NESTED))
def test_each_nested_message_lists_its_fields(key: str) -> None:
    documented = set().union(*(fields(rows[key]) for rows in (HOUSE_STATE, POKER_STATE) if key in rows))
    # the fault's cell says what its public and its full form carry, but for the `detail` (the full feed's: below)
    assert documented == keys(NESTED[key]) - ({"detail"} if key == "fault" else set())


def test_the_legal_decisions_of_each_game_are_documented() -> None:
    assert fields(HOUSE_STATE["legal"]) == keys(messages.Decision)
    assert fields(POKER_STATE["legal"]) == keys(messages.PokerLegal)


def test_the_full_feed_adds_what_the_document_says() -> None:
    house_text = section("Hidden cards stay hidden")
    poker_text = DOC[DOC.index("Hidden cards: on the public feed"):]
    added: set[str] = set()
    for text in (house_text, poker_text):
        start = re.search(r"The\s+full\s+feed\s+shows\s+every\s+card\s+and\s+adds", text)
        assert start is not None
        added |= fields(text[start.start():text.index(". ", start.start())])
    full_only = keys(messages.FullState) - keys(messages.PublicState)
    per_hand = {"visible"}  # on each hand, and the fault's `detail`
    assert added == full_only | per_hand | {"detail"}
    assert "visible" in keys(messages.FullSpot) and "visible" in keys(messages.FullDealer)
    assert {"detail", "public_say"} <= keys(messages.FullFault)


def test_the_full_feeds_chips_and_tray_list_their_fields() -> None:
    text = section("Hidden cards stay hidden")
    chip_reads = re.findall(r"`(\{[^`]*\})`", text[text.index("`chip_reads` ("):text.index("`players`")])
    assert fields(chip_reads[0]) == keys(messages.ChipReads)
    notes = {re.findall(r'"kind": "(\w+)"', m)[0]: fields(m) for m in chip_reads[1:4]}
    typed = {get_args(keys_type.__annotations__["kind"])[0]: keys(keys_type) for keys_type in get_args(ChipNote)}
    assert notes == typed and set(typed) == {"foreign_chip", "chips_moved", "mispay"}
    assert fields(chip_reads[3].split('"circles": ')[1][1:-2]) == keys(chip_alerts.MispaidCircle)
    assert fields(chip_reads[4]) == keys(chip_alerts.ChipOverride)
    circles = HOUSE_STATE["chips"].split('"circles": ')[1]
    assert fields(circles[1:circles.index("]")]) == keys(messages.ChipCircle)  # each circle's, in the public `chips`
    tray = re.findall(r"`(\{[^`]*\})`", text[text.index("`tray` (with a chip set"):])
    assert fields(tray[0]) == keys(messages.TrayReconciliation)


def test_the_feed_header_is_the_documented_one() -> None:
    block = section("Feed messages").split("```")[1]
    frames = {re.findall(r'"kind": "(\w+)"', line)[0]: line for line in block.splitlines() if line.strip()}
    assert fields(frames.pop("changes")) == keys(messages.Changes)
    assert all(fields(line) == keys(messages.Header) for line in frames.values())  # `...state`: the rest
    # every kind shown is typed (an update is a snapshot's map sent as a step by a feed of whole states)
    assert set(frames) | {"changes", "update"} == set(messages.Kind.__args__)


def test_a_snapshot_request_is_the_documented_one() -> None:
    asked = re.search(r"msgpack `(\{[^`]*\})`", section("Snapshots: joining late (the ZeroMQ Guide's clone pattern)"))
    assert asked is not None and json.loads(asked.group(1)) == {"want": "snapshot"}
    assert fields(asked.group(1)) == keys(messages.SnapshotRequest)


def test_the_displays_hello_is_the_documented_one() -> None:
    display = (Path(__file__).resolve().parents[2] / "docs" / "display.md").read_text(encoding="utf-8")
    row = next(line for line in display.splitlines() if line.startswith('| `{"kind": "hello"'))
    assert fields(row.split(" | ")[0]) == keys(messages.Hello)
    assert json.loads(Hub(2.5).hello) == {"kind": "hello", "heartbeat_s": 2.5}


def test_every_commands_arguments_are_its_request_fields() -> None:
    text = section("The command channel")
    rows = table(text[text.index("| `cmd` |"):])
    rows.pop("cmd")
    for key, cell in table(section("Poker commands")).items() - {("cmd", "arguments")}:
        rows[key] = rows.get(key, "") + " " + cell
    assert set(rows) == set(requests.REQUESTS)
    for cmd, cell in rows.items():
        assert fields(cell) == keys(requests.REQUESTS[cmd]), cmd


def test_what_every_request_may_carry_is_the_typed_envelope() -> None:
    carried = re.findall(r"^- `(\w+)`", section("The command channel"), re.M)
    assert set(carried) | {"cmd"} == keys(requests.Request)
    assert fields(section("The command channel").split("- `auth` (")[1].split(")")[0]) == keys(requests.Auth)


def test_the_replies_are_typed() -> None:
    text = section("The command channel")
    replies = [json.loads(line.replace(", ...}", "}"))  # `...`: the rest as in the line above
               for line in text.split("Replies:")[1].split("```")[1].splitlines() if line.strip()]
    for reply in replies:
        assert set(reply) <= keys(requests.Done if reply["ok"] else requests.Refusal), reply
    assert problems(json_schema(requests.Done), replies[0]) == []  # a step taken, every field given
    worded = json.loads(text.split("in the table's money:")[1].split("```")[1])
    assert problems(json_schema(requests.Refusal), worded) == []


# -- real states against the schema --------------------------------------------------------------


def played_states(tmp_path: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every view of a UTH and a 3CP hand played to the end, a poker table's random hands of every game
    (faults among them), and a tournament table's hold, level, chip race, button draw and clock."""
    views = []
    r = house.Rig(tmp_path / "uth", house.UTH)
    r.c.tray = TrayWatch(tray_kit.CHIPS)  # the chip tray read and its movements (engine/tray.py)
    rack = tray_kit.Chips()
    r.c.handle_reading(ChipsRead("tray", frozenset(rack.tray), True))
    r.ok("buy_in", seat=1, amount=10000)
    r.ok("colour_up", seat=1, amount=2500)
    r.ok("fill", amount=50000, slip="F-1")
    r.ok("credit", amount=20000)
    r.c.handle_reading(ChipsRead("tray", frozenset(rack.tray), True))  # 40,000 less than expected: flagged
    views.append(r.c.states())
    r.ok("dealer", dealer="ana", action="in")
    r.ok("player", seat=3, action="in", card="6001234567")  # the full feed's `players` (tables/players.py)
    r.ok("rating", id="pit-1", seat=5, action="open", hands=12, average_bet=2500)  # a declined player, the pit's (signed off)
    house.uth_to_river(r)
    views.append(r.c.states())
    r.ok("decide", seat=3, decision="play", multiple=1)
    r.ok("confirm")
    views.append(r.c.states())
    r.ok("bet", seat=2, bets={"ante": 100, "blind": 100})
    views.append(r.c.states())
    r.cards("5c 6c 7c 8c")  # seat 2 and the dealer, twice
    r.ok("decide", seat=2, decision="play", multiple=4)
    r.ok("correct", seat=2, decision="check")
    views.append(r.c.states())
    r.ok("void", reason="a test")
    for reading in (DeviceOnline("shoe", "S1", "42", "1.0", 7), SensorChange(Sensor.LID_OPEN, True, 3),
                    Misread("shoe", 4), ButtonPress("next"), DeviceFault("shoe", "jammed"),
                    DeviceOffline("shoe", "unplugged")):
        r.c.handle_reading(reading)
        views.append(r.c.states())
    r.c.raise_fault("device_silent", "shoe: nothing for 5 s")
    r.ok("clear", reason="shoe fixed")
    r = house.Rig(tmp_path / "3cp", house.TCP)
    for seat in range(1, 6):
        r.ok("bet", seat=seat, bets={"ante": 100, "pair_plus": 100})
    for card in "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s Ah Kh Qh Jh Th".split():
        r.ok("card", card=card)
        views.append(r.c.states())
    for seat in range(1, 6):
        r.ok("decide", seat=seat, decision="play" if seat % 2 else "fold")
    r.ok("confirm")
    views.append(r.c.states())
    c = chips.Rig(tmp_path / "chips")  # a smart table: bets read, a Play read, a mispay accepted, a foreign chip
    c.reader()
    chips.bets_down(c)
    views.append(c.c.states())
    chips.to_showdown(c)
    views.append(c.c.states())
    c.ok("confirm")  # nothing paid yet
    views.append(c.c.states())
    c.ok("clear", reason="accepted as read")
    c.ok("confirm")
    c.put("spot2.ante", [chips.RETIRED])
    views.append(c.c.states())
    p = poker.Rig(tmp_path / "poker")
    rng = random.Random(3)
    for game in poker.GAMES:
        p.ok("open", **game, seats=6, stacks={str(s): rng.choice([30, 100, 400]) for s in rng.sample(range(1, 7), 4)})
        for seat in [s["seat"] for s in p.state()["spots"] if s["stack"] == 0]:
            p.ok("seat", seat=seat, action="rebuy", amount=100)
        poker.play_random_hand(p, rng, lambda: views.append(p.c.states()))
    p.ok("open", **{**poker.HOLDEM, "stacks": {"1": 105, "3": 230, "5": 300}})
    p.ok("seat", seat=2, action="join", amount=100)
    p.ok("hold", reason="hand-for-hand", by="tournament")
    views.append(p.c.states())
    p.ok("hold", release=True)
    p.ok("level", stakes={"blinds": [5, 10], "antes": 1}, level=2, tournament="Sunday")
    p.ok("race", colour=5, into=25, by="director")
    p.shoe("As Kd")  # seats 1 and 3 race one odd chip each
    views.append(p.c.states())
    p.ok("button-draw", by="director")
    for card in "2h 3h 4h 5h".split():  # a card a seat with chips
        views.append(p.c.states())
        p.shoe(card)
    views.append(p.c.states())
    p.ok("deal")
    p.shoe("Tc Td Th Ts 2d 3d 4d 6d 7d")  # the burn, two cards to each of four seats
    p.ok("clock", seconds=30)
    views.append(p.c.states())
    p.ok("chop")
    p.ok("confirm")
    p.ok("close")
    views.append(p.c.states())
    return views


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[dict[str, Any], dict[str, Any]]]]:
    path = tmp_path_factory.mktemp("played")
    return path, played_states(path)


def test_real_states_hold_to_the_schema_and_the_schema_sees_a_stray_key(
        played: tuple[Path, list[tuple[dict[str, Any], dict[str, Any]]]]) -> None:
    public_schema, full_schema = json_schema(messages.PublicState), json_schema(messages.FullState)
    views = played[1]
    seen = {key for public, _ in views for key, value in public.items() if value}
    assert {"race", "button_draw", "clock", "tournament", "hold", "fault", "limits", "stakes", "results", "chips"} <= seen
    assert any(full.get("chip_reads", {}).get("notes") for _, full in views)
    for public, full in views:
        assert problems(public_schema, public) == []
        assert problems(full_schema, full) == []
    public = next(public for public, _ in reversed(views) if public["spots"] and "stack" in public["spots"][0])
    assert problems(public_schema, {**public, "burns": []}) == ["$: 'burns' is not a declared key"]
    spots = [{**public["spots"][0], "stack": "100"}]
    assert problems(public_schema, {**public, "spots": spots}) == ["$.spots[0].stack: str '100' is not integer"]


def test_every_journaled_event_and_closed_hand_holds_to_its_type(
        played: tuple[Path, list[tuple[dict[str, Any], dict[str, Any]]]]) -> None:
    bodies = {kind: json_schema(typed) for kind, typed in records.EVENT_BODIES.items()}
    hands = {"house": json_schema(records.HouseHandRecord), "poker": json_schema(records.PokerHandRecord)}
    kinds, closed = set(), []
    for table in ("uth", "3cp", "chips", "poker"):
        journal = Journal.open(played[0] / table, readonly=True)
        for event in journal.events():
            kinds.add(event.kind)
            assert problems(bodies[event.kind], event.body) == [], (event.kind, event.body)
        for row in journal.hands():
            closed.append(row.status)
            assert problems(hands["poker" if table == "poker" else "house"], row.record) == [], row.hand
        journal.close()
    # every kind but a refused reading was met, and `chips`, one antenna's reading, which only older journals hold
    assert set(records.EVENT_BODIES) - kinds == {"refused", "chips"}  # (tests/firmware_host/test_old_chip_journal.py)
    assert {"settled", "voided"} <= set(closed)
    assert problems(bodies["card"], {"card": "As", "source": "shoe", "seq": "1", "device": "shoe"}) == [
        "$.seq: str '1' is not integer"]


def test_every_closed_hands_history_line_holds_to_its_type(
        played: tuple[Path, list[tuple[dict[str, Any], dict[str, Any]]]]) -> None:
    """Each hand's line as stored when it closed and as made again from its record (a journal of before lines)."""
    schemas = {"house": json_schema(history.HouseLine), "poker": json_schema(history.PokerLine)}
    seen = set()
    for table in ("uth", "3cp", "chips", "poker"):
        journal = Journal.open(played[0] / table, readonly=True)
        stored = journal.lines_after(0, 10_000)
        rows = [row for row in journal.hands()]
        for line in [*hand_lines(journal, stored), *(hand_line(row) for row in rows)]:
            assert problems(schemas["poker" if table == "poker" else "house"], line) == [], line
            seen |= {key for key, value in line.items() if value}
        journal.close()
    assert {"chain", "chips", "tray", "settlement", "round", "corrected", "hand_record", "results", "faults"} <= seen
    page = json_schema(history.HistoryPage)
    assert problems(page, {"id": 1, "ok": True, "hands": [], "more": False, "last": 0}) == []


def test_every_table_event_of_an_events_page_holds_to_its_type(
        played: tuple[Path, list[tuple[dict[str, Any], dict[str, Any]]]]) -> None:
    schema, kinds = json_schema(history.TableEvent), set()
    for table in ("uth", "chips", "poker"):
        journal = Journal.open(played[0] / table, readonly=True)
        for event in journal.table_events(0, 10_000, 10**6)[0]:
            line = event_line(event)
            kinds.add(line["kind"])
            assert problems(schema, line) == [], line
        journal.close()
    assert kinds == {"open", "close", "player", "rating", "dealer"}


def test_the_display_serves_the_public_states_schema() -> None:
    async def fetch() -> tuple[int, str, Any]:
        async with TestClient(TestServer(make_app(Hub(1.0)))) as client:
            response = await client.get("/schema/public.json")
            return response.status, response.content_type, await response.json(content_type=None)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (Playwright's may run in this thread)
        status, kind, served = pool.submit(asyncio.run, fetch()).result(60)
    assert (status, kind) == (200, "application/schema+json")
    assert served == json_schema(messages.PublicState, "/schema/public.json")
    assert served["properties"]["spots"] == {"type": "array", "items": {"$ref": "#/$defs/Spot"}}


def test_each_requests_type_is_what_the_command_channel_checks() -> None:
    from engine.games import STAKES_KEYS
    from protocol.commands import _CHECKS, COMMANDS, LIMIT_KEYS

    assert keys(messages.Stakes) == set(STAKES_KEYS) and keys(messages.Limits) == set(LIMIT_KEYS)

    assert set(requests.REQUESTS) == set(COMMANDS)
    for cmd, checks in _CHECKS.items():  # every argument checked, and only those (which are required: the type's)
        assert keys(requests.REQUESTS[cmd]) == set(checks), cmd
