"""The shoe's sensors on GPIO (card-out beam, shoe present, lid open): readings, interface, backends.

Each sensor is a gpiozero `DigitalInputDevice` on a pin factory passed in (lgpio on a Pi, the mock
factory in simulation and tests). A change reaches `on_reading` as `SensorChange(name, active)`,
on gpiozero's callback thread, `name` a `Sensor`. `active` means: `card_out` the beam is broken
by a card, `shoe_present` the shoe sits in its place, `lid_open` the lid is open.

Backends: `gpio` (pins on the injected factory) and `sim` (a mock factory, plus the pins exposed
on a `drivers.gpio_sim.SimPanel` so bots in other processes can trip them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from drivers.errors import BackendError, DeviceError
from drivers.readings import OnReading, Sensor, SensorChange
from drivers.registry import Registry

__all__ = ["BACKENDS", "DEFAULT_PINS", "GpioShoeSensors", "SensorChange", "ShoeSensors", "SimShoeSensors",
           "open_shoe_sensors"]

DEFAULT_PINS: Mapping[str, int] = {Sensor.CARD_OUT: 17, Sensor.SHOE_PRESENT: 27, Sensor.LID_OPEN: 22}


class ShoeSensors(Protocol):
    """What every sensor backend offers."""

    device: str

    def start(self) -> dict[Sensor, bool]:
        """Begin reporting; posts and returns each sensor's current state."""
        ...

    def state(self, name: str) -> bool:
        """Whether sensor `name` is active now. Raises BackendError for an unknown name."""
        ...

    def close(self) -> None:
        ...


BACKENDS: Registry[ShoeSensors] = Registry("shoe sensor", {
    "gpio": "drivers.shoe_sensors:GpioShoeSensors",
    "sim": "drivers.shoe_sensors:SimShoeSensors",
})


def open_shoe_sensors(backend: str, on_reading: OnReading, **options: Any) -> ShoeSensors:
    """Build the shoe's sensors from configuration. Raises BackendError for an unknown backend or option."""
    return BACKENDS.open(backend, on_reading=on_reading, **options)


def _sensor_names(pins: Mapping[str, int], device: str) -> dict[Sensor, int]:
    try:
        return {Sensor.parse(name): pin for name, pin in pins.items()}
    except DeviceError as exc:
        raise BackendError(f"{device}: {exc}") from None


class GpioShoeSensors:
    """Sensors on gpiozero input devices. `pull_up=True`: a sensor is active when its pin is low."""

    def __init__(self, on_reading: OnReading, pin_factory: Any, pins: Mapping[str, int] = DEFAULT_PINS,
                 pull_up: bool = True, bounce_time: float | None = None, device: str = "shoe_sensors") -> None:
        from gpiozero import DigitalInputDevice

        if pin_factory is None:
            raise BackendError(f"{device}: a pin factory must be given (none is taken from the environment)")
        self.device = device
        self._on_reading = on_reading
        self._started = False
        self.inputs: dict[Sensor, Any] = {}
        named = _sensor_names(pins, device)
        try:
            for name, pin in named.items():
                self.inputs[name] = DigitalInputDevice(pin, pull_up=pull_up, bounce_time=bounce_time,
                                                       pin_factory=pin_factory)
        except Exception:
            self.close()
            raise
        self.pull_up = pull_up

    def start(self) -> dict[Sensor, bool]:
        states = {name: bool(dev.is_active) for name, dev in self.inputs.items()}
        for name, dev in self.inputs.items():
            dev.when_activated = self._poster(name, True)
            dev.when_deactivated = self._poster(name, False)
        self._started = True
        for name, active in states.items():
            self._on_reading(SensorChange(name, active))
        return states

    def _poster(self, name: Sensor, active: bool) -> Callable[[], None]:
        def post() -> None:
            self._on_reading(SensorChange(name, active))
        return post

    def state(self, name: str) -> bool:
        try:
            dev = self.inputs.get(Sensor.parse(name))
        except DeviceError:
            dev = None
        if dev is None:
            raise BackendError(f"{self.device}: no sensor {name!r} (sensors: {', '.join(sorted(self.inputs))})")
        return bool(dev.is_active)

    def close(self) -> None:
        for dev in self.inputs.values():
            dev.close()


class SimShoeSensors(GpioShoeSensors):
    """The sensors on gpiozero's mock factory; `panel` (a SimPanel, or `host:port` of the process's
    shared one) lets other processes trip them by name; `initial` sets their state at start."""

    def __init__(self, on_reading: OnReading, pin_factory: Any = None, pins: Mapping[str, int] = DEFAULT_PINS,
                 panel: Any = None, device: str = "shoe_sensors",
                 initial: Mapping[str, bool] | None = None) -> None:
        from gpiozero.pins.mock import MockFactory

        from drivers.gpio_sim import SimPanel

        super().__init__(on_reading, pin_factory or MockFactory(), pins, pull_up=True, device=device)
        for name, active in ({Sensor.SHOE_PRESENT: True} if initial is None else initial).items():
            dev = self.inputs.get(Sensor.parse(name))
            if dev is not None:
                pin = dev.pin
                pin.drive_low() if active else pin.drive_high()
        try:
            self.panel = SimPanel.shared(panel) if isinstance(panel, str) else panel
        except BackendError:  # the panel's address cannot be used: give the pins back
            super().close()
            raise
        if self.panel is not None:
            for name, dev in self.inputs.items():
                self.panel.add_input(name, dev.pin, active_low=True)

    def close(self) -> None:
        if self.panel is not None:
            self.panel.remove(*self.inputs)
        super().close()
