"""The tower light on GPIO: green ready, amber waiting for the dealer, red fault; interface and backends.

Three gpiozero LEDs on a pin factory passed in; exactly one lamp is lit per state (none for `off`).
The controller sets the state; it reports no readings.

Backends: `gpio` and `sim` (mock factory; the state is readable as `get tower_light` on a
`drivers.gpio_sim.SimPanel`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from drivers.errors import BackendError
from drivers.registry import Registry

LightState = Literal["ready", "waiting", "fault", "off"]
LAMPS: Mapping[str, str | None] = {"ready": "green", "waiting": "amber", "fault": "red", "off": None}
DEFAULT_PINS: Mapping[str, int] = {"green": 23, "amber": 24, "red": 25}


class TowerLight(Protocol):
    """What every tower light backend offers."""

    device: str

    @property
    def state(self) -> LightState:
        ...

    def set(self, state: LightState) -> None:
        """Show `state`. Raises BackendError for a state that is not one of LAMPS."""
        ...

    def close(self) -> None:
        ...


BACKENDS: Registry[TowerLight] = Registry("tower light", {
    "gpio": "drivers.tower_light:GpioTowerLight",
    "sim": "drivers.tower_light:SimTowerLight",
})


def open_tower_light(backend: str, **options: Any) -> TowerLight:
    """Build the tower light from configuration. Raises BackendError for an unknown backend or option."""
    return BACKENDS.open(backend, **options)


class GpioTowerLight:
    """Three gpiozero LEDs, keyed `green`, `amber`, `red` in `pins`. Starts `off`."""

    def __init__(self, pin_factory: Any, pins: Mapping[str, int] = DEFAULT_PINS, device: str = "tower_light") -> None:
        from gpiozero import LED

        if pin_factory is None:
            raise BackendError(f"{device}: a pin factory must be given (none is taken from the environment)")
        if set(pins) != {"green", "amber", "red"}:
            raise BackendError(f"{device}: pins must name green, amber and red, got {', '.join(sorted(pins))}")
        self.device = device
        self._lock = threading.Lock()
        self._state: LightState = "off"
        self.lamps: dict[str, Any] = {}
        try:
            for colour, pin in pins.items():
                self.lamps[colour] = LED(pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    @property
    def state(self) -> LightState:
        return self._state

    def set(self, state: LightState) -> None:
        if state not in LAMPS:
            raise BackendError(f"{self.device}: no light state {state!r} (states: {', '.join(LAMPS)})")
        with self._lock:
            lit = LAMPS[state]
            for colour, lamp in self.lamps.items():
                lamp.on() if colour == lit else lamp.off()
            self._state = state

    def close(self) -> None:
        for lamp in self.lamps.values():
            lamp.close()


class SimTowerLight(GpioTowerLight):
    """The tower light on gpiozero's mock factory; `panel` (a SimPanel or `host:port`) shows its state."""

    def __init__(self, pin_factory: Any = None, pins: Mapping[str, int] = DEFAULT_PINS, panel: Any = None,
                 device: str = "tower_light") -> None:
        from gpiozero.pins.mock import MockFactory

        from drivers.gpio_sim import SimPanel

        super().__init__(pin_factory or MockFactory(), pins, device=device)
        try:
            self.panel = SimPanel.shared(panel) if isinstance(panel, str) else panel
        except BackendError:  # the panel's address cannot be used: give the pins back
            super().close()
            raise
        if self.panel is not None:
            self.panel.add_output(device, lambda: self._state)

    def close(self) -> None:
        if self.panel is not None:
            self.panel.remove(self.device)
        super().close()
