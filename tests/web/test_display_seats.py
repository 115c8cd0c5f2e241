"""The consoles' rated seats from the full feed (`firmware_host/display/seats.py`): masked to the last four, told once a change."""

from __future__ import annotations

import json

from firmware_host.display.seats import RatedSeats, TrayLine, masked_players

CARD = "6001234567890"


def test_the_consoles_are_told_each_change_of_the_seats_masked_and_never_the_card() -> None:
    seats = RatedSeats()
    told: list[str] = []
    seats.watchers.add(told.append)
    assert seats.message() is None  # before the full feed's first state: nothing known
    seats.see({"kind": "snapshot", "seq": 1, "players": {}})
    seats.see({"kind": "heartbeat", "seq": 1})
    seats.see({"kind": "update", "seq": 2, "players": {"3": {"card": CARD, "source": "reader", "away": False}}})
    seats.see({"kind": "update", "seq": 3, "players": {"3": {"card": CARD, "source": "reader", "away": False}}})
    seats.see({"kind": "update", "seq": 4, "players": {"3": {"card": CARD, "source": "reader", "away": True}}})
    assert [json.loads(text) for text in told] == [
        {"kind": "players", "seats": {}},
        {"kind": "players", "seats": {"3": {"card": "\u2022\u2022\u2022\u20227890", "source": "reader", "away": False}}},
        {"kind": "players", "seats": {"3": {"card": "\u2022\u2022\u2022\u20227890", "source": "reader", "away": True}}},
    ]
    assert all(CARD not in text and "67890" not in text for text in told)
    assert seats.message() == told[-1]


def test_a_state_without_players_or_with_a_malformed_one_shows_no_seat_rated() -> None:
    assert masked_players({"1": "not a player", "2": {"card": 12345}, "4": {"card": "ABCD1234"}}) == {
        "4": {"card": "\u2022\u2022\u2022\u20221234", "source": "", "away": False}}
    seats = RatedSeats()
    seats.see({"kind": "update", "seq": 1})
    assert json.loads(seats.message() or "") == {"kind": "players", "seats": {}}


def test_the_consoles_are_told_the_trays_line_at_each_change_and_never_a_uid() -> None:
    tray = TrayLine()
    told: list[str] = []
    tray.watchers.add(told.append)
    tray.see({"kind": "snapshot", "seq": 1})  # no tray ledger at this table: nothing to tell
    line = {"reads": None, "expected": None, "settled": True, "flagged": 0, "opening": None}
    tray.see({"kind": "update", "seq": 2, "tray": line})
    tray.see({"kind": "update", "seq": 3, "tray": {**line, "reads": 120000, "expected": 125000, "flagged": 1},
              "tray_uids": ["E004000500000001"], "chip_uids": [{"antenna": "spot1.ante", "uids": ["E004000500000002"]}]})
    tray.see({"kind": "update", "seq": 4, "tray": {**line, "reads": 120000, "expected": 125000, "flagged": 1}})
    assert [json.loads(text) for text in told] == [
        {"kind": "tray", "reads": None, "expected": None, "difference": None, "settled": True, "flagged": 0},
        {"kind": "tray", "reads": 120000, "expected": 125000, "difference": -5000, "settled": True, "flagged": 1}]
    assert all("E004" not in text for text in told)
