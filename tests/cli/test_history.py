"""Tests of `croupier history`: finished hands from the journal, re-settled independently by `croupier settle`."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from cli.history import history
from protocol.access import Caller
from protocol.commands import Command
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from protocol.users import User, Users
from firmware_host.tables.house.table import HouseSetup

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


def make_journal(path: Path) -> Controller:
    """Three hands: settled, voided after a fault, and one in progress with a standing fault."""
    Users({"sup-7": User.with_pin("sup-7", "supervisor", "4321")}).save(path / "users.json")
    c = Controller(Journal.open(path), default_setup=UTH, security=SecurityConfig(users=str(path / "users.json")))
    c.recover()

    def do(cmd: str, **args: object) -> None:
        reply = c.handle_command(Command.from_mapping({"cmd": cmd, **args}))
        assert reply["ok"], reply

    do("bet", seat=1, bets={"ante": 100, "blind": 100, "trips": 100})
    do("bet", seat=4, bets={"ante": 300, "blind": 300})
    for card in "Ah Ad 2c Ks Kd 3c".split():
        do("card", card=card)
    do("decide", seat=1, decision="play", multiple=4)
    do("decide", seat=4, decision="play", multiple=3)
    for card in "Ac 9h 8d 7s 2h".split():
        do("card", card=card)
    do("confirm")
    do("bet", seat=2, bets={"ante": 100, "blind": 100})
    do("card", card="5s")
    c.handle_command(Command.from_mapping({"cmd": "card", "card": "5s"}))  # duplicate: fault
    cleared = c.handle_command(Command.from_mapping({"cmd": "clear", "reason": "card read twice", "then": "void",
                                                     "auth": {"user": "sup-7", "pin": "4321"}}), Caller("dealer"))
    assert cleared["ok"], cleared
    do("bet", seat=5, bets={"ante": 100, "blind": 100})
    do("card", card="Qs")
    c.handle_command(Command.from_mapping({"cmd": "card", "card": "Qs"}))  # standing fault
    return c


def test_json_lines_resettle_with_croupier_settle(tmp_path: Path) -> None:
    c = make_journal(tmp_path)  # the controller keeps the journal open, stopped by a fault
    out = subprocess.run([sys.executable, "-m", "cli", "history", "--state", str(tmp_path),
                          "--json", "--last", "5"], capture_output=True, text=True, check=True).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(h["hand"], h["status"]) for h in lines] == [(1, "settled"), (2, "voided")]
    settled, voided = lines
    assert set(settled) >= {"hand", "status", "burns", "round", "settlement"}
    assert settled["round"]["spots"][0] == {"seat": 1, "cards": ["Ah", "Ks"],
                                            "bets": {"ante": 100, "blind": 100, "trips": 100},
                                            "play": {"street": "preflop", "multiple": 4}}
    resettled = subprocess.run([sys.executable, "-m", "cli", "settle"],
                               input=json.dumps(settled["round"]) + "\n", capture_output=True, text=True,
                               check=True).stdout
    assert json.loads(resettled) == settled["settlement"]
    assert voided["settlement"] is None and voided["round"]["spots"][0]["cards"] == ["5s"]
    assert voided["faults"][0]["kind"] == "duplicate_card" and voided["faults"][0]["cleared_by"] == "sup-7"
    # the fault's words as the full feed said them, journaled: the recall says them in the page's language
    assert voided["faults"][0]["say"]["key"].startswith("fault.duplicate_card"), voided["faults"][0]
    c.journal.close()


def test_text_shows_cards_in_dealt_order_faults_and_the_hand_in_progress(tmp_path: Path) -> None:
    make_journal(tmp_path).journal.close()
    out = io.StringIO()
    history(Journal.open(tmp_path, readonly=True), out, last=10, as_json=False)
    text = out.getvalue()
    assert "hand 1  uth (default)  SETTLED" in text
    assert "spot 1: Ah Ks" in text and "spot 4: Ad Kd" in text and "board: Ac 9h 8d 7s 2h" in text
    assert "dealt: Ah>s1 Ad>s4 2c>dealer Ks>s1" in text
    assert "decision play 4x on the preflop" in text
    assert "hand 2  uth (default)  VOIDED" in text and "every bet returned" in text
    assert "fault duplicate_card" in text and "cleared by sup-7: card read twice (void)" in text
    assert "hand 3 IN PROGRESS" in text and "FAULT duplicate_card" in text


def test_last_n(tmp_path: Path) -> None:
    make_journal(tmp_path).journal.close()
    out = io.StringIO()
    history(Journal.open(tmp_path, readonly=True), out, last=1, as_json=True)
    assert [json.loads(x)["hand"] for x in out.getvalue().splitlines()] == [2]
