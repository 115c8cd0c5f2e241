"""`croupier firewall`: its nftables rules name the configured ports and, loaded in a throw-away network namespace, cut a flood from one address while another gets in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from protocol import keys

NFT = shutil.which("nft") or "/usr/sbin/nft"
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists(NFT) or shutil.which("unshare") is None,
                             reason="needs root, nft and unshare (CI runs as root; the Makefile installs nftables)")


def table_config(root: Path, public: str = "tcp://0.0.0.0:15556") -> Path:
    """A secure table whose public feed, snapshot and command channel face the floor, its full feed on ipc and loopback."""
    keys.create(root / "table", "table", "table")
    keys.create(root / "clients", "display", "display")
    path = root / "table.toml"
    path.write_text(textwrap.dedent(f"""\
        [table]
        name = "t1"
        game = "uth"
        [feed]
        public = "{public}"
        snapshot = "tcp://0.0.0.0:15557"
        full = "ipc://{root}/full.sock"
        full_snapshot = "tcp://127.0.0.1:15559"
        [commands]
        endpoint = "tcp://0.0.0.0:15555"
        [security]
        server_key = "{root}/table/table.key_secret"
        clients = "{root}/clients"
        """), encoding="utf-8")
    return path


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "firewall", *args], capture_output=True, text=True, timeout=60)


def test_the_rules_limit_exactly_the_ports_the_floor_can_reach(tmp_path: Path) -> None:
    done = croupier("--config", str(table_config(tmp_path)), "--held", "8", "--rate", "3", "--burst", "5")
    assert done.returncode == 0, done.stderr
    rules = done.stdout
    dports = "tcp dport { 15555, 15556, 15557 }"
    assert rules.count(dports) == 4, rules  # held and pace, IPv4 and IPv6; 15559 (loopback) and ipc left out
    assert "15559" not in rules and "full.sock" not in rules
    assert "ct count over 8" in rules and "limit rate over 3/second burst 5 packets" in rules
    assert "ip saddr 127.0.0.1 accept" in rules and "policy accept" in rules
    assert f"# 15556: {tmp_path}/table.toml [feed] public" in rules


@pytest.mark.parametrize("public, words", [
    ("tcp://0.0.0.0:*", "[feed] public: 'tcp://0.0.0.0:*' binds any free port, which a firewall cannot name"),
    ("udp://0.0.0.0:1", "[feed] public: must be a ZeroMQ endpoint"),
])
def test_a_port_it_cannot_limit_or_a_bad_file_is_named_exit_2(tmp_path: Path, public: str, words: str) -> None:
    done = croupier("--config", str(table_config(tmp_path, public)))
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""


def test_a_limit_of_zero_is_refused_in_words(tmp_path: Path) -> None:
    done = croupier("--config", str(table_config(tmp_path)), "--held", "0")
    assert done.returncode == 2 and "--held: must be a whole number of at least 1, not '0'" in done.stderr


FLOOD = """
import socket, subprocess, sys, time
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

def apply(held, burst):
    subprocess.run([sys.executable, "-m", "cli", "firewall", "--config", sys.argv[1], "--held", held, "--rate", "2",
                    "--burst", burst, "--apply"], check=True, capture_output=True)
    tables = subprocess.run(["nft", "list", "tables"], check=True, capture_output=True, text=True).stdout
    return tables.split().count("croupier")

servers = []
for port in (15555, 15556, 15557):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", port)); s.listen(128)
    servers.append(s)

def connect(source, port=15556):
    c = socket.socket(); c.bind((source, 0)); c.settimeout(2)
    try:
        c.connect(("127.0.0.1", port))
        return c
    except OSError:
        c.close()
        return None

print("tables", apply("6", "40"))
held = [connect("127.0.0.2", port) for port in (15555, 15556, 15557) * 4]
print("held", sum(c is not None for c in held))
print("another", connect("127.0.0.3") is not None)
print("local", sum(connect("127.0.0.1") is not None for _ in range(40)))
print("again", apply("40", "8"))  # loaded again with other limits: still one table, the new limits
paced = [connect("127.0.0.4") for _ in range(20)]
print("paced", sum(c is not None for c in paced))
time.sleep(1.1)
print("later", connect("127.0.0.4") is not None)
"""


@AS_ROOT
def test_loaded_the_rules_cut_a_flood_from_one_address_and_let_another_in(tmp_path: Path) -> None:
    script = tmp_path / "flood.py"
    script.write_text(FLOOD, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(["unshare", "--net", sys.executable, str(script), str(table_config(tmp_path))],
                          capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    seen = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert seen["tables"] == seen["again"] == "1"  # loaded twice: one table
    assert seen["held"] == "6"            # 12 connections tried from one address, 6 held
    assert seen["another"] == "True"      # another address still gets in
    assert seen["local"] == "40"          # the Pi's own processes are never held
    assert seen["paced"] == "8"           # 20 opened at once from one address: the burst's 8 let in
    assert seen["later"] == "True"        # and the rate's next one a moment later
