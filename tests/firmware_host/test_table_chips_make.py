"""What the readers read against the due at the confirm on the hand's record (`make`), and a mispay journaled before its
words said it read back in words: the recall (`history`) never shows "{make}"."""

from __future__ import annotations

import copy
import io
import re
from typing import Any

from firmware_host.service.history import hand_line, hand_lines
from firmware_host.service.journal import ClosedLine, HandRow
from firmware_host.service.refusals import english
from pages.words import catalogs
from tests.firmware_host.test_table_chips import (  # noqa: F401 (rig: the fixture)
    PLAY_4X, TRIPS, Rig, chip_uids, rig, to_showdown,
)


def mispaid_and_accepted(rig: Rig) -> dict[str, Any]:
    """Seat 3's Trips paid 300 of 400, the mispay accepted as read, the hand closed: its record."""
    to_showdown(rig)
    rig.put("spot3.play", PLAY_4X + chip_uids(500, 4, 20))
    rig.put("spot3.trips", TRIPS + chip_uids(100, 2, 1))
    rig.ok("confirm")
    rig.ok("clear", reason="player agreed")
    rig.ok("confirm")
    return rig.c.journal.hands()[-1].record


def old_shaped(said: dict[str, Any]) -> dict[str, Any]:
    """A mispay's words as journaled before 55b4415: no `make`, no `circles` (`more` alone)."""
    old = copy.deepcopy(said)
    del old["args"]["make"], old["args"]["circles"]
    return old


def in_words(said: dict[str, Any]) -> None:
    """`said` names every field its words have, in English and in French: nothing left as "{field}"."""
    assert "{" not in english(said), english(said)
    for language in ("en", "fr"):
        assert set(re.findall(r"\{(\w+)\}", catalogs()[language][said["key"]])) <= set(said["args"]), language


def test_the_hands_record_says_what_each_circle_read_against_its_due(rig: Rig) -> None:
    chips = mispaid_and_accepted(rig)["chips"]
    assert chips["make"] == {"spot3.trips": {"do": "pay", "amount": 100}}  # the others read their due
    assert chips["notes"] == [{"kind": "mispay", "circles": [{"antenna": "spot3.trips", "due": 400, "reads": 300,
                                                              "make": {"do": "pay", "amount": 100}}]}]
    from cli.history import history
    out = io.StringIO()
    history(rig.c.journal, out, 1, as_json=False)
    assert "spot3.trips 300 (due 400, pay 100 more)" in out.getvalue()


def test_a_record_journaled_before_make_is_read_by_history_as_today_s(rig: Rig) -> None:
    record = copy.deepcopy(mispaid_and_accepted(rig))
    del record["chips"]["make"]
    for note in record["chips"]["notes"]:
        for circle in note["circles"]:
            del circle["make"]
    from cli.history import chips_lines
    assert "  paid: spot3.ante 500, spot3.blind 500, spot3.play 4000, spot3.trips 300 (due 400, pay 100 more)" \
        in chips_lines(record["chips"])


def test_a_mispay_journaled_before_its_words_said_what_to_do_is_recalled_in_words(rig: Rig) -> None:
    record = mispaid_and_accepted(rig)
    said = record["faults"][0]["say"]
    assert said["key"] == "fault.mispay" and said["args"]["make"] == {"word": "to_due.pay",
                                                                      "args": {"amount": {"money": 100}}}
    old = old_shaped(said)
    assert "{make}" in english(old)  # what the recall showed
    # a hand closed before lines were stored: its line made from its old-shaped record
    rec = copy.deepcopy(record)
    rec["faults"][0]["say"] = old
    row = rig.c.journal.hands()[-1]
    made = hand_line(HandRow(row.hand, row.game, row.status, row.closed_event, row.ts, rec))
    assert made["faults"][0]["say"] == said
    in_words(dict(made["faults"][0]["say"] or {}))
    # a line stored at its close with the old words: recalled (the `history` request's page) in today's
    [stored] = rig.c.journal.lines_newest(1)
    assert stored.line is not None
    line = copy.deepcopy(stored.line)
    line["faults"][0]["say"] = old  # type: ignore[typeddict-item]
    [recalled] = hand_lines(rig.c.journal, [ClosedLine(stored.hand, stored.closed_event, line, None)])
    assert recalled["faults"][0]["say"] == said
    assert english(said) == ("Seat 3 Trips: pay EUR 1.00 more (due EUR 4.00, reads EUR 3.00), or call a supervisor "
                             "to accept")


def test_an_old_mispay_of_several_circles_counts_them_and_one_without_figures_says_its_detail() -> None:
    from firmware_host.tables.house.chips import said_in_full
    more = {"key": "fault.mispay_more", "args": {"seat": 3, "circle": {"word": "circle.play"}, "due": {"money": 4000},
                                                 "reads": {"money": 4500}, "more": 1}}
    full = said_in_full(more)  # type: ignore[arg-type]
    assert full["args"]["circles"] == 2 and full["args"]["make"]["word"] == "to_due.take_back"
    in_words(dict(full))
    bare = said_in_full({"key": "fault.mispay", "args": {"seat": 3}}, "seat 3 Play: due 4000, reads 4500")
    assert english(dict(bare)) == "fault mispay: seat 3 Play: due 4000, reads 4500"
    assert said_in_full(full) is full  # today's words: as they are
