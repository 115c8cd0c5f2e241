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


def test_every_backend_is_named_and_imported_only_when_chosen() -> None:
    # A fresh interpreter: only the card reader module is imported, and the serial backend opens
    # (nothing has to be imported first for its side effect), its module loaded then and not before.
    import subprocess
    import sys
    code = """
import sys
from drivers.card_reader import BACKENDS, open_card_reader
assert "drivers.shoe_link" not in sys.modules and "serial" not in sys.modules
assert BACKENDS.names() == ["serial", "sim"]
link = open_card_reader("serial", print, url="loop://")
assert type(link).__module__ == "drivers.shoe_link" and "drivers.shoe_link" in sys.modules
from drivers import buttons, shoe_sensors, tower_light
assert "gpiozero" not in sys.modules
for registry in (buttons.BACKENDS, shoe_sensors.BACKENDS, tower_light.BACKENDS):
    assert registry.names() == ["gpio", "sim"]
    for name in registry.names():
        registry.resolve(name)
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr


def test_a_backend_that_cannot_be_loaded_is_a_backend_error() -> None:
    from drivers.registry import Registry
    registry: Registry[object] = Registry("card reader", {"usb": "drivers.no_such_module:Reader"})
    with pytest.raises(BackendError, match="card reader backend 'usb' .* cannot be loaded"):
        registry.open("usb")


def test_readings_are_a_closed_set_of_frozen_values() -> None:
    import dataclasses
    import typing

    from drivers.readings import READING_TYPES, Reading
    assert set(typing.get_args(Reading)) == set(READING_TYPES)
    for kind in READING_TYPES:
        params = getattr(kind, "__dataclass_params__")
        assert params.frozen, kind
        assert all(f.init for f in dataclasses.fields(kind))
