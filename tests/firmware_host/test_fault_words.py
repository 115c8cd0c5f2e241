"""A standing fault says which card, which seat and what to do next; the public's words never name a hidden card."""

from __future__ import annotations

import json
from pathlib import Path

from drivers.readings import CardRead, Misread
from engine.redact import hidden_cards
from pages.words import catalogs
from firmware_host.service.refusals import english
from firmware_host.tables.house.table import HouseSetup
from tests.firmware_host.rigs import JournalRig

UTH = HouseSetup("uth", "default", {"minimum": 100}, 7)


class Rig(JournalRig):
    def controller_args(self) -> dict[str, object]:
        return {"default_setup": UTH}


def _dealt_to_preflop(rig: Rig) -> None:
    rig.ok("bet", seat=3, bets={"ante": 100, "blind": 100})
    for seq, card in enumerate("As Kd Qh Ac".split(), 1):
        rig.c.handle_reading(CardRead(card, "shoe", seq))


def _no_leak(rig: Rig, *cards: str) -> None:
    public, full = rig.c.states()
    text = json.dumps(public)
    for card in hidden_cards(full) | set(cards):
        assert f'"{card}"' not in text, (card, public["fault"])


def test_a_card_while_a_seat_decides_names_card_and_seat_on_the_full_feed_only(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _dealt_to_preflop(rig)
    rig.c.handle_reading(CardRead("7s", "shoe", 9))
    public, full = rig.c.states()
    assert full["fault"]["say"] == {"key": "fault.unexpected_card_deciding_card",
                                    "args": {"seat": 3, "card": {"card": "7s"}}}
    assert english(full["fault"]["say"]) == ("7\u2660 came out while seat 3 decides: call a supervisor to clear, "
                                             "then deal it again")
    assert public["fault"]["say"] == {"key": "fault.unexpected_card_deciding", "args": {"seat": 3}}
    assert set(public["fault"]) == {"kind", "message", "event", "say"}
    _no_leak(rig, "7s")
    rig.restart()  # rebuilt from the journal with the same words
    assert rig.c.full_state()["fault"]["say"]["args"]["card"] == {"card": "7s"}
    rig.c.journal.close()


def test_a_hole_card_read_twice_stays_hidden_from_the_public(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _dealt_to_preflop(rig)
    rig.ok("decide", seat=3, decision="check")
    rig.c.handle_reading(CardRead("As", "shoe", 9))  # seat 3's hole card, read again
    public, full = rig.c.states()
    assert full["fault"]["say"]["key"] == "fault.duplicate_card_card"
    assert public["fault"]["say"] == {"key": "fault.duplicate_card", "args": {}}
    _no_leak(rig, "As")
    rig.c.journal.close()


def test_every_fault_kind_has_words_with_a_next_step(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    _dealt_to_preflop(rig)
    rig.c.handle_reading(Misread("shoe", 9))
    public = rig.c.public_state()
    assert public["fault"]["say"] == {"key": "fault.misread", "args": {}}
    for lang, words in catalogs().items():
        assert ":" in words["fault.misread"] or "：" in words["fault.misread"], lang
    rig.c.journal.close()
