"""The card reader interface: backend registry and the in-process simulated reader."""

from __future__ import annotations

from typing import Any

import pytest

from drivers.card_reader import BACKENDS, CardRead, Misread, ResumePoint, open_card_reader
from drivers.errors import BackendError, DeviceError
from drivers.readings import DeviceOffline, DeviceOnline
from drivers.shoe_sensors import SensorChange


def test_sim_reader_posts_numbered_readings() -> None:
    got: list[Any] = []
    reader = open_card_reader("sim", got.append, device="shoe", boot=7, resume=ResumePoint(7, 254))
    online = reader.start()
    assert online == DeviceOnline("shoe", "SIM-SHOE", "SIM0001", "1.0.0", 7)
    assert reader.deal("As") == CardRead("As", "shoe", 255)
    reader.misread("discard")
    reader.sensor("empty", True)
    reader.go_offline("unplugged")
    assert got[1:] == [CardRead("As", "shoe", 255), Misread("discard", 0), SensorChange("empty", True, 1),
                       DeviceOffline("shoe", "unplugged")]


def test_sim_reader_refuses_bad_input_and_changes_nothing() -> None:
    got: list[Any] = []
    reader = open_card_reader("sim", got.append)
    with pytest.raises(DeviceError, match="not started"):
        reader.deal("As")
    reader.start()
    with pytest.raises(DeviceError, match="not a card: 'A'"):
        reader.deal("A")
    with pytest.raises(DeviceError, match="not a card source"):
        reader.deal("As", "table")  # type: ignore[arg-type]
    assert reader.deal("2c") == CardRead("2c", "shoe", 1)


def test_unknown_backend_is_named() -> None:
    with pytest.raises(BackendError, match="unknown card reader backend 'usb'"):
        open_card_reader("usb", print)
    with pytest.raises(BackendError, match="'sim'"):
        open_card_reader("sim", print, baud=9600)
    assert "sim" in BACKENDS
