"""`croupier firewall`: the nftables rules that hold each address on the floor network to a few connections to the table's sockets.

A flood of CURVE handshakes from one machine slows the feeds (docs/security.md): the handshake is the
controller's own work, done before ZAP can refuse a key. These rules cut such a flood in the kernel, per
source address, before the controller sees it: at most `--held` connections held at once to the table's
TCP ports (the feeds, the command channel, the display's pages) and at most `--rate` new ones a second
(bursts of `--burst`); beyond, the connection is reset. The ports are read from the table's configuration
(and the display's), the one place they are written; sockets on loopback or ipc are not reachable from the
floor and are left out, and the Pi's own processes (127.0.0.1, ::1) are never held. Nothing else is filtered:
the table `inet croupier` only limits, the floor network's own policy stays the network's.

    croupier firewall --config /etc/croupier/table.toml [--display /etc/croupier/display.toml]   print them
    croupier firewall ... --apply           load them (root: nft -f -), replacing the table's earlier ones

deploy/croupier-firewall.service loads them at boot, before the controller. Exit 2 when a file cannot be
used (named, with its section and key) or a port cannot be limited.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Iterable

from protocol.config import ConfigError, is_restricted_endpoint

TABLE = "croupier"
HELD, RATE, BURST = 32, 10, 40
"""A table's clients from one address: a display or the pit opens 2-6 sockets, a browser some 6-10
connections at a page's load; a ZeroMQ client reconnects at most ten times a second."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="FILE", help="the table's configuration (its [feed] and [commands] ports)")
    parser.add_argument("--display", metavar="FILE", help="the display's configuration (its [display] listen port)")
    parser.add_argument("--held", type=_positive, default=HELD, metavar="N",
                        help=f"connections one address may hold at once (default {HELD})")
    parser.add_argument("--rate", type=_positive, default=RATE, metavar="N",
                        help=f"new connections one address may open a second (default {RATE})")
    parser.add_argument("--burst", type=_positive, default=BURST, metavar="N",
                        help=f"new connections one address may open at once (default {BURST})")
    parser.add_argument("--apply", action="store_true", help="load the rules with nft (as root) instead of printing them")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return int(text)


def main(args: argparse.Namespace) -> int:
    try:
        ports = table_ports(args.config) + ([] if args.display is None else display_ports(args.display))
    except ConfigError as exc:
        print(f"croupier firewall: {exc}", file=sys.stderr)
        return 2
    sources = [args.config] + ([] if args.display is None else [args.display])
    text = ruleset(ports, args.held, args.rate, args.burst, sources)
    if not args.apply:
        sys.stdout.write(text)
        return 0
    nft = shutil.which("nft") or "/usr/sbin/nft"
    try:
        done = subprocess.run([nft, "-f", "-"], input=text, capture_output=True, text=True, timeout=30)
    except OSError as exc:
        print(f"croupier firewall: cannot run nft ({exc}): install nftables (apt install nftables)", file=sys.stderr)
        return 1
    if done.returncode != 0:
        print(f"croupier firewall: nft refused the rules: {done.stderr.strip()}", file=sys.stderr)
        return 1
    held = ", ".join(str(p) for p, _ in ports) or "none"
    print(f"croupier firewall: table inet {TABLE} loaded: ports {held}; from one address at most {args.held} "
          f"held, {args.rate} new a second (bursts of {args.burst})")
    return 0


Port = tuple[int, str]
"""A TCP port and where the configuration gives it ("table.toml [feed] public")."""


def table_ports(path: str) -> list[Port]:
    """The table's TCP ports reachable from the floor, each named by its file, section and key."""
    from firmware_host.service.config import Config, endpoints
    return list(_tcp_ports(path, endpoints(Config.load(path))))


def display_ports(path: str) -> list[Port]:
    """The display's pages port, when it listens off loopback."""
    from firmware_host.display.config import DisplayConfig
    cfg = DisplayConfig.load(path)
    if is_restricted_endpoint(f"tcp://{cfg.host}:{cfg.port}"):
        return []
    if cfg.port == 0:
        raise ConfigError(f"{path}: [display] listen: port 0 is any free port, which a firewall cannot name: "
                          "give the port")
    return [(cfg.port, f"{path} [display] listen")]


def _tcp_ports(path: str, given: Iterable[tuple[str, str, str]]) -> Iterable[Port]:
    for section, key, where in given:
        if not where.startswith("tcp://") or is_restricted_endpoint(where):
            continue
        port = where.rpartition(":")[2]
        if not port.isdigit() or int(port) == 0:
            raise ConfigError(f"{path}: [{section}] {key}: {where!r} binds any free port, which a firewall cannot "
                              "name: give the port")
        yield int(port), f"{path} [{section}] {key}"


def ruleset(ports: list[Port], held: int, rate: int, burst: int, sources: list[str]) -> str:
    """The nftables script: the table `inet croupier` made anew (loading it twice leaves one)."""
    lines = [f"# Croupier: per-address limits on new connections to the table's sockets ({' and '.join(sources)};",
             "# made by `croupier firewall`, docs/security.md). Only limits: nothing else is filtered.",
             f"table inet {TABLE}", f"delete table inet {TABLE}", f"table inet {TABLE} {{"]
    for family, kind in (("v4", "ipv4_addr"), ("v6", "ipv6_addr")):
        lines.append(f"\tset held_{family} {{ type {kind}; flags dynamic; size 65535; }}")
        lines.append(f"\tset pace_{family} {{ type {kind}; flags dynamic,timeout; timeout 1m; size 65535; }}")
    lines += ["\tchain input {", "\t\ttype filter hook input priority filter; policy accept;"]
    for port, where in ports:
        lines.append(f"\t\t# {port}: {where}")
    if ports:
        dports = "{ " + ", ".join(str(p) for p in sorted({p for p, _ in ports})) + " }"
        lines += ["\t\tip saddr 127.0.0.1 accept comment \"the Pi's own processes\"",
                  "\t\tip6 saddr ::1 accept comment \"the Pi's own processes\""]
        for family, addr in (("v4", "ip saddr"), ("v6", "ip6 saddr")):
            lines.append(f"\t\ttcp dport {dports} ct state new add @held_{family} {{ {addr} ct count over {held} }} "
                         f"counter reject with tcp reset comment \"more than {held} connections held from one address\"")
            lines.append(f"\t\ttcp dport {dports} ct state new update @pace_{family} {{ {addr} limit rate over "
                         f"{rate}/second burst {burst} packets }} counter reject with tcp reset "
                         f"comment \"more than {rate} new connections a second from one address\"")
    lines += ["\t}", "}", ""]
    return "\n".join(lines)
