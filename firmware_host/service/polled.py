"""A device the controller's loop serves: its descriptor kept on the poller, and pumped when due."""

from __future__ import annotations

import logging
from typing import Any

import zmq

from firmware_host.service.waits import Waits

log = logging.getLogger("croupier.controller")


class Polled:
    """A device served from the controller's loop: its descriptor as registered and when it is due."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.fd: int | None = None
        self.due = 0.0

    def watch(self, poller: Waits) -> None:
        """Keep the poller on the device's current descriptor (a reopened port has a new one)."""
        fd = self.device.fileno()
        if fd != self.fd:
            if self.fd is not None:
                poller.unregister(self.fd)
            if fd is not None:
                poller.register(fd, zmq.POLLIN)
            self.fd = fd

    def pump(self, now: float) -> None:
        try:
            due = self.device.pump()
        except Exception:  # a device's bug never takes the table down
            log.exception("device %r", self.device)
            due = 0.5
        self.due = now + due if due > 0 else now
