"""Readings every device kind shares (online, offline, fault), and the callback type that receives them.

Readings are frozen values. A device's reader thread or GPIO callback builds one and hands it to
`on_reading`; the controller's callback only puts it in the table's inbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class DeviceOnline:
    """The device said who it is and was accepted. `boot` changes each time the device restarts."""

    device: str
    model: str
    serial: str
    firmware: str
    boot: int


@dataclass(frozen=True, slots=True)
class DeviceOffline:
    """The device went away: port closed, connection lost, or silent past its heartbeat."""

    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """The device or its link did something that stops the hand (sequence gap, refused firmware, ...)."""

    device: str
    reason: str


OnReading = Callable[[Any], None]
"""Receives every reading of a device. Runs on the device's thread: keep it short (post to a queue)."""
