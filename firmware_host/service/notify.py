"""systemd's readiness and watchdog notifications (sd_notify), for a `Type=notify` service.

The protocol is a few lines, written here rather than taken from a library (`sdnotify`,
`systemd-python`): one datagram of `KEY=VALUE` lines to the AF_UNIX socket that systemd names in
`$NOTIFY_SOCKET` (a leading `@` meaning Linux's abstract namespace, that is a leading NUL byte).
A dependency for four lines would be one more package to install and keep up to date on every
Pi; `systemd-python` would also need libsystemd's headers to build. See sd_notify(3).

    READY=1       start-up is done: devices, journal and sockets are up
    WATCHDOG=1    still alive; systemd kills the service when none comes for `$WATCHDOG_USEC`
    STOPPING=1    a clean stop has begun
    STATUS=...    one line for `systemctl status`

Without `$NOTIFY_SOCKET` (not under systemd, the tests, a technician's shell) every call is a
no-op. Sending never stops the table: a failed send is logged once and then only counted.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections.abc import Callable, Mapping

log = logging.getLogger("croupier.notify")


class Notifier:
    """Sends sd_notify datagrams to `address` (None: every call a no-op).

    `watchdog_s` is systemd's watchdog timeout in seconds (None: no watchdog); `watchdog()` pings
    at most once per half of it, systemd's advice, so it may be called on every turn of a loop.
    """

    def __init__(self, address: str | None, *, watchdog_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.address = address
        self.watchdog_s = watchdog_s if address is not None else None
        self.clock = clock
        self.failures = 0
        self._sock: socket.socket | None = None
        self._next_ping = -math.inf

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """The notifier systemd asks for through `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID`
        (read once, here). A missing or unusable `$NOTIFY_SOCKET` gives a notifier that does nothing;
        the watchdog is off without `$WATCHDOG_USEC` or when `$WATCHDOG_PID` names another process."""
        env = os.environ if environ is None else environ
        raw = env.get("NOTIFY_SOCKET", "")
        address: str | None = None
        if raw.startswith("@"):
            address = "\0" + raw[1:]
        elif raw.startswith("/"):
            address = raw
        elif raw:  # vsock:... and the like: not for a controller on its own Pi
            log.warning("NOTIFY_SOCKET=%r is not an AF_UNIX socket: no notifications", raw)
        watchdog_s: float | None = None
        usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
        if usec and (not pid or pid == str(os.getpid())):
            try:
                watchdog_s = int(usec) / 1_000_000 if int(usec) > 0 else None
            except ValueError:
                log.warning("WATCHDOG_USEC=%r is not a number of microseconds: no watchdog pings", usec)
        return cls(address, watchdog_s=watchdog_s)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def ready(self, status: str = "") -> None:
        """Start-up is done: systemd starts the units that wait for this one, and the watchdog."""
        self._send("READY=1" + (f"\nSTATUS={_line(status)}" if status else ""))

    def status(self, text: str) -> None:
        self._send(f"STATUS={_line(text)}")

    def stopping(self, status: str = "") -> None:
        self._send("STOPPING=1" + (f"\nSTATUS={_line(status)}" if status else ""))

    def watchdog(self) -> float:
        """Ping the watchdog unless it was pinged less than half its timeout ago. Returns the seconds
        until the next ping is due (infinity without a watchdog): a loop's longest wait."""
        if self.watchdog_s is None:
            return math.inf
        now = self.clock()
        if now >= self._next_ping:
            self._next_ping = now + self.watchdog_s / 2
            self._send("WATCHDOG=1")
        return self._next_ping - now

    def _send(self, message: str) -> None:
        if self.address is None:
            return
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            # Never block the table's loop: a full queue on systemd's side is a failed send.
            self._sock.sendto(message.encode("utf-8"), socket.MSG_DONTWAIT, self.address)
        except OSError as exc:
            self.failures += 1
            if self.failures == 1:
                log.warning("cannot notify systemd at %r (%s); further failures not logged",
                            self.address, exc)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _line(text: str) -> str:
    """A STATUS value: one line (a newline would start another KEY=VALUE)."""
    return " ".join(text.splitlines())
