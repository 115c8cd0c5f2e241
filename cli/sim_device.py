"""What `croupier sim-shoe` and `croupier sim-chips` share: an emulated device's options, and its serving until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

from drivers.gpio_sim import parse_address
from sim.device import CannotListen, DeviceServer


def version(text: str) -> tuple[int, int, int]:
    """MAJOR.MINOR.PATCH, each 0..255. Raises argparse.ArgumentTypeError."""
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() and int(p) < 256 for p in parts):
        raise argparse.ArgumentTypeError(f"not a firmware version MAJOR.MINOR.PATCH: {text!r}")
    return int(parts[0]), int(parts[1]), int(parts[2])


def address(text: str) -> tuple[str, int]:
    """HOST:PORT. Raises argparse.ArgumentTypeError."""
    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_link_arguments(parser: argparse.ArgumentParser, control: str) -> None:
    """`--pty` or `--tcp HOST:PORT`, and `--control HOST:PORT` (what its requests do: `control`)."""
    link = parser.add_mutually_exclusive_group()
    link.add_argument("--pty", action="store_true", help="serve on a new pty (the default); its path is printed")
    link.add_argument("--tcp", type=address, metavar="HOST:PORT",
                      help="serve on a TCP port instead (the host opens socket://HOST:PORT; port 0 picks one)")
    parser.add_argument("--control", type=address, default=("127.0.0.1", 0), metavar="HOST:PORT",
                        help=f"the control port for {control} (default 127.0.0.1:0)")


def add_identity_arguments(parser: argparse.ArgumentParser, model: str) -> None:
    """What the device says in HELLO (`--model`, `--serial`, `--firmware`, `--boot`), `--baud` and `-v`."""
    parser.add_argument("--model", default=model, help="model name said in HELLO")
    parser.add_argument("--serial", default="SIM0001", help="serial number said in HELLO")
    parser.add_argument("--firmware", type=version, default=(1, 0, 0), metavar="X.Y.Z",
                        help="firmware version said in HELLO (default 1.0.0; major 2 is refused by the host)")
    parser.add_argument("--boot", type=int, default=None, help="boot id said in HELLO (default: random)")
    parser.add_argument("--baud", type=int, default=None,
                        help="pace the output as a serial line of this rate would (e.g. 115200; default unpaced)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to standard error")


def start(args: argparse.Namespace, name: str) -> int:
    """Logging as `-v` asks; the boot id said in HELLO (`--boot`, else random)."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format=f"%(asctime)s {name} %(levelname)s %(message)s")
    return int(args.boot if args.boot is not None else int.from_bytes(os.urandom(4), "big"))


def serve(args: argparse.Namespace, name: str, make: Callable[..., DeviceServer], said: dict[str, object]) -> int:
    """Make the server (`make(link=..., tcp=..., control=..., baud=...)`), print one JSON line
    `{"port": ..., "control": "host:port", **said}` once serving, and run until SIGTERM/SIGINT. Returns 0; 2,
    with one line naming the option and the address, when `--tcp` or `--control` cannot be listened on."""
    try:
        if args.tcp is not None:
            server = make(link="tcp", tcp=args.tcp, control=args.control, baud=args.baud)
        else:
            server = make(link="pty", control=args.control, baud=args.baud)
    except CannotListen as exc:  # the address in use, or not this machine's: said in one line
        print(f"croupier {name}: --{'tcp' if exc.role == 'link' else 'control'}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    host, port = server.control_address
    print(json.dumps({"port": server.port_url, "control": f"{host}:{port}", **said}), flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.close()
    return 0
