"""The dealer's buttons on GPIO (confirm, next, void held 2 s): readings, interface, backends.

Each button is a gpiozero `Button` (pull-up, pressed when its pin is low) on a pin factory passed
in. A press reaches `on_reading` as `ButtonPress(name)`; a button listed in `hold_s` (the void
button, 2 s) posts only once held that long (gpiozero's `hold_time`), so a brush does nothing.

Backends: `gpio` and `sim` (mock factory, pins exposed on a `drivers.gpio_sim.SimPanel`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from drivers.errors import BackendError
from drivers.readings import ButtonPress, OnReading
from drivers.registry import Registry

__all__ = ["BACKENDS", "ButtonPress", "Buttons", "GpioButtons", "SimButtons", "open_buttons"]

DEFAULT_PINS: Mapping[str, int] = {"confirm": 5, "next": 6, "void": 13}
DEFAULT_HOLD_S: Mapping[str, float] = {"void": 2.0}


class Buttons(Protocol):
    """What every button backend offers."""

    device: str

    def start(self) -> None:
        ...

    def close(self) -> None:
        ...


BACKENDS: Registry[Buttons] = Registry("button", {
    "gpio": "drivers.buttons:GpioButtons",
    "sim": "drivers.buttons:SimButtons",
})


def open_buttons(backend: str, on_reading: OnReading, **options: Any) -> Buttons:
    """Build the dealer's buttons from configuration. Raises BackendError for an unknown backend or option."""
    return BACKENDS.open(backend, on_reading=on_reading, **options)


class GpioButtons:
    """Buttons on gpiozero. Readings start flowing at `start()`."""

    def __init__(self, on_reading: OnReading, pin_factory: Any, pins: Mapping[str, int] = DEFAULT_PINS,
                 hold_s: Mapping[str, float] = DEFAULT_HOLD_S, bounce_time: float | None = None,
                 device: str = "buttons") -> None:
        from gpiozero import Button, DigitalInputDevice

        if pin_factory is None:
            raise BackendError(f"{device}: a pin factory must be given (none is taken from the environment)")
        unknown = set(hold_s) - set(pins)
        if unknown:
            raise BackendError(f"{device}: hold time for unknown button(s) {', '.join(sorted(unknown))}")
        self.device = device
        self._on_reading = on_reading
        self._hold_s = dict(hold_s)
        self.buttons: dict[str, Any] = {}
        try:
            for name, pin in pins.items():
                if name in self._hold_s:
                    self.buttons[name] = Button(pin, pull_up=True, bounce_time=bounce_time,
                                                hold_time=self._hold_s[name], pin_factory=pin_factory)
                else:  # pressed only: a gpiozero `Button` would keep a thread polling for a hold ten times a second
                    self.buttons[name] = DigitalInputDevice(pin, pull_up=True, bounce_time=bounce_time,
                                                            pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def start(self) -> None:
        for name, button in self.buttons.items():
            if name in self._hold_s:
                button.when_held = self._poster(name)
            else:
                button.when_activated = self._poster(name)  # pressed: the pin pulled low

    def _poster(self, name: str) -> Callable[[], None]:
        def post() -> None:
            self._on_reading(ButtonPress(name))
        return post

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()


class SimButtons(GpioButtons):
    """The buttons on gpiozero's mock factory; `panel` (a SimPanel, or `host:port` of the process's
    shared one) lets other processes press them by name (`press confirm`, `hold void 2.2`)."""

    def __init__(self, on_reading: OnReading, pin_factory: Any = None, pins: Mapping[str, int] = DEFAULT_PINS,
                 hold_s: Mapping[str, float] = DEFAULT_HOLD_S, panel: Any = None, device: str = "buttons") -> None:
        from gpiozero.pins.mock import MockFactory

        from drivers.gpio_sim import SimPanel

        super().__init__(on_reading, pin_factory or MockFactory(), pins, hold_s, device=device)
        try:
            self.panel = SimPanel.shared(panel) if isinstance(panel, str) else panel
        except BackendError:  # the panel's address cannot be used: give the pins back
            super().close()
            raise
        if self.panel is not None:
            for name, button in self.buttons.items():
                self.panel.add_input(name, button.pin, active_low=True)

    def close(self) -> None:
        if self.panel is not None:
            self.panel.remove(*self.buttons)
        super().close()
