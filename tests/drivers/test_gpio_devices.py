"""Buttons, shoe sensors and the tower light on gpiozero's mock pins (factory injected), and the sim panel."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.buttons import ButtonPress, SimButtons, open_buttons
from drivers.errors import BackendError, DeviceError
from drivers.gpio_sim import LineClient, SimPanel
from drivers.shoe_sensors import SensorChange, open_shoe_sensors
from drivers.tower_light import open_tower_light


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def inbox() -> queue.Queue[Any]:
    return queue.Queue()


def drain(q: queue.Queue[Any]) -> list[Any]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def test_buttons_post_presses(factory: MockFactory, inbox: queue.Queue[Any]) -> None:
    buttons = open_buttons("gpio", inbox.put, pin_factory=factory, pins={"confirm": 5, "next": 6, "void": 13})
    buttons.start()
    pin = factory.pin(5)
    pin.drive_low()
    pin.drive_high()
    factory.pin(6).drive_low()
    assert drain(inbox) == [ButtonPress("confirm"), ButtonPress("next")]
    buttons.close()


def test_void_tap_does_nothing(factory: MockFactory, inbox: queue.Queue[Any]) -> None:
    buttons = open_buttons("gpio", inbox.put, pin_factory=factory)  # void held 2 s
    buttons.start()
    void, confirm = factory.pin(13), factory.pin(5)
    void.drive_low()
    void.drive_high()
    confirm.drive_low()
    assert inbox.get(timeout=5) == ButtonPress("confirm")
    assert drain(inbox) == []
    buttons.close()


def test_void_held_posts_once(factory: MockFactory, inbox: queue.Queue[Any]) -> None:
    # The hold time is gpiozero's own timer, shortened here so the test does not wait 2 s.
    buttons = open_buttons("gpio", inbox.put, pin_factory=factory, hold_s={"void": 0.05})
    buttons.start()
    void = factory.pin(13)
    void.drive_low()
    assert inbox.get(timeout=5) == ButtonPress("void")
    void.drive_high()
    assert drain(inbox) == []
    buttons.close()


def test_sensors_report_start_state_and_changes(factory: MockFactory, inbox: queue.Queue[Any]) -> None:
    sensors = open_shoe_sensors("gpio", inbox.put, pin_factory=factory)
    factory.pin(27).drive_low()  # shoe seated
    assert sensors.start() == {"card_out": False, "shoe_present": True, "lid_open": False}
    assert drain(inbox) == [SensorChange("card_out", False), SensorChange("shoe_present", True),
                            SensorChange("lid_open", False)]
    factory.pin(17).drive_low()   # a card breaks the beam
    factory.pin(17).drive_high()
    factory.pin(22).drive_low()   # lid opened
    assert drain(inbox) == [SensorChange("card_out", True), SensorChange("card_out", False),
                            SensorChange("lid_open", True)]
    assert sensors.state("lid_open") is True
    with pytest.raises(BackendError, match="no sensor 'door'"):
        sensors.state("door")
    sensors.close()


def test_tower_light_lights_one_lamp(factory: MockFactory) -> None:
    light = open_tower_light("gpio", pin_factory=factory)
    assert light.state == "off"
    expected = {"ready": (1, 0, 0), "waiting": (0, 1, 0), "fault": (0, 0, 1), "off": (0, 0, 0)}
    for state, lamps in expected.items():
        light.set(state)  # type: ignore[arg-type]
        assert (factory.pin(23).state, factory.pin(24).state, factory.pin(25).state) == lamps
        assert light.state == state
    with pytest.raises(BackendError, match="no light state 'blue'"):
        light.set("blue")  # type: ignore[arg-type]
    assert light.state == "off"
    light.close()


def test_unknown_backend_and_missing_factory(inbox: queue.Queue[Any]) -> None:
    with pytest.raises(BackendError, match="unknown button backend 'lgpio'; known: gpio, sim"):
        open_buttons("lgpio", inbox.put)
    with pytest.raises(BackendError, match="pin factory must be given"):
        open_buttons("gpio", inbox.put, pin_factory=None)
    with pytest.raises(BackendError, match="unexpected keyword"):
        open_shoe_sensors("gpio", inbox.put, pin_factory=MockFactory(), colour="red")
    with pytest.raises(BackendError, match="hold time for unknown"):
        open_buttons("gpio", inbox.put, pin_factory=MockFactory(), hold_s={"reset": 1.0})


def test_sim_panel_drives_devices_from_another_connection(inbox: queue.Queue[Any]) -> None:
    panel = SimPanel("127.0.0.1", 0)
    try:
        buttons = open_buttons("sim", inbox.put, panel=panel, hold_s={"void": 0.05})
        sensors = open_shoe_sensors("sim", inbox.put, panel=panel)
        light = open_tower_light("sim", panel=panel)
        buttons.start()
        assert sensors.start()["shoe_present"] is True
        drain(inbox)
        light.set("waiting")
        with LineClient(panel.address) as client:
            assert client.request("ping") == "pong"
            assert client.request("press confirm") == ""
            assert inbox.get(timeout=5) == ButtonPress("confirm")
            client.request("hold void 0.2")
            assert inbox.get(timeout=5) == ButtonPress("void")
            client.request("set lid_open on")
            assert inbox.get(timeout=5) == SensorChange("lid_open", True)
            assert client.request("get lid_open") == "on"
            assert client.request("get tower_light") == "waiting"
            assert "confirm=input" in client.request("list")
            with pytest.raises(DeviceError, match="no input 'door'"):
                client.request("press door")
            with pytest.raises(DeviceError, match="bad request"):
                client.request("dance")
            assert client.request("ping") == "pong"  # still serving after errors
        assert drain(inbox) == []
        for device in (buttons, sensors, light):
            device.close()
        assert panel.command("list") == "ok "
    finally:
        panel.close()


def test_sim_buttons_without_panel_use_their_own_mock_pins(inbox: queue.Queue[Any]) -> None:
    buttons = SimButtons(inbox.put)
    buttons.start()
    buttons.buttons["next"].pin.drive_low()
    assert drain(inbox) == [ButtonPress("next")]
    buttons.close()


def test_a_panel_address_in_use_is_a_backend_error_naming_it_and_the_pins_are_given_back(
        inbox: queue.Queue[Any]) -> None:
    import socket
    taken = socket.create_server(("127.0.0.1", 0))
    address = "127.0.0.1:%d" % taken.getsockname()[1]
    factory = MockFactory()
    try:
        with pytest.raises(BackendError, match=f"sim panel cannot listen on {address}: ") as caught:
            open_shoe_sensors("sim", inbox.put, pin_factory=factory, panel=address)
        assert caught.value.option == "panel"
        # The pins taken before the panel failed were released: the same pins open again.
        sensors = open_shoe_sensors("sim", inbox.put, pin_factory=factory)
        sensors.close()
    finally:
        taken.close()


def test_sensor_names_are_the_sensor_enum(inbox: queue.Queue[Any], factory: MockFactory) -> None:
    from drivers.readings import Sensor
    sensors = open_shoe_sensors("gpio", inbox.put, pin_factory=factory, pins={"lid": 22, "card_out": 17})
    try:
        assert sensors.start() == {Sensor.LID_OPEN: False, Sensor.CARD_OUT: False}
        assert sensors.state("lid_open") is False and sensors.state("lid") is False
    finally:
        sensors.close()
    with pytest.raises(BackendError, match="no sensor 'beam'"):
        open_shoe_sensors("gpio", inbox.put, pin_factory=factory, pins={"beam": 17})
