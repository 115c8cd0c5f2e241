"""The command channel's `history` request: closed hands in pages from a real controller's journal, over real sockets."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from protocol import keys
from protocol.commands import Command, CommandClient
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.history import closed_line, hand_lines
from firmware_host.service.journal import JOURNAL_FILE, Journal
from firmware_host.tables.house.table import HouseSetup
from tests.cli.test_cmd_phh import journal_with_hands
from tests.firmware_host.processes import croupier_here
from tests.firmware_host.test_curve import SecureTable
from tests.cli.test_history import make_journal

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


def play_hands(c: Controller, n: int) -> None:
    """`n` settled UTH hands (one spot), then a voided one when `n` is odd, all in-process."""
    def do(cmd: str, **args: object) -> None:
        reply = c.handle_command(Command.from_mapping({"cmd": cmd, **args}))
        assert reply["ok"], reply

    for i in range(n):
        do("bet", seat=1 + i % 3, bets={"ante": 100, "blind": 100})
        for card in "Ah Ad 2c Ks".split():
            do("card", card=card)
        do("decide", seat=1 + i % 3, decision="play", multiple=4)
        for card in "Ac 9h 8d 7s 2h".split():
            do("card", card=card)
        do("confirm")
    if n % 2:
        do("bet", seat=2, bets={"ante": 100, "blind": 100})
        do("card", card="5s")
        do("void", reason="a card on the floor")


class LocalTable:
    """A controller on its own thread with its command channel on ipc; a local client acts as `role`."""

    def __init__(self, root: Path, ctx: zmq.Context[Any], hands: int, role: str = "pit") -> None:
        self.root = root
        self.c = Controller(Journal.open(root / "state"), default_setup=UTH, security=SecurityConfig(local_role=role))
        self.c.recover()
        play_hands(self.c, hands)
        self.endpoint = f"ipc://{root}/commands"
        self.c.bind_commands(ctx, self.endpoint)
        self.thread = threading.Thread(target=self.c.run, args=(ctx,), daemon=True)
        self.thread.start()
        self.client = CommandClient(ctx, self.endpoint, timeout_s=5.0, name=role)

    def events(self) -> int:
        return sum(1 for _ in Journal.open(self.root / "state", readonly=True).events())

    def close(self) -> None:
        self.client.close()
        self.c.stop()
        self.thread.join(10)
        self.c.journal.close()


@pytest.fixture
def local(tmp_path: Path, ctx: zmq.Context[Any], request: pytest.FixtureRequest) -> Iterator[LocalTable]:
    hands, role = getattr(request, "param", (0, "pit"))
    t = LocalTable(tmp_path, ctx, hands, role)
    yield t
    t.close()


def cli_history(state: Path, last: int = 0) -> list[dict[str, Any]]:
    done = croupier_here("history", "--state", str(state), "--json", "--last", str(last))  # in this process
    assert done.returncode == 0, done.stderr
    out = done.stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("local", [(7, "pit")], indirect=True)
def test_pages_of_closed_hands_equal_croupier_history_json_and_journal_nothing(local: LocalTable) -> None:
    before = local.events()
    pages, after = [], 0
    while True:
        reply = local.client.request("history", after=after, limit=3)
        assert reply["ok"], reply
        pages.append([h["hand"] for h in reply["hands"]])
        after = reply["last"]
        if not reply["more"]:
            break
    assert pages == [[1, 2, 3], [4, 5, 6], [7, 8]]  # seven settled, the eighth voided
    every = local.client.request("history")
    assert every["more"] is False and every["last"] == 8
    assert every["hands"] == cli_history(local.root / "state")  # each hand exactly its --json line
    assert [h["status"] for h in every["hands"]][-2:] == ["settled", "voided"]
    newest = local.client.request("history", newest=True, limit=2)
    assert [h["hand"] for h in newest["hands"]] == [7, 8] and newest["more"] is True
    assert newest["hands"] == cli_history(local.root / "state", 2)
    past = local.client.request("history", after=8)
    assert past["hands"] == [] and past["more"] is False and past["last"] == 8
    assert local.events() == before  # journal reads only


def test_an_empty_journal_answers_no_hands(local: LocalTable) -> None:
    reply = local.client.request("history", after=0, limit=10)
    assert (reply["ok"], reply["hands"], reply["more"], reply["last"]) == (True, [], False, 0)
    newest = local.client.request("history", newest=True)
    assert (newest["ok"], newest["hands"], newest["more"]) == (True, [], False)


@pytest.mark.parametrize("args, words", [
    ({"limit": 0}, "history: limit:"),
    ({"limit": 101}, "history: limit:"),
    ({"after": -1}, "history: after:"),
    ({"after": "7"}, "history: after:"),
    ({"newest": "yes"}, "history: newest:"),
    ({"before": 3}, "history: unknown argument(s) before"),
])
def test_bad_arguments_are_refused_malformed_saying_which(local: LocalTable, args: dict[str, Any],
                                                          words: str) -> None:
    reply = local.client.send_raw(msgpack.packb({"id": "h1", "cmd": "history", **args}))
    assert reply["ok"] is False and reply["code"] == "malformed" and reply["id"] == "h1"
    assert reply["error"].startswith(words), reply["error"]


def test_a_page_is_capped_at_100_hands(tmp_path: Path, ctx: zmq.Context[Any]) -> None:
    t = LocalTable(tmp_path, ctx, 101)
    try:
        first = t.client.request("history")
        assert len(first["hands"]) == 100 and first["more"] is True and first["last"] == 100
        rest = t.client.request("history", after=first["last"])
        assert [h["hand"] for h in rest["hands"]] == [101, 102] and rest["more"] is False
    finally:
        t.close()


@pytest.mark.parametrize("local", [(1, "dealer"), (1, "display")], indirect=True)
def test_a_role_without_the_right_is_refused_forbidden(local: LocalTable) -> None:
    reply = local.client.request("history")
    assert reply["ok"] is False and reply["code"] == "forbidden"
    assert "hands" not in reply


def test_over_curve_pit_and_surveillance_keys_get_history_and_nothing_else_new(tmp_path: Path,
                                                                              ctx: zmq.Context[Any]) -> None:
    keys.create(tmp_path / "clients", "pit1", "pit")
    table = SecureTable(tmp_path, ctx)
    try:
        eye, pit, dealer = table.commands("eye"), table.commands("dealer1"), table.commands("dealer2")
        pit_key = {"key": str(tmp_path / "clients" / "pit1.key_secret"),
                   "server_key": str(tmp_path / "table" / "table.key")}
        pit = CommandClient(ctx, table.cfg.commands.endpoint, timeout_s=1.5, name="pit1", **pit_key)
        assert dealer.request("bet", seat=1, bets={"ante": 100, "blind": 100})["ok"]
        for client in (eye, pit):
            reply = client.request("history", after=0)
            assert (reply["ok"], reply["hands"], reply["more"]) == (True, [], False)
        assert dealer.request("history")["code"] == "forbidden"
        for cmd, args in (("bet", {"seat": 2, "bets": {"ante": 100, "blind": 100}}), ("deal", {}), ("close", {})):
            refused = eye.request(cmd, **args)
            assert refused["ok"] is False and refused["code"] == "forbidden", (cmd, refused)
        assert eye.request("state")["ok"]
        screen = table.commands("screen")  # a display key does not get on the command channel at all
        with pytest.raises(TimeoutError):
            screen.request("history")
        for c in (eye, pit, dealer, screen):
            c.close()
    finally:
        table.close()


def test_each_hands_line_is_stored_at_its_close_and_a_page_never_reads_the_records(tmp_path: Path) -> None:
    c = make_journal(tmp_path)  # settled, voided after a fault cleared by a sign-off, one in progress

    def page() -> list[dict[str, Any]]:
        reply = c.handle_command(Command.from_mapping({"cmd": "history"}))
        assert reply["ok"], reply
        return list(reply["hands"])

    stored = page()
    assert [(h["hand"], h["status"]) for h in stored] == [(1, "settled"), (2, "voided")]
    assert stored[1]["faults"][0]["cleared_by"] == "sup-7" and stored[0]["profile"]["content"]
    raw = sqlite3.connect(tmp_path / JOURNAL_FILE)
    assert raw.execute("SELECT count(*) FROM hands WHERE line IS NULL").fetchone() == (0,)
    records = raw.execute("SELECT record, hand FROM hands").fetchall()
    with raw:
        raw.execute("UPDATE hands SET record = '{\"damaged'")
    assert page() == stored  # the records are out of a page's reach
    with raw:  # a hand closed before lines were stored: its line is made from its record, the same
        raw.executemany("UPDATE hands SET record = ?, line = NULL WHERE hand = ?", records)
    assert page() == stored
    raw.close()
    c.journal.close()


def test_an_older_journal_is_read_as_it_is_and_its_lines_are_stored_at_the_start(tmp_path: Path) -> None:
    c = Controller(Journal.open(tmp_path), default_setup=UTH)
    c.recover()
    play_hands(c, 3)
    stored = c.handle_command(Command.from_mapping({"cmd": "history"}))["hands"]
    c.journal.close()
    raw = sqlite3.connect(tmp_path / JOURNAL_FILE)
    raw.executescript("ALTER TABLE hands DROP COLUMN line; PRAGMA user_version=3;")  # as schema 3 wrote it
    old = Journal.open(tmp_path, readonly=True)
    assert hand_lines(old, old.lines_after(0, 100)) == stored == cli_history(tmp_path)
    old.close()
    c = Controller(Journal.open(tmp_path), default_setup=UTH)
    c.recover()  # the start stores the old hands' lines
    assert raw.execute("SELECT count(*), count(line) FROM hands").fetchone() == (4, 4)
    assert raw.execute("PRAGMA user_version").fetchone() == (5,)
    assert c.handle_command(Command.from_mapping({"cmd": "history"}))["hands"] == stored
    play_hands(c, 1)  # a settled hand and a voided one, each line stored at its close
    assert [h["hand"] for h in c.handle_command(Command.from_mapping({"cmd": "history", "after": 4}))["hands"]] == [5, 6]
    raw.close()
    c.journal.close()


def test_a_poker_hands_line_at_its_close_is_the_one_its_record_gives(tmp_path: Path) -> None:
    journal_with_hands(tmp_path)  # a hold'em hand closed without a line
    journal = Journal.open(tmp_path)
    [closed] = journal.lines_after(0, 10)
    assert closed.line is None and closed.row is not None
    [made] = hand_lines(journal, [closed])
    assert made.pop("chain")["event"] == closed.closed_event and made["game"] == "holdem" and made["results"]
    assert closed_line(journal, closed.row.record, closed.closed_event, closed.row.ts) == made
    journal.close()


@pytest.mark.parametrize("local", [(2, "dealer"), (2, "surveillance")], indirect=True)
def test_the_display_s_recall_names_why_it_cannot_read_the_last_hands_in_the_page_s_words(
        local: LocalTable, request: pytest.FixtureRequest) -> None:
    # the display's recall for /surveillance on the table's command channel: a local role without `history` (a
    # plaintext display at a table whose local role is the dealer) is refused with `why` the page's words name
    from firmware_host.display.config import DisplayConfig
    from firmware_host.display.surveillance import Recall
    from pages.words import catalogs

    recall = Recall(DisplayConfig(commands=local.endpoint))
    reply = recall._request(10)
    if request.node.callspec.params["local"][1] == "dealer":
        assert reply["why"] == "forbidden" and "hands" not in reply, reply
    else:
        assert "why" not in reply and [h["hand"] for h in reply["hands"]] == [1, 2], reply
    assert Recall(DisplayConfig())._request(10)["why"] == "not_set_up"
    for language in ("en", "fr"):  # every `why` the display may name has its words in both languages
        assert {f"surveillance.recall_{why}" for why in ("not_set_up", "timeout", "forbidden", "refused")} <= set(
            catalogs()[language]), language
