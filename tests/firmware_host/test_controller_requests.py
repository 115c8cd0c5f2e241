"""A re-sent dealer request (same id) is answered as a duplicate and applied once, whichever path finds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.commands import Command
from firmware_host.service.controller import Controller
from firmware_host.service.journal import DuplicateRequest, Journal
from firmware_host.tables.house.table import HouseSetup

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


def _cmd(c: Controller, cmd: str, **args: object) -> dict[str, object]:
    return c.handle_command(Command.from_mapping({"cmd": cmd, **args}))


def test_resent_bet_after_the_deal_is_a_duplicate_not_a_refusal(tmp_path: Path) -> None:
    c = Controller(Journal.open(tmp_path), default_setup=UTH)
    c.recover()
    first = _cmd(c, "bet", id="b1", hand=1, seat=1, bets={"ante": 100, "blind": 100})
    assert first["ok"] and not first.get("duplicate")
    assert _cmd(c, "bet", id="b2", hand=1, seat=2, bets={"ante": 100, "blind": 100})["ok"]
    assert _cmd(c, "deal", id="d1", hand=1)["ok"]
    events = sum(1 for _ in c.journal.events())
    again = _cmd(c, "bet", id="b1", hand=1, seat=1, bets={"ante": 100, "blind": 100})  # bets are closed now
    assert again["ok"] and again["duplicate"] and again["event"] == first["event"] and again["hand"] == 1
    assert sum(1 for _ in c.journal.events()) == events  # nothing written
    assert not c.journal._conn.in_transaction
    late = _cmd(c, "bet", id="b9", hand=1, seat=3, bets={"ante": 100, "blind": 100})  # a new id is refused
    assert not late["ok"]
    assert _cmd(c, "deal", id="d1")["duplicate"]  # no hand given: found by the journal's insert too
    assert c.public_state()["phase"] == "deal"
    c.journal.close()


def test_journal_refuses_a_journaled_request_id(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    j.append(1, "bet", {"seat": 1}, ts=1.0, req="r1")
    with pytest.raises(DuplicateRequest):
        j.begin(1, "bet", {"seat": 2}, 2.0, "r1")
    assert not j._conn.in_transaction
    assert [e.req for e in j.events()] == ["r1"]
    assert j.append(1, "bet", {"seat": 2}, ts=3.0, req="r2") == 2
    j.close()


def test_another_request_under_a_used_id_is_refused_and_not_applied(tmp_path: Path) -> None:
    c = Controller(Journal.open(tmp_path), default_setup=UTH)
    c.recover()
    first = _cmd(c, "bet", id=1, seat=1, bets={"ante": 100, "blind": 100})
    assert first["ok"]
    assert _cmd(c, "bet", id="1", seat=1, bets={"blind": 100, "ante": 100})["duplicate"]  # 1 and "1": one id
    events = sum(1 for _ in c.journal.events())
    for cmd, args in (("deal", {}), ("bet", {"seat": 2, "bets": {"ante": 100, "blind": 100}}),
                      ("bet", {"seat": 1, "bets": {"ante": 200, "blind": 200}}), ("state", {}),
                      ("card", {"card": "As"})):
        reply = _cmd(c, cmd, id="1", **args)
        assert not reply["ok"] and reply["code"] == "reused_id", (cmd, reply)
        assert "'1'" in str(reply["error"]) and "another request" in str(reply["error"])
    assert sum(1 for _ in c.journal.events()) == events  # nothing written
    state = c.public_state()
    assert state["phase"] == "bets" and [s["seat"] for s in state["spots"] if s["bets"]] == [1]
    c.journal.close()
    c = Controller(Journal.open(tmp_path), default_setup=UTH)  # after a restart too
    c.recover()
    assert _cmd(c, "deal", id=1)["code"] == "reused_id"
    again = _cmd(c, "bet", id=1, hand=1, seat=1, bets={"ante": 100, "blind": 100})
    assert again["ok"] and again["duplicate"] and again["event"] == first["event"]
    assert c.public_state()["phase"] == "bets"
    c.journal.close()
