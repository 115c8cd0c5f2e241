"""The player card readers: stripe and NFC lines parsed, the serial backend on loop://, the keyboard backend on input events, the simulated twin."""

from __future__ import annotations

import os
import queue
from typing import Any

import pytest

from drivers.errors import BackendError
from drivers.player_card import (
    EV_KEY, EVENT, KEY_DOWN, KEY_ENTER, KEY_LEFTSHIFT, KeyboardPlayerCardReader, SerialPlayerCardReader, keys_to_text,
    open_player_card_reader, parse_line,
)
from drivers.readings import DeviceOnline, PlayerCardRead


def inbox() -> tuple[queue.Queue[Any], Any]:
    q: queue.Queue[Any] = queue.Queue()
    return q, q.put


def next_card(q: queue.Queue[Any]) -> PlayerCardRead:
    while True:
        reading = q.get(timeout=5)
        if isinstance(reading, PlayerCardRead):
            return reading


def test_a_line_gives_the_account_number_and_the_seat_and_nothing_else() -> None:
    assert parse_line(";6001234567890=25121010000?", seat=3) == (3, "6001234567890")
    assert parse_line("%B6001234567890^DOE/ANA^2512101?", seat=3) == (3, "6001234567890")
    assert parse_line("5:04a224b2c35e80") == (5, "04A224B2C35E80")  # a reader serving several seats
    for bad in (";E?", "%E?", "", "8:;6001234567=1?", "0:;6001234567=1?", "60 01", "x" * 41):
        assert parse_line(bad, seat=1) is None
    assert parse_line(";6001234567=1?") is None  # no seat known


def test_the_simulated_reader_posts_what_a_stripe_swiped_at_a_seat_reads() -> None:
    q, post = inbox()
    reader = open_player_card_reader("sim", post)
    reader.start()
    assert isinstance(q.get_nowait(), DeviceOnline)
    reader.swipe(4, "6001234567")  # type: ignore[attr-defined]
    reader.send("garbage that is no card")  # type: ignore[attr-defined]
    assert q.get_nowait() == PlayerCardRead(4, "6001234567", "player_cards") and q.empty()
    assert reader.bad_lines == 1  # type: ignore[attr-defined]


def test_the_serial_reader_reads_lines_byte_by_byte_and_survives_garbage() -> None:
    q, post = inbox()
    reader = SerialPlayerCardReader(post, "loop://", seat=2)
    reader.start()
    try:
        line = b"\xff\xfegarbage\r\n" + b"x" * 300 + b"\n;6001234567890=2512?\r\n"
        for byte in line:
            reader.port.write(bytes([byte]))
        assert next_card(q) == PlayerCardRead(2, "6001234567890", "player_cards")
        assert reader.bad_lines == 1  # the garbage line; the overlong one is dropped whole before parsing
    finally:
        reader.close()


def test_the_keyboard_reader_decodes_the_keys_a_usb_reader_types() -> None:
    def typed(text: str) -> bytes:
        out = b""
        codes = {c: 2 + i for i, c in enumerate("1234567890")} | {"=": 13, ";": 39}
        for char in text:
            if char == "?":
                out += EVENT.pack(0, 0, EV_KEY, KEY_LEFTSHIFT, 1) + EVENT.pack(0, 0, EV_KEY, 53, 1)
                out += EVENT.pack(0, 0, EV_KEY, 53, 0) + EVENT.pack(0, 0, EV_KEY, KEY_LEFTSHIFT, 0)
            else:
                out += EVENT.pack(0, 0, EV_KEY, codes[char], KEY_DOWN) + EVENT.pack(0, 0, EV_KEY, codes[char], 0)
        return out + EVENT.pack(0, 0, EV_KEY, KEY_ENTER, KEY_DOWN) + EVENT.pack(0, 0, 0, 0, 0)

    assert keys_to_text([(EV_KEY, 39, 1), (EV_KEY, 2, 1), (EV_KEY, 2, 0), (EV_KEY, KEY_ENTER, 1)]) == ";1\n"
    read_end, write_end = os.pipe()
    q, post = inbox()
    reader = KeyboardPlayerCardReader(post, f"/dev/fd/{read_end}", seat=6, grab=False)
    reader.start()
    try:
        data = typed(";6001234567890=2512?")
        os.write(write_end, data[:7])  # an event split across reads
        os.write(write_end, data[7:])
        assert next_card(q) == PlayerCardRead(6, "6001234567890", "player_cards")
    finally:
        os.close(write_end)
        reader.close()
        os.close(read_end)


def test_a_bad_backend_or_seat_is_refused_naming_it() -> None:
    with pytest.raises(BackendError, match="unknown player card reader backend 'nfc'; known: keyboard, serial, sim"):
        open_player_card_reader("nfc", print)
    with pytest.raises(BackendError, match="seat 9 is not a seat"):
        open_player_card_reader("sim", print, seat=9)
    with pytest.raises(BackendError, match="is not an input device"):
        KeyboardPlayerCardReader(print, "/dev/null")
