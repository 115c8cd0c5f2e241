"""`croupier run` with a device it cannot open: one line naming the file, section and key, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path


def test_run_with_the_gpio_panel_port_in_use_names_the_key(tmp_path: Path) -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    address = "127.0.0.1:%d" % taken.getsockname()[1]
    config = tmp_path / "table.toml"
    config.write_text(f"""
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = "ipc://{tmp_path}/full"
full_snapshot = "ipc://{tmp_path}/fsnap"
[commands]
endpoint = "ipc://{tmp_path}/cmd"
[gpio]
backend = "sim"
panel = "{address}"
""")
    try:
        proc = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config),
                               "--state", str(tmp_path / "state"), "--log-level", "ERROR"],
                              capture_output=True, text=True, timeout=60)
    finally:
        taken.close()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("croupier run:")]
    assert said == [f"croupier run: {config}: [gpio] panel: sim panel cannot listen on {address}: "
                    "Address already in use"]


def _config(tmp_path: Path, section: str) -> Path:
    config = tmp_path / "table.toml"
    config.write_text(f"""
[feed]
public = "ipc://{tmp_path}/pub"
snapshot = "ipc://{tmp_path}/snap"
full = "ipc://{tmp_path}/full"
full_snapshot = "ipc://{tmp_path}/fsnap"
[commands]
endpoint = "ipc://{tmp_path}/cmd"
{section}
""")
    return config


def test_run_takes_a_swipe_at_a_seat_from_its_player_card_reader(tmp_path: Path) -> None:
    import time

    from firmware_host.service.journal import Journal

    reader = socket.create_server(("127.0.0.1", 0))  # the reader's serial line, as socket://
    config = _config(tmp_path, f'[player_cards]\nbackend = "serial"\nurl = "socket://127.0.0.1:{reader.getsockname()[1]}"\n'
                               'seat = 4\n')
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", "--config", str(config), "--state",
                             str(tmp_path / "state"), "--log-level", "ERROR"], stderr=subprocess.PIPE, text=True)
    try:
        reader.settimeout(30)
        line, _ = reader.accept()

        def journaled(kind: str) -> list[dict[str, object]]:
            """The journal's events of `kind`, once there are some (waits up to 30 s)."""
            deadline, seen = time.monotonic() + 30, []
            while not seen and time.monotonic() < deadline and proc.poll() is None:
                if (tmp_path / "state" / "journal.sqlite3").exists():
                    journal = Journal.open(tmp_path / "state", readonly=True)
                    seen = [e.body for e in journal.events() if e.kind == kind]
                    journal.close()
                time.sleep(0.05)
            return seen

        # the reader online first: pyserial empties a socket's input when it opens it
        assert journaled("device")[0]["device"] == "player_cards"
        line.sendall(b";6001234567890=25121010000?\r\n")
        seen = journaled("player")
        assert seen == [{"seat": 4, "action": "in", "card": "6001234567890", "source": "reader",
                         "device": "player_cards"}]
        line.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.close()


def test_run_with_a_player_card_reader_it_cannot_open_names_the_key(tmp_path: Path) -> None:
    config = _config(tmp_path, '[player_cards]\nbackend = "keyboard"\npath = "/nonexistent/event-kbd"\n')
    proc = subprocess.run([sys.executable, "-m", "cli", "run", "--config", str(config), "--state",
                           str(tmp_path / "state"), "--log-level", "ERROR"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{config}: [player_cards] path: player_cards: cannot open /nonexistent/event-kbd" in proc.stderr
