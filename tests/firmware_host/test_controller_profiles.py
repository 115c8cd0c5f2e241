"""What a table is opened under is journaled: the profile's text and sha256, the limits spelt out.

A profile file edited or moved after the open changes nothing for the hand in progress; the
configuration's table settings take effect at the next hand boundary after a start; an `open`
without limits takes the configuration's; `croupier history --json` lines settle again to what
the table paid.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from engine.paytables import read_profile
from cli.history import history
from cli.settle import run as settle_run
from protocol.config import SecurityConfig
from firmware_host.service.controller import Controller
from firmware_host.service.journal import Journal
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

DEFAULT = read_profile("default")
# one spot: its two cards and the dealer's two (spot, dealer, spot, dealer), then the board
FLUSH_HAND = "Ah Qc Kh Jc".split(), "2h 7h 9h 4s 3c".split()


class Table(JournalRig):
    """A controller on a real journal with a configuration's setup and limits; `restart(setup)` is
    what a crash and a start with a changed configuration leave."""

    def __init__(self, path: Path, setup: HouseSetup | None = None, limits: dict[str, int] | None = None) -> None:
        self.setup, self.limits = setup, limits
        super().__init__(path)

    def controller_args(self) -> dict[str, Any]:
        # an `open` reads profile files from [security] profiles only: the test's own directory
        return {"default_setup": self.setup, "limits": self.limits,
                "security": SecurityConfig(profiles=str(self.path.parent))}

    def restart(self, setup: HouseSetup | None = None) -> Controller:
        if setup is not None:
            self.setup = setup
        return super().restart()

    def cards(self, cards: list[str]) -> None:
        for card in cards:
            self.ok("card", card=card)

    def close(self) -> None:
        self.c.journal.close()


def _opens(path: Path) -> list[dict[str, Any]]:
    j = Journal.open(path, readonly=True)
    try:
        return [e.body for e in j.events() if e.kind == "open"]
    finally:
        j.close()


def test_a_hand_continues_under_the_journaled_profile_when_the_file_is_edited_then_moved(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    profile = tmp_path / "house.toml"
    profile.write_text(DEFAULT.text.replace('name = "default"', 'name = "house"'))
    t = Table(tmp_path / "state")
    t.ok("open", game="uth", profile=str(profile), limits={"minimum": 100})
    opened = _opens(t.path)[-1]
    assert opened["profile"]["content"] == profile.read_text()
    assert opened["profile"]["sha256"] == read_profile(str(profile)).sha256
    assert opened["limits"] == {"minimum": 100, "maximum": 0, "side_minimum": 0, "side_maximum": 0, "chip": 1}
    t.ok("bet", seat=1, bets={"ante": 100, "blind": 100})
    t.cards(FLUSH_HAND[0])
    # the casino edits its file (a flush now pays 1:1 on the Blind), then moves it away
    profile.write_text(profile.read_text().replace("flush = [3, 2]", "flush = [1, 1]", 1))
    t.restart()
    t.ok("decide", seat=1, decision="play", multiple=4)
    profile.rename(tmp_path / "moved.toml")
    t.restart()  # before: "replay failed ... No such file"
    t.cards(FLUSH_HAND[1])
    t.ok("confirm")
    settled = t.c.last_record
    assert settled is not None and settled["settlement"]["spots"][0]["results"]["blind"] == 150  # 3:2, as opened
    assert settled["profile"] == "house" and settled["profile_sha256"] == opened["profile"]["sha256"]
    # the next open takes the file as it is now, and the log says what changed
    with caplog.at_level(logging.INFO, logger="croupier.controller"):
        t.ok("open", game="uth", profile=str(tmp_path / "moved.toml"), limits={"minimum": 100})
    assert _opens(t.path)[-1]["profile"]["sha256"] == read_profile(str(tmp_path / "moved.toml")).sha256
    assert any("open: profile" in r.getMessage() and "moved.toml" in r.getMessage() for r in caplog.records)
    t.close()


def test_the_configuration_takes_effect_at_the_next_hand_after_a_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    before = HouseSetup("uth", "default", {"minimum": 100, "maximum": 3000}, 7)
    after = HouseSetup("uth", "default", {"minimum": 100, "maximum": 2000}, 7)
    t = Table(tmp_path, before)
    t.ok("bet", seat=1, bets={"ante": 3000, "blind": 3000})
    with caplog.at_level(logging.WARNING, logger="croupier.controller"):
        t.restart(after)  # a hand is in progress: it finishes under the journal's limits
    said = [r.getMessage() for r in caplog.records]
    assert any("configuration changed: limits.maximum 3000 -> 2000; takes effect at the next hand" in m for m in said)
    assert len(_opens(t.path)) == 1
    t.ok("bet", seat=2, bets={"ante": 2500, "blind": 2500})  # still the journal's maximum
    t.ok("void", reason="shuffle")
    assert _opens(t.path)[-1]["limits"]["maximum"] == 2000  # opened at the hand boundary
    refused = t.cmd("bet", seat=1, bets={"ante": 2500, "blind": 2500})
    assert not refused["ok"] and "maximum EUR 20.00" in refused["error"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="croupier.controller"):
        t.restart(before)  # between hands: at once
    assert any("limits.maximum 2000 -> 3000; takes effect now" in r.getMessage() for r in caplog.records)
    t.ok("bet", seat=1, bets={"ante": 2500, "blind": 2500})
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="croupier.controller"):
        t.restart(before)  # nothing changed: nothing opened, nothing said
    assert len(_opens(t.path)) == 3 and not caplog.records
    t.close()


def test_an_open_without_limits_takes_the_configurations(tmp_path: Path) -> None:
    t = Table(tmp_path / "a", limits={"minimum": 100, "maximum": 1000})
    t.ok("open", game="uth")
    assert _opens(t.path)[-1]["limits"]["maximum"] == 1000
    assert not t.cmd("bet", seat=1, bets={"ante": 50, "blind": 50})["ok"]  # below the configured minimum
    t.ok("bet", seat=1, bets={"ante": 1000, "blind": 1000})  # before: 30 units at most
    t.close()
    bare = Table(tmp_path / "b")  # no configured limits to take: refused, saying so
    reply = bare.cmd("open", game="3cp")
    assert not reply["ok"] and "no limits given" in reply["error"]
    bare.close()


def test_a_history_line_settles_again_to_what_the_table_paid(tmp_path: Path) -> None:
    """A Blind of 15 wins 3:2 at a chip of 5: the table pays 20; the bare round, settled alone, 22."""
    t = Table(tmp_path)
    t.ok("open", game="uth", limits={"minimum": 5, "chip": 5})
    t.ok("bet", seat=1, bets={"ante": 15, "blind": 15})
    t.cards(FLUSH_HAND[0])
    t.ok("decide", seat=1, decision="play", multiple=4)
    t.cards(FLUSH_HAND[1])
    t.ok("confirm")
    t.close()
    out = io.StringIO()
    history(Journal.open(tmp_path, readonly=True), out, last=0, as_json=True)
    line = json.loads(out.getvalue().splitlines()[-1])
    assert line["settlement"]["spots"][0]["results"]["blind"] == 20
    assert line["profile"] == {"name": "default", "sha256": DEFAULT.sha256, "content": DEFAULT.text}
    assert line["limits"] == {"minimum": 5, "maximum": 0, "side_minimum": 0, "side_maximum": 0, "chip": 5}

    def settle(text: str) -> dict[str, Any]:
        result = io.StringIO()
        assert settle_run("default", None, io.StringIO(text), result, io.StringIO()) == 0
        return json.loads(result.getvalue())

    assert settle(json.dumps(line["round"]))["spots"][0]["results"]["blind"] == 22  # what a bare re-settle says
    assert settle(out.getvalue().splitlines()[-1]) == line["settlement"]  # the record: what the table paid
