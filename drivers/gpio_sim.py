"""The simulated GPIO panel: a small line-protocol TCP server that presses buttons and trips sensors on mock pins.

In the simulated table the controller runs its buttons, sensors and tower light on gpiozero's
`MockFactory` in its own process. Bots in other processes reach those mock pins through this
panel (the `sim` backends register their pins on it), so the controller's real gpiozero code
path, hold timer included, is what the bots exercise.

Protocol: one request per line (UTF-8, `\\n`-terminated), one reply line each, `ok ...` or
`err <reason>`:

    list                    ok <name>=<kind> ...        (kind: input or output)
    press NAME              ok    make input NAME active, then inactive (a tap)
    hold NAME SECONDS       ok    active, wait SECONDS (0..30), inactive; replies after release
    down NAME | up NAME     ok    make NAME active / inactive and leave it so
    set NAME on|off         ok    the same, for sensors
    get NAME                ok <value>   an input's on/off, or an output's value (tower light: its state)
    ping                    ok pong
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from typing import Any

from drivers.errors import BackendError, DeviceError

log = logging.getLogger(__name__)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        for raw in self.rfile:
            try:
                reply = self.server.panel.command(raw.decode("utf-8", "replace").strip())
            except Exception as exc:  # a bad request must never take the panel down
                log.exception("sim panel: request %r failed", raw)
                reply = f"err {exc}"
            self.wfile.write((reply + "\n").encode())


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    panel: SimPanel


class SimPanel:
    """Named mock inputs and outputs, driven over a TCP line protocol (see the module docstring)."""

    _shared: dict[str, SimPanel] = {}
    _shared_lock = threading.Lock()

    def __init__(self, host: str = "127.0.0.1", port: int = 0, sleep: Callable[[float], None] = time.sleep) -> None:
        """Listen on `host:port` (0: any free port) and serve from a thread.

        Raises BackendError (its `option` is `panel`, the sim backends' option) naming the address
        when it cannot be listened on (in use, or not this machine's)."""
        self._inputs: dict[str, tuple[Any, bool]] = {}  # name -> (mock pin, active_low)
        self._outputs: dict[str, Callable[[], str]] = {}
        self._lock = threading.Lock()
        self._sleep = sleep
        try:
            self._server = _Server((host, port), _Handler)
        except OSError as exc:  # the address in use, or not one of this machine's
            raise BackendError(f"sim panel cannot listen on {host}:{port}: {exc.strerror or exc}",
                               option="panel") from None
        self._server.panel = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="sim-panel", daemon=True)
        self._thread.start()

    @classmethod
    def shared(cls, address: str) -> SimPanel:
        """The process's panel on `address` (`host:port`), started on first use.

        Raises BackendError (option `panel`) when `address` is not `host:port` or cannot be listened on."""
        with cls._shared_lock:
            panel = cls._shared.get(address)
            if panel is None:
                try:
                    host, port = parse_address(address)
                except BackendError as exc:
                    raise BackendError(str(exc), option="panel") from None
                panel = cls._shared[address] = cls(host, port)
            return panel

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        with self._shared_lock:
            for key, panel in list(self._shared.items()):
                if panel is self:
                    del self._shared[key]

    def add_input(self, name: str, pin: Any, active_low: bool) -> None:
        """Make mock `pin` (a gpiozero MockPin) drivable as `name`. Raises BackendError if taken."""
        with self._lock:
            if name in self._inputs or name in self._outputs:
                raise BackendError(f"sim panel: {name!r} is already registered")
            self._inputs[name] = (pin, active_low)

    def add_output(self, name: str, read: Callable[[], str]) -> None:
        """Make an output readable as `name` through `get`. Raises BackendError if taken."""
        with self._lock:
            if name in self._inputs or name in self._outputs:
                raise BackendError(f"sim panel: {name!r} is already registered")
            self._outputs[name] = read

    def remove(self, *names: str) -> None:
        with self._lock:
            for name in names:
                self._inputs.pop(name, None)
                self._outputs.pop(name, None)

    def drive(self, name: str, active: bool) -> None:
        """Set input `name` active or not. Raises DeviceError for an unknown input."""
        with self._lock:
            entry = self._inputs.get(name)
        if entry is None:
            raise DeviceError(f"no input {name!r} (inputs: {', '.join(sorted(self._inputs)) or 'none'})")
        pin, active_low = entry
        if active != active_low:
            pin.drive_high()
        else:
            pin.drive_low()

    def command(self, line: str) -> str:
        """Run one request line; return its reply line."""
        words = line.split()
        if not words:
            return "err empty request"
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "ping" and not args:
                return "ok pong"
            if verb == "list" and not args:
                kinds = [f"{n}=input" for n in sorted(self._inputs)] + [f"{n}=output" for n in sorted(self._outputs)]
                return "ok " + " ".join(kinds)
            if verb in ("press", "down", "up") and len(args) == 1:
                if verb in ("press", "down"):
                    self.drive(args[0], True)
                if verb in ("press", "up"):
                    self.drive(args[0], False)
                return "ok"
            if verb == "hold" and len(args) == 2:
                seconds = float(args[1])
                if not 0 <= seconds <= 30:
                    return "err hold seconds must be within 0..30"
                self.drive(args[0], True)
                try:
                    self._sleep(seconds)
                finally:
                    self.drive(args[0], False)
                return "ok"
            if verb == "set" and len(args) == 2 and args[1] in ("on", "off"):
                self.drive(args[0], args[1] == "on")
                return "ok"
            if verb == "get" and len(args) == 1:
                name = args[0]
                if name in self._outputs:
                    return "ok " + self._outputs[name]()
                if name in self._inputs:
                    pin, active_low = self._inputs[name]
                    return "ok " + ("on" if bool(pin.state) != active_low else "off")
                return f"err no input or output {name!r}"
        except (DeviceError, ValueError) as exc:
            return f"err {exc}"
        return f"err bad request {line!r} (list, press, hold, down, up, set, get, ping)"


def parse_address(address: str) -> tuple[str, int]:
    """`host:port` (or `tcp://host:port`) as a pair. Raises BackendError naming the text."""
    text = address.removeprefix("tcp://")
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise BackendError(f"not a host:port address: {address!r}")
    return host, int(port)


class LineClient:
    """A blocking client for the line protocols of the sim panel and the sim shoe's control port."""

    def __init__(self, address: str | tuple[str, int], timeout: float = 5.0) -> None:
        host, port = parse_address(address) if isinstance(address, str) else address
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._file = self._sock.makefile("rwb")

    def request(self, line: str) -> str:
        """Send one request, return the reply line (without newline). Raises DeviceError on `err`
        replies and on a closed connection."""
        self._file.write(line.encode() + b"\n")
        self._file.flush()
        reply = self._file.readline().decode().rstrip("\n")
        if not reply:
            raise DeviceError(f"connection closed while waiting for the reply to {line!r}")
        if reply.startswith("err"):
            raise DeviceError(reply[4:] or reply)
        return reply[3:] if reply.startswith("ok ") else ""

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def __enter__(self) -> LineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
